"""In process, an implementation's results are judged as plain built-in values, never as its own objects.

A ``str`` subclass claiming to equal everything once made a garbage ``decode`` pass four checks: results
were converted to plain types for ids and rules, not for text. List subclasses with a lying
``__iter__`` or ``__eq__`` are read by the built-in iterator.
"""

from __future__ import annotations

from hypothesis import settings

from bpe_conformance import reference
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.running.suite import select


class EqualsEverything(str):
    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = str.__hash__


class IteratesAsSomethingElse(list):
    def __iter__(self):
        return iter([97, 98])

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


class GarbageDecodeThatClaimsEquality(reference.Tokenizer):
    def decode(self, ids: list[int]) -> str:
        return EqualsEverything("garbage")


class WrongIdsBehindALyingList(reference.Tokenizer):
    def encode(self, text: str) -> list[int]:
        return IteratesAsSomethingElse([0, *super().encode(text)])


def test_a_str_subclass_equal_to_everything_cannot_pass_a_decode_check():
    (check,) = select(["decode-concatenates"])
    result = run_check(check, InProcessSubject(GarbageDecodeThatClaimsEquality), settings(max_examples=20))
    assert result.outcome is Outcome.FAIL
    assert result.clause == "BPE-DECODE-CONCAT"


def test_decoded_text_reaches_the_check_as_a_plain_str():
    decoded = InProcessSubject(GarbageDecodeThatClaimsEquality).decode([97])
    assert type(decoded) is str and decoded == "garbage"


def test_ids_are_read_by_the_list_itself_not_by_its_lying_iterator():
    ids = InProcessSubject(WrongIdsBehindALyingList).encode("ab")
    assert type(ids) is list and ids[0] == 0
