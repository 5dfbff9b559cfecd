"""Run an implementation in its own process, speaking the JSON-lines protocol of ``specs/protocol.md``.

Nothing the process does can hang or break the harness: every wait is bounded by a deadline, stdout
is read by a thread into a small queue (one line at a time, at most the request's allowance,
:func:`response_allowance`, and never more than ``max_line_bytes``), stderr is drained continuously
into a bounded tail, both readers stop the moment the process is killed (even if a grandchild still
holds the pipes), and the process runs in its own session. Killing it kills its whole tree, including
processes that left its group or session (:mod:`bpe_conformance.adapters.process_tree`). Misbehaviour maps
onto :mod:`bpe_conformance.errors`:

* an error response → :class:`ImplementationRaised` (the process lives on);
* a timeout → the process group is killed, :class:`CallTimeout`;
* exit, end of stdout, a non-JSON line, a line too long, a wrong id or a response that breaks the
  schema → the process group is killed, :class:`ImplementationCrashed` with the exit status or
  signal name, the offending line (shortened) and the tail of stderr.

After a kill the next call starts a new process. ``reset`` asks the process to ``reset`` and
falls back to a new process if that does not work.

>>> import sys
>>> host = [sys.executable, "-m", "bpe_conformance.adapters.host"]
>>> with ProcessSubject([*host, "bpe_conformance.reference:Tokenizer"]) as subject:
...     subject.info.name, subject.train(["abab", "acac"], 32), subject.encode("abac")
('reference', [(97, 98), (97, 99)], [258, 259])
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import selectors
import shlex
import subprocess
import time
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters.child import (
    EXIT_GRACE_SECONDS,
    POLL_SECONDS,
    STOP_SECONDS,
    LineKind,
    RunningProcess,
    describe_exit,
    kill_process_group,
    response_allowance,
    shown_line,
    spawn,
    stderr_tail,
)
from bpe_conformance.adapters.limits import (
    DEFAULT_LIMITS,
    MEMORY_PEAK_SHARE,
    ProcessLimits,
    format_size,
    remove_workdir,
)
from bpe_conformance.adapters.protocol import (
    LOAD_VOCABULARY,
    PROTOCOL_VERSION,
    ProtocolError,
    VocabularySupport,
    build_request,
    decode_message,
    encode_message,
    implementation_info,
    validate_response,
    vocabulary_arguments,
    vocabulary_support,
)
from bpe_conformance.adapters.subject import ImplementationInfo, Subject, as_ids, as_rules, as_text
from bpe_conformance.errors import (
    CallAborted,
    CallTimeout,
    HarnessError,
    ImplementationCrashed,
    ImplementationRaised,
    MemoryLimitExceeded,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_STDERR_BYTES",
    "DEFAULT_TIMEOUT",
    "MIN_HANDSHAKE_TIMEOUT",
    "ProcessSubject",
]

DEFAULT_TIMEOUT = 10.0
# A slow interpreter on a loaded machine can take a while just to start.
MIN_HANDSHAKE_TIMEOUT = 3.0
DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
DEFAULT_STDERR_BYTES = 64 * 1024


class ProcessSubject(Subject):
    """An implementation in another process; capabilities come from its handshake.

    ``timeout`` bounds every call; ``handshake_timeout`` (default: ``timeout``, at least
    3 s) bounds start-up. A failure to start is a :class:`HarnessError`. ``limits`` apply to every
    process started (``required_env``: the variables in ``env`` the harness needs the process to see
    even in a clean environment); running out of the memory limit is :class:`MemoryLimitExceeded`.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        handshake_timeout: float | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        stderr_bytes: int = DEFAULT_STDERR_BYTES,
        label: str | None = None,
        limits: ProcessLimits = DEFAULT_LIMITS,
        required_env: Sequence[str] = (),
    ) -> None:
        if isinstance(argv, str) or not argv or not all(isinstance(part, str) for part in argv):
            raise HarnessError(f"the command must be a non-empty list of strings, not {argv!r}")
        self.argv = list(argv)
        self.label = label or shlex.join(self.argv)
        self.timeout = float(timeout)
        self.handshake_timeout = float(handshake_timeout or max(timeout, MIN_HANDSHAKE_TIMEOUT))
        self._cwd = None if cwd is None else os.fspath(cwd)
        self._env = env
        self._max_line_bytes = max_line_bytes
        self._stderr_bytes = stderr_bytes
        self.limits = limits
        self._required_env = tuple(required_env)
        self._ids = itertools.count(1)
        self._model_bytes = 0
        self._running: RunningProcess | None = None
        # The load_vocabulary request's arguments once one was accepted: sent again after every restart
        # and reset, so a vocabulary-bound encoder never answers from an empty model.
        self._vocabulary: JSONObject | None = None
        self.vocabulary_support = VocabularySupport()
        self.info = self._start_or_fail()

    def __repr__(self) -> str:
        return f"ProcessSubject({self.label!r})"

    def __enter__(self) -> ProcessSubject:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The process id of the running implementation, if one is running."""
        return None if self._running is None else self._running.popen.pid

    def recent_stderr(self) -> str:
        """The last lines the running process wrote to stderr (empty when none is running)."""
        return "" if self._running is None else stderr_tail(self._running.stderr)

    @property
    def stderr_buffered(self) -> int:
        """How many bytes of the running process's stderr the harness holds (bounded by ``stderr_bytes``)."""
        return 0 if self._running is None else sum(len(chunk) for chunk in list(self._running.stderr))

    # -- the contract ------------------------------------------------------------------------

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return as_rules("train", self._call("train", documents=documents, max_merges=max_merges))

    def encode(self, text: str) -> list[int]:
        return as_ids("encode", self._call("encode", text=text))

    def decode(self, ids: list[int]) -> str:
        return as_text("decode", self._call("decode", ids=ids))

    def load(self, rules: list[tuple[int, int]]) -> None:
        self._call("load", rules=rules)

    def load_vocabulary(self, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> None:
        """Send a released vocabulary (``load_vocabulary``, protocol section 3.4), again after every restart.

        Only for an implementation that declared the capability; a refusal is :class:`ImplementationRaised`.
        """
        arguments = vocabulary_arguments(ranks, special_tokens)
        self._vocabulary = None
        self._call(LOAD_VOCABULARY, **arguments)
        self._vocabulary = arguments

    def reset(self) -> None:
        """A fresh model: ask the process to reset; if it cannot, the next call starts a new process.

        A vocabulary it was given stays bound: it is sent again after the reset.
        """
        if self._running is None or self._running.popen.poll() is not None:
            self._discard()
            return
        try:
            self._exchange(self._running, "reset", {}, self.timeout)
            if self._vocabulary is not None:
                self._exchange(self._running, LOAD_VOCABULARY, self._vocabulary, self.timeout)
        except (CallAborted, ImplementationRaised):
            self._discard()

    def close(self) -> None:
        """Send ``stop``, give the process a moment to exit, then kill its group.

        Idempotent; a call after ``close`` starts a new process (close it again).
        """
        running, self._running = self._running, None
        if running is None:
            return
        if running.popen.poll() is None:
            try:
                self._exchange(running, "stop", {}, min(self.timeout, STOP_SECONDS))
                running.popen.wait(timeout=STOP_SECONDS)
            except (CallAborted, ImplementationRaised, subprocess.TimeoutExpired):
                pass  # it gets killed below either way
        self._finish(running)

    # -- process life ------------------------------------------------------------------------

    def _start_or_fail(self) -> ImplementationInfo:
        try:
            return self._start("start")
        except CallAborted as aborted:
            raise HarnessError(f"{self.label}: {aborted.detail}") from None

    def _start(self, operation: str) -> ImplementationInfo:
        try:
            running = spawn(
                self.argv,
                self._cwd,
                self._env,
                self._max_line_bytes,
                self._stderr_bytes,
                limits=self.limits,
                required_env=self._required_env,
            )
        except OSError as error:
            raise ImplementationCrashed(operation, f"cannot start {self.argv[0]!r}: {error}") from None
        self._running = running
        try:
            result = self._exchange(running, "handshake", {"protocol": PROTOCOL_VERSION}, self.handshake_timeout)
            info = implementation_info(result)
            self.vocabulary_support = vocabulary_support(result)
        except CallAborted as aborted:
            raise type(aborted)(operation, f"handshake failed: {aborted.detail}") from None
        except ImplementationRaised as refused:
            detail = f"handshake failed: {refused.kind}: {refused.message}"
            raise ImplementationCrashed(operation, self._abandon(detail)) from None
        except ProtocolError as error:
            raise ImplementationCrashed(operation, self._abandon(str(error))) from None
        if self._vocabulary is not None:  # a restart: the vocabulary it was judged on, before anything else
            try:
                self._exchange(running, LOAD_VOCABULARY, self._vocabulary, self.timeout)
            except CallAborted as aborted:
                raise type(aborted)(operation, f"loading the vocabulary again failed: {aborted.detail}") from None
            except ImplementationRaised as refused:
                detail = f"refused the vocabulary it loaded before: {refused.kind}: {refused.message}"
                raise ImplementationCrashed(operation, self._abandon(detail)) from None
        return info

    def _abandon(self, detail: str) -> str:
        """Stop a process that cannot be used; ``detail`` with the stderr tail appended."""
        running = self._running
        self.close()
        return detail if running is None else self._with_tail(detail, running)

    def _ensure_running(self, operation: str) -> RunningProcess:
        if self._running is None:
            try:
                self._start(operation)
            except CallAborted as aborted:
                raise type(aborted)(operation, f"restarting the implementation failed: {aborted.detail}") from None
        assert self._running is not None
        return self._running

    def _discard(self) -> None:
        running, self._running = self._running, None
        if running is not None:
            self._finish(running)

    @staticmethod
    def _finish(running: RunningProcess) -> None:
        if not running.finalizer.alive:
            return  # finished already: never signal a process group twice
        running.stop.set()  # a grandchild may hold the pipes open: stop reading them now
        kill_process_group(running.popen, running.tag)
        running.finalizer.detach()
        for thread in running.threads:
            thread.join(timeout=1.0)
        if running.popen.stdin is not None:
            with contextlib.suppress(OSError):  # unflushed data to a dead process
                running.popen.stdin.close()
        remove_workdir(running.workdir)

    def _with_tail(self, detail: str, running: RunningProcess) -> str:
        tail = stderr_tail(running.stderr)
        return f"{detail}; stderr tail:\n{tail}" if tail else f"{detail}; stderr was empty"

    def _abort(self, kind: type[CallAborted], operation: str, detail: str, running: RunningProcess) -> CallAborted:
        """Kill the process (once), and the error that says why, with the stderr tail.

        A crash of a process that ended by itself after its resident memory reached
        ``MEMORY_PEAK_SHARE`` of the memory limit is :class:`MemoryLimitExceeded`.
        """
        if self._running is running:
            self._running = None
        ended_by_itself = running.popen.poll() is not None
        self._finish(running)
        if kind is ImplementationCrashed and ended_by_itself:
            limit, peak = self.limits.memory_bytes, running.popen.own_peak_rss
            if limit is not None and peak is not None and peak >= MEMORY_PEAK_SHARE * limit:
                kind = MemoryLimitExceeded
                detail = f"{detail}, out of memory: it used {format_size(peak)} of its {self._memory_words()}"
        return kind(operation, self._with_tail(detail, running))

    def _memory_words(self) -> str:
        limit = self.limits.memory_bytes
        return "unlimited memory" if limit is None else f"--memory-limit {format_size(limit)}"

    # -- one request, one response -----------------------------------------------------------

    def _call(self, operation: str, **arguments: Any) -> Any:
        return self._exchange(self._ensure_running(operation), operation, arguments, self.timeout)

    def _exchange(self, running: RunningProcess, operation: str, arguments: JSONObject, seconds: float) -> Any:
        request_id = next(self._ids)
        deadline = time.monotonic() + seconds
        message = encode_message(build_request(request_id, operation, **arguments))
        if operation in ("train", "load", LOAD_VOCABULARY):
            self._model_bytes = len(message)
        running.line_limit[0] = response_allowance(len(message), self._model_bytes, self._max_line_bytes)
        self._send(running, operation, message, deadline, seconds)
        line = self._await_line(running, operation, deadline, seconds)
        try:
            response = decode_message(line)
            validate_response(response)
        except ProtocolError as error:
            raise self._abort(ImplementationCrashed, operation, f"broke the protocol: {error}", running) from None
        if response["id"] != request_id:
            said = "" if response["ok"] else f" ({response['error']['type']}: {response['error']['message']})"
            detail = f"answered request {request_id} with id {response['id']}{said}: {shown_line(line)}"
            raise self._abort(ImplementationCrashed, operation, detail, running)
        if not response["ok"]:
            failure = response["error"]
            if failure["type"] == "MemoryError" and self.limits.memory_bytes is not None:
                # Out of memory under the limit: the process may be unusable; the next call starts a new one.
                said = f": {failure['message']}" if failure["message"] else ""
                detail = f"raised MemoryError under its {self._memory_words()}{said}"
                raise self._abort(MemoryLimitExceeded, operation, detail, running)
            raise ImplementationRaised(
                operation, failure["type"], failure["message"], tuple(failure.get("ancestors", ()))
            )
        return response["result"]

    def _send(self, running: RunningProcess, operation: str, data: bytes, deadline: float, seconds: float) -> None:
        assert running.popen.stdin is not None
        descriptor = running.popen.stdin.fileno()
        pending = memoryview(data)
        with selectors.DefaultSelector() as selector:
            selector.register(descriptor, selectors.EVENT_WRITE)
            while pending:
                try:
                    pending = pending[os.write(descriptor, pending) :]
                    continue
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    self._await_exit(running)
                    detail = f"closed its stdin: the process {describe_exit(running.popen.returncode)}"
                    raise self._abort(ImplementationCrashed, operation, detail, running) from None
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    detail = f"did not read its request within {seconds:g} s (process group killed)"
                    raise self._abort(CallTimeout, operation, detail, running)
                selector.select(min(remaining, POLL_SECONDS))

    def _await_line(self, running: RunningProcess, operation: str, deadline: float, seconds: float) -> bytes:
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            limit = deadline if exited_at is None else min(deadline, exited_at + EXIT_GRACE_SECONDS)
            if now >= limit:
                if exited_at is not None:
                    detail = f"the process {describe_exit(running.popen.returncode)} before answering"
                    raise self._abort(ImplementationCrashed, operation, detail, running)
                detail = f"no answer within {seconds:g} s (process group killed)"
                raise self._abort(CallTimeout, operation, detail, running)
            try:
                kind, payload = running.lines.get(timeout=min(limit - now, POLL_SECONDS))
            except queue.Empty:
                if exited_at is None and running.popen.poll() is not None:
                    exited_at = time.monotonic()
                continue
            if kind is LineKind.LINE:
                return payload
            if kind is LineKind.OVERFLOW:
                detail = f"wrote a line longer than {running.line_limit[0]} bytes: {shown_line(payload)}"
                raise self._abort(ImplementationCrashed, operation, detail, running)
            self._await_exit(running)
            ended = f"the process {describe_exit(running.popen.returncode)}"
            if kind is LineKind.PARTIAL:
                detail = f"stopped in the middle of a response line ({ended}): {shown_line(payload)}"
            else:
                detail = f"closed its stdout before answering: {ended}"
            raise self._abort(ImplementationCrashed, operation, detail, running)

    @staticmethod
    def _await_exit(running: RunningProcess) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):  # then it is reported as still running
            running.popen.wait(timeout=EXIT_GRACE_SECONDS)
