"""The hypothesis profile named by $BPE_HYPOTHESIS_PROFILE is the one the tests run under.

mutmut runs the tests from a copy of the project; if that copy missed the root conftest.py, every
property test would silently run with hypothesis's defaults (random, with a deadline and an example
database) instead of the derandomized ``mutation`` profile.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from bpe_conformance.settings import EFFORT_ENV_VAR, EFFORTS, active_effort_name


def test_the_active_hypothesis_profile_is_the_named_one() -> None:
    chosen = EFFORTS[active_effort_name()]
    active = settings.default
    assert active is not None
    assert (active.max_examples, active.derandomize, active.deadline, active.database) == (
        chosen.max_examples,
        chosen.derandomize,
        chosen.deadline,
        chosen.database,
    ), f"tests run under {active!r}, not under the profile {active_effort_name()!r}"


@pytest.mark.skipif(os.environ.get(EFFORT_ENV_VAR) != "mutation", reason="only under the mutation profile")
def test_the_mutation_profile_is_derandomized_without_deadline_or_database() -> None:
    active = settings.default
    assert active is not None
    assert active.derandomize
    assert active.deadline is None
    assert active.database is None
