"""The typed examples the checks draw (conformance/checks/examples.py)."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from bpe_conformance.checks.examples import TextsExample, drawn


def test_a_strategy_that_draws_other_fields_than_its_example_declares_names_the_example() -> None:
    with pytest.raises(TypeError) as raised:
        drawn(TextsExample, documents=st.just(["ab"]), max_merges=st.just(1))
    message = str(raised.value)
    assert message.startswith("TextsExample ")
    assert "has the fields documents, max_merges, texts;" in message
    assert message.endswith("draws documents, max_merges")
