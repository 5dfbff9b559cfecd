"""Tests of reference/pieces.py: pieces and their lengths (BPE-RULE-PIECE)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.reference.pieces import build_pieces, piece_lengths


def test_piece_lengths_count_every_byte_as_one_and_boundaries_and_unmade_ids_as_nothing() -> None:
    """BPE-RULE-PIECE: "A rule's piece is the concatenation of its parts' pieces": every byte id, 0
    included, is one byte; a boundary id (256, 257) spells nothing, and so does an id no earlier rule
    has made (a malformed list)."""
    assert piece_lengths([(0, 0), (255, 258)]) == [2, 3]
    assert piece_lengths([(256, 97), (97, 257)]) == [1, 1]
    assert piece_lengths([(97, 5000), (-1, 98), (260, 259)]) == [1, 1, 1]


@st.composite
def well_formed_rules(draw: st.DrawFn) -> list[tuple[int, int]]:
    """Rule lists whose parts are bytes, boundary ids or earlier rules (BPE-RULE-REF)."""
    count = draw(st.integers(0, 6))
    return [(draw(st.integers(0, 257 + rank)), draw(st.integers(0, 257 + rank))) for rank in range(count)]


@given(well_formed_rules())
def test_piece_lengths_are_the_lengths_of_the_pieces_built(rules: list[tuple[int, int]]) -> None:
    """BPE-RULE-PIECE: the lengths computed without building agree with the pieces built."""
    assert piece_lengths(rules) == [len(piece) for piece in build_pieces(rules)[258:]]
