"""Unit and property tests of the reference, one group per clause of specs/bpe.md.

Every test names the clause it enforces in its name or docstring; bad-input tests assert both the
exception type and that the message names the problem.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.reference import (
    BEGIN_ID,
    END_ID,
    LiteralTokenizer,
    Tokenizer,
    build_pieces,
    check_rules,
    count_pairs,
    decode,
    decode_bytes,
    digest,
    digest_input,
    dumps,
    encode,
    encode_document,
    encode_lowest_rank_first,
    loads,
    piece_hex,
    replace_pair,
    rule_id,
    rule_rank,
    select_pair,
    trace_training,
    train,
    train_sequences,
    vocab_size,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

ABAB_ACAC = ["abab", "acac"]
LOW = "低"  # U+4F4E, UTF-8 e4 bd 8e

documents = st.lists(st.text(alphabet="ab c低", max_size=12), max_size=4)
texts = st.text(alphabet="ab c低é", max_size=16)
merge_counts = st.integers(min_value=0, max_value=10)


def raises(exception: type[Exception], *fragments: str) -> AbstractContextManager[pytest.ExceptionInfo[Exception]]:
    """``pytest.raises`` that also requires every fragment in the message (which names the problem)."""
    return pytest.raises(exception, match="(?s)" + "".join(f"(?=.*{re.escape(fragment)})" for fragment in fragments))


# BPE-ALPHA-BYTES, BPE-ALPHA-BOUNDARY


@given(st.text(max_size=20))
def test_alpha_bytes_without_rules_ids_are_the_utf8_bytes(text: str) -> None:
    """BPE-ALPHA-BYTES: "Ids 0 to 255 MUST stand for the single bytes 0x00 to 0xFF"."""
    assert encode(text, []) == list(text.encode("utf-8"))


def test_alpha_bytes_every_byte_is_its_own_piece() -> None:
    """BPE-ALPHA-BYTES: id i is the byte i for all 256 bytes."""
    assert build_pieces([])[:256] == [bytes([value]) for value in range(256)]
    assert decode_bytes(list(range(256)), []) == bytes(range(256))


def test_alpha_boundary_ids_carry_no_bytes() -> None:
    """BPE-ALPHA-BOUNDARY: 256 begins and 257 ends a document; their pieces are empty."""
    assert (BEGIN_ID, END_ID) == (256, 257)
    assert build_pieces([(97, 98)])[256:258] == [b"", b""]
    assert decode([256, 104, 105, 257], []) == "hi"


@given(documents, merge_counts)
def test_alpha_boundary_ids_never_in_training(docs: list[str], max_merges: int) -> None:
    """BPE-ALPHA-BOUNDARY: "They never occur inside a training sequence, so they are never counted, never merged"."""
    result = train_sequences(docs, max_merges)
    assert all(part not in (BEGIN_ID, END_ID) for rule in result.rules for part in rule)
    assert all(token not in (BEGIN_ID, END_ID) for sequence in result.sequences for token in sequence)


# BPE-RULE-ID, BPE-RULE-REF, BPE-RULE-PIECE, BPE-VOCAB-SIZE


def test_rule_id_is_258_plus_rank() -> None:
    """BPE-RULE-ID: rule r creates 258 + r, and the trace of each round says so."""
    assert [rule_id(rank) for rank in range(3)] == [258, 259, 260]
    assert [rule_rank(token) for token in (258, 259, 260)] == [0, 1, 2]
    assert [step.new_id for step in trace_training(["低" * 30], 32).rounds] == list(range(258, 264))


@pytest.mark.parametrize(
    ("rules", "fragments"),
    [
        ([(97, 258)], ("rule 0 (id 258)", "id 258", "itself or a later rule")),
        ([(97, 98), (259, 97)], ("rule 1 (id 259)", "id 259", "itself or a later rule")),
        ([(97, 98), (97, 300)], ("rule 1", "id 300", "later rule")),
        ([(256, 97)], ("rule 0", "boundary id 256")),
        ([(97, 257)], ("rule 0", "boundary id 257")),
        ([(-1, 97)], ("rule 0", "negative id -1")),
    ],
)
def test_rule_ref_rejects_bad_references(rules: list[tuple[int, int]], fragments: tuple[str, ...]) -> None:
    """BPE-RULE-REF: no self, later, boundary or negative references (ValueError naming the rule and id)."""
    with raises(ValueError, *fragments):
        check_rules(rules)


def test_rule_ref_accepts_bytes_and_earlier_rules() -> None:
    """BPE-RULE-REF: bytes 0-255 and every earlier rule, up to the one just before, are allowed."""
    rules = [(0, 255), (258, 258), (259, 258), (97, 260)]
    assert check_rules(rules) == rules
    assert check_rules(((97, 98),)) == [(97, 98)]


def test_rule_piece_is_concatenation_and_may_split_a_character() -> None:
    """BPE-RULE-PIECE: piece(a) + piece(b); the first 低 piece is an incomplete UTF-8 sequence."""
    rules = train([LOW * 30], 2)
    assert rules == [(189, 142), (228, 258)]
    pieces = build_pieces(rules)
    assert pieces[258] == b"\xbd\x8e"
    assert pieces[259] == LOW.encode("utf-8")
    assert [piece_hex(piece) for piece in pieces[258:]] == ["bd 8e", "e4 bd 8e"]
    with pytest.raises(UnicodeDecodeError):
        pieces[258].decode("utf-8")


def test_vocab_size_counts_rules_made_not_requested() -> None:
    """BPE-VOCAB-SIZE: 32 merges requested, 2 made: the vocabulary is 260."""
    tokenizer = Tokenizer()
    assert tokenizer.vocab_size == 258 == vocab_size([])
    assert tokenizer.train(ABAB_ACAC, 32) == [(97, 98), (97, 99)]
    assert tokenizer.vocab_size == 260
    assert tokenizer.decode([259]) == "ac"
    with raises(ValueError, "id 260", "not in the vocabulary", "0-259"):
        tokenizer.decode([260])


# BPE-TRAIN-*


def test_train_input_documents_are_encoded_separately() -> None:
    """BPE-TRAIN-INPUT: one UTF-8 byte sequence per document; the worked example's final sequences."""
    assert train_sequences(["hé", "ab"], 0).sequences == [[104, 195, 169], [97, 98]]
    result = train_sequences(ABAB_ACAC, 32)
    assert result.rules == [(97, 98), (97, 99)]
    assert result.sequences == [[258, 258], [259, 259]]


@given(documents, merge_counts)
def test_train_input_final_sequences_are_the_encodings(docs: list[str], max_merges: int) -> None:
    """BPE-TRAIN-INPUT: "The training sequences left at the end are exactly what `encode` gives for each
    training document"."""
    result = train_sequences(docs, max_merges)
    assert result.sequences == [encode(document, result.rules) for document in docs]


def test_train_count_overlapping_windows() -> None:
    """BPE-TRAIN-COUNT: `aaa` has two (a, a); counted once, nothing would be learned."""
    assert count_pairs([[97, 97, 97]]) == {(97, 97): 2}
    assert count_pairs([[97, 97, 97, 97]]) == {(97, 97): 3}
    assert train(["aaa"], 32) == [(97, 97)]


def test_train_docs_never_across_a_boundary() -> None:
    """BPE-TRAIN-DOCS: counts are summed over documents; no pair spans two of them."""
    assert count_pairs([[97, 98], [99, 100]]) == {(97, 98): 1, (99, 100): 1}
    assert count_pairs([[97, 98], [97, 98]]) == {(97, 98): 2}
    assert train(["a", "a", "a"], 32) == []
    assert train(["ab", "cd", "ab", "cd"], 32) == [(97, 98), (99, 100)]
    assert train(["abcdabcd"], 32) == [(97, 98), (99, 100), (258, 259)]


def test_train_greedy_highest_count_wins() -> None:
    """BPE-TRAIN-GREEDY: (98, 98) counted twice beats the smaller pair (97, 98) counted once."""
    assert select_pair({(97, 98): 1, (98, 98): 2}) == (98, 98)
    assert train(["abbb"], 1) == [(98, 98)]
    assert select_pair({}) is None


def test_train_tie_smallest_pair_as_integers() -> None:
    """BPE-TRAIN-TIE: (99, 102) beats (100, 101) although "100,101" < "99,102" as strings."""
    assert select_pair({(100, 101): 3, (99, 102): 3}) == (99, 102)
    assert select_pair({(99, 102): 3, (100, 101): 3}) == (99, 102)  # not insertion order
    assert select_pair({(97, 99): 2, (97, 98): 2}) == (97, 98)  # equal first parts: smaller second
    assert select_pair({(258, 97): 2, (97, 258): 2}) == (97, 258)
    assert train(["decf", "decf"], 1) == [(99, 102)]
    assert train(ABAB_ACAC, 1) == [(97, 98)]
    assert train([LOW * 30], 1) == [(189, 142)]  # ties with (228, 189)


def test_train_recount_every_round() -> None:
    """BPE-TRAIN-RECOUNT: round 1 counts the new state; (228, 189) is gone, (228, 258) appeared."""
    trace = trace_training([LOW * 30], 2)
    assert trace.rounds[0].top_counts == [((189, 142), 30), ((228, 189), 30), ((142, 228), 29)]
    assert trace.rounds[1].top_counts == [((228, 258), 30), ((258, 228), 29)]
    assert [(step.length_before, step.length_after) for step in trace.rounds] == [(90, 60), (60, 30)]
    assert train_sequences([LOW * 30], 2).sequences == [[259] * 30]


def test_train_stop_below_two() -> None:
    """BPE-TRAIN-STOP: ["aaab", "aab"] merges (97, 97) counted 3 times, then every pair occurs once."""
    trace = trace_training(["aaab", "aab"], 32)
    assert [(step.pair, step.count) for step in trace.rounds] == [((97, 97), 3)]
    assert trace.stop_reason == "best count 1 < 2 after 1 rule"
    assert train_sequences(["aaab", "aab"], 32).sequences == [[258, 97, 98], [258, 98]]


def test_train_stop_not_too_early_not_too_late() -> None:
    """BPE-TRAIN-STOP: a count of exactly 2 is merged; max_merges caps the rules; 0 makes none."""
    assert train(["abab"], 32) == [(97, 98)]
    assert train(ABAB_ACAC, 1) == [(97, 98)]
    assert train(ABAB_ACAC, 0) == []
    assert train([], 32) == []
    assert train(["", "x"], 32) == []
    assert trace_training(ABAB_ACAC, 1).stop_reason == "max_merges reached (1)"


@given(documents, merge_counts)
def test_train_stop_bounds(docs: list[str], max_merges: int) -> None:
    """BPE-TRAIN-STOP: "The result is between 0 and `max_merges` rules", each merged pair counted at least twice."""
    trace = trace_training(docs, max_merges)
    assert len(trace.rounds) <= max_merges
    assert all(step.count >= 2 for step in trace.rounds)
    if len(trace.rounds) < max_merges:
        best = trace.stop.best
        assert best is None or best[1] < 2, trace.stop
        assert trace.stop_reason.startswith("no pair left" if best is None else "best count"), trace.stop_reason
    else:
        assert trace.stop_reason == f"max_merges reached ({max_merges})"


@pytest.mark.parametrize(
    ("max_merges", "exception", "fragments"),
    [
        (-1, ValueError, ("max_merges", "non-negative", "-1")),
        (True, TypeError, ("max_merges", "int", "bool")),
        (False, TypeError, ("max_merges", "bool")),
        (2.0, TypeError, ("max_merges", "float")),
        ("32", TypeError, ("max_merges", "str")),
        (None, TypeError, ("max_merges", "NoneType")),
    ],
)
def test_train_maxmerges_validation(max_merges: object, exception: type[Exception], fragments: tuple[str, ...]) -> None:
    """BPE-TRAIN-MAXMERGES: a non-negative int; bool, float and str are TypeErrors, negatives ValueErrors."""
    with raises(exception, *fragments):
        # wrong type on purpose: the call must be refused
        train(["abab"], max_merges)  # type: ignore[arg-type]


# BPE-MERGE-SCAN, BPE-MERGE-NOREMATCH


def test_merge_scan_left_to_right_non_overlapping() -> None:
    """BPE-MERGE-SCAN: [a, a, a] -> [new, a], never [new, new], which would decode to "aaaa"."""
    assert replace_pair([97, 97, 97], (97, 97), 258) == [258, 97]
    assert replace_pair([97] * 4, (97, 97), 258) == [258, 258]
    assert replace_pair([97] * 5, (97, 97), 258) == [258, 258, 97]
    assert replace_pair([98, 97, 97, 97], (97, 97), 258) == [98, 258, 97]
    assert decode([258, 97], [(97, 97)]) == "aaa"
    assert decode([258, 258], [(97, 97)]) == "aaaa"


def test_merge_scan_shortens_by_replacements_not_count() -> None:
    """BPE-MERGE-SCAN: `aaaa` counts (97, 97) three times but only two replacements are made."""
    step = trace_training(["aaaa"], 1).rounds[0]
    assert (step.count, step.length_before, step.length_after) == (3, 4, 2)


@given(st.lists(st.sampled_from([97, 98]), max_size=20), st.sampled_from([(97, 97), (97, 98), (98, 97)]))
def test_merge_scan_preserves_bytes(sequence: list[int], pair: tuple[int, int]) -> None:
    """BPE-MERGE-SCAN: "Each old id is consumed by at most one match", so the bytes never change."""
    merged = replace_pair(sequence, pair, 258)
    assert decode_bytes(merged, [pair]) == bytes(sequence)
    assert len(sequence) - len(merged) == merged.count(258)
    assert all(window != pair for window in itertools.pairwise(merged))


def test_merge_norematch_new_pairs_wait_for_the_next_round() -> None:
    """BPE-MERGE-NOREMATCH: (258, 99) is only merged in round 2, as its own rule."""
    assert replace_pair([97, 98, 97, 98], (97, 98), 258) == [258, 258]
    one = train_sequences(["abcabc"], 1)
    assert (one.rules, one.sequences) == ([(97, 98)], [[258, 99, 258, 99]])
    two = train_sequences(["abcabc"], 2)
    assert (two.rules, two.sequences) == ([(97, 98), (258, 99)], [[259, 259]])


# BPE-ENCODE-*


def test_encode_order_worked_examples() -> None:
    """BPE-ENCODE-ORDER: abac -> [258, 259]; with ab then abc, out of order gives [258, 99]."""
    assert encode("abac", train(ABAB_ACAC, 32)) == [258, 259]
    rules = train(["abc", "abc"], 32)
    assert rules == [(97, 98), (258, 99)]
    assert encode("abc", rules) == [259]
    out_of_order = replace_pair(replace_pair([97, 98, 99], (258, 99), 259), (97, 98), 258)
    assert out_of_order == [258, 99]
    assert decode(out_of_order, rules) == decode([259], rules) == "abc"


def test_encode_raw_merges_cross_spaces() -> None:
    """BPE-ENCODE-RAW: no pre-tokenization; pieces contain spaces, and text is not normalized."""
    rules = train(["a b a b"], 32)
    assert rules == [(32, 98), (97, 258)]
    assert [build_pieces(rules)[token] for token in encode("a b a b", rules)] == [b"a b", b" ", b"a b"]
    assert encode("e\u0301", []) == [101, 204, 129]  # decomposed é stays decomposed
    assert encode("é", []) == [195, 169]


def test_encode_lowest_rank_first_when_rules_compete() -> None:
    """BPE-ENCODE-LOWEST: with (a, b) before (b, c), "abc" gives [ab, c]; the higher rank never goes first."""
    rules = train(["ab", "ab", "bc", "bc"], 32)
    assert rules == [(97, 98), (98, 99)]
    assert encode_lowest_rank_first("abc", rules) == encode("abc", rules) == [258, 99]


@given(documents, texts, merge_counts)
def test_encode_lowest_rank_first_is_equivalent(docs: list[str], tail: str, max_merges: int) -> None:
    """BPE-ENCODE-LOWEST: the lowest-rank-pair-first formulation "MUST give exactly the ids of BPE-ENCODE-ORDER"."""
    rules = train(docs, max_merges)
    text = "".join(docs) + tail  # text made of training material, so that many rules apply and compete
    assert encode_lowest_rank_first(text, rules) == encode(text, rules)


def test_encode_boundary_wraps_the_body() -> None:
    """BPE-ENCODE-BOUNDARY: [256, body..., 257]; encode itself returns the body only."""
    rules = train(ABAB_ACAC, 32)
    assert encode_document("abac", rules) == [256, 258, 259, 257]
    assert encode_document("", rules) == [256, 257]
    tokenizer = Tokenizer()
    tokenizer.train(ABAB_ACAC, 32)
    assert tokenizer.encode("abac") == [258, 259]
    assert tokenizer.encode_document("abac") == [256, 258, 259, 257]


@pytest.mark.parametrize("implementation", [Tokenizer, LiteralTokenizer])
def test_encode_pure_never_changes_the_model(implementation: type[LiteralTokenizer]) -> None:
    """BPE-ENCODE-PURE: encoding and decoding leave rules, vocabulary and serialized form unchanged."""
    tokenizer = implementation()
    rules = tokenizer.train(ABAB_ACAC, 32)
    before = tokenizer.dumps()
    first = tokenizer.encode("xyxyxyxy abab")
    tokenizer.decode(first)
    tokenizer.decode_bytes([258])
    assert tokenizer.encode("xyxyxyxy abab") == first
    assert (tokenizer.rules, tokenizer.vocab_size, tokenizer.dumps()) == (rules, 260, before)


# BPE-DECODE-*, BPE-ROUNDTRIP


def test_decode_concat_joins_pieces() -> None:
    """BPE-DECODE-CONCAT: pieces joined in order; boundary ids add no bytes."""
    rules = train(ABAB_ACAC, 32)
    assert decode([258, 259], rules) == "abac"
    assert decode_bytes([256, 258, 97, 257], rules) == b"aba"
    assert decode([], rules) == ""


@pytest.mark.parametrize(
    ("ids", "fragments"),
    [
        ([260], ("id 260", "position 0", "not in the vocabulary")),
        ([97, 1000], ("id 1000", "position 1")),
        ([228, 189], ("invalid UTF-8", "byte offset 0", "e4 bd")),
        ([97, 255, 98], ("invalid UTF-8", "byte offset 1")),
    ],
)
def test_decode_strict_errors(ids: list[int], fragments: tuple[str, ...]) -> None:
    """BPE-DECODE-STRICT: unknown ids and invalid UTF-8 are ValueErrors, never U+FFFD."""
    with raises(ValueError, *fragments):
        decode(ids, train(ABAB_ACAC, 32))
    tokenizer = Tokenizer()
    tokenizer.load(train(ABAB_ACAC, 32))
    with raises(ValueError, *fragments):
        tokenizer.decode(ids)


def test_decode_bytes_accepts_partial_characters() -> None:
    """BPE-DECODE-BYTES: any valid id list decodes to bytes, even one that splits 低."""
    rules = train([LOW * 30], 2)
    assert decode_bytes([258], rules) == b"\xbd\x8e"
    assert decode_bytes([228], rules) + decode_bytes([258], rules) == LOW.encode("utf-8")
    with raises(ValueError, "invalid UTF-8", "bd 8e"):
        decode([258], rules)
    with raises(ValueError, "id 260"):
        decode_bytes([260], rules)


@given(documents, st.lists(st.integers(min_value=0, max_value=265), max_size=12), st.integers(0, 12))
def test_decode_bytes_is_associative(docs: list[str], ids: list[int], cut: int) -> None:
    """BPE-DECODE-BYTES: "the bytes of a list are the bytes of any split of it, concatenated"."""
    rules = train(docs, 8)
    valid = [token for token in ids if token < vocab_size(rules)]
    assert decode_bytes(valid, rules) == decode_bytes(valid[:cut], rules) + decode_bytes(valid[cut:], rules)


@given(documents, st.text(max_size=30), merge_counts)
def test_roundtrip(docs: list[str], text: str, max_merges: int) -> None:
    """BPE-ROUNDTRIP: "`decode(encode(t))` MUST equal t, and decoding `encode_document(t)` MUST too"."""
    rules = train(docs, max_merges)
    assert decode(encode(text, rules), rules) == text
    assert decode(encode_document(text, rules), rules) == text


def test_roundtrip_is_not_sufficient() -> None:
    """BPE-ROUNDTRIP: raw bytes also decode to "abac" but are not the canonical ids."""
    rules = train(ABAB_ACAC, 32)
    assert decode([97, 98, 97, 99], rules) == decode(encode("abac", rules), rules) == "abac"
    assert encode("abac", rules) != [97, 98, 97, 99]


# BPE-PROP-*


@given(documents, st.integers(min_value=0, max_value=40))
def test_prop_unique_pieces(docs: list[str], max_merges: int) -> None:
    """BPE-PROP-UNIQUE: "A rule list produced by training MUST NOT contain two rules with the same piece"."""
    rules = train(docs, max_merges)
    pieces = build_pieces(rules)[258:]
    assert len(set(pieces)) == len(pieces)
    assert len(set(rules)) == len(rules)


@given(documents, merge_counts, merge_counts)
def test_prop_prefix(docs: list[str], fewer: int, more: int) -> None:
    """BPE-PROP-PREFIX: "the rules trained with `max_merges = m` MUST be a prefix of the rules trained with
    `max_merges = m + k`"."""
    assert train(docs, fewer + more)[:fewer] == train(docs, fewer)


@given(documents.flatmap(lambda docs: st.tuples(st.just(docs), st.permutations(docs))), merge_counts)
def test_prop_permute(pair: tuple[list[str], list[str]], max_merges: int) -> None:
    """BPE-PROP-PERMUTE: "Training on any permutation of the same documents MUST give the same rules"."""
    docs, permuted = pair
    assert train(permuted, max_merges) == train(docs, max_merges)


def test_prop_determinism_across_hash_seeds() -> None:
    """BPE-PROP-DETERMINISM: the same rules and digest in processes with different hash seeds."""
    script = (
        "from bpe_conformance.reference import digest, train; "
        "print(digest(train(['to be or not to be', 'abab', 'acac'], 32)))"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        environment = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=environment, check=True
        )
        outputs.add(done.stdout.strip())
    assert outputs == {digest(train(["to be or not to be", "abab", "acac"], 32))}


# BPE-SER-*


def test_ser_json_canonical_form() -> None:
    """BPE-SER-JSON: sorted keys, no spaces, ASCII, one trailing newline; the exact worked example."""
    text = dumps([(97, 98), (97, 99)])
    assert text == (
        '{"digest":"sha256:85789aa814fdf4eeeec3e57a85220753faa1b44cee4d9e96c61a87a08eeec945",'
        '"format":"bpe-conformance.tokenizer","profile":"strict","rules":[[97,98],[97,99]],'
        '"version":1,"vocab_size":260}\n'
    )
    assert dumps([]).endswith('"rules":[],"version":1,"vocab_size":258}\n')
    with raises(ValueError, "rule 0", "itself or a later rule"):
        dumps([(258, 97)])


def test_ser_digest_over_the_defined_byte_string() -> None:
    """BPE-SER-DIGEST: SHA-256 of the header line and one "a b" line per rule, each ending in LF."""
    assert digest_input([(97, 98), (97, 99)]) == b"bpe-conformance.tokenizer/1 strict\n97 98\n97 99\n"
    expected = hashlib.sha256(b"bpe-conformance.tokenizer/1 strict\n97 98\n97 99\n").hexdigest()
    assert digest([(97, 98), (97, 99)]) == "sha256:" + expected
    assert expected == "85789aa814fdf4eeeec3e57a85220753faa1b44cee4d9e96c61a87a08eeec945"
    assert digest([]) == "sha256:" + hashlib.sha256(b"bpe-conformance.tokenizer/1 strict\n").hexdigest()
    assert digest([(97, 99), (97, 98)]) != digest([(97, 98), (97, 99)])


def _file(**changes: object) -> str:
    document = json.loads(dumps([(97, 98), (97, 99)]))
    document.update(changes)
    return json.dumps(document)


def _without(key: str) -> str:
    document = json.loads(dumps([(97, 98), (97, 99)]))
    del document[key]
    return json.dumps(document)


@pytest.mark.parametrize(
    ("text", "exception", "fragments"),
    [
        (_file(digest="sha256:" + "0" * 64), ValueError, ("digest", "does not match")),
        (_file(vocab_size=300), ValueError, ("vocab_size", "300", "260")),
        (_file(vocab_size=260.0), ValueError, ("vocab_size", "260.0")),
        (_file(vocab_size="260"), ValueError, ("vocab_size",)),
        (_file(vocab_size=True), ValueError, ("vocab_size", "True")),
        (_file(extra=1), ValueError, ("keys", "unknown ['extra']")),
        (_without("digest"), ValueError, ("keys", "missing ['digest']")),
        (_file(version=2), ValueError, ("version", "must be 1", "2")),
        (_file(version=True), ValueError, ("version", "True")),
        (_file(version="1"), ValueError, ("version",)),
        (_file(format="other"), ValueError, ("format", "other")),
        (_file(profile="minbpe"), ValueError, ("profile", "strict", "minbpe")),
        (_file(rules=[[97, 98], [97, 260]]), ValueError, ("rule 1", "id 260")),
        (_file(rules=[[97, 98], [97]]), ValueError, ("rule 1", "pair")),
        (_file(rules=[[97, 98], [97, "c"]]), TypeError, ("rule 1", "str")),
        ("{", ValueError, ("not valid JSON",)),
        ("[[97, 98]]", ValueError, ("JSON object", "list")),
        (b"\xff", ValueError, ("not valid JSON",)),
    ],
)
def test_ser_load_rejects_malformed_files(text: str, exception: type[Exception], fragments: tuple[str, ...]) -> None:
    """BPE-SER-LOAD: every malformed file is rejected, naming the field, and the model is kept."""
    with raises(exception, *fragments):
        loads(text)
    tokenizer = Tokenizer()
    tokenizer.train(["abcabc"], 32)
    before = tokenizer.rules
    with raises(exception, *fragments):
        tokenizer.loads(text)
    assert tokenizer.rules == before


def test_ser_load_round_trip_and_layout_freedom() -> None:
    """BPE-SER-LOAD: loads(dumps(rules)) == rules; other whitespace is accepted, content is what counts."""
    rules = train([LOW * 30, "abab", "acac"], 32)
    assert loads(dumps(rules)) == rules
    assert loads(json.dumps(json.loads(dumps(rules)), indent=2)) == rules
    tokenizer = Tokenizer()
    assert tokenizer.loads(dumps(rules).encode("ascii")) == rules
    assert tokenizer.digest == digest(rules)


# BPE-INPUT-*


@pytest.mark.parametrize(
    ("docs", "exception", "fragments"),
    [
        ("abab", TypeError, ("documents", "not str", "wrap a single document in a list")),
        (b"abab", TypeError, ("documents", "bytes")),
        (None, TypeError, ("documents", "NoneType")),
        ({"abab"}, TypeError, ("documents", "set")),
        ((text for text in ["abab"]), TypeError, ("documents", "generator")),
        (["abab", 3], TypeError, ("document 1", "int")),
        (["abab", b"ab"], TypeError, ("document 1", "bytes")),
        (["abab", "x\ud800"], ValueError, ("document 1", "lone surrogate", "U+D800", "index 1")),
    ],
)
def test_input_docs_validation(docs: object, exception: type[Exception], fragments: tuple[str, ...]) -> None:
    """BPE-INPUT-DOCS: a list of str; bad containers and documents raise, naming the problem."""
    with raises(exception, *fragments):
        # wrong type on purpose: the call must be refused
        train(docs, 32)  # type: ignore[arg-type]


def test_input_docs_tuples_and_empty_documents_are_valid() -> None:
    """BPE-INPUT-DOCS: a tuple is accepted; an empty list and empty documents give no rules."""
    # a tuple on purpose: documents may be any sequence; the annotation says list
    assert train(("abab", "acac"), 32) == [(97, 98), (97, 99)]  # type: ignore[arg-type]
    assert train([], 32) == train(["", ""], 32) == []


@pytest.mark.parametrize(
    ("text", "exception", "fragments"),
    [
        (b"ab", TypeError, ("text", "str", "bytes")),
        (None, TypeError, ("text", "NoneType")),
        (97, TypeError, ("text", "int")),
        ("a\udc80b", ValueError, ("text", "lone surrogate", "U+DC80", "index 1")),
    ],
)
def test_input_text_validation(text: object, exception: type[Exception], fragments: tuple[str, ...]) -> None:
    """BPE-INPUT-TEXT: a str without lone surrogates, for encode and encode_document alike."""
    # Wrong types on purpose: every call must be refused.
    calls: tuple[Callable[[], object], ...] = (
        lambda: encode(text, []),  # type: ignore[arg-type]
        lambda: encode_document(text, []),  # type: ignore[arg-type]
        lambda: Tokenizer().encode(text),  # type: ignore[arg-type]
    )
    for call in calls:
        with raises(exception, *fragments):
            call()
    assert encode("", []) == []


@pytest.mark.parametrize(
    ("ids", "exception", "fragments"),
    [
        ("abc", TypeError, ("ids", "list of int", "str")),
        (b"ab", TypeError, ("ids", "bytes")),
        (None, TypeError, ("ids", "NoneType")),
        ({97}, TypeError, ("ids", "set")),
        ([True], TypeError, ("position 0", "bool")),
        ([97, 98.0], TypeError, ("position 1", "float")),
        ([97, "b"], TypeError, ("position 1", "str")),
        ([97, -1], ValueError, ("id -1", "position 1", "not in the vocabulary")),
        ([258], ValueError, ("id 258", "position 0", "0-257")),
    ],
)
def test_input_ids_validation(ids: object, exception: type[Exception], fragments: tuple[str, ...]) -> None:
    """BPE-INPUT-IDS: a list of int in range(vocabulary size); type errors and range errors named."""
    # wrong type on purpose: the call must be refused
    for call in (lambda: decode(ids, []), lambda: decode_bytes(ids, []), lambda: Tokenizer().decode(ids)):  # type: ignore[arg-type]
        with raises(exception, *fragments):
            call()
    # a tuple on purpose: ids may be any sequence; the annotation says list
    assert decode((104, 105), []) == "hi"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rules", "exception", "fragments"),
    [
        ("ab", TypeError, ("rules", "str")),
        (None, TypeError, ("rules", "NoneType")),
        (97, TypeError, ("rules", "int")),
        ([97], TypeError, ("rule 0", "pair of ints", "int")),
        (["ab"], TypeError, ("rule 0", "str")),
        ([(97,)], ValueError, ("rule 0", "pair", "1 items")),
        ([(97, 98), (258, 99, 100)], ValueError, ("rule 1", "3 items")),
        ([(97, "b")], TypeError, ("rule 0", "'b'", "str")),
        ([(97, 98.0)], TypeError, ("rule 0", "float")),
        ([(True, 98)], TypeError, ("rule 0", "bool")),
        ([(97, None)], TypeError, ("rule 0", "NoneType")),
        ([(97, 98), (259, 97)], ValueError, ("rule 1", "itself or a later rule")),
        ([(97, 256)], ValueError, ("boundary id 256",)),
        ([(-5, 97)], ValueError, ("negative id -5",)),
    ],
)
def test_input_rules_validation(rules: object, exception: type[Exception], fragments: tuple[str, ...]) -> None:
    """BPE-INPUT-RULES: load validates, names the rule's rank, and keeps the previous model on failure."""
    tokenizer = Tokenizer()
    tokenizer.load([(97, 98)])
    with raises(exception, *fragments):
        # wrong type on purpose: the call must be refused
        tokenizer.load(rules)  # type: ignore[arg-type]
    assert (tokenizer.rules, tokenizer.encode("ab")) == ([(97, 98)], [258])


@pytest.mark.parametrize(("docs", "max_merges"), [(ABAB_ACAC, -1), (ABAB_ACAC, True), ("abab", 32), (["x\ud800"], 32)])
def test_failed_train_keeps_the_previous_model(docs: object, max_merges: object) -> None:
    """BPE-INPUT-DOCS, BPE-TRAIN-MAXMERGES: a rejected train call leaves the tokenizer's model unchanged."""
    for implementation in (Tokenizer, LiteralTokenizer):
        tokenizer = implementation()
        tokenizer.train(["abcabc"], 32)
        before = (tokenizer.rules, tokenizer.dumps(), tokenizer.encode("abcab"))
        with pytest.raises((TypeError, ValueError)):
            # wrong type on purpose: the call must be refused
            tokenizer.train(docs, max_merges)  # type: ignore[arg-type]
        assert (tokenizer.rules, tokenizer.dumps(), tokenizer.encode("abcab")) == before
