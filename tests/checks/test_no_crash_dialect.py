"""A crash is never a dialect: a trainer that raises once no pair is left fails BPE-TRAIN-STOP under every
profile, and one that stops there passes, whatever profile it declares."""

from __future__ import annotations

from typing import Any

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import select_checks
from bpe_conformance.dialects.context import pairs_run_out
from bpe_conformance.dialects.probes import ProfileModel
from bpe_conformance.reference.profiles import PROFILES, Profile
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running.runner import run_checks
from bpe_conformance.settings import EFFORTS, active_effort_name

TRAINABLE = [profile for profile in PROFILES.values() if profile.tie_break is not None]


def trainer(profile: Any, crashes: bool) -> type:
    """The profile's own reference, declaring the profile; with ``crashes``, minbpe's ``max()`` of no pairs."""

    class Trainer:
        name = f"{profile.name}-{'crashes' if crashes else 'stops'}"

        def __init__(self) -> None:
            self.model = ProfileModel(profile)
            self.profile = profile.name

        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            if crashes and pairs_run_out(list(documents), max_merges, profile):
                raise ValueError("max() arg is an empty sequence")
            return self.model.train(documents, max_merges)

        def encode(self, text: str) -> list[int]:
            return self.model.encode(text)

        def decode(self, ids: list[int]) -> str:
            return self.model.decode(ids)

    return Trainer


def _stop_rule(implementation: type) -> CheckResult:
    (result,) = run_checks(
        select_checks(["stop-rule"]), InProcessSubject(implementation), EFFORTS[active_effort_name()]
    )
    return result


@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
def test_a_trainer_that_crashes_when_no_pair_is_left_fails_the_stop_rule(profile: Profile) -> None:
    result = _stop_rule(trainer(profile, crashes=True))
    assert (result.outcome, result.clause, result.level) == (Outcome.FAIL, "BPE-TRAIN-STOP", "algorithm")
    assert "no pair was left" in result.message
    assert "max() arg is an empty sequence" in result.message


def test_the_crash_is_one_finding_not_one_per_check() -> None:
    """Other checks have nothing to judge where training raised for want of pairs: they do not fail for it."""
    checks = select_checks(["tie-break", "greedy-selection", "round-trip", "decode-concatenates", "prefix"])
    results = run_checks(
        checks, InProcessSubject(trainer(PROFILES["minbpe"], crashes=True)), EFFORTS[active_effort_name()]
    )
    assert {result.check: result.message for result in results if result.outcome is not Outcome.PASS} == {}


@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
def test_a_trainer_that_stops_when_no_pair_is_left_passes_the_stop_rule(profile: Profile) -> None:
    result = _stop_rule(trainer(profile, crashes=False))
    assert result.outcome is Outcome.PASS, result.message


def test_raising_on_valid_input_where_pairs_remain_is_still_an_error_not_a_stop_finding() -> None:
    class RaisesAlways(trainer(PROFILES["strict"], crashes=False)):  # type: ignore[misc]
        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            raise ValueError("no")

    (result,) = run_checks(select_checks(["tie-break"]), InProcessSubject(RaisesAlways), EFFORTS[active_effort_name()])
    assert result.outcome is Outcome.ERROR
