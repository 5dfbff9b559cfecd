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
    """Start ``redis-server`` on 127.0.0.1 with no RDB or AOF files, working in ``directory``; stop it after."""
    executable = redis_or_skip()
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
    log = (directory / "redis.log").open("wb")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=directory)
    try:
        started = RedisServer("127.0.0.1", port, server)
        deadline = time.monotonic() + _START_SECONDS
        while True:
            try:
                if started.client().ping():
                    break
            except Exception:  # noqa: BLE001 - the server is still starting: any client error means ask again
                if server.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    output = (directory / "redis.log").read_text(errors="replace")[-500:]
                    raise RuntimeError(f"redis-server did not start on port {port}: {output}") from None
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
