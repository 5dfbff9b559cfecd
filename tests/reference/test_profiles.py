"""Named dialect profiles: their parameters, their names and the errors for bad ones."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import (
    BPEASY,
    FLASHBPE,
    HF_TOKENIZERS,
    LARGEST_PAIR,
    MINBPE,
    PROFILES,
    RUSTBPE,
    STRICT,
    STRING_KEY,
    SUBWORD_NMT,
    TIKTOKEN,
    TINYBPE,
    Profile,
    check_profile,
    get_profile,
)


def test_profile_names_are_the_documented_ones() -> None:
    assert list(PROFILES) == [
        "strict",
        "minbpe",
        "tinybpe",
        "hf-tokenizers",
        "subword-nmt",
        "largest-pair",
        "string-key",
        "rustbpe",
        "flashbpe",
        "bpeasy",
        "tiktoken",
    ]
    assert all(PROFILES[name].name == name for name in PROFILES)


def test_strict_profile_holds_the_values_of_bpe_md() -> None:
    assert (STRICT.tie_break, STRICT.min_count, STRICT.first_rule_id, STRICT.boundary_ids) == (
        "smallest-ids",
        2,
        258,
        True,
    )
    assert (STRICT.documents, STRICT.pre_tokenization, STRICT.encode_algorithm) == ("separate", None, "rank-order")
    assert (STRICT.decode_policy, STRICT.lone_surrogates) == ("strict", "error")


def test_no_profile_fails_when_pairs_run_out() -> None:
    """A crash is never a dialect: every trainable profile stops, with the rules made so far."""
    assert not any(hasattr(profile, "no_pairs_left") for profile in PROFILES.values())
    for profile in PROFILES.values():
        if profile.tie_break is not None:
            rules = train_profile(["ab", "c"], 8, profile)
            assert len(rules) < 8
            assert train_profile(["ab", "c"], len(rules), profile) == rules


@pytest.mark.parametrize(
    ("profile", "tie_break", "min_count", "documents", "encode_algorithm", "decode_policy"),
    [
        (MINBPE, "first-seen", 1, "concatenated", "rank-order", "replace"),
        (TINYBPE, "first-seen", 1, "concatenated", "rank-order", "strict"),
        (HF_TOKENIZERS, "smallest-hf-ids", 2, "separate", "rank-order", "skip-unknown"),
        (SUBWORD_NMT, "largest-pieces", 2, "separate", "rank-order", "strict"),
        (LARGEST_PAIR, "largest-ids", 2, "separate", "rank-order", "strict"),
        (STRING_KEY, "smallest-string-key", 2, "separate", "rank-order", "strict"),
        (RUSTBPE, "smallest-ids", 1, "separate", "rank-order", "strict"),
        (FLASHBPE, "smallest-hf-ids", 1, "separate", "rank-order", "strict"),
        (BPEASY, "smallest-ids", 1, "separate", "piece-rank", "replace"),
        (TIKTOKEN, None, 2, "separate", "piece-rank", "replace"),
    ],
)
def test_dialect_profiles_declare_their_differences(
    profile: Profile,
    tie_break: str | None,
    min_count: int,
    documents: str,
    encode_algorithm: str,
    decode_policy: str,
) -> None:
    assert (profile.tie_break, profile.min_count, profile.documents) == (tie_break, min_count, documents)
    assert (profile.encode_algorithm, profile.decode_policy) == (encode_algorithm, decode_policy)
    # Every library dialect numbers rules from 256 and has no boundary ids.
    assert (profile.first_rule_id, profile.boundary_ids) == (256, False)


def test_profiles_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        STRICT.min_count = 1  # type: ignore[misc]


def test_get_profile_returns_the_named_profile() -> None:
    assert get_profile("hf-tokenizers") is HF_TOKENIZERS


def test_get_profile_names_the_known_profiles_for_an_unknown_name() -> None:
    with pytest.raises(ValueError, match=r"unknown profile 'sentencepiece'; choose one of: strict, minbpe, "):
        get_profile("sentencepiece")


def test_get_profile_rejects_a_non_string() -> None:
    with pytest.raises(TypeError, match="profile name must be a str, not int"):
        get_profile(3)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tie_break": "random"}, "tie_break must be one of"),
        ({"documents": "shuffled"}, "documents must be one of"),
        ({"encode_algorithm": "longest-match"}, "encode_algorithm must be one of"),
        ({"decode_policy": "ignore"}, "decode_policy must be one of"),
        ({"lone_surrogates": "drop"}, "lone_surrogates must be one of"),
        ({"min_count": 0}, "min_count must be an int >= 1, got 0"),
        ({"min_count": True}, "min_count must be an int >= 1, got True"),
        ({"first_rule_id": 256}, "first_rule_id must be 258 when boundary_ids is True, got 256"),
        ({"boundary_ids": False}, "first_rule_id must be 256 when boundary_ids is False, got 258"),
        ({"split": "gpt4"}, r"split must be one of \['gpt2', 'cl100k', 'o200k', 'rustbpe'\] or None, got 'gpt4'"),
        ({"split": "gpt2", "pre_tokenization": "words"}, "give split or pre_tokenization, not both"),
    ],
)
def test_bad_profile_parameters_are_named(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Profile(name="bad", description="", **changes)


def test_check_profile_returns_a_valid_profile() -> None:
    assert check_profile(MINBPE) is MINBPE


def test_encode_only_profile_has_no_tie_break() -> None:
    assert Profile(name="encoder", description="", tie_break=None).tie_break is None
