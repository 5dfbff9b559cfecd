"""Every bug model of the diagnosis names its story, on a freshly imported copy (docs/mutation.md).

The models are built by functions when :mod:`conformance.diagnosis` is imported, and mutmut forks its
test processes after import, so these tests import a fresh copy to see the models as the source builds
them. Each rule list below is what a trainer with exactly one bug makes on those documents.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

import pytest

from reference.dialects import train_profile
from reference.profiles import LARGEST_PAIR, RUSTBPE, STRICT, SUBWORD_NMT, Profile

STORY = "the rules are exactly what a trainer with {} makes, here and on "
TIE, NOT_MAXIMAL, STOPPED, SEEN_ONCE, NEVER_SEEN = (
    "tie broken the other way",
    "pair not maximal",
    "stopped early",
    "merged a pair seen once",
    "merged a pair that does not occur",
)


@pytest.fixture
def diagnosis() -> ModuleType:
    """A new copy of conformance.diagnosis, its bug models built again (next to the imported one).

    One copy per test, not per module: mutmut links a function to the tests during which it ran, so
    each test must build the models itself to be run against a mutant of the function building them.
    """
    importlib.import_module("conformance.diagnosis")  # its dataclasses resolve names through sys.modules
    spec = importlib.util.find_spec("conformance.diagnosis")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_implementation(diagnosis: ModuleType, cause: str, profile: Profile = STRICT):
    """A trainer that is the bug model telling ``cause`` (the profile's own training where it changes nothing)."""
    (model,) = [
        model
        for index, (_, _, model) in enumerate(diagnosis.MODELS)
        if diagnosis.model_cause(index, profile) == cause
    ]

    def retrain(documents: list[str], max_merges: int) -> list:
        rules = model(documents, max_merges, profile)
        return train_profile(documents, max_merges, profile) if rules is None else rules

    return retrain


def confirmed(diagnosis: ModuleType, cause: str, documents, max_merges, rules, profile: Profile = STRICT) -> dict:
    """The first divergence of ``rules``, the implementation being the model of ``cause``; it must be confirmed."""
    divergence = diagnosis.first_divergence(
        documents, max_merges, rules, profile, as_implementation(diagnosis, cause, profile)
    )
    assert divergence["confirmed"] and divergence["cause"].startswith(STORY.format(cause)), divergence
    return divergence


@pytest.mark.parametrize(
    ("documents", "max_merges", "rules", "kind", "clause", "cause"),
    [
        (["abab", "acac"], 1, [(97, 99)], TIE, "BPE-TRAIN-TIE", "ties broken towards the largest pair"),
        (["bcbc", "abab", "dede"], 1, [(98, 99)], TIE, "BPE-TRAIN-TIE", "ties broken towards the pair seen first"),
        (
            ["bcbc", "abab", "dede"],
            2,
            [(100, 101), (97, 98)],
            TIE,
            "BPE-TRAIN-TIE",
            "ties broken by the pair's decimal string",
        ),
        (["abab", "acac"], 1, [], STOPPED, "BPE-TRAIN-STOP", "a pair counted exactly twice left unmerged"),
        (
            ["abab", "acac"],
            3,
            [(97, 98), (97, 99), (258, 258)],
            SEEN_ONCE,
            "BPE-TRAIN-STOP",
            "pairs seen once merged too",
        ),
        (["xay", "xby", "xcy"], 1, [(121, 120)], NEVER_SEEN, "BPE-TRAIN-DOCS", "documents joined before training"),
        (["aaab", "cdcd"], 2, [(99, 100)], TIE, "BPE-TRAIN-COUNT", "overlapping windows counted once"),
        (["低" * 30], 2, [(189, 142), (228, 189)], NOT_MAXIMAL, "BPE-TRAIN-RECOUNT", "the first round's counts reused"),
        (
            ["aaab", "aaab"],
            2,
            [(97, 97), (97, 258)],
            NOT_MAXIMAL,
            "BPE-MERGE-SCAN",
            "replacement scanning right to left",
        ),
        (
            ["aaaa", "bcbc"],
            8,
            [(97, 97), (98, 99), (258, 258)],
            SEEN_ONCE,
            "BPE-MERGE-SCAN",
            "overlapping occurrences all replaced",
        ),
        (
            ["the cat, the hat, the mat, the bat"],
            2,
            [(97, 116), (104, 101)],
            TIE,
            "BPE-ENCODE-RAW",
            "documents split into words, spaces and punctuation first",
        ),
        (
            ["the cat, the hat, the mat, the bat"],
            8,
            [(97, 116), (104, 101), (116, 259), (258, 44)],
            TIE,
            "BPE-ENCODE-RAW",
            "documents split at whitespace first",
        ),
        (
            ["abab", "abab", "cdcd", "cdcd", "cdcd"],
            1,
            [(97, 98)],
            NOT_MAXIMAL,
            "BPE-TRAIN-DOCS",
            "repeated documents dropped before counting",
        ),
        (["  ab", "  ab"], 2, [(97, 98)], TIE, "BPE-TRAIN-INPUT", "documents stripped of surrounding whitespace"),
        (["e\u0301" * 3, "abab"], 1, [(195, 169)], NOT_MAXIMAL, "BPE-TRAIN-INPUT", "documents normalized to NFC"),
    ],
)
def test_each_bug_model_names_its_clause_and_cause(
    diagnosis: ModuleType, documents: list[str], max_merges: int, rules: list, kind: str, clause: str, cause: str
) -> None:
    """The first divergence names the one bug that makes exactly these rules (BPE-TRAIN-* and friends)."""
    divergence = confirmed(diagnosis, cause, documents, max_merges, rules)
    assert (divergence["diagnosis"], divergence["clause"]) == (kind, clause)


def test_the_stop_story_counts_in_the_profiles_minimum(diagnosis: ModuleType) -> None:
    """BPE-TRAIN-STOP under a profile that merges pairs seen once: stopping is told as 'exactly once'."""
    divergence = confirmed(diagnosis, "a pair counted exactly once left unmerged", ["ab"], 1, [], RUSTBPE)
    assert divergence["diagnosis"] == STOPPED


def test_the_judging_profile_itself_is_no_bug_model(diagnosis: ModuleType) -> None:
    """BPE-TRAIN-TIE under largest-pair: its own tie rule is correct there, the smallest pair is the bug."""
    assert diagnosis.first_divergence(["abab", "acac"], 1, [(97, 99)], LARGEST_PAIR) is None
    confirmed(
        diagnosis, "ties broken towards the pair seen first", ["abab", "acac"], 1, [(97, 98)], LARGEST_PAIR
    )


def test_a_rewrite_that_only_truncates_the_rules_is_told_as_a_stop(diagnosis: ModuleType) -> None:
    """BPE-TRAIN-STOP: documents that strip to a prefix of the right rules are no input story."""
    divergence = diagnosis.first_divergence(["  x", "  y"], 4, [], STRICT)
    assert divergence["diagnosis"] == STOPPED and "stripped" not in divergence["cause"]


def test_a_continuation_byte_0x80_belongs_to_its_word(diagnosis: ModuleType) -> None:
    """BPE-ENCODE-RAW: the word-splitting model keeps U+0400's bytes d0 80 together, like any letter."""
    divergence = confirmed(
        diagnosis, "documents split into words, spaces and punctuation first", ["Ѐ,Ѐ,Ѐ,Ѐ"], 8, [(208, 128)]
    )
    assert (divergence["diagnosis"], divergence["clause"]) == (STOPPED, "BPE-ENCODE-RAW")


def test_stale_counts_run_out_of_pairs_before_max_merges(diagnosis: ModuleType) -> None:
    """BPE-TRAIN-RECOUNT: first-round counts offer three pairs, so that trainer stops after three rules."""
    divergence = confirmed(
        diagnosis, "the first round's counts reused", ["低" * 30], 8, [(189, 142), (228, 189), (142, 228)]
    )
    assert divergence["clause"] == "BPE-TRAIN-RECOUNT"


def test_stale_counts_break_ties_by_pieces_under_subword_nmt(diagnosis: ModuleType) -> None:
    """BPE-TRAIN-RECOUNT under subword-nmt, whose ties compare the pairs' pieces."""
    divergence = confirmed(
        diagnosis, "the first round's counts reused", ["abcab", "bcabc"], 3, [(98, 99), (97, 98), (99, 97)], SUBWORD_NMT
    )
    assert divergence["clause"] == "BPE-TRAIN-RECOUNT"


def test_the_word_splitting_model_keeps_spaces_apart_from_punctuation(diagnosis: ModuleType) -> None:
    """BPE-ENCODE-RAW: words, spaces and punctuation are three kinds, so ", " is two pieces, no pair."""
    divergence = confirmed(diagnosis, "documents split into words, spaces and punctuation first", ["a, b, c, d"], 2, [])
    assert (divergence["diagnosis"], divergence["clause"]) == (STOPPED, "BPE-ENCODE-RAW")


def test_a_byte_whose_latin1_character_is_a_space_belongs_to_its_word(diagnosis: ModuleType) -> None:
    """BPE-ENCODE-RAW: U+00A0 is bytes c2 a0; 0xa0 is a word byte like any byte >= 0x80, not a space."""
    divergence = confirmed(
        diagnosis,
        "documents split into words, spaces and punctuation first",
        ["\u00a0,\u00a0,\u00a0,\u00a0"],
        2,
        [(194, 160)],
    )
    assert (divergence["diagnosis"], divergence["clause"]) == (STOPPED, "BPE-ENCODE-RAW")


@pytest.mark.parametrize(
    ("sequence", "replaced"),
    [
        ([97, 98, 97, 98], [256, 256]),
        ([97, 98, 99], [256, 99]),
        ([97, 97, 97, 98], [256, 256, 98]),
    ],
)
def test_the_overlapping_replacement_keeps_every_id_outside_a_match(
    diagnosis: ModuleType, sequence: list[int], replaced: list[int]
) -> None:
    """replace_overlapping (BPE-MERGE-SCAN bug model): every matching window becomes the new id, and every
    id that is in no matching window stays, in order."""
    assert diagnosis.replace_overlapping(sequence, (sequence[0], sequence[1]), 256) == replaced


@pytest.mark.parametrize(
    ("documents", "rules"),
    [
        (["abc", "abc", "ac", "ac", "ab"], [(97, 98), (256, 99)]),  # ("ab", "c") beats ("a", "c")
        (["abc", "abc", "ba", "ba", "ab"], [(97, 98), (98, 97)]),  # ("b", "a") beats ("ab", "c")
        (["\0bc", "\0bc", "ba", "ba", "\0b"], [(0, 98), (98, 97)]),  # ("b", "a") beats ("\0b", "c")
    ],
)
def test_subword_nmt_ties_compare_the_pieces_earlier_rules_spell(
    diagnosis: ModuleType, documents: list[str], rules: list
) -> None:
    """BPE-TRAIN-TIE under subword-nmt: round 1's tie compares the piece of rule 0 (a + b, byte 0 included),
    so subword-nmt's own rules are no divergence."""
    assert train_profile(documents, 2, SUBWORD_NMT) == rules
    assert diagnosis.first_divergence(documents, 2, rules, SUBWORD_NMT) is None


def test_the_seen_once_model_breaks_subword_nmt_ties_by_rule_pieces(diagnosis: ModuleType) -> None:
    """BPE-TRAIN-STOP under subword-nmt: after "ab", the count-1 tie ("ab", "b") / ("b", "ab") goes to "b" first."""
    divergence = confirmed(diagnosis, "pairs seen once merged too", ["abbab"], 2, [(97, 98), (98, 256)], SUBWORD_NMT)
    assert (divergence["round"], divergence["diagnosis"]) == (1, SEEN_ONCE)


@pytest.mark.parametrize("rule", [(258, 97), (300, 97)])
def test_a_rule_naming_an_id_not_made_yet_merges_a_pair_that_does_not_occur(
    diagnosis: ModuleType, rule: tuple[int, int]
) -> None:
    """BPE-TRAIN-STOP: rule 0 naming id 258 (its own) or 300 is judged like any pair that does not occur."""
    divergence = diagnosis.first_divergence(["ab"], 2, [rule])
    assert (divergence["diagnosis"], divergence["actual"]) == (NEVER_SEEN, {"pair": list(rule), "count": 0})


MIN_3 = Profile(name="min-3", description="strict, but pairs need a count of 3", min_count=3)


def test_the_stop_story_spells_a_minimum_above_two_as_a_number(diagnosis: ModuleType) -> None:
    """BPE-TRAIN-STOP under a profile whose minimum is 3: stopping before a pair seen 3 times."""
    divergence = confirmed(diagnosis, "a pair counted exactly 3 times left unmerged", ["ababab"], 2, [], MIN_3)
    assert divergence["diagnosis"] == STOPPED


def test_a_pair_counted_twice_is_below_a_minimum_of_three(diagnosis: ModuleType) -> None:
    """BPE-TRAIN-STOP: under min_count 3, merging a pair seen twice is below the minimum, not 'seen once'."""
    divergence = diagnosis.first_divergence(["abab"], 2, [(97, 98)], MIN_3)
    assert (divergence["diagnosis"], divergence["clause"]) == (diagnosis.BELOW_MINIMUM, "BPE-TRAIN-STOP")


def test_a_rule_after_every_pair_is_gone_merges_a_pair_that_does_not_occur(diagnosis: ModuleType) -> None:
    """BPE-TRAIN-STOP under a minimum of 1: with no pair left at all, any rule is a pair that does not occur."""
    divergence = diagnosis.first_divergence(["a"], 2, [(97, 97)], RUSTBPE)
    assert (divergence["diagnosis"], divergence["expected"]) == (NEVER_SEEN, None)


def test_a_judgements_counts_are_none_exactly_when_its_pair_is(diagnosis: ModuleType) -> None:
    """Judgement: expected and actual each carry their count in that round's state, None for "no rule"."""
    (stopped,) = diagnosis.judge_rounds(["abab", "acac"], 32, [])
    assert (stopped.expected, stopped.expected_count, stopped.actual, stopped.actual_count) == ((97, 98), 2, None, None)
    (too_many,) = diagnosis.judge_rounds(["abab", "acac"], 1, [(97, 98), (97, 99)])
    assert (too_many.expected, too_many.expected_count, too_many.actual, too_many.actual_count) == (
        None,
        None,
        (97, 99),
        2,
    )


def test_top_counts_are_the_five_highest_highest_first_then_by_pair(diagnosis: ModuleType) -> None:
    """Judgement.top_counts: the five highest counts of the round's state, highest first, equal counts in pair
    order (here counted in the opposite order), the pair counted once left out."""
    divergence = diagnosis.first_divergence(["fedcba", "fedcba", "ab"], 2, [])
    assert divergence["top_counts"] == [[98, 97, 2], [99, 98, 2], [100, 99, 2], [101, 100, 2], [102, 101, 2]]


@pytest.mark.parametrize("rules", ["ab", {(97, 98): 0}, 5])
def test_rules_that_are_not_a_list_are_refused_naming_their_type(diagnosis: ModuleType, rules: object) -> None:
    """judge_rounds: actual_rules that are not a list (or tuple) are a TypeError that names what was given."""
    with pytest.raises(TypeError) as refused:
        diagnosis.first_divergence(["abab"], 2, rules)
    assert type(rules).__name__ in str(refused.value)


def test_every_round_after_a_rule_naming_an_id_not_made_yet_is_judged_too(diagnosis: ModuleType) -> None:
    """BPE-RULE-REF, as the diagnosis meets it: an id that does not exist yet (the rule's own, 258, or 300)
    spells nothing, so judging goes on past that rule to every later round instead of failing."""
    judgements = list(diagnosis.judge_rounds(["abab", "abab"], 3, [(97, 258), (97, 300), (97, 98)]))
    assert [(judgement.round, judgement.actual) for judgement in judgements] == [(0, (97, 258)), (1, (97, 300))]


def test_rules_that_are_not_a_list_are_named_by_their_type(diagnosis: ModuleType) -> None:
    """The diagnosis rejects what is not a rule list with a TypeError naming the type it got."""
    with pytest.raises(TypeError, match=r"^actual_rules must be a list of \(int, int\) pairs, not str$"):
        list(diagnosis.judge_rounds(["abab"], 2, "abab"))
