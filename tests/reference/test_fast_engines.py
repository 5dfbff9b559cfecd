"""The fast engines give exactly the literal answers: differential, exhaustive and worked-example tests.

Every comparison is against the literal reference (``bpe_conformance.reference.training.train``,
``bpe_conformance.reference.encoding.encode``), never against remembered outputs, except the worked examples
the specification itself states.
"""

from __future__ import annotations

import heapq
import importlib.util
import itertools
import random
import sys
import sysconfig
from pathlib import Path
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.reference import LiteralTokenizer, Tokenizer, encode, encode_bytes, fast_encoding, train
from bpe_conformance.reference.fast_counts import (
    _STALE_FACTOR,
    _STALE_FLOOR,
    apply_changes,
    heap_entry,
    pair_code,
    pop_best,
    split_code,
    start_heap,
)
from bpe_conformance.reference.fast_encoding import MergeTable, fast_encode, fast_encode_bytes, fast_encode_many
from bpe_conformance.reference.fast_training import NUMPY_MIN_BYTES, _choose_engine, fast_train, numpy_available

NEEDS_NUMPY = pytest.mark.skipif(not numpy_available(), reason="numpy is not installed")
ENGINES = ["python", pytest.param("numpy", marks=NEEDS_NUMPY)]
# Enough rounds for any corpus drawn below to stop on its own (best count < 2).
UNLIMITED = 10_000

# Bytes whose ids have one, two and three digits (9, 10, 99, 100, ...), multi-byte UTF-8 and an emoji.
_CHARS = "ab\t\ncdef é低😀"
_PATTERNS = ["ab", "aab", "aabaab", "abb", "ba", "cd", "cf", "de", "é低", "😀a", "\t\n"]

runs = st.builds(lambda char, length: char * length, st.sampled_from(_CHARS), st.integers(1, 9))
interleaved = st.builds(lambda pattern, times: pattern * times, st.sampled_from(_PATTERNS), st.integers(1, 4))
free_text = st.text(alphabet=st.sampled_from(_CHARS), max_size=8)
documents = st.lists(st.one_of(runs, interleaved, free_text), max_size=4).map("".join)


def _with_copies(docs: list[str], copies: list[int]) -> list[str]:
    return docs + [docs[index % len(docs)] for index in copies] if docs else docs


def _mirrored(document: str, swap: tuple[str, str]) -> list[str]:
    """A document and its image under a letter swap: every pair count has a twin, so ties abound."""
    old, new = swap
    return [document, document.replace(old, "\0").replace(new, old).replace("\0", new)]


def _split(text: str, cuts: list[int]) -> list[str]:
    """One text cut into documents: pairs that span a cut must never be counted."""
    points = sorted({cut % (len(text) + 1) for cut in cuts})
    return [text[start:end] for start, end in zip([0, *points], [*points, len(text)], strict=True)]


corpora = st.one_of(
    st.builds(_with_copies, st.lists(documents, max_size=5), st.lists(st.integers(0, 9), max_size=3)),
    st.builds(_mirrored, documents, st.sampled_from([("a", "b"), ("c", "f"), ("d", "e"), ("\t", "\n"), ("a", "c")])),
    st.builds(_split, documents, st.lists(st.integers(0, 40), max_size=5)),
)


@st.composite
def rule_lists(draw: st.DrawFn, max_rules: int = 12) -> list[tuple[int, int]]:
    """Any valid rule list over a few bytes: duplicates, never-applicable and same-piece rules included."""
    byte_ids = [0, 97, 98, 99, 0xC3, 0xA9, 0xF0]
    rules: list[tuple[int, int]] = []
    for rank in range(draw(st.integers(0, max_rules))):
        if rules and draw(st.integers(0, 5)) == 0:
            rules.append(draw(st.sampled_from(rules)))
            continue
        ids = st.sampled_from(byte_ids + [258 + earlier for earlier in range(rank)])
        rules.append((draw(ids), draw(ids)))
    return rules


encodable_texts = st.text(alphabet=st.sampled_from("abcé\0"), max_size=24)


@pytest.mark.parametrize("engine", ENGINES)
@given(corpora)
def test_fast_training_equals_literal_for_every_max_merges(engine: str, docs: list[str]) -> None:
    """Spec: "Every round counts all adjacent pairs ... summed over documents, never across a document boundary.
    The highest count wins; ties go to the smallest (a, b) tuple ... Stop when the best count is < 2 or
    after max_merges rules." (BPE-TRAIN-COUNT, BPE-TRAIN-DOCS, BPE-TRAIN-GREEDY, BPE-TRAIN-TIE,
    BPE-TRAIN-RECOUNT, BPE-TRAIN-STOP, BPE-MERGE-SCAN, BPE-MERGE-NOREMATCH)"""
    literal = train(docs, UNLIMITED)
    assert fast_train(docs, UNLIMITED, engine=engine) == literal
    for max_merges in range(len(literal) + 1):
        assert fast_train(docs, max_merges, engine=engine) == train(docs, max_merges)


@given(corpora)
def test_fast_training_ignores_document_order(docs: list[str]) -> None:
    """Spec: "Document order does not change the rules." (BPE-PROP-PERMUTE, BPE-TRAIN-DOCS)"""
    assert fast_train(list(reversed(docs)), UNLIMITED) == fast_train(docs, UNLIMITED) == train(docs, UNLIMITED)


@given(corpora, st.lists(encodable_texts, max_size=3))
def test_fast_encoding_equals_literal_with_trained_rules(docs: list[str], texts: list[str]) -> None:
    """Spec: "Encoding applies the rules in rank order to the text's UTF-8 bytes (no pre-tokenization)."
    (BPE-ENCODE-ORDER, BPE-ENCODE-RAW, BPE-ENCODE-LOWEST)"""
    rules = train(docs, UNLIMITED)
    table = MergeTable(rules)
    for text in docs + texts:
        assert fast_encode(text, rules) == fast_encode(text, table) == encode(text, rules)


@given(rule_lists(), encodable_texts)
def test_fast_encoding_equals_literal_with_any_valid_rules(rules: list[tuple[int, int]], text: str) -> None:
    """Spec: "A rule may refer only to bytes or earlier rule ids"; the exact id sequence is the contract, for any
    such list, even one no training could make. (BPE-ENCODE-ORDER, BPE-ENCODE-LOWEST, BPE-RULE-REF)"""
    data = text.encode("utf-8")
    assert fast_encode(text, rules) == encode(text, rules)
    assert fast_encode_bytes(data, rules) == encode_bytes(data, rules)


@given(rule_lists(), encodable_texts)
def test_merge_table_is_a_rule_list_for_any_encoder(rules: list[tuple[int, int]], text: str) -> None:
    """A prepared table is the same rules in rank order, so the literal encoder accepts it. (BPE-ENCODE-ORDER)"""
    table = MergeTable(rules)
    assert list(table) == rules
    assert len(table) == len(rules)
    # a MergeTable is a sequence of rules; encode's annotation says list
    assert encode(text, table) == encode(text, rules)  # type: ignore[arg-type]


_AB_DOCUMENTS = ["".join(letters) for length in range(11) for letters in itertools.product("ab", repeat=length)]


@pytest.mark.parametrize("engine", ENGINES)
def test_every_ab_document_up_to_length_10(engine: str) -> None:
    """Exhaustive: each of the 2047 documents over {a, b} of length <= 10 alone. (BPE-TRAIN-COUNT, BPE-MERGE-SCAN)"""
    for document in _AB_DOCUMENTS:
        assert fast_train([document], UNLIMITED, engine=engine) == train([document], UNLIMITED), document


@pytest.mark.parametrize("engine", ENGINES)
def test_every_small_set_of_ab_documents(engine: str) -> None:
    """Exhaustive: every pair of {a, b} documents of length <= 5 and every triple of length <= 3.
    (BPE-TRAIN-DOCS, BPE-TRAIN-TIE)"""
    short = [document for document in _AB_DOCUMENTS if len(document) <= 5]
    shorter = [document for document in short if len(document) <= 3]
    corpora_checked = [*itertools.combinations_with_replacement(short, 2), *itertools.combinations(shorter, 3)]
    for docs in corpora_checked:
        assert fast_train(list(docs), UNLIMITED, engine=engine) == train(list(docs), UNLIMITED), docs


def _all_rule_lists(max_rules: int) -> list[list[tuple[int, int]]]:
    lists: list[list[tuple[int, int]]] = [[]]
    frontier: list[list[tuple[int, int]]] = [[]]
    for rank in range(max_rules):
        ids = [97, 98] + [258 + earlier for earlier in range(rank)]
        frontier = [[*rules, (left, right)] for rules in frontier for left, right in itertools.product(ids, repeat=2)]
        lists.extend(frontier)
    return lists


def test_every_rule_list_of_three_on_every_short_ab_text() -> None:
    """Exhaustive: all 616 rule lists of <= 3 rules over {a, b} on all 255 texts of length <= 7, by
    the heap encoder one text at a time and by the batched one (when numpy is installed) all texts
    at once. (BPE-ENCODE-ORDER, BPE-MERGE-SCAN, BPE-MERGE-NOREMATCH)"""
    texts = [document for document in _AB_DOCUMENTS if len(document) <= 7]
    engines = ["heap", "numpy"] if numpy_available() else ["heap"]
    for rules in _all_rule_lists(3):
        table = MergeTable(rules)
        literal = [encode(text, rules) for text in texts]
        assert [fast_encode(text, table) for text in texts] == literal, rules
        for engine in engines:
            assert fast_encode_many(texts, table, engine) == literal, (engine, rules)


@pytest.mark.parametrize("engine", ENGINES)
def test_worked_examples(engine: str) -> None:
    """The worked answers of the specification. (BPE-TRAIN-TIE, BPE-TRAIN-STOP, BPE-ENCODE-BOUNDARY)"""
    rules = fast_train(["abab", "acac"], 32, engine=engine)
    assert rules == [(97, 98), (97, 99)]
    assert fast_encode("abac", rules) == [258, 259]
    assert fast_train(["aaab", "aab"], 32, engine=engine) == [(97, 97)]
    low = "低" * 30
    two = fast_train([low], 2, engine=engine)
    assert two[0] == (189, 142)
    assert [len(fast_encode(low, two[:count])) for count in range(3)] == [90, 60, 30]


def _pseudo_text(size: int, seed: int) -> str:
    generator = random.Random(seed)
    words = ["def", "return", "self", "    ", "\n", " = ", "低", "é", "x", "aa", "aaa", "(", ")"]
    return "".join(generator.choice(words) for _ in range(size // 3))


def test_auto_engine_agrees_on_a_corpus_large_enough_for_numpy() -> None:
    """Spec: "ties go to the smallest (a, b) tuple compared as integers"; same rules whichever engine runs.
    (BPE-PROP-DETERMINISM, BPE-TRAIN-TIE)"""
    docs = [_pseudo_text(NUMPY_MIN_BYTES // 4, seed) for seed in range(5)] + [_pseudo_text(NUMPY_MIN_BYTES // 4, 0)]
    assert fast_train(docs, 150, engine="auto") == fast_train(docs, 150, engine="python")


def test_auto_engine_without_numpy_uses_plain_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same rules when numpy cannot be imported: the plain engine takes over. (BPE-PROP-DETERMINISM)"""
    docs = [_pseudo_text(NUMPY_MIN_BYTES, 7)]
    expected = fast_train(docs, 40, engine="python")
    monkeypatch.setitem(sys.modules, "numpy", None)
    assert not numpy_available()
    assert fast_train(docs, 40) == expected


def test_stale_heap_entries_never_change_the_choice() -> None:
    """Highest count wins, ties to the smallest pair, however many outdated entries pile up; a heap
    grown far beyond the live pairs is rebuilt from the counts. (BPE-TRAIN-GREEDY, BPE-TRAIN-TIE)"""
    counts = {pair_code(97, 98): 5, pair_code(97, 99): 5, pair_code(98, 98): 1}
    heap = start_heap(counts)
    for stale in range(6000):
        heap.append(heap_entry(1000 + stale, pair_code(97, 98)))
    heap.sort()
    apply_changes(counts, heap, [(pair_code(97, 99), -1), (pair_code(98, 98), 3)], pair_code(120, 120))
    assert len(heap) <= len(counts)
    assert [split_code(cast("int", pop_best(heap, counts))) for _ in range(3)] == [(97, 98), (97, 99), (98, 98)]
    assert pop_best(heap, counts) is None


@pytest.mark.parametrize(
    ("documents_arg", "max_merges", "error"),
    [
        (["ab"], True, TypeError),
        (["ab"], -1, ValueError),
        (["ab"], 1.0, TypeError),
        ("ab", 1, TypeError),
        ([b"ab"], 1, TypeError),
        (["a\ud800"], 1, ValueError),
    ],
)
def test_fast_training_rejects_what_the_literal_rejects(
    documents_arg: object, max_merges: object, error: type[Exception]
) -> None:
    """Bad input is a ValueError/TypeError naming what was wrong, the literal's own message.
    (BPE-TRAIN-MAXMERGES, BPE-INPUT-DOCS)"""
    with pytest.raises(error) as literal_error:
        # wrong type on purpose: the call must be refused
        train(documents_arg, max_merges)  # type: ignore[arg-type]
    with pytest.raises(error) as fast_error:
        fast_train(documents_arg, max_merges)  # type: ignore[arg-type]
    assert str(fast_error.value) == str(literal_error.value)


@NEEDS_NUMPY
def test_numpy_engine_rejects_a_corpus_beyond_its_int32_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    """(BPE-INPUT-DOCS)"""
    from bpe_conformance.reference import fast_training_numpy

    monkeypatch.setattr(fast_training_numpy, "MAX_CORPUS_BYTES", 5)  # 4 bytes and one separator
    assert fast_train(["abab"], 3, engine="numpy") == [(97, 98)]
    with pytest.raises(ValueError, match=r"need 6 positions \(5 bytes, 1 separator\); the numpy engine takes at most"):
        fast_train(["ababa"], 3, engine="numpy")


def test_fast_training_rejects_an_unknown_engine() -> None:
    with pytest.raises(ValueError, match="engine must be one of"):
        fast_train(["abab"], 1, engine="gpu")


def test_fast_encoding_rejects_bad_input() -> None:
    """(BPE-INPUT-TEXT, BPE-INPUT-RULES)"""
    with pytest.raises(TypeError, match="text must be a str"):
        # wrong type on purpose: the call must be refused
        fast_encode(b"ab", [])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lone surrogate"):
        fast_encode("\udc80", [])
    with pytest.raises(ValueError, match="refers to id 258, which is itself"):
        fast_encode("ab", [(97, 258)])
    with pytest.raises(ValueError, match="boundary id 256"):
        MergeTable([(256, 97)])
    with pytest.raises(TypeError, match="data must be bytes"):
        # wrong type on purpose: the call must be refused
        fast_encode_bytes("ab", [])  # type: ignore[arg-type]


def test_fast_encoding_rejects_a_text_too_long_for_its_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    """(BPE-INPUT-TEXT)"""
    monkeypatch.setattr(fast_encoding, "MAX_TEXT_BYTES", 3)
    assert fast_encode("abc", [(97, 98)]) == [258, 99]
    with pytest.raises(ValueError, match="text is 4 bytes; the fast encoder takes at most 3"):
        fast_encode("abcd", [(97, 98)])


@given(corpora, encodable_texts)
def test_tokenizer_uses_fast_engines_with_literal_answers(docs: list[str], text: str) -> None:
    """The everyday Tokenizer gives the literal tokenizer's answers through its whole public API.
    (BPE-ENCODE-ORDER, BPE-ENCODE-BOUNDARY, BPE-ENCODE-PURE, BPE-ROUNDTRIP, BPE-SER-DIGEST, BPE-VOCAB-SIZE)"""
    fast, literal = Tokenizer(), LiteralTokenizer()
    assert fast.train(docs, UNLIMITED) == literal.train(docs, UNLIMITED)
    for sample in [text, *docs]:
        assert fast.encode(sample) == literal.encode(sample)
        assert fast.encode_document(sample) == literal.encode_document(sample)
        assert fast.decode(fast.encode(sample)) == sample
    assert (fast.rules, fast.vocab_size, fast.digest, fast.dumps()) == (
        literal.rules,
        literal.vocab_size,
        literal.digest,
        literal.dumps(),
    )


def test_tokenizer_rebuilds_its_table_on_every_adoption() -> None:
    """Encoding follows the rules of the last train/load, and a rejected load changes nothing.
    (BPE-SER-LOAD, BPE-INPUT-RULES, BPE-ENCODE-PURE)"""
    tokenizer = Tokenizer()
    assert Tokenizer._train is fast_train
    assert Tokenizer._encode is fast_encode
    tokenizer.train(["abab", "acac"], 32)
    assert tokenizer.encode("abac") == [258, 259]
    tokenizer.load([(97, 99)])
    assert tokenizer.encode("abac") == [97, 98, 258]
    with pytest.raises(ValueError, match="refers to id 260, which is itself or a later rule"):
        tokenizer.load([(97, 260)])
    assert tokenizer.encode("abac") == [97, 98, 258]
    assert tokenizer.rules == [(97, 99)]
    tokenizer.loads(LiteralTokenizer().dumps())
    assert tokenizer.encode("abac") == [97, 98, 97, 99]


def _stdlib_text(limit: int) -> list[str]:
    root = Path(sysconfig.get_paths()["stdlib"])
    docs, total = [], 0
    for path in sorted(root.glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="strict")
        docs.append(text)
        total += len(text)
        if total >= limit:
            break
    return docs


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_many_random_corpora_against_the_literal(engine: str) -> None:
    """Heavier differential run: 400 seeded corpora of up to ~2 KB, trained to the end and encoded.
    (BPE-TRAIN-*, BPE-ENCODE-ORDER)"""
    for seed in range(400):
        generator = random.Random(seed)
        docs = [
            _pseudo_text(generator.randrange(0, 600), seed * 10 + index) for index in range(generator.randrange(1, 5))
        ]
        docs += generator.sample(docs, k=generator.randrange(0, len(docs) + 1))
        rules = train(docs, UNLIMITED)
        assert fast_train(docs, UNLIMITED, engine=engine) == rules, seed
        for text in docs:
            assert fast_encode(text, rules) == encode(text, rules), seed


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_real_source_code_against_the_literal(engine: str) -> None:
    """About 60 KB of standard-library source, 300 merges: same rules and ids. (BPE-TRAIN-*, BPE-ENCODE-ORDER)"""
    docs = _stdlib_text(60_000)
    rules = train(docs, 300)
    assert fast_train(docs, 300, engine=engine) == rules
    assert fast_encode(docs[0], rules) == encode(docs[0], rules)


# --- the fast engines' interfaces (BPE-INPUT-TEXT, engine choice) --------------------------------


def test_fast_encode_bytes_rejects_text_naming_its_type() -> None:
    """BPE-INPUT-TEXT: the bytes entry point rejects a str with a TypeError that names the type it got."""
    with pytest.raises(TypeError) as caught:
        # wrong type on purpose: the call must be refused
        fast_encode_bytes("ab", [(97, 98)])  # type: ignore[arg-type]
    assert str(caught.value).startswith("data ")
    assert "bytes" in str(caught.value)
    assert str(caught.value).split()[-1] == "str"
    # a bytearray on purpose: accepted like bytes
    assert fast_encode_bytes(bytearray(b"abab"), [(97, 98)]) == [258, 258]  # type: ignore[arg-type]


def test_numpy_available_tells_the_truth() -> None:
    """BPE-PROP-DETERMINISM: the engine choice reads the real environment (the rules are the same either way)."""
    assert numpy_available() == (importlib.util.find_spec("numpy") is not None)
    assert Tokenizer().train(["abab", "acac"], 32) == train(["abab", "acac"], 32)


# --- the batched numpy engine on corpora built to trip it (BPE-TRAIN-DOCS, BPE-TRAIN-COUNT) -------------


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


# --- engine choice ---------------------------------------------------------


def test_auto_engine_picks_numpy_exactly_from_the_documented_size() -> None:
    """BPE-PROP-DETERMINISM: "auto" picks numpy when it is installed and the corpus reaches NUMPY_MIN_BYTES."""
    small = [b"a" * (NUMPY_MIN_BYTES - 1)]
    exact = [b"a" * (NUMPY_MIN_BYTES // 2), b"b" * (NUMPY_MIN_BYTES - NUMPY_MIN_BYTES // 2)]
    assert _choose_engine("auto", small) == "python"
    assert _choose_engine("auto", exact) == ("numpy" if numpy_available() else "python")
    assert [_choose_engine(engine, small) for engine in ("numpy", "python")] == ["numpy", "python"]
    with pytest.raises(ValueError) as unknown:  # noqa: PT011 - the message is asserted below, more closely than match= would
        _choose_engine("fast", small)
    message = str(unknown.value)
    assert message.startswith("engine ")
    assert "auto, numpy, python" in message  # every engine it takes, as a list
    assert message.split()[-1] == "'fast'"


def test_merge_table_codes_never_collide() -> None:
    """BPE-ENCODE-ORDER: the table's pair codes are unique, so a rule is never hidden behind another.

    With ten rules, a code base of 248 (below the vocabulary) would give (0, 248) the code of (1, 0).
    """
    rules = [(1, 0), (0, 248)] + [(97, 97)] * 8
    assert fast_encode_bytes(b"\x00\xf8", rules) == encode_bytes(b"\x00\xf8", rules) == [259]
    assert fast_encode_bytes(b"\x01\x00\x00\xf8", MergeTable(rules)) == [258, 259]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_byte_absorbed_by_a_merge_never_starts_a_later_window(engine: str) -> None:
    """BPE-MERGE-SCAN / BPE-TRAIN-RECOUNT: once ``\\x01`` is the second half of a merged ``(0, 1)`` it
    is gone; when ``(1, 2)`` is merged next, only the free ``\\x01\\x02`` documents hold it. An engine
    that leaves the absorbed byte looking like ``\\x01`` merges it with the ``\\x02`` after it too.

    Counts: ``(0, 1)`` 5, ``(1, 2)`` 4 -> merge ``(0, 1)``; then ``(1, 2)`` and ``(258, 2)`` both 2, the
    tie goes to ``(1, 2)`` (BPE-TRAIN-TIE); then ``(258, 2)`` 2; then nothing is seen twice.
    """
    docs = ["\x00\x01"] * 3 + ["\x00\x01\x02"] * 2 + ["\x01\x02"] * 2
    expected = [(0, 1), (1, 2), (258, 2)]
    assert train(docs, 10) == expected
    assert fast_train(docs, 10, engine=engine) == expected


# --- the shared pair counts (bpe_conformance.reference.fast_counts) ---------------------------------------------


def test_the_heap_is_rebuilt_only_once_it_passes_the_documented_bound() -> None:
    """``apply_changes`` rebuilds the heap from the counts once it holds more than ``_STALE_FACTOR``
    entries per counted pair plus ``_STALE_FLOOR``, and not before: a rebuild is a pass over every
    pair, so rebuilding sooner would make a round cost the number of pairs instead of the number of
    occurrences it merges (the fast trainers' documented cost). Either way the heap answers the same
    (BPE-TRAIN-GREEDY, BPE-TRAIN-TIE).
    """
    counts = {pair_code(97, 98): 5, pair_code(97, 99): 3}
    bound = _STALE_FACTOR * len(counts) + _STALE_FLOOR
    heap = start_heap(counts)
    for stale in range(bound - len(heap)):
        heapq.heappush(heap, heap_entry(1000 + stale, pair_code(97, 98)))
    nothing_merged = pair_code(120, 120)
    apply_changes(counts, heap, [], nothing_merged)
    assert len(heap) == bound  # at the bound: kept, stale entries and all
    heapq.heappush(heap, heap_entry(999, pair_code(97, 99)))
    apply_changes(counts, heap, [], nothing_merged)
    assert sorted(heap) == sorted(start_heap(counts))  # past it: rebuilt to the live pairs


@pytest.mark.parametrize("engine", ENGINES)
def test_progress_is_reported_after_every_round_by_either_engine(engine: str) -> None:
    seen: list[int] = []
    assert fast_train(["abab", "abab"], 5, engine=engine, progress=seen.append) == [(97, 98), (258, 258)]
    assert seen == [1, 2]


def test_a_rebuilt_heap_keeps_the_pairs_the_min_count_allows() -> None:
    """With ``min_count`` 1 (pairs seen once are merged, as rustbpe does), a heap rebuilt from the
    counts still holds the pairs counted once, ties to the smallest pair. (BPE-TRAIN-GREEDY)"""
    counts = {pair_code(97, 98): 1, pair_code(97, 99): 1}
    heap = start_heap(counts, 1)
    for stale in range(_STALE_FACTOR * len(counts) + _STALE_FLOOR):
        heapq.heappush(heap, heap_entry(1000 + stale, pair_code(97, 98)))
    apply_changes(counts, heap, [], pair_code(120, 120), 1)
    assert sorted(heap) == sorted(start_heap(counts, 1))
    assert len(heap) == 2
    assert [split_code(cast("int", pop_best(heap, counts))) for _ in range(2)] == [(97, 98), (97, 99)]
    assert start_heap(counts) == []
    assert pop_best(heap, counts) is None


# --- the heap encoder (bpe_conformance.reference.fast_encoding) -------------------------------------------------


def test_a_prepared_merge_table_is_used_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """``fast_encode``: "pass a MergeTable to reuse it". A table validates and indexes its rules once,
    when it is built; encoding with it neither validates nor rebuilds them again, and gives the
    literal ids (BPE-ENCODE-ORDER): ``abcab`` -> ``[258, 99, 258]`` -> ``[259, 258]``.
    """
    table = MergeTable([(97, 98), (258, 99)])

    def validated_again(rules: object) -> list[tuple[int, int]]:
        raise AssertionError(f"the rules of a prepared table were validated again: {rules!r}")

    monkeypatch.setattr(fast_encoding, "check_rules", validated_again)
    assert fast_encode("abcab", table) == [259, 258]
    assert fast_encode_bytes(b"abcab", table) == [259, 258]
