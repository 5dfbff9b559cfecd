"""Loading a tokenizer file: what its errors say, and the piece budget on the tokenizer (BPE-SER-LOAD).

Written to kill mutation survivors: a bad file gets a clear one-line error that says it is the
tokenizer file that is wrong and what is wrong with it.
"""

from __future__ import annotations

import tracemalloc

import pytest

from bpe_conformance.reference import LiteralTokenizer, Tokenizer
from bpe_conformance.reference.pieces import PIECE_BYTES_FLOOR, PIECE_BYTES_PER_RULE, check_piece_budget, piece_budget
from bpe_conformance.reference.serialization import dumps, loads

RULES = [(97, 98), (258, 258), (259, 259)]

_FILE_PROBLEMS = {
    "byte order mark (str)": "\ufeff" + dumps(RULES),
    "byte order mark (bytes)": ("\ufeff" + dumps(RULES)).encode(),
    "nested too deeply": "[" * 100_000 + "]" * 100_000,
}


@pytest.mark.parametrize("text", list(_FILE_PROBLEMS.values()), ids=list(_FILE_PROBLEMS))
def test_a_malformed_file_is_a_value_error_that_says_the_tokenizer_file_is_wrong(text: str | bytes) -> None:
    """BPE-SER-LOAD: a file-level problem is a ValueError whose message begins by naming the tokenizer file."""
    with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
        loads(text)
    assert str(caught.value).startswith("tokenizer file ")


@pytest.mark.parametrize("text", [_FILE_PROBLEMS["byte order mark (str)"], _FILE_PROBLEMS["byte order mark (bytes)"]])
def test_a_byte_order_mark_is_named_with_the_encoding_the_file_must_have(text: str | bytes) -> None:
    """BPE-SER-LOAD: the error for a leading byte order mark says so and that the file must be UTF-8."""
    with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
        loads(text)
    assert "byte order mark" in str(caught.value)
    assert "UTF-8" in str(caught.value)


@pytest.mark.parametrize("value", [123, None, ["rules"], 1.5])
def test_a_file_that_is_neither_str_nor_bytes_is_a_type_error_naming_its_type(value: object) -> None:
    """BPE-SER-LOAD: loading something that is not text is a TypeError that names what it was given."""
    with pytest.raises(TypeError) as caught:
        loads(value)  # type: ignore[arg-type]
    message = str(caught.value)
    assert type(value).__name__ in message
    assert "str" in message
    assert "bytes" in message


@pytest.mark.parametrize("implementation", [LiteralTokenizer, Tokenizer])
def test_the_tokenizer_applies_the_piece_budget_it_is_given(implementation: type) -> None:
    """BPE-SER-LOAD: ``Tokenizer.loads(text, max_piece_bytes=n)`` refuses rules whose pieces exceed n bytes."""
    text = dumps(RULES)  # pieces of 2, 4 and 8 bytes: 14 in all
    tokenizer = implementation()
    with pytest.raises(ValueError, match="max_piece_bytes"):
        tokenizer.loads(text, max_piece_bytes=3)
    assert tokenizer.loads(text, max_piece_bytes=14) == RULES
    assert tokenizer.decode([260]) == "abababab"


def _doubling_chain(length: int) -> list[tuple[int, int]]:
    """Rules whose pieces are 2, 4, 8, ... bytes: rule r joins two copies of rule r - 1."""
    return [(97, 97)] + [(258 + rank, 258 + rank) for rank in range(length - 1)]


def test_a_rule_list_within_its_budget_is_accepted_up_to_the_last_byte() -> None:
    """BPE-SER-LOAD: pieces totalling exactly ``max_piece_bytes`` are allowed; one more byte is refused."""
    check_piece_budget([(97, 98)], max_piece_bytes=2)
    check_piece_budget(_doubling_chain(3), max_piece_bytes=14)
    with pytest.raises(ValueError, match="max_piece_bytes=13"):
        check_piece_budget(_doubling_chain(3), max_piece_bytes=13)


@pytest.mark.parametrize("budget", [0, 1])
def test_a_first_piece_longer_than_the_whole_budget_is_refused(budget: int) -> None:
    """BPE-SER-LOAD: a two-byte piece is over a budget of fewer bytes, alone; the error names rule and budget."""
    with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
        check_piece_budget([(97, 98)], max_piece_bytes=budget)
    message = str(caught.value)
    assert "rule 0" in message
    assert f"max_piece_bytes={budget}" in message


def test_one_piece_alone_over_the_budget_is_named_as_such() -> None:
    """BPE-SER-LOAD: when one rule's piece alone exceeds the budget, the error says that rule's piece alone does."""
    with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
        check_piece_budget(_doubling_chain(3), max_piece_bytes=5)  # 2, then 4 (total 6), then 8 alone
    message = str(caught.value)
    assert "rule 1" in message
    assert "total 6" in message
    with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
        check_piece_budget([(97, 97), (258, 258), (259, 259)], max_piece_bytes=7)  # 2 + 4 fit, then 8 alone
    message = str(caught.value)
    assert "rule 2" in message
    assert "alone" in message
    assert "max_piece_bytes=7" in message


def test_the_default_budget_grows_with_the_number_of_rules() -> None:
    """BPE-SER-LOAD: the default budget is a floor plus a fixed allowance per rule, so longer files get more."""
    assert piece_budget(0) == PIECE_BYTES_FLOOR
    assert piece_budget(24) == PIECE_BYTES_FLOOR + 24 * PIECE_BYTES_PER_RULE
    check_piece_budget(_doubling_chain(23))  # 2**24 - 2 bytes: just under the floor, well within the default


def test_checking_the_budget_of_a_long_doubling_chain_keeps_only_small_lengths() -> None:
    """BPE-SER-LOAD: the budget check holds one bounded integer per rule, not the chain's astronomic lengths.

    A file of 20 000 doubling rules would have pieces of up to 2**20000 bytes; their exact lengths alone
    would take some 25 MB. The check must refuse the file without computing them.
    """
    chain = _doubling_chain(20_000)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="max_piece_bytes"):
            check_piece_budget(chain)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20
