"""Dialect identification: which profile(s) explain everything an implementation does.

:func:`identify` runs crafted probes through the implementation and through the literal
reference under every profile (:mod:`bpe_conformance.reference.dialects`), and compares outcomes. A raised
exception is an outcome like any other ("it raised"), never a crash of identify. A profile
explains an implementation when it predicts every observation; when none does, the report
names the closest profile (most observations explained) and the first observation it gets wrong.

Probes that load rules depend on the implementation's numbering (rules at 258 + r or 256 + r),
so they run once per numbering and each profile is judged only on the run in its own numbering.

>>> from bpe_conformance.reference import Tokenizer
>>> report = identify(Tokenizer)
>>> report.matches, report.closest
(['strict'], 'strict')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters import COMMAND_PREFIX, SHORTCUTS, load_implementation, split_spec
from bpe_conformance.adapters.contract import contract_factory
from bpe_conformance.adapters.limits import DEFAULT_LIMITS, ProcessLimits
from bpe_conformance.adapters.subprocess import DEFAULT_TIMEOUT
from bpe_conformance.dialects.parameters import ParameterReport, format_parameters, infer_parameters
from bpe_conformance.dialects.probes import (
    CAPABILITIES,
    PROBES,
    Outcome,
    Probe,
    ProfileModel,
    capture,
    describe_call,
    run_probe,
)
from bpe_conformance.reference.alphabet import FIRST_RULE_ID
from bpe_conformance.reference.profiles import PROFILES, Profile

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "IdentifyReport",
    "Observation",
    "candidate_profiles",
    "cannot_train",
    "format_report",
    "identify",
    "identify_spec",
    "implementation_capabilities",
    "observe_all",
    "profile_applies",
]


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
    parameters: ParameterReport | None = field(default=None, repr=False)

    @property
    def identified(self) -> bool:
        """Some named profile explains every observation."""
        return bool(self.matches)

    @property
    def judged_by_profile(self) -> bool:
        """Some named profile, or a custom one made of documented values, explains every answer."""
        return self.identified or (self.parameters is not None and self.parameters.complete)

    def to_dict(self) -> JSONObject:
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
            "parameters": None if self.parameters is None else self.parameters.to_dict(),
        }


def _outcome_dict(outcome: Outcome) -> JSONObject:
    return (
        {"ok": outcome.ok, "value": outcome.value, "error": outcome.error}
        if outcome.ok
        else {"ok": False, "error": outcome.error}
    )


def _observation_dict(observation: Observation, profile: str | None) -> JSONObject:
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


def _known_answers(observations: list[Observation]) -> dict[tuple[str, int | None], Outcome]:
    """The answers identify observed, keyed as parameter inference asks them (probe name, numbering)."""
    known: dict[tuple[str, int | None], Outcome] = {}
    for observation in observations:
        name, _, numbering = observation.probe.partition("@")
        known[(name, int(numbering) if numbering else None)] = observation.observed
    return known


def identify(
    factory: Callable[[], Any], profiles: Iterable[Profile] | None = None, *, parameters: bool = True
) -> IdentifyReport:
    """Probe ``factory()`` instances and report which profiles explain everything they did.

    With ``parameters`` (the default), each parameter is also inferred on its own
    (:mod:`~bpe_conformance.dialects.parameters`), reusing the answers already observed.
    """
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
        parameters=infer_parameters(factory, capabilities, _known_answers(observations))
        if parameters and sample.ok
        else None,
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
        lines.append(
            "cannot train: train raised on every probe that trains (it offers train, so no encode-only "
            "profile can explain it)"
        )
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
        lines.append(
            f"interface deviation (not a dialect): probe {deviation.probe} ({', '.join(deviation.clauses)}): "
            f"{deviation.call} {deviation.observed.describe()}; {report.closest} rejects it with "
            f"{deviation.expected[report.closest].family}, the contract with ValueError or TypeError"
        )
    if report.counterexample is not None:
        example = report.counterexample
        lines.append(f"counterexample against {report.closest}: probe {example.probe} ({', '.join(example.clauses)})")
        lines.append(f"  call:     {example.call}")
        lines.append(f"  expected: {example.expected[report.closest].describe()}")
        lines.append(f"  observed: {example.observed.describe()}")
    if report.parameters is not None:
        lines.extend(format_parameters(report.parameters))
    return "\n".join(lines)


def identify_spec(
    spec: str,
    isolation: str = "process",
    timeout: float = DEFAULT_TIMEOUT,
    limits: ProcessLimits = DEFAULT_LIMITS,
    extra: Iterable[Profile] = (),
) -> IdentifyReport:
    """Identify the implementation ``spec`` names (as ``run --impl`` takes it); HarnessError if it cannot load.

    Every implementation is probed through its subject (a fresh model per probe), so a hang, an
    exit or a ``SystemExit`` in it is an observation, never the end of the command. A ``cmd:``
    program always runs in its own process; ``module:attr`` runs where ``isolation`` says. ``extra``
    profiles (custom ones, ``identify --profile``) are judged beside the named ones.
    """
    stripped = spec.strip()
    if not stripped.startswith(COMMAND_PREFIX) and stripped not in SHORTCUTS:
        split_spec(stripped)  # module:attr, or the shortcuts `run` takes too
    subject = load_implementation(spec, isolation=isolation, timeout=timeout, limits=limits)
    try:
        added = [profile for profile in extra if profile.name not in PROFILES]
        return identify(contract_factory(subject), [*PROFILES.values(), *added] if added else None)
    finally:
        subject.close()
