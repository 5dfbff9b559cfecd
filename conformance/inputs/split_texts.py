"""Texts aimed at split patterns: the places where a port of a released pre-tokenizer goes wrong.

Each text is a few fragments joined, drawn from families that a split pattern decides on: whitespace
runs (spaces, tabs, ``\\r\\n``, NBSP and other Unicode spaces) with and without a word after them,
digit runs of every length (ASCII and other scripts' digits), contractions in every case, letters and
combining marks of many scripts, CJK, emoji with skin tones, flags and ZWJ sequences, the text of
special tokens inside ordinary text, punctuation, and long runs of one character. Shrinking drops
fragments and moves each toward the first, simplest item of its family, so a counterexample is short.

>>> from hypothesis import given, settings
>>> seen = []
>>> @settings(max_examples=20, database=None)
... @given(split_texts())
... def collect(text): seen.append(text)
>>> collect()
>>> all(isinstance(text, str) for text in seen)
True
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["SPECIAL_TOKEN_TEXTS", "long_runs", "split_corpora", "split_fragments", "split_texts"]

_SPACES = (
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "   ",
    "\n\n",
    "\r",
    " \n",
    "\u00a0",
    "\u2003",
    "\u3000",
    "\u2028",
    "\x0b",
    "\x0c",
)
_WORDS = (
    "a",
    "the",
    "Hello",
    "HELLO",
    "hELLO",
    "I",
    "naïve",
    "café",
    "straße",
    "ÉCOLE",
    "e\u0301",
    "ﬁne",
    "HTTPServer",
)
_SCRIPTS = (
    "пример",
    "ПРИВЕТ",
    "Ωμέγα",
    "עברית",
    "عربي",
    "हिंदी",
    "ภาษาไทย",
    "日本語",
    "中文",
    "한국어",
    "ｶﾀｶﾅ",
    "ǅemal",
    "ʰmod",
)
_CONTRACTIONS = (
    "'s",
    "'S",
    "'t",
    "'T",
    "'re",
    "'RE",
    "'Re",
    "'ve",
    "'VE",
    "'m",
    "'M",
    "'ll",
    "'LL",
    "'lL",
    "'d",
    "'D",
    "’s",
)
_PUNCTUATION = ("!", ".", "...", "?!", "(", ")", "//", '"', "-", "_", "@", "#", "$", "'", "\u0301", "¿", "…")
_EMOJI = ("😀", "👍🏽", "👩\u200d💻", "👨\u200d👩\u200d👧", "🇫🇷", "❤️", "\u200d", "\ufe0f")
_OTHER_DIGITS = ("١٢٣", "²", "Ⅻ", "൧൨", "½")
# The special tokens of gpt2, cl100k and o200k, and their near misses: ordinary text all the same.
SPECIAL_TOKEN_TEXTS = ("<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>")
_NEAR_SPECIALS = ("<|endoftext", "|>", "<|", "<|ENDOFTEXT|>")
_RUN_CHARACTERS = ("a", " ", "1", "\n", "!", "日", "\u00a0", "😀", "ab")


def _digit_run(length: int) -> st.SearchStrategy[str]:
    return st.text(alphabet="0123456789", min_size=length, max_size=length)


def _long_run(max_run: int) -> st.SearchStrategy[str]:
    return st.builds(lambda unit, times: unit * times, st.sampled_from(_RUN_CHARACTERS), st.integers(16, max_run))


def split_fragments(*, max_run: int = 200) -> st.SearchStrategy[str]:
    """One fragment of a split-pattern text; ``max_run`` bounds the long runs of one character."""
    return st.one_of(
        st.sampled_from(_SPACES),
        st.sampled_from(_WORDS),
        st.text(alphabet="abcXYZ", min_size=1, max_size=8),
        st.integers(1, 14).flatmap(_digit_run),
        st.sampled_from(_CONTRACTIONS),
        # A contraction with letters after it: where a case-sensitive pattern makes one chunk of both.
        st.builds(str.__add__, st.sampled_from(_CONTRACTIONS), st.sampled_from(("a", "am", "the", "s", "LL", "Abc"))),
        st.text(alphabet=" \t\n\r\u00a0\u3000", min_size=1, max_size=6),
        st.sampled_from(_SCRIPTS),
        st.sampled_from(_PUNCTUATION),
        st.sampled_from(_EMOJI),
        st.sampled_from(_OTHER_DIGITS),
        st.sampled_from(SPECIAL_TOKEN_TEXTS + _NEAR_SPECIALS),
        _long_run(max_run),
    )


def split_texts(*, max_fragments: int = 12, max_run: int = 200) -> st.SearchStrategy[str]:
    """Texts of up to ``max_fragments`` fragments (:func:`split_fragments`) joined with nothing between."""
    return st.lists(split_fragments(max_run=max_run), min_size=1, max_size=max_fragments).map("".join)


def long_runs(*, min_run: int = 500, max_run: int = 5000) -> st.SearchStrategy[str]:
    """One character (or ``ab``) repeated ``min_run`` to ``max_run`` times, between two short words or none.

    A quadratic merge loop takes seconds here, and the split patterns' ``\\s++$`` and ``\\s+(?!\\S)`` decide
    where a long run of spaces ends.
    """
    run = st.builds(lambda unit, times: unit * times, st.sampled_from(_RUN_CHARACTERS), st.integers(min_run, max_run))
    edge = st.sampled_from(("", "a", " the", "1", "\n"))
    return st.builds(lambda before, middle, after: before + middle + after, edge, run, edge)


def split_corpora(*, max_documents: int = 3, max_fragments: int = 8, max_run: int = 24) -> st.SearchStrategy[list[str]]:
    """Training corpora whose rules a split pattern decides: documents of two to ``max_fragments`` fragments
    (:func:`split_fragments`: words after spaces, whitespace runs, digit runs of every length, contractions,
    punctuation, line breaks), and each document given twice, so that every pair inside it is counted at
    least twice (a trainer that stops below 2 still merges it) and a pair across two chunks is as frequent
    as the pairs inside them: a trainer that ignores the split, or cuts the text otherwise, merges them.
    """
    document = st.lists(split_fragments(max_run=max_run), min_size=2, max_size=max_fragments).map("".join)
    return st.lists(document, min_size=1, max_size=max_documents).map(lambda documents: [*documents, *documents])
