"""Hypothesis strategies for the reference's property tests.

Texts are drawn from a small set of units (ASCII, a two-byte letter, a combining mark, CJK, an emoji,
CRLF, NUL) so that pairs repeat and training makes rules; arbitrary rule lists refer to the bytes of
those units and to earlier rules, so they fire on the texts too.
"""

from __future__ import annotations

from hypothesis import strategies as st

from bpe_conformance.reference import FIRST_RULE_ID

__all__ = ["UNITS", "any_texts", "documents", "id_sequences", "max_merges", "rule_lists", "texts"]

UNITS = ("a", "b", "c", " ", "é", "e\u0301", "低", "👍", "\r\n", "\x00")
_UNIT_BYTES = sorted({byte for unit in UNITS for byte in unit.encode("utf-8")})


def texts(max_units: int = 24) -> st.SearchStrategy[str]:
    """Concatenations of a few units: repetitive enough for pairs to recur."""
    return st.lists(st.sampled_from(UNITS), max_size=max_units).map("".join)


def any_texts() -> st.SearchStrategy[str]:
    """Repetitive texts or arbitrary Unicode (hypothesis's text() never yields lone surrogates)."""
    return st.one_of(texts(), st.text(max_size=20))


def documents() -> st.SearchStrategy[list[str]]:
    """Zero to six training documents, empty ones included."""
    return st.lists(texts(), max_size=6)


def max_merges() -> st.SearchStrategy[int]:
    """A merge budget from none to more than small documents can use."""
    return st.integers(min_value=0, max_value=24)


@st.composite
def rule_lists(draw: st.DrawFn, max_rules: int = 12) -> list[tuple[int, int]]:
    """Any valid rule list: parts are unit bytes, any byte, or earlier rule ids; repeats allowed."""
    rules: list[tuple[int, int]] = []
    for rank in range(draw(st.integers(min_value=0, max_value=max_rules))):
        part = st.one_of(
            st.sampled_from(_UNIT_BYTES),
            st.integers(min_value=0, max_value=255),
            *([st.integers(min_value=FIRST_RULE_ID, max_value=FIRST_RULE_ID + rank - 1)] if rank else []),
        )
        rules.append((draw(part), draw(part)))
    return rules


def id_sequences() -> st.SearchStrategy[list[int]]:
    """Sequences over three byte ids, so that runs and repeated pairs are common."""
    return st.lists(st.sampled_from((97, 98, 99)), max_size=40)
