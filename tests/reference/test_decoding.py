"""reference/decoding.py: the strict decoder's report of invalid UTF-8 (BPE-DECODE-STRICT)."""

from __future__ import annotations

import re

import pytest

from bpe_conformance.reference.decoding import strict_utf8


def test_invalid_utf8_is_reported_with_four_bytes_either_side() -> None:
    """BPE-DECODE-STRICT: the error names the byte offset and the reason, and shows in hex the bad byte
    with four bytes either side (fewer where the data ends sooner), nothing more."""
    with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
        strict_utf8(b"abcdef\xffghijkl")
    message = str(caught.value)
    assert "\n" not in message
    assert "invalid UTF-8" in message
    assert "byte offset 6" in message
    assert "invalid start byte" in message
    assert re.findall(r"\b[0-9a-f]{2}\b", message) == ["63", "64", "65", "66", "ff", "67", "68", "69", "6a"]
    with pytest.raises(ValueError) as near_the_start:  # noqa: PT011 - the message is asserted below, more closely than match= would
        strict_utf8(b"a\xffbcdefgh")
    assert "byte offset 1" in str(near_the_start.value)
    assert re.findall(r"\b[0-9a-f]{2}\b", str(near_the_start.value)) == ["61", "ff", "62", "63", "64", "65"]
