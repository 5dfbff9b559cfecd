"""A profile inferred one parameter at a time: each parameter's value, with the questions that tell it.

Whole-profile identification (:mod:`bpe_conformance.dialects.identify`) answers "none" for an
implementation that combines documented choices no named profile combines (first-seen ties with
documents kept apart, say). Here every parameter of :class:`~bpe_conformance.reference.profiles.Profile`
has its own questions (:data:`QUESTIONS`: small probes whose answer that parameter changes), and the
documented values of all parameters are tried together: a combination explains the implementation
when the literal reference under it predicts every answer. From the combinations that explain it,
each parameter's value is read off (``determined``, or ``undetermined`` among several the questions
cannot tell apart). When none explains it, the parameter whose own questions are the only ones left
unexplained is reported as fitting no documented value (a likely bug), with the question that showed
it; a probe that is no parameter's question (counting a run, say) left unexplained is a departure no
parameter explains.

The result names the closest named profile, the parameters that differ from it, and the custom
``--profile`` string (:mod:`bpe_conformance.reference.profile_spec`) that judges the implementation by
exactly those choices.

>>> from bpe_conformance.dialects.probes import ProfileModel
>>> from bpe_conformance.reference.profile_spec import parse_profile
>>> found = infer_parameters(lambda: ProfileModel(parse_profile("strict+tie=first-seen+min_count=1")))
>>> found.closest, found.differing, found.profile
('strict', ('tie_break=first-seen', 'min_count=1'), 'strict+tie_break=first-seen+min_count=1')
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bpe_conformance.dialects.probes import PROBES, Outcome, Probe, ProfileModel, describe_call, run_probe
from bpe_conformance.reference.alphabet import BYTE_COUNT
from bpe_conformance.reference.profile_spec import profile_spec
from bpe_conformance.reference.profiles import (
    DECODE_POLICIES,
    ENCODE_ALGORITHMS,
    PROFILES,
    STRICT,
    SURROGATE_POLICIES,
    TIE_BREAKS,
    Profile,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "MIN_COUNTS",
    "PARAMETER_PROBES",
    "PRE_TOKENIZATIONS",
    "QUESTIONS",
    "SEPARATORS",
    "Evidence",
    "ParameterFinding",
    "ParameterReport",
    "Status",
    "format_parameters",
    "infer_parameters",
]

# The parameters in the order they are reported (first_rule_id follows boundary_ids). ``split`` (a released
# pattern) is stated, never inferred: the probes tell only whether merges stop at a space, which
# pre_tokenization's stand-in pattern already reports; a pre-tokenizing trainer is judged under split=NAME.
_PARAMETERS = (
    "tie_break",
    "min_count",
    "documents",
    "document_separator",
    "boundary_ids",
    "pre_tokenization",
    "encode_algorithm",
    "decode_policy",
    "lone_surrogates",
)
# The values tried for the open-ended parameters: what the probes can tell apart.
MIN_COUNTS = (1, 2, 3)
SEPARATORS = ("", "\n", " ", "\n\n")
PRE_TOKENIZATIONS: tuple[str | None, ...] = (None, r" ?\S+|\s+")
_SPLIT_NOTE = "the probes tell only whether merges stop at spaces; a split is stated as ' ?\\S+|\\s+'"


def _probe(name: str, kind: str, clauses: str, why: str, **inputs: Any) -> Probe:
    return Probe(name, kind, tuple(clauses.split()), why, **inputs)


# Questions the whole-profile probes do not ask: a count of two against three, the separator, the numbering.
_EXTRA_PROBES = (
    _probe(
        "stop-pair-seen-twice",
        "train",
        "BPE-TRAIN-STOP",
        "(97,98) is seen twice: a minimum count of 3 stops",
        documents=("abab",),
        max_merges=1,
    ),
    _probe(
        "tie-hf-id-order-unsplit",
        "train",
        "BPE-TRAIN-TIE",
        "byte 1 sorts after letters in HF's alphabet, and no whitespace split cuts it off",
        documents=("\x01a\x01a", "bcbc"),
        max_merges=1,
    ),
    _probe(
        "documents-separator",
        "train",
        "BPE-TRAIN-DOCS BPE-TRAIN-INPUT",
        "one-byte documents: only a separator between them makes pairs, and the rules show its bytes",
        documents=("x", "x", "x"),
        max_merges=2,
    ),
    _probe(
        "rule-numbering",
        "train",
        "BPE-RULE-ID",
        "the second rule joins the first rule with itself: its id is 256 or 258",
        documents=("abab", "abab"),
        max_merges=2,
    ),
)
_TIE_QUESTIONS = (
    "tie-int-vs-first-seen",
    "tie-first-seen-vs-largest",
    "tie-int-vs-string-key",
    "tie-hf-id-order",
    "tie-ids-vs-pieces",
    "tie-hf-id-order-unsplit",
)
_DOUBLED = "-doubled"


def _doubled(probe: Probe) -> Probe:
    """``probe`` on its documents given twice: every count doubles, so a minimum count of 3 still lets it answer."""
    why = f"{probe.why}; each document given twice, so counts reach a minimum count of 3"
    return dataclasses.replace(probe, name=probe.name + _DOUBLED, why=why, documents=probe.documents * 2)


_BASE_PROBES = PROBES + _EXTRA_PROBES
_DOUBLED_QUESTIONS = (*_TIE_QUESTIONS, "documents-separate", "documents-separator")
PARAMETER_PROBES: tuple[Probe, ...] = _BASE_PROBES + tuple(
    _doubled(probe) for probe in _BASE_PROBES if probe.name in _DOUBLED_QUESTIONS
)


def _with_doubled(names: tuple[str, ...]) -> tuple[str, ...]:
    return names + tuple(name + _DOUBLED for name in names if name in _DOUBLED_QUESTIONS)


# The questions each parameter is told by; a probe in no list is every parameter's (none may explain it away).
QUESTIONS: dict[str, tuple[str, ...]] = {
    "tie_break": _with_doubled(_TIE_QUESTIONS),
    "min_count": ("stop-pairs-seen-once", "stop-pair-seen-twice"),
    "documents": _with_doubled(("documents-separate",)),
    "document_separator": _with_doubled(("documents-separator",)),
    "boundary_ids": ("rule-numbering", "decode-id-256"),
    "pre_tokenization": ("no-pre-tokenization",),
    "encode_algorithm": ("pair-rank-vs-piece-rank",),
    "decode_policy": ("decode-invalid-utf8", "decode-unknown-id"),
    "lone_surrogates": ("lone-surrogate",),
}
# What each kind of probe depends on (the cache key of a prediction).
_TRAINING = ("tie_break", "min_count", "documents", "document_separator", "boundary_ids", "pre_tokenization")
_DEPENDS = {
    "train": _TRAINING,
    "train-encode": (*_TRAINING, "encode_algorithm"),
    "load-encode": ("boundary_ids", "pre_tokenization", "encode_algorithm", "lone_surrogates"),
    "decode": ("boundary_ids", "decode_policy"),
}

Assignment = dict[str, Any]
_KINDS_OF = {parameter: {kind for kind, names in _DEPENDS.items() if parameter in names} for parameter in _PARAMETERS}


class Status(enum.Enum):
    """What the questions say of one parameter (stable slugs in JSON)."""

    DETERMINED = "determined"
    UNDETERMINED = "undetermined"
    NO_VALUE = "fits-no-value"
    NOT_ASKED = "not-asked"


@dataclass(frozen=True)
class Evidence:
    """One question: the call, the implementation's answer, and what each value of the parameter predicts."""

    question: str
    why: str
    call: str
    observed: str
    predictions: dict[str, str]
    explained: bool
    fitting: tuple[str, ...] = ()

    def to_dict(self) -> JSONObject:
        """A JSON-ready form."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class ParameterFinding:
    """One parameter: its status, the values consistent with every answer, and the evidence."""

    parameter: str
    status: Status
    values: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    note: str = ""

    def to_dict(self) -> JSONObject:
        """A JSON-ready form."""
        return {
            "parameter": self.parameter,
            "status": self.status.value,
            "values": list(self.values),
            "note": self.note,
            "evidence": [item.to_dict() for item in self.evidence],
        }


@dataclass(frozen=True)
class ParameterReport:
    """Every parameter, the closest named profile, what differs from it and the ``--profile`` to judge by."""

    findings: tuple[ParameterFinding, ...]
    closest: str
    differing: tuple[str, ...]
    profile: str | None
    unexplained: tuple[Evidence, ...] = ()

    @property
    def complete(self) -> bool:
        """Every answer is explained by documented values: ``profile`` judges the implementation."""
        return self.profile is not None

    def to_dict(self) -> JSONObject:
        """A JSON-ready form."""
        return {
            "parameters": [finding.to_dict() for finding in self.findings],
            "closest": self.closest,
            "differing": list(self.differing),
            "profile": self.profile,
            "unexplained": [item.to_dict() for item in self.unexplained],
        }


def _value_text(parameter: str, value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if parameter in ("document_separator", "pre_tokenization"):
        return repr(value)
    return str(value)


def _space(capabilities: frozenset[str]) -> dict[str, tuple[Any, ...]]:
    trains = "train" in capabilities
    return {
        "tie_break": TIE_BREAKS if trains else (None,),
        "min_count": MIN_COUNTS if trains else (STRICT.min_count,),
        "documents": ("separate", "concatenated") if trains else ("separate",),
        "document_separator": SEPARATORS if trains else ("",),
        "boundary_ids": (True, False),
        "pre_tokenization": PRE_TOKENIZATIONS,
        "encode_algorithm": ENCODE_ALGORITHMS,
        "decode_policy": DECODE_POLICIES,
        "lone_surrogates": SURROGATE_POLICIES,
    }


def _assignments(space: Mapping[str, tuple[Any, ...]]) -> list[Assignment]:
    combos = []
    for values in itertools.product(*(space[name] for name in _PARAMETERS)):
        assignment = dict(zip(_PARAMETERS, values, strict=True))
        if assignment["documents"] == "separate" and assignment["document_separator"]:
            continue  # a separator only joins documents
        combos.append(assignment)
    return combos


def _profile_of(assignment: Mapping[str, Any], name: str = "candidate") -> Profile:
    changes = dict(assignment)
    changes["first_rule_id"] = BYTE_COUNT + (2 if assignment["boundary_ids"] else 0)
    return dataclasses.replace(STRICT, name=name, description="a combination of documented values", **changes)


def _numbering(assignment: Mapping[str, Any]) -> int:
    return BYTE_COUNT + (2 if assignment["boundary_ids"] else 0)


def _observation_key(probe: Probe, assignment: Mapping[str, Any]) -> tuple[str, int | None]:
    return (probe.name, _numbering(assignment) if probe.kind == "load-encode" else None)


def _agrees(expected: Outcome, observed: Outcome) -> bool:
    # As Observation.explained_by: both raised is agreement on the dialect (the family is an interface matter).
    return expected.agrees_with(observed) or (not expected.ok and not observed.ok)


class _Predictor:
    """The literal reference's outcome of a probe under an assignment, computed once per relevant values."""

    def __init__(self) -> None:
        self._cache: dict[tuple[Any, ...], Outcome] = {}

    def __call__(self, probe: Probe, assignment: Mapping[str, Any]) -> Outcome:
        relevant = tuple(assignment[name] for name in _DEPENDS[probe.kind])
        key = (probe.name, relevant)
        if key not in self._cache:
            profile = _profile_of(assignment)
            self._cache[key] = run_probe(lambda: ProfileModel(profile), probe, profile.first_rule_id)
        return self._cache[key]


def _observe(
    factory: Callable[[], Any], probes: Iterable[Probe], known: Mapping[tuple[str, int | None], Outcome]
) -> dict[tuple[str, int | None], Outcome]:
    observed = dict(known)
    for probe in probes:
        for numbering in (BYTE_COUNT, BYTE_COUNT + 2) if probe.kind == "load-encode" else (None,):
            key = (probe.name, numbering)
            if key not in observed:
                observed[key] = run_probe(factory, probe, numbering if numbering is not None else BYTE_COUNT + 2)
    return observed


def _owner(probe: Probe) -> str | None:
    return next((name for name, questions in QUESTIONS.items() if probe.name in questions), None)


def _closest(consistent: list[Assignment]) -> tuple[str, Assignment]:
    """The named profile nearest some consistent assignment (fewest asked parameters differing), and that one."""
    best: tuple[int, int, str, Assignment] | None = None
    for order, (name, named) in enumerate(PROFILES.items()):
        for assignment in consistent:
            # Every parameter counts: one not asked holds the only value it can have (an encoder: no tie rule).
            distance = sum(assignment[p] != getattr(named, p) for p in _PARAMETERS)
            if best is None or (distance, order) < best[:2]:
                best = (distance, order, name, assignment)
    assert best is not None
    return best[2], best[3]


def _sensitive(probes: list[Probe], parameter: str, offered: frozenset[str], predict: _Predictor) -> frozenset[str]:
    """The probes whose prediction ``parameter`` changes, around every named profile's values: its own
    questions, and others it takes part in (a tie inside a training question, say)."""
    space = _space(offered)
    names = set(QUESTIONS[parameter])
    for named in PROFILES.values():
        base = {name: getattr(named, name) for name in _PARAMETERS}
        if any(base[name] not in space[name] for name in _PARAMETERS):
            continue
        for probe in probes:
            if probe.name in names or probe.kind not in _KINDS_OF[parameter]:
                continue
            outcomes = set()
            for value in space[parameter]:
                variant = {**base, parameter: value}
                if variant["documents"] == "separate" and variant["document_separator"]:
                    variant["documents"] = "concatenated"
                outcomes.add(repr(predict(probe, variant)))
            if len(outcomes) > 1:
                names.add(probe.name)
    return frozenset(names)


def infer_parameters(
    factory: Callable[[], Any],
    capabilities: Iterable[str] = ("train", "load", "encode", "decode"),
    known: Mapping[tuple[str, int | None], Outcome] | None = None,
) -> ParameterReport:
    """Each parameter's value for ``factory()`` instances, told by its own questions.

    ``known`` holds answers already observed (probe name and numbering, as identify runs them), so no
    probe is asked twice.
    """
    offered = frozenset(capabilities)
    probes = [probe for probe in PARAMETER_PROBES if probe.capabilities <= offered]
    observed = _observe(factory, probes, known or {})
    predict = _Predictor()
    combos = _assignments(_space(offered))
    asked = frozenset(owner for probe in probes if (owner := _owner(probe)) is not None)

    def explains(assignment: Assignment, probe: Probe) -> bool:
        return _agrees(predict(probe, assignment), observed[_observation_key(probe, assignment)])

    consistent = [combo for combo in combos if all(explains(combo, probe) for probe in probes)]
    # Only needed to place a departure: which answers each parameter can change.
    sensitive = {} if consistent else {p: _sensitive(probes, p, offered, predict) for p in asked}
    suspects: dict[str, list[Assignment]] = {}
    if not consistent:
        for parameter in asked:
            # The combinations that explain every answer this parameter cannot change; if none of them
            # explains the parameter's own questions too, no documented value of it does.
            others = [probe for probe in probes if probe.name not in sensitive[parameter]]
            own = [probe for probe in probes if probe.name in QUESTIONS[parameter]]
            rest = [combo for combo in combos if all(explains(combo, probe) for probe in others)]
            if rest and not any(all(explains(combo, probe) for probe in own) for combo in rest):
                suspects[parameter] = rest
    if consistent:
        pool = consistent
    else:
        # Of the combinations that explain everything a suspect cannot change (or of all, when no single
        # parameter explains the departure away), those that explain the most answers.
        candidates = [combo for rest in suspects.values() for combo in rest] or combos
        scores = [sum(explains(combo, probe) for probe in probes) for combo in candidates]
        top = max(scores)
        pool = [combo for combo, score in zip(candidates, scores, strict=True) if score == top]
    closest, chosen = _closest(pool)

    def evidence(probe: Probe, parameter: str | None) -> Evidence:
        outcome = observed[_observation_key(probe, chosen)]
        predictions = {}
        fitting = []
        for value in _space(offered)[parameter] if parameter is not None else (None,):
            variant = dict(chosen) if parameter is None else {**chosen, parameter: value}
            if variant["documents"] == "separate" and variant["document_separator"]:
                variant["documents"] = "concatenated"
            label = "profile" if parameter is None else _value_text(parameter, value)
            prediction = predict(probe, variant)
            predictions[label] = prediction.describe()
            if _agrees(prediction, observed[_observation_key(probe, variant)]):
                fitting.append(label)
        return Evidence(
            probe.name,
            probe.why,
            describe_call(probe, _numbering(chosen)),
            outcome.describe(),
            predictions,
            explains(chosen, probe),
            tuple(fitting),
        )

    findings = []
    for parameter in _PARAMETERS:
        questions = [probe for probe in probes if probe.name in QUESTIONS[parameter]]
        items = tuple(evidence(probe, parameter) for probe in questions)
        values = tuple(dict.fromkeys(_value_text(parameter, combo[parameter]) for combo in pool))
        note = _SPLIT_NOTE if parameter == "pre_tokenization" and chosen[parameter] is not None else ""
        if parameter not in asked:
            status, values = Status.NOT_ASKED, (_value_text(parameter, chosen[parameter]),)
        elif parameter in suspects and not consistent:
            status, values = Status.NO_VALUE, ()
            tried = ", ".join(_value_text(parameter, value) for value in _space(offered)[parameter])
            note = f"fits no value: likely a bug (tried {tried})"
        elif parameter == "document_separator" and chosen["documents"] == "separate":
            status, values = Status.DETERMINED, ("''",)
            note = "not applicable: documents are kept apart"
        else:
            status = Status.DETERMINED if len(values) == 1 else Status.UNDETERMINED
        findings.append(ParameterFinding(parameter, status, values, items, note))
    # An answer no parameter owns, left unexplained, and not one a suspect parameter changes.
    blamed = {name for parameter in suspects for name in sensitive[parameter]}
    unexplained = tuple(
        evidence(probe, None)
        for probe in probes
        if (_owner(probe) is None or not suspects) and probe.name not in blamed and not explains(chosen, probe)
    )
    named = PROFILES[closest]
    differing = tuple(
        f"{parameter}={_value_text(parameter, chosen[parameter])}"
        for parameter in _PARAMETERS
        if parameter not in suspects and chosen[parameter] != getattr(named, parameter)
    ) + tuple(f"{parameter}: fits no value" for parameter in _PARAMETERS if parameter in suspects)
    complete = bool(consistent)
    spec = profile_spec(_profile_of(chosen, "inferred"), closest) if complete else None
    return ParameterReport(tuple(findings), closest, differing, spec, unexplained)


def format_parameters(report: ParameterReport) -> list[str]:
    """The parameter report as lines: one per parameter with its deciding evidence, then the verdict."""
    lines = ["parameters (each told by its own questions):"]
    for finding in report.findings:
        if finding.status is Status.NO_VALUE:
            shown = finding.note
        elif finding.status is Status.UNDETERMINED:
            shown = f"undetermined: any of {', '.join(finding.values)}"
        elif finding.status is Status.NOT_ASKED:
            shown = f"{finding.values[0]} (not asked: the implementation lacks a capability its questions need)"
        else:
            shown = finding.values[0] + (f" ({finding.note})" if finding.note else "")
        lines.append(f"  {finding.parameter:<19} {shown}")
        if finding.status is Status.NO_VALUE:
            # Each question with the values that answer it so: no one value answers them all.
            shown_fits = {item.question: item.fitting for item in finding.evidence}
            for item in finding.evidence:
                plain = item.question.removesuffix(_DOUBLED)
                if plain != item.question and shown_fits.get(plain) == item.fitting:
                    continue  # the doubled question says what the plain one said
                fits = ", ".join(item.fitting) or "no value"
                lines.append(f"    question {item.question}: {item.call} {item.observed}; fits {fits}")
    for item in report.unexplained:
        lines.append(f"  no parameter explains question {item.question} ({item.why}): {item.call} {item.observed}")
        lines.append(f"    the values above predict: {item.predictions['profile']}")
    lines.append(f"closest named profile: {report.closest}")
    if report.differing:
        lines.append(f"differs from it in: {', '.join(report.differing)}")
    if report.profile is not None:
        lines.append(f"judge it by: --profile '{report.profile}'")
    else:
        lines.append("no custom profile explains every answer (see above)")
    return lines
