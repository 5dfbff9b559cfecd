"""Reference behaviour that no other test pinned down, found by mutation testing (docs/mutation.md).

Each test still states a rule of the specification or of the reference's documented interface and
names its clause; none asserts wording beyond the fact the message must carry (what was wrong).
"""

from __future__ import annotations

import importlib.util

import pytest

from reference import Tokenizer, encode_bytes, format_trace, trace_training, train
from reference.alphabet import BEGIN_ID, BYTE_COUNT, END_ID, FIRST_RULE_ID, is_boundary, is_byte
from reference.decoding import strict_utf8
from reference.dialects import _byte_level_alphabet, byte_level_symbol, check_profile_rules, encode_profile
from reference.fast_encoding import MergeTable, fast_encode_bytes
from reference.fast_training import NUMPY_MIN_BYTES, _choose_engine, fast_train, numpy_available
from reference.profiles import MINBPE, TIKTOKEN


def _gpt2_bytes_to_unicode() -> dict[int, str]:
    """GPT-2's published byte-to-character table, rebuilt here from its definition."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = {byte: chr(byte) for byte in kept}
    shifted = 0
    for byte in range(BYTE_COUNT):
        if byte not in table:
            table[byte] = chr(BYTE_COUNT + shifted)
            shifted += 1
    return table


# --- BPE-ALPHA-BYTES, BPE-ALPHA-BOUNDARY ---------------------------------------------------------


def test_alpha_bytes_exactly_ids_0_to_255_are_bytes() -> None:
    """BPE-ALPHA-BYTES: "Ids 0-255 are the 256 byte values"; nothing below or above is a byte."""
    assert [token for token in range(-2, FIRST_RULE_ID + 3) if is_byte(token)] == list(range(BYTE_COUNT))


def test_alpha_boundary_exactly_256_and_257_are_boundaries() -> None:
    """BPE-ALPHA-BOUNDARY: the begin and end ids are 256 and 257, and no other id is a boundary."""
    assert [token for token in range(-2, FIRST_RULE_ID + 3) if is_boundary(token)] == [BEGIN_ID, END_ID]


# --- the hf-tokenizers dialect's byte-level alphabet (profile hf-tokenizers) ---------------------


def test_hf_byte_level_alphabet_is_gpt2_bytes_to_unicode() -> None:
    """BPE-TRAIN-TIE under hf-tokenizers: its ties follow ids ordered by GPT-2's byte-level characters.

    The table is built once at import, so the builder is also called here directly: that is the only
    way mutation testing (which forks after import) can see a change in it.
    """
    expected = _gpt2_bytes_to_unicode()
    assert _byte_level_alphabet() == tuple(expected[byte] for byte in range(BYTE_COUNT))
    assert [byte_level_symbol(byte) for byte in range(BYTE_COUNT)] == [expected[byte] for byte in range(BYTE_COUNT)]
    assert len(set(expected.values())) == BYTE_COUNT


# --- the trace (BPE-TRAIN-STOP, BPE-TRAIN-TIE as the trace reports them) -------------------------


def test_trace_stop_reason_reports_a_best_count_of_zero_when_no_pair_is_left() -> None:
    """BPE-TRAIN-STOP: with nothing left to count, the trace says the best count was 0, not 1."""
    assert trace_training(["a", "b"], 8).stop_reason == "best count 0 < 2 after 0 rules"
    assert trace_training(["aa", "aa"], 8).stop_reason == "best count 0 < 2 after 1 rules"


def test_trace_keeps_the_five_highest_counts_by_default() -> None:
    """BPE-TRAIN-GREEDY: each round shows its five best candidates, highest count first, ties by pair."""
    trace = trace_training(["abcdefgh", "abcdefgh"], 1)
    pairs = [(97, 98), (98, 99), (99, 100), (100, 101), (101, 102)]
    assert trace.rounds[0].top_counts == [(pair, 2) for pair in pairs]
    assert len(trace_training(["abcdefgh", "abcdefgh"], 1, top=7).rounds[0].top_counts) == 7


def test_trace_table_marks_a_two_way_tie_and_only_ties() -> None:
    """BPE-TRAIN-TIE: a round decided by the tie rule says how many pairs tied; an untied one says nothing."""
    lines = format_trace(trace_training(["abab", "acac"], 32)).splitlines()
    assert "tie of 2" in lines[1]
    assert "tie of" not in lines[2]


# --- the fast engines' interfaces (BPE-INPUT-TEXT, engine choice) --------------------------------


def test_fast_encode_bytes_rejects_text_naming_its_type() -> None:
    """BPE-INPUT-TEXT: the bytes entry point rejects a str with a TypeError that names the type it got."""
    with pytest.raises(TypeError, match="data must be bytes, not str"):
        fast_encode_bytes("ab", [(97, 98)])
    assert fast_encode_bytes(bytearray(b"abab"), [(97, 98)]) == [258, 258]


def test_numpy_available_tells_the_truth() -> None:
    """BPE-PROP-DETERMINISM: the engine choice reads the real environment (the rules are the same either way)."""
    assert numpy_available() == (importlib.util.find_spec("numpy") is not None)
    assert Tokenizer().train(["abab", "acac"], 32) == train(["abab", "acac"], 32)


# --- dialects: tiktoken's lone surrogates and piece ranks (profile tiktoken) ---------------------------


@pytest.mark.parametrize(
    ("text", "replaced"),
    [("\ud800", True), ("\udfff", True), ("a\udc80b", True), ("\ud7ff", False), ("\ue000", False)],
)
def test_tiktoken_replaces_exactly_the_lone_surrogates(text: str, replaced: bool) -> None:
    """BPE-INPUT-TEXT under tiktoken: U+D800-U+DFFF (and nothing next to them) become U+FFFD before encoding."""
    expected = "".join("\ufffd" if 0xD800 <= ord(char) <= 0xDFFF else char for char in text)
    assert (expected != text) == replaced
    assert encode_profile(text, [], TIKTOKEN) == list(expected.encode("utf-8"))


def test_piece_rank_merges_the_lowest_rank_even_when_it_is_not_leftmost() -> None:
    """BPE-ENCODE-ORDER under tiktoken: the pair with the lowest rank wins, wherever it is in the text."""
    rules = [(98, 99), (97, 98)]  # "bc" has rank 256, "ab" rank 257
    assert encode_profile("abc", rules, TIKTOKEN) == [97, 256]
    assert encode_profile("abcab", rules, TIKTOKEN) == [97, 256, 257]


# --- the batched numpy engine on corpora built to trip it (BPE-TRAIN-DOCS, BPE-TRAIN-COUNT) -------------


NEEDS_NUMPY = pytest.mark.skipif(not numpy_available(), reason="numpy is not installed")


@NEEDS_NUMPY
@pytest.mark.parametrize(
    "documents",
    [
        ["a\x01a\x01", "xa"],  # a document ending in "a" before the merge of (a, \x01)
        ["a\x01a\x01", "xa", "xa"],
        ["xa", "yx", "xa", "yx", "xa", "yx", "xy"],  # repeated documents whose joins would pair up
        ["ab", "ab", "ba", "ba", "ab"],
        ["\x01\x01\x01\x01\x01", "\x01\x01\x01", "\x01\x01\x01\x01\x01", "\x01\x01\x01"],  # runs of byte 1
        ["aaaa", "aaaa", "aaa"],
        ["abcabc", "abcabc", "abcabc", "cab"],
        ["", "a", "ab", "ab"],
    ],
)
@pytest.mark.parametrize("max_merges", [1, 3, 8])
def test_numpy_engine_makes_the_literal_rules(documents: list[str], max_merges: int) -> None:
    """BPE-TRAIN-DOCS: "Pairs are counted inside each document", repeated documents and byte 1 included."""
    assert fast_train(documents, max_merges, engine="numpy") == train(documents, max_merges)


# --- rules in a dialect's numbering (BPE-INPUT-RULES under a profile) ------------------------------------


def test_profile_rules_are_rejected_naming_the_problem() -> None:
    """BPE-INPUT-RULES under minbpe: a str is a TypeError naming it; an id past the rules names the range."""
    with pytest.raises(TypeError, match="rules must be a list of \\(int, int\\) pairs, not str"):
        check_profile_rules("ab", MINBPE)
    message = "in profile 'minbpe' a rule may refer only to bytes 0-255 or earlier rules \\(256 and up\\)"
    with pytest.raises(ValueError, match=message):
        check_profile_rules([(97, 300)], MINBPE)
    assert check_profile_rules([(0, 0), (256, 0)], MINBPE) == [(0, 0), (256, 0)]


# --- engine choice and the strict decoder's report ---------------------------------------------------------


def test_auto_engine_picks_numpy_exactly_from_the_documented_size() -> None:
    """BPE-PROP-DETERMINISM: "auto" picks numpy when it is installed and the corpus reaches NUMPY_MIN_BYTES."""
    small = [b"a" * (NUMPY_MIN_BYTES - 1)]
    exact = [b"a" * (NUMPY_MIN_BYTES // 2), b"b" * (NUMPY_MIN_BYTES - NUMPY_MIN_BYTES // 2)]
    assert _choose_engine("auto", small) == "python"
    assert _choose_engine("auto", exact) == ("numpy" if numpy_available() else "python")
    assert [_choose_engine(engine, small) for engine in ("numpy", "python")] == ["numpy", "python"]
    with pytest.raises(ValueError, match="engine must be one of auto, numpy, python, not 'fast'"):
        _choose_engine("fast", small)


def test_invalid_utf8_is_reported_with_four_bytes_either_side() -> None:
    """BPE-DECODE-STRICT: the error names the byte offset and shows the bytes around it in hex."""
    data = b"abcdef\xffghijkl"
    with pytest.raises(ValueError) as caught:
        strict_utf8(data)
    assert str(caught.value) == (
        "ids decode to invalid UTF-8 at byte offset 6 (invalid start byte): 63 64 65 66 ff 67 68 69 6a"
    )


def test_merge_table_codes_never_collide() -> None:
    """BPE-ENCODE-ORDER: the table's pair codes are unique, so a rule is never hidden behind another.

    With ten rules, a code base of 248 (below the vocabulary) would give (0, 248) the code of (1, 0).
    """
    rules = [(1, 0), (0, 248)] + [(97, 97)] * 8
    assert fast_encode_bytes(b"\x00\xf8", rules) == encode_bytes(b"\x00\xf8", rules) == [259]
    assert fast_encode_bytes(b"\x01\x00\x00\xf8", MergeTable(rules)) == [258, 259]


@pytest.mark.parametrize(("documents", "type_name"), [(b"abab", "bytes"), (None, "NoneType"), ({"abab"}, "set")])
def test_documents_that_are_not_a_str_get_no_advice_to_wrap_them(documents: object, type_name: str) -> None:
    """BPE-INPUT-DOCS: only a str gets the hint "(wrap a single document in a list)" of the spec's example.

    For bytes, None or a set the advice would be wrong (a list holding them is still not a list of str);
    the message is the spec's "documents must be a list of str, not <type>" and nothing after it.
    """
    with pytest.raises(TypeError) as caught:
        train(documents, 32)
    assert str(caught.value) == f"documents must be a list of str, not {type_name}"
    with pytest.raises(TypeError, match=r"not str \(wrap a single document in a list\)$"):
        train("abab", 32)
