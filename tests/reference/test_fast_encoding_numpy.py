"""reference/fast_encoding_numpy.py: the batched encoder gives the literal ids, for any valid rule list.

Every comparison is with the literal encoder (``bpe_conformance.reference.encoding.encode_bytes``), one text at a
time, never with remembered outputs.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.reference import encode, encode_bytes, fast_encoding, train
from bpe_conformance.reference.fast_encoding import (
    NUMPY_ENCODE_MIN_BYTES,
    MergeTable,
    _choose_encode_engine,
    encode_many_with_table,
    fast_encode_many,
)
from bpe_conformance.reference.fast_training import numpy_available
from tests.reference.test_fast_engines import rule_lists

pytestmark = pytest.mark.skipif(not numpy_available(), reason="numpy is not installed")

texts = st.lists(st.text(alphabet=st.sampled_from("abcé\0"), max_size=24), max_size=5)
runs = st.lists(st.builds(lambda char, length: char * length, st.sampled_from("abc"), st.integers(0, 11)), max_size=4)


def _batched(batch: list[str], rules: list[tuple[int, int]]) -> list[list[int]]:
    from bpe_conformance.reference.fast_encoding_numpy import encode_arrays

    return encode_arrays([text.encode("utf-8") for text in batch], rules)


@given(rule_lists(), texts)
def test_batched_ids_are_the_literal_ids_for_any_valid_rules(rules: list[tuple[int, int]], batch: list[str]) -> None:
    """Spec: "Encoding applies the rules in rank order"; all texts at once, each text's exact ids.
    (BPE-ENCODE-ORDER, BPE-ENCODE-LOWEST, BPE-MERGE-SCAN, BPE-MERGE-NOREMATCH, BPE-RULE-REF)"""
    assert _batched(batch, rules) == [encode(text, rules) for text in batch]


@given(rule_lists(), runs)
def test_runs_of_one_token_are_merged_left_to_right(rules: list[tuple[int, int]], batch: list[str]) -> None:
    """Spec: replacement is "left to right, non-overlapping, no same-round rematch", run by run.
    (BPE-MERGE-SCAN, BPE-MERGE-NOREMATCH)"""
    rules = [(97, 97), (258, 258), (258, 97), *rules]  # the drawn rules still refer only to earlier ids
    assert _batched(batch, rules) == [encode(text, rules) for text in batch]


@given(st.lists(st.text(alphabet="ab c", max_size=30), min_size=1, max_size=4), texts)
def test_batched_ids_with_trained_rules(documents: list[str], batch: list[str]) -> None:
    """(BPE-ENCODE-ORDER)"""
    rules = train(documents, 10_000)
    assert _batched(documents + batch, rules) == [encode(text, rules) for text in documents + batch]


def _independent(earlier: tuple[int, int], later: tuple[int, int], earlier_id: int, later_id: int) -> bool:
    """The module's definition: p2 != q1, p1 != q2, neither uses the other's id, different pairs."""
    return (
        earlier[1] != later[0]
        and earlier[0] != later[1]
        and earlier_id not in later
        and later_id not in earlier
        and earlier != later
    )


@given(rule_lists(max_rules=30))
def test_layers_order_every_dependent_pair_and_group_only_independent_rules(rules: list[tuple[int, int]]) -> None:
    """``rule_layers``: a rule is one layer above the highest earlier rule it is not independent of;
    a repeated rule, and every rule built on the id of one, never applies. (BPE-ENCODE-ORDER)"""
    from bpe_conformance.reference.fast_encoding_numpy import NEVER_APPLIES, layered_rules, rule_layers

    layers = rule_layers(rules)
    dead: set[int] = set()
    for rank, pair in enumerate(rules):
        repeated = pair in rules[:rank]
        if repeated or dead & set(pair):
            assert layers[rank] == NEVER_APPLIES
            dead.add(258 + rank)
            continue
        below = [
            layers[earlier]
            for earlier in range(rank)
            if layers[earlier] != NEVER_APPLIES and not _independent(rules[earlier], pair, 258 + earlier, 258 + rank)
        ]
        assert layers[rank] == 1 + max(below, default=-1)
    grouped = layered_rules(rules)
    assert sorted(rank for layer in grouped for rank in layer) == [
        rank for rank, layer in enumerate(layers) if layer != NEVER_APPLIES
    ]
    assert all(layers[rank] == index for index, layer in enumerate(grouped) for rank in layer)


def test_independent_rules_share_a_layer_and_dependent_ones_do_not() -> None:
    """Same left token, same right token and disjoint rules commute; (a, b) then (b, c), (c, a),
    (t, t) then anything with t, and a rule on a made id do not. (BPE-ENCODE-ORDER)"""
    from bpe_conformance.reference.fast_encoding_numpy import layered_rules, rule_layers

    assert rule_layers([(97, 98), (97, 99), (100, 98), (101, 102)]) == [0, 0, 0, 0]
    assert rule_layers([(97, 98), (98, 99)]) == [0, 1]
    assert rule_layers([(97, 98), (99, 97)]) == [0, 1]
    assert rule_layers([(97, 97), (98, 97)]) == [0, 1]
    assert rule_layers([(97, 98), (99, 100), (258, 101)]) == [0, 0, 1]
    assert rule_layers([(97, 98), (99, 100), (101, 259)]) == [0, 0, 1]
    assert rule_layers([(97, 98), (98, 97), (97, 98)]) == [0, 1, -1]
    # A rule sharing its left (right) token with a rule of a higher layer does not lower what a later
    # rule using that token on the other side must wait for.
    assert rule_layers([(98, 99), (97, 258), (97, 100), (101, 97)]) == [0, 1, 0, 2]
    assert rule_layers([(98, 99), (258, 97), (100, 97), (97, 101)]) == [0, 1, 0, 2]
    assert layered_rules([(98, 99), (97, 258), (97, 100), (101, 97)]) == [[0, 2], [1], [3]]
    assert layered_rules([]) == []
    assert layered_rules([(97, 98), (97, 98)]) == [[0]]


def test_a_layer_finds_windows_through_either_part() -> None:
    """Pairs of a made id and a byte are found from the rarer part's positions, whichever it is:
    ``x`` is rare and ``ab`` common here, then the other way round. (BPE-ENCODE-ORDER)"""
    rules = [(97, 98), (258, 120), (120, 258)]
    for batch in (["ab" * 9 + "x" + "ab"], ["xxxxab", "abx"]):
        assert _batched(batch, rules) == [encode(text, rules) for text in batch]


def test_windows_never_cross_from_one_text_into_the_next() -> None:
    """One-byte and empty texts end to end: a window across two texts would merge here. (BPE-ENCODE-ORDER)"""
    rules = [(97, 97), (97, 98)]
    batch = ["a", "a", "", "ab", "b", "a", "aa"]
    assert _batched(batch, rules) == [[97], [97], [], [259], [98], [97], [258]]


def test_a_run_of_exactly_two_is_merged() -> None:
    """(BPE-MERGE-SCAN)"""
    assert _batched(["aa"], [(97, 97)]) == [[258]]  # the only two a's of the batch
    assert _batched(["xa", "ay"], [(97, 97)]) == [[120, 97], [97, 121]]  # two a's, not adjacent
    assert _batched(["xaay", "aaa"], [(97, 97)]) == [[120, 258, 121], [258, 97]]


def test_positions_made_by_a_rule_are_kept_per_rule_and_in_text_order() -> None:
    """A layer's windows come in one block per rule: the positions each made id is later looked up
    from must be its own block, in text order (a run of the made id is then scanned left to right).
    ``b`` + ``aa`` is found from the positions of ``b``, which must be in text order; ``ef`` is the
    third rule of its layer and later found through its own positions. (BPE-ENCODE-ORDER, BPE-MERGE-SCAN)"""
    rules = [(97, 97), (98, 258), (259, 259)]
    text = "baa" * 41
    assert _batched([text], rules) == [encode(text, rules)]
    rules = [(97, 98), (99, 100), (101, 102), (120, 260)]
    text = "abcdcdefxefxx"
    assert _batched([text], rules) == [encode(text, rules)] == [[258, 259, 259, 260, 261, 120, 120]]


def test_a_token_used_on_both_sides_keeps_its_true_count() -> None:
    """How many tokens hold each id decides which rules are skipped: ``b`` loses two to ``(a, b)``,
    two more to ``(b, c)``, and three are left for ``(x, b)`` two layers later. (BPE-ENCODE-ORDER)"""
    from bpe_conformance.reference.fast_encoding_numpy import rule_layers

    rules = [(97, 98), (98, 99), (120, 98)]
    assert rule_layers(rules) == [0, 1, 2]
    text = "ab ab bc bc xb xb xb"
    assert _batched([text], rules) == [encode(text, rules)]


def test_ids_are_python_ints() -> None:
    """Ids are ints, as the literal encoder returns them (a float 258.0 would compare equal). (BPE-ENCODE-ORDER)"""
    result = _batched(["abab", "ba"], [(97, 98), (258, 258)])
    assert result == [[259], [98, 97]]
    assert {type(token) for ids in result for token in ids} == {int}


def test_empty_texts_and_batches() -> None:
    """An empty text has no ids, and an empty batch no texts. (BPE-ENCODE-ORDER)"""
    assert _batched([], [(97, 98)]) == []
    assert _batched(["", "ab", ""], [(97, 98)]) == [[], [258], []]
    assert _batched(["ab"], []) == [[97, 98]]


def test_fast_encode_many_is_the_literal_encoder_whichever_engine_runs() -> None:
    """``fast_encode_many`` takes a rule list or a table, and ``"auto"`` batches with numpy from
    ``NUMPY_ENCODE_MIN_BYTES`` on; every engine gives the literal ids. (BPE-ENCODE-ORDER)"""
    rules = train(["low lower lowest newer wider"] * 3, 40)
    batch = ["lower and lowest", "", "newer, wider", "é" * 5]
    expected = [encode(text, rules) for text in batch]
    table = MergeTable(rules)
    assert fast_encode_many(batch, rules) == fast_encode_many(batch * 3000, table)[:4] == expected  # "auto"
    for engine in ("auto", "numpy", "heap"):
        assert fast_encode_many(batch, rules, engine) == expected
        assert fast_encode_many(batch, table, engine) == expected
    assert encode_many_with_table([text.encode() for text in batch], table, "numpy") == expected


def test_auto_picks_numpy_exactly_from_the_documented_size() -> None:
    assert _choose_encode_engine("auto", NUMPY_ENCODE_MIN_BYTES - 1) == "heap"
    assert _choose_encode_engine("auto", NUMPY_ENCODE_MIN_BYTES) == "numpy"
    assert [_choose_encode_engine(engine, 0) for engine in ("numpy", "heap")] == ["numpy", "heap"]
    with pytest.raises(ValueError) as unknown:  # noqa: PT011 - the message is asserted below, more closely than match= would
        _choose_encode_engine("gpu", 0)
    assert "auto, numpy, heap" in str(unknown.value)
    assert str(unknown.value).endswith("'gpu'")


def test_the_table_keeps_its_layers_once_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """A prepared table computes its layers on the first batched call only. (BPE-ENCODE-ORDER)"""
    from bpe_conformance.reference import fast_encoding_numpy

    table = MergeTable([(97, 98), (258, 99)])
    assert fast_encode_many(["abcab"], table, "numpy") == [[259, 258]]

    def computed_again(rules: object) -> list[list[int]]:
        raise AssertionError("layers computed twice")

    monkeypatch.setattr(fast_encoding_numpy, "layered_rules", computed_again)
    assert fast_encode_many(["abcab", "ab"], table, "numpy") == [[259, 258], [258]]


def test_fast_encode_many_rejects_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """(BPE-INPUT-TEXT, BPE-INPUT-RULES)"""
    with pytest.raises(TypeError, match="texts must be a sequence of str, not str"):
        fast_encode_many("ab", [])
    with pytest.raises(TypeError, match="text must be a str"):
        # wrong type on purpose: the call must be refused
        fast_encode_many([b"ab"], [])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="lone surrogate"):
        fast_encode_many(["\udc80"], [])
    with pytest.raises(ValueError, match="refers to id 258, which is itself"):
        fast_encode_many(["ab"], [(97, 258)])
    monkeypatch.setattr(fast_encoding, "MAX_BATCH_BYTES", 3)
    assert fast_encode_many(["ab", "c"], [(97, 98)], "numpy") == [[258], [99]]
    with pytest.raises(ValueError, match="texts hold 4 bytes; the batched encoder takes at most 3"):
        fast_encode_many(["ab", "cd"], [(97, 98)], "numpy")


def test_byte_pairs_beyond_one_byte_of_count() -> None:
    """Windows counted in the index by 16-bit pair codes: high bytes and pairs seen > 65 536 times."""
    text = "é" * 40_000 + "ab" * 33_000
    rules = [(0xC3, 0xA9), (258, 258), (97, 98), (260, 260)]
    assert _batched([text, "é"], rules) == [encode_bytes(text.encode(), rules), [258]]
