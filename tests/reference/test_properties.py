"""Property tests of the reference's invariants, each re-derived independently of the code under test.

Every test quotes the normative sentence of specs/bpe.md it checks and names its clause id. Settings
come from the named profiles in conformance/settings.py (loaded by conftest.py).
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.reference import (
    BEGIN_ID,
    END_ID,
    FIRST_RULE_ID,
    Tokenizer,
    build_pieces,
    decode,
    decode_bytes,
    encode,
    encode_document,
    encode_lowest_rank_first,
    replace_pair,
    train,
    train_sequences,
    training_rounds,
)
from tests.support.strategies_local import any_texts, documents, id_sequences, max_merges, rule_lists, texts


def _independent_counts(sequences: list[list[int]]) -> Counter[tuple[int, int]]:
    """Overlapping windows inside each sequence, summed over sequences: written apart from count_pairs."""
    counts: Counter[tuple[int, int]] = Counter()
    for sequence in sequences:
        counts.update(itertools.pairwise(sequence))
    return counts


def _as_text(sequence: list[int]) -> str:
    """One private-use character per id, so str.replace and str.count (leftmost first, no overlap) are oracles."""
    return "".join(chr(0xF0000 + token) for token in sequence)


@given(documents(), max_merges(), any_texts())
def test_round_trip_with_trained_rules(docs: list[str], merges: int, text: str) -> None:
    """BPE-ROUNDTRIP: "For every text t ... and every valid rule list, decode(encode(t)) MUST equal t, and decoding
    encode_document(t) MUST too." Here with rules learned by training."""
    rules = train(docs, merges)
    assert decode(encode(text, rules), rules) == text
    assert decode(encode_document(text, rules), rules) == text


@given(rule_lists(), any_texts())
def test_round_trip_with_any_valid_rules(rules: list[tuple[int, int]], text: str) -> None:
    """BPE-ROUNDTRIP: "decode(encode(t)) MUST equal t" for every valid rule list, including repeated pairs and
    rules no training could make."""
    assert decode(encode(text, rules), rules) == text
    assert decode(encode_document(text, rules), rules) == text


@given(documents(), max_merges(), any_texts())
def test_lowest_rank_first_equals_rank_order_for_trained_rules(docs: list[str], merges: int, text: str) -> None:
    """BPE-ENCODE-LOWEST: the lowest-rank-pair-first loop "MUST give exactly the ids of BPE-ENCODE-ORDER"."""
    rules = train(docs, merges)
    assert encode_lowest_rank_first(text, rules) == encode(text, rules)


@given(rule_lists(), any_texts())
def test_lowest_rank_first_equals_rank_order_for_any_valid_rules(rules: list[tuple[int, int]], text: str) -> None:
    """BPE-ENCODE-LOWEST: "This MUST give exactly the ids of BPE-ENCODE-ORDER", for arbitrary valid rule lists too."""
    assert encode_lowest_rank_first(text, rules) == encode(text, rules)


@given(documents(), max_merges())
def test_final_training_sequences_are_the_encodings(docs: list[str], merges: int) -> None:
    """BPE-TRAIN-INPUT, BPE-MERGE-NOREMATCH: "The training sequences left at the end are exactly what `encode` gives
    for each training document." """
    result = train_sequences(docs, merges)
    assert [encode(document, result.rules) for document in docs] == result.sequences


@given(documents(), max_merges(), st.integers(min_value=0, max_value=8))
def test_fewer_merges_give_a_prefix(docs: list[str], merges: int, more: int) -> None:
    """BPE-PROP-PREFIX: "the rules trained with `max_merges = m` MUST be a prefix of the rules trained with
    `max_merges = m + k`." """
    fewer, longer = train(docs, merges), train(docs, merges + more)
    assert longer[: len(fewer)] == fewer
    if len(fewer) < merges:  # training stopped on its own, so a larger budget changes nothing
        assert longer == fewer


@given(st.data(), documents(), max_merges())
def test_document_order_does_not_matter(data: st.DataObject, docs: list[str], merges: int) -> None:
    """BPE-PROP-PERMUTE: "Training on any permutation of the same documents MUST give the same rules, and each
    document's final sequence is unchanged." """
    order = data.draw(st.permutations(range(len(docs))))
    original = train_sequences(docs, merges)
    permuted = train_sequences([docs[index] for index in order], merges)
    assert permuted.rules == original.rules
    assert permuted.sequences == [original.sequences[index] for index in order]


@given(documents(), max_merges())
def test_trained_pieces_are_unique(docs: list[str], merges: int) -> None:
    """BPE-PROP-UNIQUE: "A rule list produced by training MUST NOT contain two rules with the same piece." """
    pieces = build_pieces(train(docs, merges))[FIRST_RULE_ID:]
    assert len(set(pieces)) == len(pieces)


@given(documents(), max_merges())
def test_vocabulary_counts_the_rules_made(docs: list[str], merges: int) -> None:
    """BPE-VOCAB-SIZE: "The vocabulary size of a model MUST be 258 + the number of rules it has" and "It is never the
    requested maximum"; ids at or above it are unknown."""
    tokenizer = Tokenizer()
    rules = tokenizer.train(docs, merges)
    assert len(rules) <= merges
    assert tokenizer.vocab_size == FIRST_RULE_ID + len(rules)
    tokenizer.decode_bytes([tokenizer.vocab_size - 1])  # the last id is known...
    with pytest.raises(ValueError, match="not in the vocabulary"):  # ...and the next one is not
        tokenizer.decode_bytes([tokenizer.vocab_size])


@given(documents(), max_merges())
def test_each_round_counts_afresh_and_selects_the_greedy_smallest_pair(docs: list[str], merges: int) -> None:
    """BPE-TRAIN-GREEDY, BPE-TRAIN-TIE, BPE-TRAIN-COUNT, BPE-TRAIN-DOCS, BPE-TRAIN-RECOUNT: "Each round MUST select a
    pair whose count is the highest"; "When several pairs share the highest count, the round MUST select the smallest
    of them, comparing pairs (a, b) as tuples of integers"; counts are overlapping windows "summed" over documents and
    recomputed "after every earlier round's replacement". Counts and choice are re-derived here."""
    sequences = [list(document.encode("utf-8")) for document in docs]
    for step in training_rounds(docs, merges):
        assert step.sequences_before == sequences
        counts = _independent_counts(sequences)
        assert step.counts == dict(counts)
        best = max(counts.values())
        assert (step.pair, step.count) == (min(pair for pair, count in counts.items() if count == best), best)
        sequences = step.sequences_after


@given(documents(), max_merges())
def test_training_stops_exactly_when_the_rule_says(docs: list[str], merges: int) -> None:
    """BPE-TRAIN-STOP: stop "if no pair is left or if the selected pair's count is below 2" or "once `max_merges`
    rules have been made, and MUST NOT stop earlier for any other reason"."""
    result = train_sequences(docs, merges)
    counts = [step.count for step in training_rounds(docs, merges)]
    assert len(counts) == len(result.rules) <= merges
    assert all(count >= 2 for count in counts)
    if len(result.rules) < merges:
        assert max(_independent_counts(result.sequences).values(), default=0) < 2


@given(id_sequences(), st.sampled_from((97, 98, 99)), st.sampled_from((97, 98, 99)))
def test_replacement_scans_left_to_right_without_overlap(sequence: list[int], first: int, second: int) -> None:
    """BPE-MERGE-SCAN: "Replacing the pair (a, b) by the new id n MUST scan each sequence from left to right ...
    Each old id is consumed by at most one match." str.replace, which works the same way, is the oracle."""
    new_id = FIRST_RULE_ID
    replaced = replace_pair(sequence, (first, second), new_id)
    oracle = _as_text(sequence).replace(_as_text([first, second]), _as_text([new_id]))
    assert _as_text(replaced) == oracle
    assert decode_bytes(replaced, [(first, second)]) == bytes(sequence)


@given(documents(), max_merges())
def test_a_round_shortens_the_sequences_by_its_replacements(docs: list[str], merges: int) -> None:
    """BPE-MERGE-SCAN, BPE-MERGE-NOREMATCH: "A round shortens a sequence by the number of replacements made", and
    "An id emitted by a replacement takes no further part in that round": undoing the round's replacements gives
    back the sequence it started from."""
    for step in training_rounds(docs, merges):
        for before, after in zip(step.sequences_before, step.sequences_after, strict=True):
            replacements = _as_text(before).count(_as_text(list(step.pair)))  # non-overlapping, leftmost first
            assert len(before) - len(after) == replacements == after.count(step.new_id)
            undone = [part for token in after for part in (step.pair if token == step.new_id else (token,))]
            assert undone == before


@given(documents(), max_merges(), st.lists(any_texts(), max_size=4))
def test_encoding_and_decoding_leave_the_model_alone(docs: list[str], merges: int, held_out: list[str]) -> None:
    """BPE-ENCODE-PURE: "`encode` and `decode` MUST NOT change the rules, the vocabulary, any counts or any other state
    that a later call could observe. Encoding the same text twice MUST give the same ids"."""
    tokenizer = Tokenizer()
    rules = tokenizer.train(docs, merges)
    before = tokenizer.dumps()
    first = [tokenizer.encode(text) for text in held_out]
    assert [tokenizer.decode(ids) for ids in first] == held_out
    assert [tokenizer.encode(text) for text in held_out] == first
    assert tokenizer.rules == rules
    assert tokenizer.dumps() == before


@given(documents(), max_merges(), texts())
def test_the_same_input_gives_the_same_output(docs: list[str], merges: int, text: str) -> None:
    """BPE-PROP-DETERMINISM: "the same documents and `max_merges` give the same rules, and the same rules and text give
    the same ids" (within one process; test_vectors.py compares against files written by another)."""
    first, second = Tokenizer(), Tokenizer()
    assert first.train(list(docs), merges) == second.train(list(docs), merges)
    assert first.encode(text) == second.encode(text)


@given(documents(), max_merges(), texts())
def test_a_whole_document_is_wrapped_in_boundary_ids(docs: list[str], merges: int, text: str) -> None:
    """BPE-ENCODE-BOUNDARY: "Encoding a text as a whole document MUST give the begin id 256, then the body ids of
    BPE-ENCODE-ORDER, then the end id 257. Boundary ids MUST NOT appear anywhere else"."""
    rules = train(docs, merges)
    body = encode(text, rules)
    assert encode_document(text, rules) == [BEGIN_ID, *body, END_ID]
    assert BEGIN_ID not in body
    assert END_ID not in body
