"""reference/fast_profiles.py: training under a profile, fast where possible, always the dialect's rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.dialects import train_profile
from reference.fast_profiles import fast_train_profile, has_fast_engine
from reference.profiles import PROFILES

TRAINABLE = [profile for profile in PROFILES.values() if profile.tie_break is not None]
documents = st.lists(st.text(alphabet="abc", max_size=12), max_size=4)


@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
@given(documents=documents, max_merges=st.integers(0, 12))
def test_the_rules_are_the_dialects_rules(profile, documents, max_merges):
    """A profile's rules are what its literal dialect learns, whichever engine makes them."""
    assert fast_train_profile(documents, max_merges, profile) == train_profile(documents, max_merges, profile)


def test_only_profiles_that_train_like_strict_take_the_fast_engine():
    fast = {profile.name for profile in TRAINABLE if has_fast_engine(profile)}
    assert "strict" in fast and "largest-pair" not in fast and "minbpe" not in fast
    for name in fast:
        profile = PROFILES[name]
        assert (profile.tie_break, profile.min_count, profile.documents) == ("smallest-ids", 2, "separate")


def test_progress_reports_the_rounds_done_and_encode_only_profiles_cannot_train():
    seen: list[int] = []
    assert fast_train_profile(["abab", "acac"], 32, PROFILES["strict"], progress=seen.append) == [(97, 98), (97, 99)]
    assert seen[-1] == 2
    with pytest.raises(ValueError, match="encode-only"):
        fast_train_profile(["ab"], 1, PROFILES["tiktoken"])
