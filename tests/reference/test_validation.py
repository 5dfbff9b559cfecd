"""reference/validation.py: what the reference's entry points refuse, and what the refusal says."""

from __future__ import annotations

import pytest

from bpe_conformance.reference import train


@pytest.mark.parametrize(("documents", "type_name"), [(b"abab", "bytes"), (None, "NoneType"), ({"abab"}, "set")])
def test_documents_that_are_not_a_str_get_no_advice_to_wrap_them(documents: object, type_name: str) -> None:
    """BPE-INPUT-DOCS: only a str gets the hint "(wrap a single document in a list)" of the spec's example.

    For bytes, None or a set the advice would be wrong (a list holding them is still not a list of str):
    the message says what documents must be and names the type given, as its last word.
    """
    with pytest.raises(TypeError) as caught:
        # wrong type on purpose: the call must be refused
        train(documents, 32)  # type: ignore[arg-type]
    message = str(caught.value)
    assert message.startswith("documents ")
    assert "list of str" in message
    assert message.split()[-1] == type_name
    assert "wrap" not in message


def test_a_str_of_documents_gets_the_advice_to_wrap_it() -> None:
    """BPE-INPUT-DOCS: a single str names its type, then ends with the advice, in parentheses."""
    with pytest.raises(TypeError) as caught:
        # wrong type on purpose: the call must be refused
        train("abab", 32)  # type: ignore[arg-type]
    message = str(caught.value)
    assert message.startswith("documents ")
    assert "list of str, not str " in message
    assert message.endswith(" (wrap a single document in a list)")
