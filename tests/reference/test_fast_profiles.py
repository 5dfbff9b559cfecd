"""reference/fast_profiles.py: training under a profile, fast where possible, always the dialect's rules."""

from __future__ import annotations

import itertools
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.reference import fast_profiles
from bpe_conformance.reference.dialects import TIE_BREAK_FUNCTIONS, profile_pieces, train_profile, training_sequences
from bpe_conformance.reference.fast_profiles import fast_train_profile, has_fast_engine, id_ranks, profile_sequences
from bpe_conformance.reference.fast_training import numpy_available
from bpe_conformance.reference.profiles import PROFILES, TIE_BREAKS, Profile

NEEDS_NUMPY = pytest.mark.skipif(not numpy_available(), reason="numpy is not installed")
ENGINES = ["auto", "python", pytest.param("numpy", marks=NEEDS_NUMPY)]
TRAINABLE = [profile for profile in PROFILES.values() if profile.tie_break is not None]
UNLIMITED = 10_000

# Bytes whose ids have one, two and three digits (string keys), spaces for the chunks, UTF-8 of 2 and 3 bytes.
_CHARS = "ab c\n\t1é低"
runs = st.builds(lambda char, length: char * length, st.sampled_from(_CHARS), st.integers(1, 7))
words = st.text(alphabet=st.sampled_from(_CHARS), max_size=10)
documents = st.lists(st.lists(st.one_of(runs, words), max_size=3).map("".join), max_size=4)


def _with_copies(docs: list[str], copies: list[int]) -> list[str]:
    return docs + [docs[index % len(docs)] for index in copies] if docs else docs


corpora = st.builds(_with_copies, documents, st.lists(st.integers(0, 5), max_size=3))


def _variant(tie_break: str, min_count: int, documents_mode: str, pre_tokenization: str | None, first: int) -> Profile:
    return Profile(
        name=f"{tie_break}/{min_count}/{documents_mode}/{pre_tokenization}/{first}",
        description="every parameter a fast engine maps",
        tie_break=tie_break,
        min_count=min_count,
        documents="concatenated" if documents_mode != "separate" else "separate",
        document_separator="\n" if documents_mode == "concatenated-newline" else "",
        pre_tokenization=pre_tokenization,
        first_rule_id=first,
        boundary_ids=first == 258,
    )


VARIANTS = [
    _variant(*parameters)
    for parameters in itertools.product(
        TIE_BREAKS, (1, 2, 3), ("separate", "concatenated", "concatenated-newline"), (None, r" ?\S+|\s+"), (256, 258)
    )
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
@given(docs=corpora, cut=st.integers(0, 40))
def test_the_rules_are_the_dialects_rules(profile: Profile, engine: str, docs: list[str], cut: int) -> None:
    """A profile's rules are what its literal dialect learns, whichever engine makes them, trained to
    the natural stop and stopped early by max_merges."""
    literal = train_profile(docs, UNLIMITED, profile)
    assert fast_train_profile(docs, UNLIMITED, profile, engine=engine) == literal
    max_merges = cut % (len(literal) + 1)
    assert fast_train_profile(docs, max_merges, profile, engine=engine) == literal[:max_merges]


@NEEDS_NUMPY
@given(profile=st.sampled_from(VARIANTS), docs=corpora, engine=st.sampled_from(["auto", "numpy"]))
def test_every_combination_of_parameters_trains_like_its_dialect(
    profile: Profile, docs: list[str], engine: str
) -> None:
    """Every tie-break with min_count 1-3, separate or concatenated documents (with and without a
    separator), with and without pre-tokenization, ids from 256 or 258."""
    assert fast_train_profile(docs, UNLIMITED, profile, engine=engine) == train_profile(docs, UNLIMITED, profile)


_AB = ["".join(letters) for length in range(6) for letters in itertools.product("ab", repeat=length)]


@NEEDS_NUMPY
@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_every_small_ab_corpus_under_every_tie_break(tie_break: str) -> None:
    """Exhaustive: every {a, b} document up to length 5 alone, and every pair up to length 2, merging
    pairs seen once, documents apart and concatenated: ties everywhere."""
    corpora_checked = [[document] for document in _AB] + [
        list(pair) for pair in itertools.combinations_with_replacement([d for d in _AB if len(d) <= 2], 2)
    ]
    for mode in ("separate", "concatenated"):
        profile = _variant(tie_break, 1, mode, None, 256)
        for docs in corpora_checked:
            assert fast_train_profile(docs, UNLIMITED, profile, engine="numpy") == train_profile(
                docs, UNLIMITED, profile
            ), docs


@NEEDS_NUMPY
def test_first_seen_follows_the_first_window_as_it_moves_right() -> None:
    """minbpe's tie order is the first occurrence in the current sequence: after ``(c, d)`` is merged
    the first ``(d, a)`` window is gone and ``(a, b)``, first seen later before, now comes first."""
    profile = PROFILES["minbpe"]
    for docs in (["cdabcdab", "dada"], ["xcdaab" * 3, "dab"], ["ab" * 5 + "ba" * 5]):
        assert fast_train_profile(docs, UNLIMITED, profile) == train_profile(docs, UNLIMITED, profile)


@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
def test_a_pair_whose_count_fell_still_wins_when_it_is_best(profile: Profile) -> None:
    """``(b, e)`` is counted 4 times, loses one to the merge of ``(a, b)``, waits behind ``(c, d)``
    with its old count, and must then win with 3 against ``(f, g)`` counted twice: an out-of-date
    entry is put back with its current count and tie key, under every tie-break."""
    docs = ["ab"] * 4 + ["abe", "be", "be", "be", "cd", "cd", "cd", "cd", "fg", "fg"]
    literal = train_profile(docs, 4, profile)
    assert fast_train_profile(docs, 4, profile) == literal
    if profile.documents == "separate":
        assert [pair for pair in literal if pair[0] < 256 and pair[1] < 256] == [
            (97, 98),
            (99, 100),
            (98, 101),
            (102, 103),
        ]


@NEEDS_NUMPY
def test_counts_beyond_sixteen_bits_under_a_profile() -> None:
    """rustbpe's profile on a pair seen 70 000 times and pairs seen once. (BPE-TRAIN-COUNT)"""
    docs = ["ab" * 35_000, "xyz"]
    profile = PROFILES["rustbpe"]
    assert (
        fast_train_profile(docs, 4, profile)
        == train_profile(docs, 4, profile)
        == [
            (97, 98),
            (256, 256),
            (257, 257),
            (258, 258),
        ]
    )


@given(tied=st.lists(st.tuples(st.integers(0, 300), st.integers(0, 300)), min_size=1, max_size=8, unique=True))
def test_id_ranks_order_pairs_as_the_literal_tie_breaks(tied: list[tuple[int, int]]) -> None:
    """For the fixed orders, the smallest pair by ranks is the one the literal tie-break picks."""
    pieces = profile_pieces([], PROFILES["hf-tokenizers"]) + [b"x"] * 50
    for tie_break in ("smallest-ids", "largest-ids", "smallest-hf-ids", "smallest-string-key"):
        ranks = id_ranks(tie_break, 301) or list(range(301))
        # mypy cannot infer a lambda with a default argument (bound to fix the loop's ranks)
        by_ranks = min(tied, key=lambda pair, ranks=ranks: (ranks[pair[0]], ranks[pair[1]]))  # type: ignore[misc]
        assert by_ranks == TIE_BREAK_FUNCTIONS[tie_break](tied, pieces), tie_break


def test_id_ranks_are_a_permutation_and_reject_other_tie_breaks() -> None:
    for tie_break in ("largest-ids", "smallest-hf-ids", "smallest-string-key"):
        ranks = id_ranks(tie_break, 400)
        assert ranks is not None
        assert sorted(ranks) == list(range(400))
    assert id_ranks("smallest-string-key", 12) == [0, 1, 4, 5, 6, 7, 8, 9, 10, 11, 2, 3]
    with pytest.raises(ValueError, match="'first-seen' is not an order of ids"):
        id_ranks("first-seen", 10)


@given(docs=corpora, profile=st.sampled_from(VARIANTS))
def test_profile_sequences_are_the_dialects_sequences(docs: list[str], profile: Profile) -> None:
    assert [list(sequence) for sequence in profile_sequences(docs, profile)] == training_sequences(docs, profile)


def test_which_profiles_have_a_fast_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every trainable profile has one when numpy is installed; without numpy only the plain
    engine's smallest-ids profiles; an encode-only profile never."""
    assert not has_fast_engine(PROFILES["tiktoken"])
    assert all(has_fast_engine(profile) for profile in TRAINABLE) == numpy_available()
    monkeypatch.setitem(sys.modules, "numpy", None)
    fast = {profile.name for profile in TRAINABLE if has_fast_engine(profile)}
    assert fast == {"strict", "rustbpe", "bpeasy"}


def test_without_numpy_other_tie_breaks_run_the_literal_dialect(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def literal(docs: list[str], max_merges: int, profile: Profile) -> list[tuple[int, int]]:
        calls.append(profile.name)
        return train_profile(docs, max_merges, profile)

    monkeypatch.setattr(fast_profiles, "train_profile", literal)
    monkeypatch.setitem(sys.modules, "numpy", None)
    docs = ["abab cdcd", "abcd"]
    for profile in TRAINABLE:
        assert fast_train_profile(docs, UNLIMITED, profile) == train_profile(docs, UNLIMITED, profile)
    assert sorted(calls) == sorted(p.name for p in TRAINABLE if p.tie_break != "smallest-ids")


@NEEDS_NUMPY
def test_the_python_engine_asked_for_another_tie_break_runs_the_literal_dialect(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    # append's None on purpose: the stand-in records the call, then answers []
    monkeypatch.setattr(fast_profiles, "train_profile", lambda *args: calls.append("literal") or [])  # type: ignore[func-returns-value]
    assert fast_train_profile(["abab"], 5, PROFILES["minbpe"], engine="python") == []
    assert fast_train_profile(["abab"], 5, PROFILES["minbpe"], engine="numpy") == [(97, 98), (256, 256)]
    assert calls == ["literal"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
def test_progress_reports_every_round_and_the_end(profile: Profile, engine: str) -> None:
    seen: list[int] = []
    rules = fast_train_profile(["abab", "acac", "abab acac"], 32, profile, engine=engine, progress=seen.append)
    assert rules == train_profile(["abab", "acac", "abab acac"], 32, profile)
    assert seen[-1] == len(rules)
    assert seen[0] in (1, len(rules))
    if profile.tie_break == "smallest-ids" or (engine != "python" and numpy_available()):  # one call a round
        assert seen[:-1] == list(range(1, len(rules) + 1))


def test_bad_arguments_fail_as_in_the_literal_dialect() -> None:
    with pytest.raises(ValueError, match="encode-only"):
        fast_train_profile(["ab"], 1, PROFILES["tiktoken"])
    with pytest.raises(ValueError, match="engine must be one of auto, numpy, python, not 'gpu'"):
        fast_train_profile(["ab"], 1, PROFILES["strict"], engine="gpu")
    chunked = _variant("smallest-ids", 2, "separate", r"a+", 256)
    for train in (train_profile, fast_train_profile):
        with pytest.raises(ValueError, match="pre_tokenization pattern does not cover the text 'ab'"):
            train(["ab"], 1, chunked)
        with pytest.raises(TypeError):
            # wrong type on purpose: the call must be refused
            train("ab", 1, PROFILES["minbpe"])  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="max_merges must be non-negative, got -1"):
            train(["ab"], -1, PROFILES["minbpe"])
