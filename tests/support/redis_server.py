"""A private Debian ``redis-server`` for the tests: 127.0.0.1, a free port, no persistence, stopped after.

``tools/system-packages.sh redis-server`` installs it (``.ci/run`` and ``tox -e fuzz-redis`` call it);
where it is missing, or the ``redis`` client is, :func:`redis_or_skip` skips with the reason.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["RedisServer", "free_port", "redis_or_skip", "running_redis"]

_START_SECONDS = 10.0
_PORT_ATTEMPTS = 5


@dataclass(frozen=True)
class RedisServer:
    """A running server: where it listens, the URL of one of its numbered databases, and its process."""

    host: str
    port: int
    process: subprocess.Popen[bytes] | None = None

    def kill(self) -> None:
        """Stop the server at once (SIGKILL), as a crash or a lost network would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    def url(self, db: int = 0) -> str:
        """``redis://HOST:PORT/DB``."""
        return f"redis://{self.host}:{self.port}/{db}"

    # Any, not redis.Redis: the client is imported only where it is installed.
    def client(self, db: int = 0) -> Any:
        """A client of database ``db``."""
        import redis

        return redis.Redis(host=self.host, port=self.port, db=db)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def redis_or_skip() -> str:
    """The path of ``redis-server``; skips the test when it or the ``redis`` client is not installed."""
    executable = shutil.which("redis-server") or next(
        (path for path in ("/usr/bin/redis-server", "/usr/sbin/redis-server") if Path(path).exists()), None
    )
    if executable is None:
        pytest.skip("redis-server is not installed (bash tools/system-packages.sh redis-server, or tox -e fuzz-redis)")
    try:
        import redis  # noqa: F401
    except ImportError:
        pytest.skip("the redis client is not installed (pip install 'bpe-conformance[redis]')")
    return executable


@contextmanager
def running_redis(directory: Path) -> Iterator[RedisServer]:
    """Start ``redis-server`` on 127.0.0.1 with no RDB or AOF files, working in ``directory``; stop it after.

    The port is free when chosen but is not held until the server binds it, and other test processes (pytest-xdist's
    workers, other runs on the machine) choose ports too: a server is used only once the one answering on its port
    reports this server's process id, and a port lost in between is given up for another.
    """
    executable = redis_or_skip()
    for attempt in range(1, _PORT_ATTEMPTS + 1):
        with _one_server(executable, directory, attempt) as started:
            if started is not None:
                yield started
                return
    raise RuntimeError(f"redis-server found each of {_PORT_ATTEMPTS} free ports taken before it could listen")


@contextmanager
def _one_server(executable: str, directory: Path, attempt: int) -> Iterator[RedisServer | None]:
    """A started server, or None when another process holds the port chosen (the server then exits)."""
    port = free_port()
    command = [
        executable,
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        str(directory),
        "--protected-mode",
        "yes",
        "--daemonize",
        "no",
        "--loglevel",
        "warning",
        "--databases",
        "16",
    ]
    log_path = directory / f"redis-{attempt}.log"
    log = log_path.open("wb")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=directory)
    try:
        started = RedisServer("127.0.0.1", port, server)
        deadline = time.monotonic() + _START_SECONDS
        while True:
            try:
                answering = int(started.client().info("server")["process_id"])
            except Exception:  # noqa: BLE001 - not answering yet (still starting): any client error means ask again
                answering = None
            if answering == server.pid:
                break
            if answering is not None:  # someone else's server holds the port: ours cannot bind it
                yield None
                return
            if server.poll() is not None or time.monotonic() > deadline:
                log.flush()
                output = log_path.read_text(errors="replace")[-500:]
                if server.poll() is not None and "already in use" in output:  # taken by something else
                    yield None
                    return
                raise RuntimeError(f"redis-server did not start on port {port}: {output}")
            time.sleep(0.05)
        yield started
    finally:
        if server.poll() is None:
            server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
