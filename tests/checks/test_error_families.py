"""Exception families, not class names: a rejection is judged by ValueError/TypeError family, any subclass.

The preferred family for each bad input is a SHOULD: the other family is an advisory note on the
result, never a failure; an error of neither family, or a result, is still an interface failure.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from bpe_conformance.adapters.host import open_session, respond
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.checks import select_checks
from bpe_conformance.checks.common import expect_rejection, rejection_verdict
from bpe_conformance.checks.validation import MAX_MERGES_CASES, verify_rejection
from bpe_conformance.errors import ImplementationRaised, Violation, error_families, exception_ancestors
from bpe_conformance.reference import Tokenizer
from bpe_conformance.results.advisories import collecting
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.runner import run_checks
from bpe_conformance.settings import EFFORTS, active_effort_name
from bpe_conformance.vectors.files import load_vectors
from bpe_conformance.vectors.replay import replay_vector
from tests import FIXTURES

if TYPE_CHECKING:
    from collections.abc import Callable

NODE = shutil.which("node")
NODE_FIXTURES = FIXTURES / "node"


class _ValueErrorForMaxMerges(Tokenizer):
    """Correct, but answers every bad max_merges the way the seed chapter does: ValueError."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        if type(max_merges) is not int or max_merges < 0:
            raise ValueError(f"nonnegative integer max_merges, got {max_merges!r}")
        return super().train(documents, max_merges)


class _KeyErrorForUnknownIds(Tokenizer):
    def decode(self, ids: list[int]) -> str:
        if any(type(token) is int and token >= self.vocab_size for token in ids):
            raise KeyError(ids[-1])
        return super().decode(ids)


def _raise(error: Exception) -> Callable[[], NoReturn]:
    def call() -> NoReturn:
        raise ImplementationRaised("decode", type(error).__name__, str(error), exception_ancestors(type(error)))

    return call


def _inputs() -> dict[str, Any]:
    return {"ids": [300]}


@pytest.mark.parametrize(
    ("error", "verdict"),
    [
        (UnicodeDecodeError("utf-8", b"\x80", 0, 1, "invalid start byte"), "preferred"),
        (ValueError("unknown id"), "preferred"),
        (TypeError("ids must be a list"), "other"),
        (KeyError(300), "outside"),
        (AttributeError("no decode"), "outside"),
        (AssertionError("x"), "outside"),
        (OverflowError("x"), "outside"),
    ],
)
def test_rejection_is_judged_by_family(error: Exception, verdict: str) -> None:
    raised = ImplementationRaised("decode", type(error).__name__, str(error), exception_ancestors(type(error)))
    assert rejection_verdict(raised, "ValueError") == verdict


def test_a_subclass_name_without_ancestry_is_outside_both_families() -> None:
    assert error_families("InvalidInputError") == frozenset()
    assert error_families("InvalidInputError", ("ValueError", "Error")) == {"ValueError"}


def test_the_other_family_is_an_advisory_note_never_a_violation() -> None:
    with collecting() as notes:
        expect_rejection(
            _raise(TypeError("no")), clause="BPE-DECODE-STRICT", what="decode of x", inputs=_inputs(), kind="ValueError"
        )
    assert len(notes) == 1
    assert "BPE-DECODE-STRICT" in notes[0]
    assert "TypeError" in notes[0]
    assert "ValueError" in notes[0]


def test_the_preferred_family_leaves_no_note_and_outside_families_is_a_violation() -> None:
    with collecting() as notes:
        expect_rejection(
            _raise(UnicodeDecodeError("utf-8", b"\x80", 0, 1, "bad")),
            clause="BPE-DECODE-STRICT",
            what="decode of x",
            inputs=_inputs(),
            kind="ValueError",
        )
    assert notes == []
    with pytest.raises(Violation) as caught:
        expect_rejection(
            _raise(KeyError(300)), clause="BPE-DECODE-STRICT", what="decode of x", inputs=_inputs(), kind="ValueError"
        )
    assert caught.value.clause == "BPE-DECODE-STRICT"
    assert "KeyError" in caught.value.message
    with pytest.raises(Violation) as caught:
        expect_rejection(
            lambda: "text", clause="BPE-DECODE-STRICT", what="decode of x", inputs=_inputs(), kind="ValueError"
        )
    assert "accepted" in caught.value.message


def test_seed_style_max_merges_errors_pass_with_one_advisory_per_case() -> None:
    subject = InProcessSubject(_ValueErrorForMaxMerges)
    with collecting() as notes:
        for case in MAX_MERGES_CASES:
            verify_rejection(subject, case)
    type_cases = [case for case in MAX_MERGES_CASES if case.kind == "TypeError"]
    assert len(notes) == len(type_cases) > 0
    assert all("ValueError" in note and "prefers TypeError" in note for note in notes)


def test_advisories_reach_the_result_and_do_not_change_the_outcome() -> None:
    checks = select_checks(["max-merges-validation", "vectors-invalid"])
    results = run_checks(checks, InProcessSubject(_ValueErrorForMaxMerges), EFFORTS[active_effort_name()])
    assert [result.outcome for result in results] == [Outcome.PASS, Outcome.PASS]
    assert all(result.advisories for result in results)
    assert all(result.level == "interface" for result in results)


def test_an_error_outside_both_families_still_fails_decode_strict() -> None:
    (result,) = run_checks(
        select_checks(["decode-strict"]), InProcessSubject(_KeyErrorForUnknownIds), EFFORTS[active_effort_name()]
    )
    assert result.outcome is Outcome.FAIL
    assert result.clause == "BPE-DECODE-STRICT"
    assert "KeyError" in result.message


def test_vector_replay_accepts_the_other_family_as_an_advisory() -> None:
    vectors = [
        vector
        for vector in load_vectors()["invalid.json"]
        if vector["operation"] == "train" and vector["clauses"] == ["BPE-TRAIN-MAXMERGES"]
    ]
    found = [item for vector in vectors for item in replay_vector(_ValueErrorForMaxMerges, vector)]
    assert found
    assert all(item.advisory for item in found)
    assert {item.expected for item in found} == {"TypeError"}


def test_host_sends_the_ancestry_of_the_error() -> None:
    session = open_session("bpe_conformance.reference:Tokenizer")
    answer = respond(session, {"id": 1, "op": "decode", "ids": [0x80]})
    assert answer["error"]["type"] == "ValueError"
    assert "Exception" in answer["error"]["ancestors"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_fixture_reporting_subclasses_with_ancestry_passes_the_interface_level() -> None:
    assert NODE is not None  # the skipif above
    subject = ProcessSubject([NODE, str(NODE_FIXTURES / "bpe_subclass_errors.mjs")], timeout=10)
    checks = [check for check in select_checks(["*"]) if check.level == "interface"]
    with subject:
        with pytest.raises(ImplementationRaised) as caught:
            subject.decode([0x80])
        assert caught.value.kind == "InvalidInputError"
        assert caught.value.families == {"ValueError"}
        results = run_checks(checks, subject, EFFORTS[active_effort_name()])
    assert {result.check: result.message for result in results if result.outcome is not Outcome.PASS} == {}
    assert [result.check for result in results if result.advisories] == []
