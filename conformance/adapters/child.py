"""A child process and its pipes: spawned in its own session, read without ever blocking the harness.

stdout is read by a thread into a small queue, one line at a time and at most the request's
allowance (:func:`response_allowance`); stderr is drained into a bounded tail (:func:`stderr_tail`);
both readers stop the moment the process is killed, even if a grandchild still holds the pipes.
:mod:`bpe_conformance.adapters.subprocess` speaks the protocol over these pipes.

>>> response_allowance(10, 0, 1 << 30) >= RESPONSE_FLOOR_BYTES
True
>>> describe_exit(-9)
'was killed by SIGKILL'
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import enum
import os
import queue
import selectors
import signal
import subprocess
import sys
import threading
import weakref
from collections import deque
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from bpe_conformance.adapters.limits import (
    NO_LIMITS,
    ProcessLimits,
    limit_memory,
    make_workdir,
    remove_workdir,
    resolve_program,
)
from bpe_conformance.adapters.process_tree import (
    REAP_SECONDS,
    TAG_VARIABLE,
    become_subreaper,
    die_with_parent,
    kill_tree,
    new_tag,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

__all__ = [
    "EXIT_GRACE_SECONDS",
    "POLL_SECONDS",
    "REAP_SECONDS",
    "RESPONSE_BYTES_PER_REQUEST_BYTE",
    "RESPONSE_FLOOR_BYTES",
    "STOP_SECONDS",
    "LineKind",
    "MeasuredPopen",
    "RunningProcess",
    "describe_exit",
    "kill_process_group",
    "response_allowance",
    "shown_line",
    "spawn",
    "stderr_tail",
]


class LineKind(str, enum.Enum):
    """What the reader thread found on a child's stdout: a whole line, or how the output broke off."""

    LINE = "line"  # one whole line, newline included
    OVERFLOW = "overflow"  # a line longer than the limit (its first bytes)
    PARTIAL = "partial"  # the output ended in the middle of a line (what there was)
    EOF = "eof"  # the output ended after a whole line


# A response may be this much larger than the requests that shaped it (the call and the last model).
RESPONSE_FLOOR_BYTES = 4 * 1024 * 1024
RESPONSE_BYTES_PER_REQUEST_BYTE = 64
# Lines read ahead of the harness; a flood blocks the implementation, not the harness's memory.
_QUEUED_LINES = 8
_READ_CHUNK = 64 * 1024
_STDERR_CHUNK = 8 * 1024
POLL_SECONDS = 0.05
# After the process has exited, its last lines may still be in the pipe.
EXIT_GRACE_SECONDS = 0.5
STOP_SECONDS = 1.0
_SHOWN_BYTES = 160
# The parent-death signal fires when the forking *thread* ends: a process spawned from a short-lived
# thread (compare trains in one) would be killed with it, a crash blamed on the implementation. Such
# spawns go through this one thread, which lives as long as the harness.
_SPAWNER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="bpe-conformance-spawner")
_TAIL_LINES = 12
_TAIL_CHARS = 1500


def _rss_bytes(maxrss: int) -> int:
    # ru_maxrss is in KiB on Linux, in bytes on macOS.
    return maxrss * (1 if sys.platform == "darwin" else 1024)


class MeasuredPopen(subprocess.Popen[bytes]):
    """A ``Popen`` that keeps the child's peak resident memory when it reaps it (``wait4``).

    It overrides the two places where CPython's ``Popen`` (3.10-3.13) calls ``waitpid``; where ``wait4``
    is missing it reaps as ``Popen`` does and the peak stays unknown (None).
    """

    peak_rss: int | None = None
    # Linux keeps the parent's high-water mark across fork and exec in the child's ru_maxrss, so a peak at or
    # below the harness's own peak when it started the child may be the harness's, not the child's: unknown.
    inherited_rss: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            import resource  # POSIX only: elsewhere no peak is read, so none is ever trusted
        except ImportError:
            self.inherited_rss = None
        else:
            self.inherited_rss = _rss_bytes(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        super().__init__(*args, **kwargs)

    @property
    def own_peak_rss(self) -> int | None:
        """The child's own peak resident memory, when its reaped peak proves it (above any inherited one)."""
        if self.peak_rss is None or self.inherited_rss is None or self.peak_rss <= self.inherited_rss:
            return None
        return self.peak_rss

    def _reap_measured(self, pid: int, flags: int) -> tuple[int, int]:
        if not hasattr(os, "wait4"):
            return os.waitpid(pid, flags)
        reaped, status, usage = os.wait4(pid, flags)
        if reaped == pid:
            self.peak_rss = _rss_bytes(usage.ru_maxrss)
        return reaped, status

    def _try_wait(self, wait_flags: int) -> tuple[int, int]:
        try:
            return self._reap_measured(self.pid, wait_flags)
        except ChildProcessError:  # as CPython does: reaped elsewhere, status unknown
            return self.pid, 0

    def _internal_poll(self, _deadstate: int | None = None, **_ignored: Any) -> int | None:
        # CPython's own signature takes _waitpid as a default argument: hand it the measuring one.
        code: int | None = super()._internal_poll(_deadstate, _waitpid=self._reap_measured)  # type: ignore[misc]
        return code


@dataclass
class RunningProcess:
    """One started process and the threads and buffers that serve it."""

    popen: MeasuredPopen
    lines: queue.Queue[tuple[LineKind, bytes]]
    stderr: deque[bytes]
    threads: tuple[threading.Thread, ...]
    finalizer: weakref.finalize[[subprocess.Popen[bytes], str, str | None], MeasuredPopen]
    stop: threading.Event
    tag: str
    # The longest line the reader accepts for the current request (see response_allowance).
    line_limit: list[int]
    # Its temporary working directory (ProcessLimits.temp_cwd), removed when it is stopped.
    workdir: str | None = None


def response_allowance(request_bytes: int, model_bytes: int, max_line_bytes: int) -> int:
    """The longest response line accepted for a request of ``request_bytes``.

    ``model_bytes`` is the size of the last train or load request: decoding answers with the
    pieces that request made. Linear in what the harness sent, never above ``max_line_bytes``.

    >>> response_allowance(100, 0, 64 * 1024 * 1024) == RESPONSE_FLOOR_BYTES + 6400
    True
    >>> response_allowance(100, 0, 1000)
    1000
    """
    allowance = RESPONSE_FLOOR_BYTES + RESPONSE_BYTES_PER_REQUEST_BYTE * (request_bytes + model_bytes)
    return min(max_line_bytes, allowance)


def describe_exit(returncode: int | None) -> str:
    """How a process ended, in words; signals by name.

    >>> describe_exit(-11), describe_exit(3), describe_exit(None)
    ('was killed by SIGSEGV', 'exited with code 3', 'is still running')
    """
    if returncode is None:
        return "is still running"
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


def kill_process_group(popen: subprocess.Popen[bytes], tag: str | None = None) -> None:
    """SIGKILL the process, its process group and (with ``tag``) its whole tree, then reap it."""
    if tag is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
            os.killpg(popen.pid, signal.SIGKILL)
    else:
        kill_tree(popen.pid, tag)
    with contextlib.suppress(subprocess.TimeoutExpired):  # stuck in the kernel; nothing more to do
        # SIGKILL cannot be ignored, so this returns as soon as the kernel has run the exit; the bound is
        # generous because a loaded machine (seen at a load average of 8 on 2 cores) takes seconds to.
        popen.wait(timeout=REAP_SECONDS)


def _put(lines: queue.Queue[tuple[LineKind, bytes]], item: tuple[LineKind, bytes], stop: threading.Event) -> bool:
    """Queue ``item`` unless told to stop first; False when stopped."""
    while not stop.is_set():
        try:
            lines.put(item, timeout=POLL_SECONDS)
            return True
        except queue.Full:
            continue
    return False


def _readable_chunks(stream: IO[bytes], stop: threading.Event, size: int) -> Iterator[bytes]:
    """Chunks of ``stream`` until end of output, an error, or ``stop`` (checked every poll interval)."""
    descriptor = stream.fileno()
    with selectors.DefaultSelector() as selector:
        selector.register(descriptor, selectors.EVENT_READ)
        while not stop.is_set():
            if not selector.select(POLL_SECONDS):
                continue
            try:
                chunk = os.read(descriptor, size)
            except OSError:
                return
            if not chunk:
                return
            yield chunk


def _read_lines(
    stream: IO[bytes], lines: queue.Queue[tuple[LineKind, bytes]], line_limit: list[int], stop: threading.Event
) -> None:
    pending = bytearray()
    try:
        for chunk in _readable_chunks(stream, stop, _READ_CHUNK):
            pending += chunk
            while (end := pending.find(b"\n")) >= 0:
                line = bytes(pending[: end + 1])
                del pending[: end + 1]
                if len(line) > line_limit[0] + 1:
                    _put(lines, (LineKind.OVERFLOW, line[:_SHOWN_BYTES]), stop)
                    return
                if not _put(lines, (LineKind.LINE, line), stop):
                    return
            if len(pending) > line_limit[0]:
                _put(lines, (LineKind.OVERFLOW, bytes(pending[:_SHOWN_BYTES])), stop)
                return
        if pending:  # end of output in the middle of a line
            _put(lines, (LineKind.PARTIAL, bytes(pending)), stop)
        _put(lines, (LineKind.EOF, b""), stop)
    finally:
        stream.close()


def _drain(stream: IO[bytes], chunks: deque[bytes], stop: threading.Event) -> None:
    try:
        for chunk in _readable_chunks(stream, stop, _STDERR_CHUNK):
            chunks.append(chunk)
    finally:
        stream.close()


def stderr_tail(chunks: deque[bytes]) -> str:
    """The last few lines of what the process wrote to stderr (bounded in lines and characters)."""
    text = b"".join(list(chunks)).decode("utf-8", errors="replace")
    tail = "\n".join(text.rstrip().splitlines()[-_TAIL_LINES:])
    return tail if len(tail) <= _TAIL_CHARS else "..." + tail[-_TAIL_CHARS:]


def shown_line(line: bytes) -> str:
    text = repr(line[:_SHOWN_BYTES])
    return text if len(line) <= _SHOWN_BYTES else f"{text}... ({len(line)} bytes)"


def _preexec(limits: ProcessLimits) -> Callable[[], None] | None:
    """What the child runs between ``fork`` and ``exec``: the parent-death signal, then the memory limit."""
    parts = [part for part in (die_with_parent(), limit_memory(limits.memory_bytes)) if part is not None]
    if not parts:
        return None

    def run() -> None:
        for part in parts:
            part()

    return run


def _stop(popen: subprocess.Popen[bytes], tag: str, workdir: str | None) -> None:
    kill_process_group(popen, tag)
    remove_workdir(workdir)


def spawn(
    argv: Sequence[str],
    cwd: str | None,
    env: dict[str, str] | None,
    max_line_bytes: int,
    stderr_bytes: int,
    *,
    limits: ProcessLimits = NO_LIMITS,
    required_env: Sequence[str] = (),
) -> RunningProcess:
    """Start ``argv`` in a new session, tagged for :func:`kill_tree`, with reader threads for stdout and stderr.

    ``limits`` apply to the child (``required_env``: variables the harness set that pass a clean
    environment); with ``limits.temp_cwd`` it runs in a new temporary directory instead of ``cwd``, and a
    relative program path is resolved first against ``cwd`` (or the harness's own directory).
    """
    become_subreaper()
    tag = new_tag()
    environment = {**limits.environment(os.environ if env is None else env, required_env), TAG_VARIABLE: tag}
    workdir = make_workdir() if limits.temp_cwd else None
    command = list(argv) if workdir is None else resolve_program(argv, cwd or os.getcwd())
    preexec = _preexec(limits)

    def start() -> MeasuredPopen:
        return MeasuredPopen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=workdir or cwd,
            env=environment,
            start_new_session=True,
            preexec_fn=preexec,
        )

    main_thread = threading.current_thread() is threading.main_thread()
    try:
        popen = start() if main_thread else _SPAWNER.submit(start).result()
    except BaseException:
        remove_workdir(workdir)
        raise
    assert popen.stdin is not None
    assert popen.stdout is not None
    assert popen.stderr is not None
    os.set_blocking(popen.stdin.fileno(), False)
    lines: queue.Queue[tuple[LineKind, bytes]] = queue.Queue(maxsize=_QUEUED_LINES)
    chunks: deque[bytes] = deque(maxlen=max(1, stderr_bytes // _STDERR_CHUNK))
    stop, line_limit = threading.Event(), [max_line_bytes]
    threads = (
        threading.Thread(target=_read_lines, args=(popen.stdout, lines, line_limit, stop), daemon=True),
        threading.Thread(target=_drain, args=(popen.stderr, chunks, stop), daemon=True),
    )
    for thread in threads:
        thread.start()
    # If the subject is dropped without close(), or the interpreter exits, still kill the tree.
    finalizer = weakref.finalize(popen, _stop, popen, tag, workdir)
    return RunningProcess(popen, lines, chunks, threads, finalizer, stop, tag, line_limit, workdir)
