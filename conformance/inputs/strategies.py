"""Hypothesis strategies that provoke each class of BPE bug, for the checks and for your own tests.

Every function returns a strategy; options are keyword-only and checked eagerly, so a bad argument
is a :class:`hypothesis.errors.InvalidArgument` at the call, not a confusing failure later.

>>> from hypothesis import given
>>> from bpe_conformance.reference import train
>>> @given(tie_corpora())
... def test_ties_go_to_the_smallest_pair(documents):
...     assert my_tokenizer_train(documents, 8) == train(documents, 8)

>>> from hypothesis import find
>>> from bpe_conformance.reference import count_pairs, tied_pairs
>>> corpus = find(tie_corpora(), lambda corpus: True)
>>> len(tied_pairs(count_pairs([list(doc.encode()) for doc in corpus]))) >= 2
True
"""

from __future__ import annotations

import itertools
import unicodedata

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from bpe_conformance.inputs.predicates import (
    crosses_word_boundary,
    has_first_round_tie,
    merges_across_words,
    stale_choice_differs,
    top_pair_only_across_boundaries,
    utf8_sequences,
)
from bpe_conformance.reference import check_text, count_pairs, encode

__all__ = [
    "boundary_pair_corpora",
    "corpora",
    "crosses_word_boundary",
    "encode_texts",
    "has_first_round_tie",
    "max_merges_values",
    "merges_across_words",
    "pretokenization_corpora",
    "recount_corpora",
    "rule_lists",
    "run_corpora",
    "stale_choice_differs",
    "texts_and_rules",
    "tie_corpora",
    "top_pair_only_across_boundaries",
    "unicode_corpora",
]

# Small alphabets make pairs repeat, so training actually merges something.
SMALL_ALPHABETS = ("ab", "abc", "abcd", "ab ", "a b.", "aé", "低高", "a\n", "ab😀", "\x00a", "xy\r\n")
# ASCII letters whose code points straddle 100, so integer and string order of pairs disagree.
_LOW_LETTERS = "IJKLMNOPQRSTUVWXYZabc"  # 73-99: two digits
_HIGH_LETTERS = "defghijklmnopqrstuvwxyz"  # 100-122: three digits
_TWIN_BASES = ("é", "ß", "ñ", "ü")  # two-byte characters, to mirror onto other two-byte characters
_TWIN_IMAGES = ("д", "ж", "з", "и")  # Cyrillic: lead bytes d0/d1, never c3
_MIRROR = str.maketrans(_LOW_LETTERS + "".join(_TWIN_BASES), _HIGH_LETTERS[:21] + "".join(_TWIN_IMAGES))
_RUN_UNITS = ("a", "b", " ", "é", "低", "😀", "\x00", "ab", "\r\n")
UNICODE_SAMPLES = (
    "é",
    "e\u0301",
    "ñ",
    "n\u0303",
    "Å",
    "A\u030a",
    "ß",
    "低",
    "高",
    "한",
    "\u1112\u1161\u11ab",
    "😀",
    "👍🏽",
    "🇫🇷",
    "👨\u200d👩\u200d👧",
    "❤\ufe0f",
    "\r\n",
    "\n",
    "\t",
    "\x00",
    " ",
    "a",
    "b",
)
_SEPARATORS = (" ", ", ", ".", "\n", "\r\n", "\t", "-", "! ")
_WORDS = ("a", "ab", "the", "cat", "hi", "to", "x", "é", "低")
_FRESH = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%&()*+/:;<=>?@[]^_{|}~"
Rules = list[tuple[int, int]]


def _check_count(name: str, value: object, minimum: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidArgument(f"{name} must be an int, not {type(value).__name__} ({value!r})")
    if value < minimum:
        raise InvalidArgument(f"{name} must be at least {minimum}, got {value}")
    return value


def _check_range(low_name: str, low: int, high_name: str, high: int) -> None:
    if low > high:
        raise InvalidArgument(f"{low_name}={low} is larger than {high_name}={high}")


def _documents(alphabet: str, min_documents: int, max_documents: int, max_length: int) -> st.SearchStrategy[list[str]]:
    return st.lists(st.text(alphabet=alphabet, max_size=max_length), min_size=min_documents, max_size=max_documents)


def corpora(*, min_documents: int = 0, max_documents: int = 4, max_length: int = 30) -> st.SearchStrategy[list[str]]:
    """Training corpora of every kind below, plus random documents over small alphabets.

    Small alphabets are what make pairs repeat; the special kinds target one bug class each.
    The sizes bound the random documents; the special kinds scale with them but may exceed them a
    little (a boundary corpus needs enough documents for its cross-boundary pair to be the top one).

    >>> from hypothesis import find
    >>> documents = find(corpora(min_documents=2), lambda documents: "".join(documents))
    >>> len(documents) >= 2 and all(isinstance(document, str) for document in documents)
    True
    """
    _check_count("min_documents", min_documents)
    _check_count("max_documents", max_documents)
    _check_count("max_length", max_length)
    _check_range("min_documents", min_documents, "max_documents", max_documents)
    sizes = (min_documents, max_documents, max_length)
    random_kind = st.one_of([_documents(alphabet, *sizes) for alphabet in SMALL_ALPHABETS])
    if max_documents < 3 or max_length < 8:
        return random_kind
    special = st.one_of(
        run_corpora(max_documents=max_documents, max_run=max_length),
        tie_corpora(max_length=max_length),
        unicode_corpora(max_documents=max_documents, max_length=max_length),
        pretokenization_corpora(max_documents=max_documents, max_length=max_length),
        recount_corpora(max_documents=max_documents, max_length=max_length),
        boundary_pair_corpora(max_documents=max_documents + 3),
    )
    return random_kind | special.filter(lambda documents: len(documents) >= min_documents)


def _run_document(prefix: str, unit: str, times: int, suffix: str, repeats: int) -> str:
    return (prefix + unit * times + suffix) * repeats


def run_corpora(*, max_documents: int = 3, max_run: int = 30) -> st.SearchStrategy[list[str]]:
    """Documents built around long runs of one unit (``aaaa…``, ``ababab…``, ``低低…``), odd and even lengths.

    Runs are where overlapping counts (BPE-TRAIN-COUNT) and non-overlapping, left-to-right replacement
    (BPE-MERGE-SCAN) show: ``aaa`` counts (a, a) twice but merges it once, into ``[aa, a]``. A document
    may repeat its run with its neighbours, so the pairs a run's leftover makes are counted twice.

    >>> from hypothesis import find
    >>> documents = find(run_corpora(max_run=4), lambda documents: True)
    >>> any(unit * 2 in document for document in documents for unit in _RUN_UNITS)
    True
    """
    _check_count("max_documents", max_documents, 1)
    _check_count("max_run", max_run, 2)
    document = st.builds(
        _run_document,
        st.sampled_from(("", "", "b", "x", "ba")),
        st.sampled_from(_RUN_UNITS),
        st.integers(2, max_run),
        st.sampled_from(("", "", "b", "ab", "c")),
        st.integers(1, 3),
    )
    return st.lists(document, min_size=1, max_size=max_documents)


def _twin_corpus(word: str, times: int, extra: list[str], mirrored_first: bool) -> list[str]:
    """``word * times`` and its mirror image on a disjoint alphabet: every pair has a twin with the same count."""
    document = word * times
    twin = document.translate(_MIRROR)
    pair = [twin, document] if mirrored_first else [document, twin]
    return pair + extra


def _rule_versus_byte_corpus(times: int, other: str) -> list[str]:
    """``(ABC)*n`` merges (A, B) first; then (258, C) ties with ``other``'s byte pair, also counted n times."""
    return ["ABC" * times, other * times]


def tie_corpora(*, max_length: int = 30) -> st.SearchStrategy[list[str]]:
    """Corpora whose first round is a tie: two or more pairs share the highest count, which is at least 2.

    Mostly a document and its mirror image on a disjoint alphabet whose code points straddle 100 (so
    ``(99, 102)`` against ``(100, 101)``-style ties, where string order disagrees with integer order),
    and corpora where a pair of a rule id ties with a pair of bytes in the second round (BPE-TRAIN-TIE).

    >>> from hypothesis import find
    >>> has_first_round_tie(find(tie_corpora(), lambda documents: True))
    True
    """
    _check_count("max_length", max_length, 8)
    twins = st.one_of(
        [
            st.builds(
                _twin_corpus,
                st.text(alphabet=_LOW_LETTERS[-6:] + "".join(_TWIN_BASES[:2]), min_size=length, max_size=length),
                st.integers(2, max(2, max_length // (2 * length))),
                st.lists(st.sampled_from(("a", "d", "ad", "")), max_size=1),
                st.booleans(),
            )
            for length in (2, 3, 4)
        ]
    )
    rule_versus_byte = st.builds(
        _rule_versus_byte_corpus, st.integers(2, max(2, max_length // 3)), st.sampled_from(("cd", "Ze", "xy"))
    )
    return st.one_of(twins, rule_versus_byte).filter(has_first_round_tie)


def _boundary_corpus(outer: tuple[str, str], middles: list[str]) -> list[str]:
    """Documents ``x…y`` around ``middles``, plus fillers ``x?y`` until (y, x) out-counts every inner pair."""
    first, last = outer
    documents = [first + middle + last for middle in middles]
    inner_top = max(count_pairs(utf8_sequences(documents)).values(), default=0)
    used = set("".join(documents))
    fresh = [char for char in _FRESH if char not in used]
    while len(documents) - 1 <= max(inner_top, 1):
        documents.append(first + fresh.pop(0) + last)
    return documents


def boundary_pair_corpora(*, max_documents: int = 6) -> st.SearchStrategy[list[str]]:
    """Corpora whose most frequent pair exists only across document boundaries (BPE-TRAIN-DOCS).

    Every document starts with ``x`` and ends with ``y``, neither of which occurs inside, so joining the
    documents would make (y, x) the top pair, while inside the documents it never occurs at all.

    >>> from hypothesis import find
    >>> top_pair_only_across_boundaries(find(boundary_pair_corpora(), lambda documents: True))
    True
    """
    _check_count("max_documents", max_documents, 3)
    outer = st.sampled_from((("x", "y"), ("a", "b"), ("<", ">"), ("\n", ".")))
    middles = st.lists(st.text(alphabet="mno低é", min_size=1, max_size=4), min_size=1, max_size=max_documents)
    return st.builds(_boundary_corpus, outer, middles).filter(top_pair_only_across_boundaries)


def _normalization_variants(text: str) -> list[str]:
    return [unicodedata.normalize(form, text) for form in ("NFC", "NFD")]


def unicode_corpora(*, max_documents: int = 4, max_length: int = 12) -> st.SearchStrategy[list[str]]:
    """Multi-byte UTF-8, emoji sequences, NFC next to NFD, CRLF, NUL, empty and one-character documents.

    Byte-level BPE must treat all of these as plain bytes: no normalization, no special characters.

    >>> from hypothesis import find
    >>> documents = find(unicode_corpora(), lambda documents: "".join(documents).isascii() is False)
    >>> any(len(document.encode()) > len(document) for document in documents)
    True
    """
    _check_count("max_documents", max_documents, 1)
    _check_count("max_length", max_length, 1)
    sample_text = st.lists(st.sampled_from(UNICODE_SAMPLES), max_size=max_length).map("".join)
    document = st.one_of(
        sample_text,
        st.sampled_from(UNICODE_SAMPLES),
        st.just(""),
        st.builds(lambda char, times: char * times, st.sampled_from(UNICODE_SAMPLES), st.integers(2, max_length)),
    )
    plain = st.lists(document, min_size=1, max_size=max_documents)
    variants = st.sampled_from(("café", "Å ñ", "한국", "ệ")).map(_normalization_variants)
    mixed = st.tuples(variants, plain).map(lambda parts: (parts[0] + parts[1])[:max_documents])
    return st.one_of(plain, variants.map(lambda pair: (pair * 2)[:max_documents]), mixed)


def _spaced_document(words: list[str], separators: list[str]) -> str:
    return "".join(word + separator for word, separator in zip(words, separators, strict=False))


def pretokenization_corpora(*, max_documents: int = 3, max_length: int = 30) -> st.SearchStrategy[list[str]]:
    """Corpora of short words and separators where the reference merges across a word boundary.

    A pre-tokenizing implementation (split on spaces or punctuation first) never makes such a rule
    (BPE-ENCODE-RAW); the strict profile must.

    >>> from hypothesis import find
    >>> merges_across_words(find(pretokenization_corpora(), lambda documents: True))
    True
    """
    _check_count("max_documents", max_documents, 1)
    _check_count("max_length", max_length, 8)
    count = max(2, max_length // 4)
    document = st.builds(
        _spaced_document,
        st.lists(st.sampled_from(_WORDS), min_size=2, max_size=count),
        st.lists(st.sampled_from(_SEPARATORS), min_size=count, max_size=count),
    )
    return st.lists(document, min_size=1, max_size=max_documents).filter(merges_across_words)


def recount_corpora(*, max_documents: int = 3, max_length: int = 30) -> st.SearchStrategy[list[str]]:
    """Repeated short words where a later round's winner exists only after recounting (BPE-TRAIN-RECOUNT).

    >>> from hypothesis import find
    >>> stale_choice_differs(find(recount_corpora(), lambda documents: True))
    True
    """
    _check_count("max_documents", max_documents, 1)
    _check_count("max_length", max_length, 6)
    word = st.text(alphabet="abcd低", min_size=2, max_size=4)
    document = st.builds(lambda text, times: (text * times)[:max_length], word, st.integers(2, 6))
    return st.lists(document, min_size=1, max_size=max_documents).filter(stale_choice_differs)


def encode_texts(*, max_length: int = 40) -> st.SearchStrategy[str]:
    """Texts to encode that training never saw: any Unicode, small alphabets, runs and mixed scripts.

    >>> from hypothesis import find
    >>> text = find(encode_texts(max_length=5), lambda text: len(text.encode()) > len(text))
    >>> len(text) <= 5 and not text.isascii()
    True
    """
    _check_count("max_length", max_length)
    return st.one_of(
        *(st.text(alphabet=alphabet, max_size=max_length) for alphabet in SMALL_ALPHABETS),
        st.lists(st.sampled_from(UNICODE_SAMPLES), max_size=max_length).map(lambda parts: "".join(parts)[:max_length]),
        st.text(max_size=max_length),
    )


def max_merges_values(*, max_value: int = 40) -> st.SearchStrategy[int]:
    """Valid ``max_merges``: 0, 1 and 2 often (the edges of BPE-TRAIN-STOP), else up to ``max_value``.

    >>> from hypothesis import find
    >>> find(max_merges_values(), lambda value: value > 2)
    3
    """
    _check_count("max_value", max_value)
    return st.one_of(st.sampled_from(sorted({0, 1, 2} & set(range(max_value + 1)))), st.integers(0, max_value))


def _present_pairs(text: str, rules: Rules) -> Rules:
    return sorted(set(itertools.pairwise(encode(text, rules))))


@st.composite
def _rule_list(draw: st.DrawFn, max_rules: int, min_rules: int, text: str | None) -> Rules:
    favourite_bytes = sorted(set(text.encode("utf-8"))) if text else list(b"ab \xe4\xbd")
    byte = st.sampled_from(favourite_bytes) | st.integers(0, 255)
    rules: Rules = []
    for rank in range(draw(st.integers(min_rules, max_rules))):
        part = byte if rank == 0 else st.one_of(byte, st.integers(258, 257 + rank))
        present = _present_pairs(text, rules) if text else []
        pair = st.tuples(part, part)
        rules.append(draw(st.sampled_from(present) | pair if present else pair))
    return rules


@st.composite
def _text_and_rules(draw: st.DrawFn, texts: st.SearchStrategy[str], max_rules: int) -> tuple[str, Rules]:
    text = draw(texts)
    return text, draw(_rule_list(max_rules, 0, text))


def texts_and_rules(*, max_rules: int = 8, max_length: int = 24) -> st.SearchStrategy[tuple[str, Rules]]:
    """A non-empty text from :func:`encode_texts` and a rule list from :func:`rule_lists` aimed at it.

    >>> from hypothesis import find
    >>> from bpe_conformance.reference import check_rules
    >>> text, rules = find(texts_and_rules(), lambda case: len(case[1]) >= 2)
    >>> bool(text) and check_rules(rules) == rules
    True
    """
    _check_count("max_rules", max_rules)
    _check_count("max_length", max_length, 1)
    return _text_and_rules(encode_texts(max_length=max_length).filter(bool), max_rules)


def rule_lists(*, max_rules: int = 8, min_rules: int = 0, text: str | None = None) -> st.SearchStrategy[Rules]:
    """Valid rule lists (BPE-RULE-REF), including ones no training could produce.

    Each rule picks two ids among the bytes and the earlier rules' ids. Given ``text``, bytes of the
    text are preferred and rules are often pairs actually present in its encoding so far, so they fire.

    >>> from hypothesis import find
    >>> from bpe_conformance.reference import encode
    >>> find(rule_lists(text="abcabc"), lambda rules: len(encode("abcabc", rules)) == 2)
    [(97, 98), (258, 99)]
    """
    _check_count("max_rules", max_rules)
    _check_count("min_rules", min_rules)
    _check_range("min_rules", min_rules, "max_rules", max_rules)
    if text is not None:
        try:
            check_text(text)
        except (TypeError, ValueError) as error:
            raise InvalidArgument(f"rule_lists(text=...): {error}") from None
    return _rule_list(max_rules, min_rules, text)
