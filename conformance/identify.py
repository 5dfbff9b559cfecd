"""Dialect identification: which profile(s) explain everything an implementation does.

:func:`identify` runs crafted probes through the implementation and through the literal
reference under every profile (:mod:`reference.dialects`), and compares outcomes. A raised
exception is an outcome like any other ("it raised"), never a crash of identify. A profile
explains an implementation when it predicts every observation; when none does, the report
names the closest profile (most observations explained) and the first observation it gets wrong.

Probes that load rules depend on the implementation's numbering (rules at 258 + r or 256 + r),
so they run once per numbering and each profile is judged only on the run in its own numbering.

>>> from reference import Tokenizer
>>> report = identify(Tokenizer)
>>> report.matches, report.closest
(['strict'], 'strict')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from reference.alphabet import FIRST_RULE_ID
from reference.dialects import check_profile_rules, decode_profile, encode_profile, train_profile
from reference.profiles import PROFILES, Profile

__all__ = [
    "CAPABILITIES",
    "CONTRACT_FAMILIES",
    "PROBES",
    "IdentifyReport",
    "Observation",
    "Outcome",
    "Probe",
    "ProfileModel",
    "candidate_profiles",
    "cannot_train",
    "capture",
    "describe_call",
    "error_family",
    "format_report",
    "identify",
    "implementation_capabilities",
    "observe_all",
    "profile_applies",
    "renumbered",
    "run_probe",
]

CAPABILITIES = ("train", "load", "encode", "decode")
_NOT_CAUGHT = (KeyboardInterrupt, SystemExit, GeneratorExit)


@dataclass(frozen=True)
class Outcome:
    """What one call sequence did: returned ``value``, or raised ``error`` (``"Type: message"``)."""

    ok: bool
    value: Any = None
    error: str = ""
    family: str = ""

    def agrees_with(self, other: Outcome) -> bool:
        """Both returned equal values, or both rejected the input as the contract says.

        A rejection is a ValueError or a TypeError (subclasses included); which of the two the
        specification prefers is a SHOULD, so the choice never separates profiles. Any other
        exception agrees only with the same type.

        >>> Outcome(False, error="ValueError: bad", family="ValueError").agrees_with(
        ...     Outcome(False, error="TypeError: bad", family="TypeError"))
        True
        >>> Outcome(False, error="ValueError: bad", family="ValueError").agrees_with(
        ...     Outcome(False, error="KeyError: 7", family="KeyError"))
        False
        """
        if self.ok or other.ok:
            return self.ok == other.ok and self.value == other.value
        return self.family == other.family or {self.family, other.family} <= CONTRACT_FAMILIES

    def describe(self) -> str:
        """A one-line account for reports."""
        return f"returned {self.value!r}" if self.ok else f"raised {self.error}"


def _normalized(value: Any) -> Any:
    # Lists of pairs come back as lists, tuples or numpy-free sequences; compare them as plain lists.
    if isinstance(value, (list, tuple)):
        return [tuple(item) if isinstance(item, (list, tuple)) else item for item in value]
    return value


def capture(call: Callable[[], Any]) -> Outcome:
    """Run ``call``; any exception (pyo3 panics included) becomes an error outcome."""
    try:
        return Outcome(True, _normalized(call()))
    except _NOT_CAUGHT:
        raise
    except BaseException as error:  # a library panic is BaseException; it is still just an answer
        return Outcome(False, error=f"{type(error).__name__}: {str(error)[:200]}", family=error_family(error))


CONTRACT_FAMILIES = frozenset({"ValueError", "TypeError"})


def error_family(error: BaseException) -> str:
    """The family a raised error belongs to: ValueError and TypeError (subclasses included), else its type name.

    >>> error_family(UnicodeDecodeError("utf-8", b"", 0, 1, "bad")), error_family(KeyError(1))
    ('ValueError', 'KeyError')
    """
    for family in (ValueError, TypeError):
        if isinstance(error, family):
            return family.__name__
    return type(error).__name__


@dataclass(frozen=True)
class Probe:
    """One crafted call sequence: ``kind`` is train, load-encode, train-encode or decode."""

    name: str
    kind: str
    clauses: tuple[str, ...]
    why: str
    documents: tuple[str, ...] = ()
    max_merges: int = 0
    rules: tuple[tuple[int, int], ...] = ()  # strict numbering; renumbered per run
    text: str = ""
    ids: tuple[int, ...] = ()

    @property
    def capabilities(self) -> frozenset[str]:
        """What an implementation must be able to do for this probe to run."""
        needed = {"train": {"train"}, "load-encode": {"load", "encode"}, "train-encode": {"train", "encode"}}
        return frozenset(needed.get(self.kind, {"decode"}))


def _probe(name: str, kind: str, clauses: str, why: str, **inputs: Any) -> Probe:
    return Probe(name, kind, tuple(clauses.split()), why, **inputs)


PROBES: tuple[Probe, ...] = (
    _probe(
        "tie-int-vs-first-seen",
        "train",
        "BPE-TRAIN-TIE",
        "(99,100) is seen first, (97,98) is smaller",
        documents=("cdcdabab",),
        max_merges=1,
    ),
    _probe(
        "tie-first-seen-vs-largest",
        "train",
        "BPE-TRAIN-TIE",
        "(97,98) is seen first and smaller",
        documents=("ababcdcd",),
        max_merges=1,
    ),
    _probe(
        "tie-int-vs-string-key",
        "train",
        "BPE-TRAIN-TIE",
        "'100,101' < '99,102' as text, not as integers",
        documents=("dedecfcf",),
        max_merges=1,
    ),
    _probe(
        "tie-hf-id-order",
        "train",
        "BPE-TRAIN-TIE",
        "space is 32 but sorts after letters in HF's alphabet",
        documents=(" a a", "bcbc"),
        max_merges=1,
    ),
    _probe(
        "tie-ids-vs-pieces",
        "train",
        "BPE-TRAIN-TIE",
        "rule 'aa' has a larger id but a smaller piece than 'b'",
        documents=("aaaa", "aacaac", "bcbc"),
        max_merges=2,
    ),
    _probe(
        "stop-pairs-seen-once", "train", "BPE-TRAIN-STOP", "every pair is seen once", documents=("abcd",), max_merges=1
    ),
    _probe(
        "stop-zero-merges",
        "train",
        "BPE-TRAIN-STOP BPE-TRAIN-MAXMERGES",
        "max_merges 0 makes no rule",
        documents=("abab",),
        max_merges=0,
    ),
    _probe(
        "pairs-run-out",
        "train",
        "BPE-TRAIN-STOP",
        "after (97,98) no pair is left, max_merges is not reached",
        documents=("ab", "ab"),
        max_merges=2,
    ),
    _probe(
        "documents-separate",
        "train",
        "BPE-TRAIN-DOCS BPE-TRAIN-INPUT",
        "(97,98) only spans documents",
        documents=("a", "b", "a", "b"),
        max_merges=1,
    ),
    _probe(
        "run-of-one-byte",
        "train",
        "BPE-TRAIN-COUNT BPE-MERGE-SCAN BPE-RULE-ID",
        "aaaaa: overlaps and ids",
        documents=("aaaaa",),
        max_merges=2,
    ),
    _probe(
        "recount-three-byte-char",
        "train",
        "BPE-TRAIN-RECOUNT BPE-TRAIN-TIE",
        "低 x 30, ties (189,142)",
        documents=("低" * 30,),
        max_merges=3,
    ),
    _probe(
        "worked-example-encode",
        "train-encode",
        "BPE-ENCODE-ORDER BPE-RULE-ID",
        "abab/acac then abac",
        documents=("abab", "acac"),
        max_merges=2,
        text="abac",
    ),
    _probe(
        "pair-rank-vs-piece-rank",
        "load-encode",
        "BPE-ENCODE-ORDER BPE-ENCODE-LOWEST",
        "'abc' is a piece, but its rule joins 'ab'+'c' and 'bc' comes first",
        rules=((98, 99), (97, 98), (259, 99)),
        text="abc",
    ),
    _probe(
        "no-pre-tokenization",
        "load-encode",
        "BPE-ENCODE-RAW",
        "merges cross a space",
        rules=((97, 32), (258, 98)),
        text="a b",
    ),
    _probe(
        "encode-scan", "load-encode", "BPE-MERGE-SCAN", "aaa with (a,a) gives [aa, a]", rules=((97, 97),), text="aaa"
    ),
    _probe(
        "lone-surrogate", "load-encode", "BPE-INPUT-TEXT", "U+DC80 has no UTF-8 encoding", rules=(), text="a\udc80b"
    ),
    _probe("decode-valid", "decode", "BPE-DECODE-BYTES", "a, 低 as three bytes, b", ids=(97, 228, 189, 142, 98)),
    _probe("decode-invalid-utf8", "decode", "BPE-DECODE-STRICT", "e4 bd is a cut character", ids=(228, 189)),
    _probe("decode-unknown-id", "decode", "BPE-DECODE-STRICT BPE-INPUT-IDS", "100000 is no id", ids=(97, 100000)),
    _probe(
        "decode-id-256", "decode", "BPE-ALPHA-BOUNDARY", "256 is a boundary (strict) or no id yet", ids=(97, 256, 98)
    ),
)


class ProfileModel:
    """The plug-in contract run by the literal reference under one profile (the expected side)."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.rules: list[tuple[int, int]] = []

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        self.rules = train_profile(documents, max_merges, self.profile)
        return list(self.rules)

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        self.rules = check_profile_rules(rules, self.profile)
        return list(self.rules)

    def encode(self, text: str) -> list[int]:
        return encode_profile(text, self.rules, self.profile)

    def decode(self, ids: list[int]) -> str:
        return decode_profile(ids, self.rules, self.profile)


def renumbered(rules: Iterable[tuple[int, int]], first_rule_id: int) -> list[tuple[int, int]]:
    """Strict-numbered rules moved so rule ``r`` is ``first_rule_id + r``."""
    shift = first_rule_id - FIRST_RULE_ID
    return [(_renumbered_id(first, shift), _renumbered_id(second, shift)) for first, second in rules]


def _renumbered_id(token_id: int, shift: int) -> int:
    return token_id if token_id < FIRST_RULE_ID else token_id + shift


def _call_sequence(instance: Any, probe: Probe, first_rule_id: int) -> Any:
    if probe.kind == "train":
        return instance.train(list(probe.documents), probe.max_merges)
    if probe.kind == "train-encode":
        instance.train(list(probe.documents), probe.max_merges)
        return instance.encode(probe.text)
    if probe.kind == "load-encode":
        instance.load(renumbered(probe.rules, first_rule_id))
        return instance.encode(probe.text)
    return instance.decode(list(probe.ids))


def run_probe(factory: Callable[[], Any], probe: Probe, first_rule_id: int = FIRST_RULE_ID) -> Outcome:
    """The outcome of ``probe`` on a fresh ``factory()`` (a failing factory is an error outcome too)."""
    return capture(lambda: _call_sequence(factory(), probe, first_rule_id))


def describe_call(probe: Probe, first_rule_id: int) -> str:
    """The probe as the calls it makes, for reports."""
    if probe.kind == "train":
        return f"train({list(probe.documents)!r}, {probe.max_merges})"
    if probe.kind == "train-encode":
        return f"train({list(probe.documents)!r}, {probe.max_merges}); encode({probe.text!r})"
    if probe.kind == "load-encode":
        return f"load({renumbered(probe.rules, first_rule_id)!r}); encode({probe.text!r})"
    return f"decode({list(probe.ids)!r})"


@dataclass(frozen=True)
class Observation:
    """One probe run: what the implementation did and what each applicable profile predicts."""

    probe: str
    clauses: tuple[str, ...]
    call: str
    observed: Outcome
    expected: dict[str, Outcome]
    probe_kind: str = "train"

    def explained_by(self, profile_name: str) -> bool:
        """True when ``profile_name`` applies here and predicts the algorithm's answer.

        An input the profile rejects and the implementation rejects with an exception outside the
        contract's families (``KeyError`` for an unknown id) is an interface deviation: reported by
        :meth:`deviates_from_interface`, it says nothing about which dialect the algorithm follows.
        """
        if profile_name not in self.expected:
            return False
        return self.expected[profile_name].agrees_with(self.observed) or self.deviates_from_interface(profile_name)

    def deviates_from_interface(self, profile_name: str) -> bool:
        """The profile rejects this input and the implementation raised, but not a ValueError or TypeError."""
        expected = self.expected.get(profile_name)
        return (
            expected is not None
            and not expected.ok
            and not self.observed.ok
            and not expected.agrees_with(self.observed)
        )


@dataclass(frozen=True)
class IdentifyReport:
    """Which profiles explain every observation; if none, the closest and its counterexample."""

    implementation: str
    declared_profile: str | None
    capabilities: tuple[str, ...]
    matches: list[str]
    closest: str
    explained: dict[str, int]
    applicable: dict[str, int]
    observations: list[Observation] = field(repr=False)
    counterexample: Observation | None = None
    cannot_train: bool = False
    interface_deviations: list[Observation] = field(default_factory=list, repr=False)

    @property
    def identified(self) -> bool:
        """Some profile explains every observation."""
        return bool(self.matches)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form of the report."""
        return {
            "implementation": self.implementation,
            "declared_profile": self.declared_profile,
            "capabilities": list(self.capabilities),
            "matches": self.matches,
            "closest": self.closest,
            "cannot_train": self.cannot_train,
            "interface_deviations": [
                _observation_dict(observation, self.closest) for observation in self.interface_deviations
            ],
            "explained": {name: [self.explained[name], self.applicable[name]] for name in self.explained},
            "counterexample": None
            if self.counterexample is None
            else _observation_dict(self.counterexample, self.closest),
            "observations": [_observation_dict(observation, None) for observation in self.observations],
        }


def _outcome_dict(outcome: Outcome) -> dict[str, Any]:
    return (
        {"ok": outcome.ok, "value": outcome.value, "error": outcome.error}
        if outcome.ok
        else {"ok": False, "error": outcome.error}
    )


def _observation_dict(observation: Observation, profile: str | None) -> dict[str, Any]:
    expected = observation.expected if profile is None else {profile: observation.expected[profile]}
    return {
        "probe": observation.probe,
        "clauses": list(observation.clauses),
        "call": observation.call,
        "observed": _outcome_dict(observation.observed),
        "expected": {name: _outcome_dict(outcome) for name, outcome in expected.items()},
    }


def implementation_capabilities(instance: Any) -> frozenset[str]:
    """The declared ``capabilities``, or else every contract method the object has."""
    declared = getattr(instance, "capabilities", None)
    if declared is not None:
        return frozenset(declared) & frozenset(CAPABILITIES)
    return frozenset(name for name in CAPABILITIES if callable(getattr(instance, name, None)))


def _model_factory(profile: Profile) -> Callable[[], ProfileModel]:
    return lambda: ProfileModel(profile)


def profile_applies(profile: Profile, probe: Probe, numbering: int | None) -> bool:
    """A profile predicts a probe in its own numbering, and only trains when it has a training algorithm.

    An encode-only profile "raising" on train is no prediction: it cannot train, it rejects nothing.
    """
    if numbering is not None and profile.first_rule_id != numbering:
        return False
    return profile.tie_break is not None or "train" not in probe.capabilities


def _observe(factory: Callable[[], Any], probe: Probe, profiles: list[Profile], numbering: int | None) -> Observation:
    applicable = [profile for profile in profiles if profile_applies(profile, probe, numbering)]
    own_numbering = numbering if numbering is not None else FIRST_RULE_ID
    expected = {
        profile.name: run_probe(_model_factory(profile), probe, profile.first_rule_id) for profile in applicable
    }
    return Observation(
        probe.name if numbering is None else f"{probe.name}@{numbering}",
        probe.clauses,
        describe_call(probe, own_numbering),
        run_probe(factory, probe, own_numbering),
        expected,
        probe.kind,
    )


def observe_all(factory: Callable[[], Any], capabilities: frozenset[str], profiles: list[Profile]) -> list[Observation]:
    """Every probe the implementation can run, once per rule numbering for probes that load rules."""
    numberings = sorted({profile.first_rule_id for profile in profiles})
    observations = []
    for probe in PROBES:
        if not probe.capabilities <= capabilities:
            continue
        for numbering in numberings if probe.kind == "load-encode" else [None]:
            observations.append(_observe(factory, probe, profiles, numbering))
    return observations


def identify(factory: Callable[[], Any], profiles: Iterable[Profile] | None = None) -> IdentifyReport:
    """Probe ``factory()`` instances and report which profiles explain everything they did."""
    candidates = list(PROFILES.values()) if profiles is None else list(profiles)
    sample = capture(factory)
    instance = sample.value if sample.ok else None
    capabilities = implementation_capabilities(instance) if sample.ok else frozenset()
    candidates = candidate_profiles(candidates, capabilities)
    observations = observe_all(factory, capabilities, candidates)
    applicable = {p.name: sum(p.name in o.expected for o in observations) for p in candidates}
    explained = {p.name: sum(o.explained_by(p.name) for o in observations) for p in candidates}
    matches = [name for name in explained if applicable[name] and explained[name] == applicable[name]]
    closest = matches[0] if matches else max(explained, key=lambda name: explained[name] - applicable[name])
    unexplained = (o for o in observations if closest in o.expected and not o.explained_by(closest))
    counterexample = None if matches else next(unexplained, None)
    return IdentifyReport(
        implementation=str(getattr(instance, "name", getattr(factory, "__qualname__", repr(factory)))),
        declared_profile=getattr(instance, "profile", None),
        capabilities=tuple(name for name in CAPABILITIES if name in capabilities),
        matches=matches,
        closest=closest,
        explained=explained,
        applicable=applicable,
        observations=observations,
        counterexample=counterexample,
        cannot_train=cannot_train(observations),
        interface_deviations=[o for o in observations if o.deviates_from_interface(closest)],
    )


def candidate_profiles(profiles: list[Profile], capabilities: frozenset[str]) -> list[Profile]:
    """The profiles that may explain an implementation: none that cannot train, when it offers train."""
    trainers = [profile for profile in profiles if profile.tie_break is not None]
    # With only encode-only profiles to choose from, judge on what they predict (cannot_train says the rest).
    return trainers if "train" in capabilities and trainers else list(profiles)


def cannot_train(observations: list[Observation]) -> bool:
    """The implementation offers train but raised on every train probe, where profiles return rules."""
    trained = [observation for observation in observations if observation.probe_kind.startswith("train")]
    return bool(trained) and not any(observation.observed.ok for observation in trained)


def format_report(report: IdentifyReport) -> str:
    """The report as plain text: verdict, score per profile, and the counterexample if any."""
    lines = [f"implementation: {report.implementation} (capabilities: {', '.join(report.capabilities) or 'none'})"]
    if report.cannot_train:
        lines.append("cannot train: train raised on every probe that trains (it offers train, so no encode-only "
                     "profile can explain it)")
    if report.declared_profile is not None:
        verdict = "confirmed" if report.declared_profile in report.matches else "NOT confirmed"
        lines.append(f"declared profile: {report.declared_profile} ({verdict})")
    if report.matches:
        lines.append(f"identified as: {', '.join(report.matches)}")
    else:
        lines.append(f"no profile explains every observation; closest: {report.closest}")
    for name in sorted(report.explained, key=lambda name: report.applicable[name] - report.explained[name]):
        lines.append(f"  {name:<14} explains {report.explained[name]}/{report.applicable[name]}")
    for deviation in report.interface_deviations:
        lines.append(f"interface deviation (not a dialect): probe {deviation.probe} ({', '.join(deviation.clauses)}): "
                     f"{deviation.call} {deviation.observed.describe()}; {report.closest} rejects it with "
                     f"{deviation.expected[report.closest].family}, the contract with ValueError or TypeError")
    if report.counterexample is not None:
        example = report.counterexample
        lines.append(f"counterexample against {report.closest}: probe {example.probe} ({', '.join(example.clauses)})")
        lines.append(f"  call:     {example.call}")
        lines.append(f"  expected: {example.expected[report.closest].describe()}")
        lines.append(f"  observed: {example.observed.describe()}")
    return "\n".join(lines)
