"""A fuzz test of the harness itself: whatever a process answers, the call ends in a named outcome.

Hypothesis writes the reply of a scripted fake implementation (``tests/fixtures/hostile/scripted.py``):
random JSON values under right and wrong ids, huge strings, deep nesting, invalid UTF-8, a reply cut
short by the process exiting, with or without a grandchild that left the session. Each call must
return a value of the contract's type or raise one of the harness's named errors, within the call's
timeout, holding at most a bounded amount of memory, and leave no process behind.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.errors import CallAborted, ImplementationRaised, MalformedResult
from tests.adapters.test_hostile import ENV, HOSTILE, is_alive, nothing_left_behind  # noqa: F401

pytestmark = [
    pytest.mark.timeout(1200),  # the thorough profile runs 2000 examples
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="process checks read /proc"),
]

# Short: a reply that never ends its line costs a timeout; the bound asserted is this plus slack.
CALL_SECONDS = 0.5
MEMORY_BOUND = 96 * 2**20
NAMED = (CallAborted, ImplementationRaised, MalformedResult)
CALLS = {
    "train": lambda subject: subject.train(["abab", "acac"], 8),
    "load": lambda subject: subject.load([(97, 98)]),
    "encode": lambda subject: subject.encode("abab"),
    "decode": lambda subject: subject.decode([97, 98]),
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=30,
)
ids = st.just("@ID@") | st.sampled_from(["@ID@.0", '"@ID@"', "null", "-1", "0", "true", "1e400"])
errors = st.fixed_dictionaries({"type": st.text(max_size=30) | st.just("ValueError"), "message": st.text(max_size=50)})


def envelope(request_id: str, ok: bool | None, result: bytes, error: dict[str, str]) -> bytes:
    """A reply line's body: a plain success or error (``ok`` given), or ``result`` spliced in as raw JSON."""
    head = '{"id": ' + request_id + ", "
    if ok is None:
        return head.encode() + b'"ok": true, "result": ' + result + b"}"
    value = json.loads(result) if len(result) < 100 else ""
    body = {"ok": True, "result": value} if ok else {"ok": False, "error": error}
    return (head + json.dumps(body)[1:]).encode()


deep = st.integers(10, 20_000).map(lambda depth: b"[" * depth + b"]" * depth)
huge = st.integers(1, 5).map(lambda megabytes: json.dumps("x" * (megabytes * 2**20)).encode())
results = st.builds(lambda value: json.dumps(value).encode(), json_values) | deep | huge
structured = st.builds(envelope, ids, st.none() | st.booleans(), results, errors)
replies = st.builds(
    lambda body, newline, cut: (body + (b"\n" if newline else b""))[: cut if cut is not None else None],
    structured | st.binary(max_size=200),
    st.booleans(),
    st.none() | st.integers(0, 60),
)


@given(
    operation=st.sampled_from(sorted(CALLS)),
    reply=replies,
    exits=st.sampled_from([True, True, True, False]),  # staying alive after a cut reply costs a timeout
    grandchild=st.booleans(),
)
def test_any_reply_ends_in_a_named_outcome(
    tmp_path_factory: pytest.TempPathFactory, operation: str, reply: bytes, exits: bool, grandchild: bool
) -> None:
    directory = tmp_path_factory.mktemp("scripted")
    pid_file = directory / "grandchild.pid"
    script = directory / "script.json"
    plan = {"reply": reply.hex(), "exit": exits, "grandchild": str(pid_file) if grandchild else ""}
    script.write_text(json.dumps(plan))
    command = [sys.executable, str(HOSTILE / "scripted.py"), str(script)]
    subject = ProcessSubject(command, env=ENV, timeout=CALL_SECONDS)
    started = time.monotonic()
    tracemalloc.start()
    try:
        with subject, contextlib.suppress(*NAMED):  # anything else fails the test
            CALLS[operation](subject)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < CALL_SECONDS + 10
    assert peak < MEMORY_BOUND + 2 * len(reply)
    if grandchild and pid_file.exists() and pid_file.read_text():
        escaped, deadline = int(pid_file.read_text()), time.monotonic() + 5
        while is_alive(escaped) and time.monotonic() < deadline:
            time.sleep(0.01)  # SIGKILL is delivered asynchronously
        assert not is_alive(escaped)
