"""reference/alphabet.py: which ids are bytes and which are the boundaries (BPE-ALPHA-*)."""

from __future__ import annotations

from bpe_conformance.reference.alphabet import BEGIN_ID, BYTE_COUNT, END_ID, FIRST_RULE_ID, is_boundary, is_byte


def test_alpha_bytes_exactly_ids_0_to_255_are_bytes() -> None:
    """BPE-ALPHA-BYTES: "Ids 0-255 are the 256 byte values"; nothing below or above is a byte."""
    assert [token for token in range(-2, FIRST_RULE_ID + 3) if is_byte(token)] == list(range(BYTE_COUNT))


def test_alpha_boundary_exactly_256_and_257_are_boundaries() -> None:
    """BPE-ALPHA-BOUNDARY: the begin and end ids are 256 and 257, and no other id is a boundary."""
    assert [token for token in range(-2, FIRST_RULE_ID + 3) if is_boundary(token)] == [BEGIN_ID, END_ID]
