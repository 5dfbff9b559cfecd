"""ProcessSubject, the Python host and the Node.js fixtures, over the protocol of specs/protocol.md.

The Node.js fixtures prove the harness works for a foreign language: bpe.mjs passes the checks
and bpe_broken.mjs, identical but for string-ordered ties, fails with BPE-TRAIN-TIE.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import strategies as st

from bpe_conformance import reference
from bpe_conformance.adapters import host_command
from bpe_conformance.adapters.host import open_session, serve
from bpe_conformance.adapters.protocol import PROTOCOL_VERSION, encode_message
from bpe_conformance.adapters.subprocess import MIN_HANDSHAKE_TIMEOUT, ProcessSubject
from bpe_conformance.checks.base import Check
from bpe_conformance.errors import HarnessError, ImplementationRaised, MalformedResult, Violation
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running.runner import run_checks
from bpe_conformance.settings import EFFORTS, active_effort_name
from tests import ROOT

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.adapters.subject import Subject

FIXTURES = ROOT / "tests" / "fixtures"
HOSTILE = FIXTURES / "hostile"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HOSTILE)])}

pytestmark = pytest.mark.timeout(120)


def hosted(spec: str = "bpe_conformance.reference:Tokenizer", **options: Any) -> ProcessSubject:
    return ProcessSubject(host_command(spec), env=ENV, cwd=ROOT, **options)


def node(script: str) -> ProcessSubject:
    assert NODE is not None  # every test that calls node() is marked needs_node
    return ProcessSubject([NODE, str(FIXTURES / "node" / script)], timeout=10)


def raised(call: Callable[..., object], *args: object) -> ImplementationRaised:
    with pytest.raises(ImplementationRaised) as error:
        call(*args)
    return error.value


def reference_error(operation: str, *args: object) -> str | None:
    """The exception type the reference raises for this call on a fresh model, or None."""
    try:
        getattr(reference.Tokenizer(), operation)(*args)
    except (TypeError, ValueError) as error:
        return type(error).__name__
    return None


# -- checks written here, until bpe_conformance.checks.ALL_CHECKS exists --------------------------

SMALL_TEXTS = st.text(alphabet="abdé", max_size=12)
ANY_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=20) | st.sampled_from(
    ["\ufeff", "\ufeffab", "a\x00b", "低" * 30, "👨\u200d👩\u200d👧 ok", "\r\n\r\n"]
)


def verify_training(subject: Subject, example: tuple[list[str], int]) -> None:
    documents, max_merges = example
    actual = subject.train(documents, max_merges)
    trace = reference.trace_training(documents, max_merges)
    expected = [step.pair for step in trace.rounds]
    if actual == expected:
        return
    rank = next((rank for rank, pair in enumerate(actual) if rank >= len(expected) or pair != expected[rank]), None)
    if rank is None or rank >= len(expected):
        clause, message = "BPE-TRAIN-STOP", f"made {len(actual)} rules where the spec makes {len(expected)}"
    else:
        step = trace.rounds[rank]
        clause = "BPE-TRAIN-TIE" if actual[rank] in step.tie_candidates else "BPE-TRAIN-GREEDY"
        message = f"rule {rank} is {actual[rank]}, the spec picks {step.pair} among {step.tie_candidates}"
    raise Violation(
        clause, message, inputs={"documents": documents, "max_merges": max_merges}, expected=expected, actual=actual
    )


def verify_encoding(subject: Subject, example: tuple[list[str], str]) -> None:
    documents, text = example
    rules = reference.train(documents, 16)
    subject.load(rules)
    expected, actual = reference.encode(text, rules), subject.encode(text)
    if actual != expected:
        raise Violation(
            "BPE-ENCODE-ORDER",
            "encode disagrees with the rules applied in rank order",
            inputs={"rules": rules, "text": text},
            expected=expected,
            actual=actual,
        )
    decoded = subject.decode(actual)
    if decoded != text:
        raise Violation(
            "BPE-ROUNDTRIP",
            "decode(encode(text)) is not text",
            inputs={"rules": rules, "text": text},
            expected=text,
            actual=decoded,
        )


BAD_INPUTS = [
    ("BPE-TRAIN-MAXMERGES", "train", (["abab"], True)),
    ("BPE-TRAIN-MAXMERGES", "train", (["abab"], 2.0)),
    ("BPE-TRAIN-MAXMERGES", "train", (["abab"], -1)),
    ("BPE-TRAIN-MAXMERGES", "train", (["abab"], None)),
    ("BPE-TRAIN-MAXMERGES", "train", (["abab"], "3")),
    ("BPE-INPUT-DOCS", "train", ("abab", 3)),
    ("BPE-INPUT-DOCS", "train", (["abab", None], 3)),
    ("BPE-INPUT-DOCS", "train", (["ab", "a\ud800b"], 3)),
    ("BPE-INPUT-DOCS", "train", ([b"abab"], 3)),
    ("BPE-INPUT-TEXT", "encode", ("a\udfff",)),
    ("BPE-INPUT-TEXT", "encode", (None,)),
    ("BPE-INPUT-TEXT", "encode", (["a"],)),
    ("BPE-INPUT-TEXT", "encode", (b"ab",)),
    ("BPE-INPUT-IDS", "decode", ([True],)),
    ("BPE-INPUT-IDS", "decode", ([97.0],)),
    ("BPE-INPUT-IDS", "decode", ([-1],)),
    ("BPE-INPUT-IDS", "decode", ([2**70],)),
    ("BPE-INPUT-IDS", "decode", ([258],)),
    ("BPE-INPUT-IDS", "decode", ("97",)),
    ("BPE-INPUT-IDS", "decode", ([[97]],)),
    ("BPE-DECODE-STRICT", "decode", ([228, 189],)),
    ("BPE-INPUT-RULES", "load", ([(97, 258)],)),
    ("BPE-INPUT-RULES", "load", ([(97, 98), (256, 97)],)),
    ("BPE-INPUT-RULES", "load", ([(-1, 97)],)),
    ("BPE-INPUT-RULES", "load", ([(97,)],)),
    ("BPE-INPUT-RULES", "load", ([(97, 98, 99)],)),
    ("BPE-INPUT-RULES", "load", ([("a", "b")],)),
    ("BPE-INPUT-RULES", "load", ([(97, 2.0)],)),
    ("BPE-INPUT-RULES", "load", ([(97, 2**64)],)),
    ("BPE-INPUT-RULES", "load", ("ab",)),
]


def verify_rejection(subject: Subject, case: tuple[str, str, tuple[object, ...]]) -> None:
    clause, operation, args = case
    expected = reference_error(operation, *args)
    subject.reset()
    try:
        answer = getattr(subject, operation)(*args)
    except ImplementationRaised as error:
        if error.kind == expected:
            return
        answer = f"{error.kind}: {error.message}"
    raise Violation(
        clause, f"{operation} must raise {expected}", inputs={"args": repr(args)}, expected=expected, actual=answer
    )


LOCAL_CHECKS = [
    Check(
        "train-matches-reference",
        "BPE-TRAIN-TIE",
        "training makes the spec's rules",
        verify_training,
        strategy=lambda: st.tuples(st.lists(SMALL_TEXTS, min_size=1, max_size=4), st.integers(0, 12)),
        also=("BPE-TRAIN-GREEDY", "BPE-TRAIN-STOP"),
    ),
    Check(
        "encode-matches-reference",
        "BPE-ENCODE-ORDER",
        "encoding applies the rules in rank order",
        verify_encoding,
        strategy=lambda: st.tuples(st.lists(ANY_TEXT, min_size=1, max_size=3), ANY_TEXT),
        requires=frozenset({"load", "encode", "decode"}),
        also=("BPE-ROUNDTRIP",),
    ),
    Check(
        "bad-input-rejected",
        "BPE-INPUT-TEXT",
        "bad input is a ValueError/TypeError like the reference's",
        verify_rejection,
        cases=lambda: BAD_INPUTS,
        requires=frozenset({"train", "load", "encode", "decode"}),
        also=tuple(sorted({clause for clause, _, _ in BAD_INPUTS} - {"BPE-INPUT-TEXT"})),
    ),
]


def run(checks: list[Check], subject: ProcessSubject) -> dict[str, CheckResult]:
    with subject:
        return {result.check: result for result in run_checks(checks, subject, EFFORTS[active_effort_name()])}


def suite_checks(*patterns: str) -> list[Check]:
    """The checks engineer's suite (``bpe_conformance.checks``), or those matching ``patterns``."""
    from bpe_conformance import checks

    if not hasattr(checks, "ALL_CHECKS"):
        pytest.skip("bpe_conformance.checks.ALL_CHECKS is not written yet")
    return list(checks.select_checks(list(patterns))) if patterns else list(checks.ALL_CHECKS)


# -- the Node.js fixtures ----------------------------------------------------------------------


@needs_node
def test_node_fixture_declares_itself() -> None:
    with node("bpe.mjs") as subject:
        assert subject.info.name == "node-bpe"
        assert subject.info.language == "javascript"
        assert subject.info.capabilities == {"train", "load", "encode", "decode"}


@needs_node
def test_node_fixture_passes_the_local_checks() -> None:
    results = run(LOCAL_CHECKS, node("bpe.mjs"))
    assert {name: result.outcome for name, result in results.items()} == dict.fromkeys(results, Outcome.PASS), {
        name: result.message for name, result in results.items()
    }


@needs_node
def test_node_fixture_passes_the_whole_suite() -> None:
    results = run(suite_checks(), node("bpe.mjs"))
    assert {name: result.message for name, result in results.items() if result.outcome is not Outcome.PASS} == {}


@needs_node
def test_the_suite_catches_the_broken_tie_rule() -> None:
    results = run([*suite_checks("BPE-TRAIN-TIE"), *LOCAL_CHECKS], node("bpe_broken.mjs"))
    assert "BPE-TRAIN-TIE" in {result.clause for result in results.values() if result.outcome is Outcome.FAIL}
    assert results["train-matches-reference"].clause == "BPE-TRAIN-TIE"
    assert results["encode-matches-reference"].outcome is Outcome.PASS
    assert results["bad-input-rejected"].outcome is Outcome.PASS


@needs_node
@pytest.mark.slow
def test_the_whole_suite_finds_only_the_broken_tie_rule() -> None:
    results = run(suite_checks(), node("bpe_broken.mjs"))
    failures = {result.check: result.clause for result in results.values() if result.outcome is not Outcome.PASS}
    assert failures, failures
    assert set(failures.values()) == {"BPE-TRAIN-TIE"}, failures


@needs_node
def test_node_fixture_tells_floats_and_huge_integers_from_integers() -> None:
    with node("bpe.mjs") as subject:
        assert raised(subject.train, ["abab"], 2.0).kind == "TypeError"
        assert subject.train(["abab", "abab"], 2**80) == [(97, 98), (258, 258)]
        assert raised(subject.decode, [2**70]).kind == "ValueError"
        assert raised(subject.load, [(97, -(2**70))]).kind == "ValueError"


@needs_node
def test_node_fixture_keeps_a_byte_order_mark_and_rejects_lone_surrogates() -> None:
    with node("bpe.mjs") as subject:
        assert subject.decode(subject.encode("\ufeffa")) == "\ufeffa"
        error = raised(subject.encode, "ok\udc80")
        assert error.kind == "ValueError"
        assert "lone surrogate" in error.message


# -- ProcessSubject with the Python host ----------------------------------------------------------


def test_hosted_reference_passes_the_local_checks() -> None:
    results = run(LOCAL_CHECKS, hosted())
    assert all(result.outcome is Outcome.PASS for result in results.values()), results


def test_contract_calls_return_the_contract_types() -> None:
    with hosted() as subject:
        assert subject.info.name == "reference"
        assert subject.info.capabilities == {"train", "load", "encode", "decode"}
        assert subject.train(["abab", "acac"], 32) == [(97, 98), (97, 99)]
        assert subject.encode("abac") == [258, 259]
        assert subject.decode([256, 258, 259, 257]) == "abac"
        # The contract's load answers nothing: the test checks that it does not.
        assert subject.load([(97, 98)]) is None  # type: ignore[func-returns-value]


def test_errors_keep_their_type_and_message() -> None:
    with hosted() as subject:
        error = raised(subject.train, ["ab"], True)
        assert (error.kind, error.message) == ("TypeError", "max_merges must be an int, not bool (True)")
        assert error.is_input_error
        assert raised(subject.encode, "a\ud800").kind == "ValueError"


def test_unrepresentable_arguments_are_rejected_as_wrong_types() -> None:
    with hosted() as subject:
        assert raised(subject.encode, b"ab").kind == "TypeError"
        assert raised(subject.decode, [float("nan")]).kind == "TypeError"


def test_a_request_larger_than_the_pipe_buffer_is_sent_in_pieces() -> None:
    text = "abcdefgh" * 40_000  # 320 kB: five times the 64 KiB pipe buffer
    with hosted() as subject:
        subject.load([(97, 98)])
        assert len(subject.encode(text)) == 7 * 40_000


def test_reset_asks_the_same_process_for_a_fresh_model() -> None:
    with hosted() as subject:
        subject.train(["abab"], 4)
        pid = subject.pid
        subject.reset()
        assert subject.encode("ab") == [97, 98]
        assert subject.pid == pid


def test_reset_falls_back_to_a_new_process_when_the_implementation_cannot_reset() -> None:
    with hosted("hostile_impls:failing_reset") as subject:
        subject.train(["abab"], 4)
        pid = subject.pid
        subject.reset()
        assert subject.encode("ab") == [97, 98]
        assert subject.pid != pid


def test_close_stops_the_process_and_is_idempotent() -> None:
    subject = hosted()
    assert subject._running is not None
    process = subject._running.popen
    subject.close()
    subject.close()
    assert process.returncode == 0  # it obeyed stop; nothing had to be killed
    assert subject.pid is None


def test_malformed_results_leave_the_process_running() -> None:
    with hosted("hostile_impls:ReturnsASet") as subject:
        pid = subject.pid
        with pytest.raises(MalformedResult, match="dict"):
            subject.encode("abc")
        assert subject.pid == pid
        assert subject.decode([97]) == "a"


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        ([], "non-empty list of strings"),
        ("python", "non-empty list of strings"),
        ([sys.executable, 3], "non-empty list of strings"),
        ([str(ROOT / "no-such-program")], "cannot start"),
    ],
)
def test_commands_that_cannot_run_are_harness_errors(argv: object, problem: str) -> None:
    with pytest.raises(HarnessError, match=problem):
        # Wrong types on purpose: the command must be refused.
        ProcessSubject(argv)  # type: ignore[arg-type]


def test_handshake_timeout_has_a_floor_for_slow_starts() -> None:
    with hosted(timeout=0.5) as subject:
        assert subject.timeout == 0.5
        assert subject.handshake_timeout == MIN_HANDSHAKE_TIMEOUT


# -- the host, without a process ---------------------------------------------------------------------


def converse(spec: str, *lines: bytes | dict[str, Any]) -> list[dict[str, Any]]:
    out = io.BytesIO()
    raw = [line if isinstance(line, bytes) else encode_message(line) for line in lines]
    assert serve(open_session(spec), raw, out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.fixture
def hostile_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HOSTILE))


def test_host_answers_each_request_until_stop() -> None:
    answers = converse(
        "bpe_conformance.reference:LiteralTokenizer",
        {"id": 1, "op": "handshake", "protocol": PROTOCOL_VERSION},
        {"id": 2, "op": "train", "documents": ["abab", "acac"], "max_merges": 1},
        {"id": 3, "op": "load", "rules": [[97, 98]]},
        {"id": 4, "op": "stop"},
        {"id": 5, "op": "encode", "text": "never read"},
    )
    assert [answer["id"] for answer in answers] == [1, 2, 3, 4]
    assert answers[0]["result"]["name"] == "reference-literal"
    assert answers[1]["result"] == [[97, 98]]
    assert answers[2]["result"] is None  # the reference's load returns the rules; the protocol says null


def test_host_reports_unreadable_requests_and_goes_on() -> None:
    answers = converse(
        "bpe_conformance.reference:Tokenizer",
        b"hello\n",
        b'{"id": 7, "op": "encode"}\n',
        {"id": 8, "op": "encode", "text": "a"},
    )
    assert answers[0] == {"id": None, "ok": False, "error": answers[0]["error"]}
    assert answers[0]["error"]["type"] == "ProtocolError"
    assert answers[1]["error"] == {"type": "ProtocolError", "message": "an encode request needs text"}
    assert answers[2] == {"id": 8, "ok": True, "result": [97]}


def test_host_refuses_another_protocol_version() -> None:
    (answer,) = converse(
        "bpe_conformance.reference:Tokenizer", {"id": 1, "op": "handshake", "protocol": PROTOCOL_VERSION + 1}
    )
    assert answer["error"]["type"] == "ProtocolVersion"


def test_host_reports_a_setup_failure_to_every_request_but_stop() -> None:
    answers = converse(
        "no_such_module_here:Tokenizer",
        {"id": 1, "op": "handshake", "protocol": PROTOCOL_VERSION},
        {"id": 2, "op": "encode", "text": "a"},
        {"id": 3, "op": "stop"},
    )
    assert [answer["ok"] for answer in answers] == [False, False, True]
    assert answers[0]["error"]["type"] == "SetupError"
    assert "no module named 'no_such_module_here'" in answers[0]["error"]["message"]


def test_host_answers_not_implemented_for_a_missing_method(hostile_on_path: None) -> None:
    answers = converse("hostile_impls:WithoutLoad", {"id": 1, "op": "load", "rules": []})
    assert answers[0]["error"]["type"] == "NotImplemented"


def test_host_passes_on_the_exception_type_name(hostile_on_path: None) -> None:
    (answer,) = converse("hostile_impls:RaisesKeyError", {"id": 1, "op": "train", "documents": [], "max_merges": 1})
    assert answer["error"] == {
        "type": "KeyError",
        "message": "'pair_counts'",
        "ancestors": ["LookupError", "Exception", "BaseException"],
    }


def test_host_reset_makes_a_new_instance() -> None:
    answers = converse(
        "bpe_conformance.reference:Tokenizer",
        {"id": 1, "op": "train", "documents": ["abab"], "max_merges": 1},
        {"id": 2, "op": "reset"},
        {"id": 3, "op": "encode", "text": "ab"},
    )
    assert answers[2]["result"] == [97, 98]
