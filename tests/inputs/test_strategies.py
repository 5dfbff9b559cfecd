"""The exported strategies produce what they promise, and reject bad arguments eagerly.

Their docstring examples run as doctests in the default run (``--doctest-modules`` over ``bpe_conformance/``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import find, given
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from bpe_conformance.inputs.strategies import (
    boundary_pair_corpora,
    corpora,
    crosses_word_boundary,
    encode_texts,
    has_first_round_tie,
    max_merges_values,
    merges_across_words,
    pretokenization_corpora,
    recount_corpora,
    rule_lists,
    run_corpora,
    stale_choice_differs,
    texts_and_rules,
    tie_corpora,
    top_pair_only_across_boundaries,
    unicode_corpora,
)
from bpe_conformance.reference import build_pieces, check_rules, count_pairs, encode, tied_pairs, trace_training, train

if TYPE_CHECKING:
    from collections.abc import Callable

    from hypothesis.strategies import SearchStrategy


def _utf8(documents: list[str]) -> list[list[int]]:
    return [list(document.encode("utf-8")) for document in documents]


@given(corpora(min_documents=1, max_documents=4, max_length=20))
def test_corpora_are_lists_of_encodable_documents(documents: list[str]) -> None:
    """BPE-INPUT-DOCS: "documents MUST be a list ... of str" without lone surrogates."""
    assert isinstance(documents, list)
    assert len(documents) >= 1
    assert all(isinstance(document, str) for document in documents)
    _utf8(documents)  # no lone surrogates


@given(tie_corpora(max_length=24))
def test_tie_corpora_tie_in_the_first_round(documents: list[str]) -> None:
    """BPE-TRAIN-TIE: "When several pairs share the highest count, the round MUST select the smallest of them"."""
    counts = count_pairs(_utf8(documents))
    assert max(counts.values()) >= 2
    assert len(tied_pairs(counts)) >= 2


def _string_order_disagrees(documents: list[str]) -> bool:
    tied = tied_pairs(count_pairs(_utf8(documents)))
    return min(tied) != min(tied, key=lambda pair: f"{pair[0]},{pair[1]}")


def test_tie_corpora_include_ties_where_string_order_disagrees_with_integer_order() -> None:
    """BPE-TRAIN-TIE: "Pairs MUST NOT be compared as strings"; some ties straddle id 100 to show it."""
    assert _string_order_disagrees(find(tie_corpora(), _string_order_disagrees))


def test_tie_corpora_include_a_rule_id_tying_with_byte_ids() -> None:
    """BPE-TRAIN-TIE: ties are between (a, b) tuples of any ids, including ids made by earlier rules."""

    def rule_versus_byte(documents: list[str]) -> bool:
        for step in trace_training(documents, 4).rounds:
            tied = step.tie_candidates
            if any(max(pair) >= 258 for pair in tied) and any(max(pair) < 256 for pair in tied):
                return True
        return False

    find(tie_corpora(), rule_versus_byte)


@given(boundary_pair_corpora(max_documents=6))
def test_boundary_pair_corpora_top_pair_exists_only_across_boundaries(documents: list[str]) -> None:
    """BPE-TRAIN-DOCS: "A pair made of the last id of one document and the first id of the next MUST NOT be counted"."""
    joined = count_pairs([list("".join(documents).encode("utf-8"))])
    top = max(joined, key=joined.__getitem__)
    assert joined[top] >= 2
    assert list(joined.values()).count(joined[top]) == 1
    assert top not in count_pairs(_utf8(documents))
    assert top not in train(documents, 32)


@given(run_corpora(max_documents=3, max_run=16))
def test_run_corpora_have_runs_counted_with_overlaps(documents: list[str]) -> None:
    """BPE-TRAIN-COUNT: "Windows overlap: `aaa` contains the pair (a, a) twice"."""
    assert 1 <= len(documents) <= 3
    assert all(re.search(r"(.+)\1", document, flags=re.DOTALL) for document in documents)


def test_run_corpora_include_odd_runs_whose_leftover_is_merged_later() -> None:
    """BPE-MERGE-SCAN: "`[a, a, a]` becomes `[n, a]`"; the leftover a then takes part in a later round."""
    documents = find(run_corpora(), lambda docs: any(re.search(r"(.)\1\1(?!\1)", doc) for doc in docs))
    assert any(re.search(r"(.)\1\1", document) for document in documents)


@given(unicode_corpora(max_documents=3))
def test_unicode_corpora_are_valid_text(documents: list[str]) -> None:
    """BPE-ALPHA-BYTES: "Text enters the tokenizer only as its UTF-8 encoding"."""
    assert 1 <= len(documents) <= 3
    _utf8(documents)


def test_unicode_corpora_include_normalization_variants_crlf_nul_and_emoji() -> None:
    """BPE-TRAIN-INPUT: "Documents MUST NOT be ... normalized"; NFC and NFD of one word appear side by side."""

    def has_nfd(documents: list[str]) -> bool:
        return any(unicodedata.normalize("NFD", doc) == doc != unicodedata.normalize("NFC", doc) for doc in documents)

    find(unicode_corpora(), has_nfd)
    find(unicode_corpora(), lambda docs: any("\r\n" in doc for doc in docs) and any("\x00" in doc for doc in docs))
    find(unicode_corpora(), lambda docs: any(len(char.encode()) == 4 for doc in docs for char in doc))
    find(unicode_corpora(), lambda docs: "" in docs)


@given(pretokenization_corpora(max_documents=3, max_length=24))
def test_pretokenization_corpora_merge_across_words(documents: list[str]) -> None:
    """BPE-ENCODE-RAW: "merges cross spaces and punctuation whenever the rules say so"."""
    pieces = build_pieces(train(documents, 64))[258:]
    assert any(crosses_word_boundary(piece) for piece in pieces)


@given(recount_corpora(max_documents=3, max_length=18))
def test_recount_corpora_need_fresh_counts(documents: list[str]) -> None:
    """BPE-TRAIN-RECOUNT: "Each round MUST count pairs in the sequences as they are after every earlier round"."""
    assert stale_choice_differs(documents)


@given(encode_texts(max_length=12))
def test_encode_texts_are_valid_and_bounded(text: str) -> None:
    """BPE-INPUT-TEXT: "The text passed to `encode` MUST be a `str`"."""
    assert isinstance(text, str)
    assert len(text) <= 12
    text.encode("utf-8")


@given(max_merges_values(max_value=5))
def test_max_merges_values_are_small_non_negative_ints(value: int) -> None:
    """BPE-TRAIN-MAXMERGES: "`max_merges` MUST be an `int`" and non-negative."""
    assert type(value) is int
    assert 0 <= value <= 5


@given(st.data(), st.integers(0, 6), st.integers(0, 6))
def test_rule_lists_are_valid_and_sized(data: st.DataObject, low: int, high: int) -> None:
    """BPE-RULE-REF: "Each part of rule r MUST be ... a byte id (0–255) or the id of an earlier rule"."""
    low, high = min(low, high), max(low, high)
    rules = data.draw(rule_lists(min_rules=low, max_rules=high))
    assert check_rules(rules) == rules
    assert low <= len(rules) <= high


@given(texts_and_rules(max_rules=6))
def test_texts_and_rules_are_valid(case: tuple[str, list[tuple[int, int]]]) -> None:
    """BPE-ENCODE-ORDER: any valid rule list encodes any text, so every drawn list must be loadable."""
    text, rules = case
    assert text
    assert check_rules(rules) == rules
    assert len(rules) <= 6


def test_rule_lists_for_a_text_mostly_fire_on_it() -> None:
    text = "abcabcé"
    rules = find(rule_lists(min_rules=4, max_rules=4, text=text), lambda rules: len(rules) == 4)
    assert encode(text, rules) != list(text.encode("utf-8"))
    assert find(rule_lists(min_rules=3, max_rules=3, text=text), lambda rules: rules != sorted(rules))


def test_the_predicates_answer_the_worked_examples() -> None:
    assert has_first_round_tie(["abab", "acac"])
    assert not has_first_round_tie(["aaab", "aab"])
    assert top_pair_only_across_boundaries(["xay", "xby", "xcy"])
    assert not top_pair_only_across_boundaries(["ab"])
    assert stale_choice_differs(["低" * 30])
    assert not stale_choice_differs(["abab"])
    assert merges_across_words(["a b a b"])
    assert not merges_across_words(["abab"])


@pytest.mark.parametrize(
    ("factory", "arguments"),
    [
        (corpora, {"max_documents": -1}),
        (corpora, {"min_documents": 3, "max_documents": 2}),
        (corpora, {"max_length": True}),
        (corpora, {"max_length": 2.0}),
        (run_corpora, {"max_documents": 0}),
        (run_corpora, {"max_run": 1}),
        (tie_corpora, {"max_length": 3}),
        (boundary_pair_corpora, {"max_documents": 2}),
        (unicode_corpora, {"max_documents": 0}),
        (unicode_corpora, {"max_length": "12"}),
        (pretokenization_corpora, {"max_length": 2}),
        (recount_corpora, {"max_length": 2}),
        (encode_texts, {"max_length": -1}),
        (max_merges_values, {"max_value": -1}),
        (max_merges_values, {"max_value": None}),
        (rule_lists, {"max_rules": -1}),
        (rule_lists, {"min_rules": 3, "max_rules": 2}),
        (rule_lists, {"text": 5}),
        (rule_lists, {"text": "a\ud800"}),
        (texts_and_rules, {"max_length": 0}),
    ],
)
def test_bad_arguments_are_rejected_at_the_call(
    factory: Callable[..., SearchStrategy[Any]], arguments: dict[str, object]
) -> None:
    with pytest.raises(InvalidArgument, match="|".join(arguments)):
        factory(**arguments)


def test_options_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        corpora(3)  # type: ignore[call-arg]  # positional on purpose: the call must be refused
