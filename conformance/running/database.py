"""Where hypothesis keeps the failing examples it found: a directory, or a Redis server many machines share.

``--database DIR`` (``run``, ``fuzz``, and ``--bpe-database`` in the pytest plugin) is a directory,
``--database redis://HOST:PORT[/DB]`` a Redis database, through hypothesis's own
:class:`~hypothesis.database.DirectoryBasedExampleDatabase` and
:class:`~hypothesis.extra.redis.RedisExampleDatabase` (the ``redis`` client is the optional extra
``bpe-conformance[redis]``). Every check keeps its examples under its own key, so a failure saved by
``fuzz`` is replayed first by ``run`` and by the plugin, whichever machine saved it.

>>> parse_location("redis://127.0.0.1:6390/3")
DatabaseLocation(kind='redis', text='redis://127.0.0.1:6390/3', path=None, host='127.0.0.1', port=6390, db=3)
>>> parse_location("redis://cache.internal").port
6379
>>> parse_location("redis://localhost:0")
Traceback (most recent call last):
...
bpe_conformance.errors.HarnessError: --database redis://localhost:0: port must be a number from 1 to 65535, got '0'
>>> default_directory("cmd:node my tok.mjs", {"XDG_CACHE_HOME": "/c"}).as_posix()
'/c/bpe-conformance/examples/cmd-node-my-tok.mjs-63b573c5'
"""

from __future__ import annotations

import hashlib
import os
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from bpe_conformance.errors import DatabaseUnavailable, HarnessError

__all__ = [
    "DEFAULT_REDIS_PORT",
    "KEY_PREFIX",
    "DatabaseLocation",
    "DatabaseUnavailable",
    "GuardedDatabase",
    "cache_directory",
    "default_directory",
    "open_database",
    "parse_location",
]

DEFAULT_REDIS_PORT = 6379
# Our keys apart from any other hypothesis suite sharing the same Redis database.
KEY_PREFIX = b"bpe-conformance:examples:"
_CONNECT_SECONDS = 5.0
_SLUG_CHARS = 48


@dataclass(frozen=True)
class DatabaseLocation:
    """A parsed ``--database``: ``kind`` is ``directory`` (``path``) or ``redis`` (``host``, ``port``, ``db``)."""

    kind: str
    text: str
    path: str | None = None
    host: str | None = None
    port: int | None = None
    db: int = 0


class GuardedDatabase(ExampleDatabase):
    """``database`` with every failure of its own turned into :class:`DatabaseUnavailable` naming ``text``."""

    def __init__(self, database: ExampleDatabase, text: str) -> None:
        super().__init__()
        self.database = database
        self.text = text

    def __repr__(self) -> str:
        return f"GuardedDatabase({self.database!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GuardedDatabase) and self.database == other.database

    def __hash__(self) -> int:
        return hash(self.text)

    def _failed(self, error: Exception) -> DatabaseUnavailable:
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return DatabaseUnavailable(f"the example database {self.text} failed: {detail}")

    def fetch(self, key: bytes) -> list[bytes]:
        """Every value saved under ``key`` (read at once, so a failure surfaces here)."""
        try:
            return list(self.database.fetch(key))
        except Exception as error:
            raise self._failed(error) from error

    def save(self, key: bytes, value: bytes) -> None:
        """Save ``value`` under ``key``."""
        try:
            self.database.save(key, value)
        except Exception as error:
            raise self._failed(error) from error

    def delete(self, key: bytes, value: bytes) -> None:
        """Delete ``value`` from ``key``."""
        try:
            self.database.delete(key, value)
        except Exception as error:
            raise self._failed(error) from error

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        """Move ``value`` from ``src`` to ``dest``."""
        try:
            self.database.move(src, dest, value)
        except Exception as error:
            raise self._failed(error) from error


class _Unusable(Exception):
    """What is wrong with a ``--database`` value; the public functions add the option and the value."""


def _port_text(netloc: str) -> str | None:
    """What follows the host's ``:`` in ``netloc`` (an IPv6 host is in brackets), or None without one."""
    after_host = netloc.rpartition("]")[2] if netloc.startswith("[") else netloc
    separator, port = after_host.partition(":")[1:]
    return port if separator else None


def _parse_redis(text: str, url: urllib.parse.SplitResult) -> DatabaseLocation:
    if url.username is not None or url.password is not None:
        raise _Unusable("credentials in the URL are not supported (every reproduce line would print them)")
    if url.query or url.fragment:
        raise _Unusable("a redis URL is redis://HOST:PORT[/DB], without '?' or '#' parts")
    host = url.hostname
    if not host:
        raise _Unusable("no host: a redis URL is redis://HOST:PORT[/DB]")
    port_text = _port_text(url.netloc)
    if port_text is None:
        port = DEFAULT_REDIS_PORT
    elif port_text.isdigit() and 1 <= int(port_text) <= 65535:
        port = int(port_text)
    else:
        raise _Unusable(f"port must be a number from 1 to 65535, got {port_text!r}")
    db_text = url.path.removeprefix("/")
    if db_text and not db_text.isdigit():
        raise _Unusable(f"the database number after '/' must be a non-negative integer, got {db_text!r}")
    return DatabaseLocation("redis", text, host=host, port=port, db=int(db_text or 0))


def parse_location(text: str, option: str = "--database") -> DatabaseLocation:
    """``text`` as a directory or a ``redis://`` URL; a :class:`HarnessError` names ``option``, ``text`` and the fault.

    >>> parse_location("examples").kind
    'directory'
    >>> parse_location("file:///tmp/x")
    Traceback (most recent call last):
    ...
    bpe_conformance.errors.HarnessError: --database file:///tmp/x: unknown scheme 'file'; give a directory or redis://HOST:PORT[/DB]
    """
    try:
        return _parse(text)
    except _Unusable as problem:
        raise HarnessError(f"{option} {text or repr(text)}: {problem}") from None


def _parse(text: str) -> DatabaseLocation:
    if not text.strip():
        raise _Unusable("empty; give a directory or redis://HOST:PORT[/DB]")
    if "://" not in text:
        path = Path(text).expanduser()
        if path.exists() and not path.is_dir():
            raise _Unusable("exists and is not a directory")
        if not path.exists() and not path.parent.is_dir():
            # The database directory itself is made; a missing parent is more likely a typo than a wish.
            raise _Unusable(f"directory {str(path.parent)!r} does not exist (only the last folder is created)")
        return DatabaseLocation("directory", text, path=str(path))
    url = urllib.parse.urlsplit(text)
    if url.scheme.lower() != "redis":
        raise _Unusable(f"unknown scheme {url.scheme!r}; give a directory or redis://HOST:PORT[/DB]")
    return _parse_redis(text, url)


def _open_redis(location: DatabaseLocation) -> ExampleDatabase:
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise _Unusable("the redis client is not installed: pip install 'bpe-conformance[redis]'") from None
    client = redis.Redis(
        host=location.host or "",
        port=location.port or DEFAULT_REDIS_PORT,
        db=location.db,
        socket_connect_timeout=_CONNECT_SECONDS,
        socket_timeout=30.0,
    )
    try:
        client.ping()
    except redis.exceptions.RedisError as error:
        client.close()
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise _Unusable(f"cannot use Redis at {location.host}:{location.port} db {location.db}: {detail}") from None
    return RedisExampleDatabase(client, key_prefix=KEY_PREFIX)


def _open_directory(location: DatabaseLocation) -> ExampleDatabase:
    assert location.path is not None
    path = Path(location.path)
    try:
        path.mkdir(exist_ok=True)
    except OSError as error:
        raise _Unusable(f"cannot create the directory: {error.strerror or error}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise _Unusable("the directory is not writable")
    return DirectoryBasedExampleDatabase(str(path))


def open_database(text: str | None, option: str = "--database") -> ExampleDatabase | None:
    """The example database ``text`` names (a missing directory is created, not its parents), or None without one.

    Given one, hypothesis replays the failures saved there before it generates anything new. A Redis
    server is asked for a ``PING`` first, so an unreachable one is a one-line error, not a run of errors;
    one that fails later raises :class:`DatabaseUnavailable` (:class:`GuardedDatabase`).
    """
    if text is None:
        return None
    location = parse_location(text, option)
    try:
        database = _open_redis(location) if location.kind == "redis" else _open_directory(location)
    except _Unusable as problem:
        raise HarnessError(f"{option} {text}: {problem}") from None
    return GuardedDatabase(database, text)


def cache_directory(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/bpe-conformance``, else ``~/.cache/bpe-conformance`` (a relative XDG value is ignored)."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "bpe-conformance"


def default_directory(impl: str | None, environ: Mapping[str, str] | None = None) -> Path:
    """The database ``fuzz`` keeps by default: one directory per implementation spec, under the cache dir.

    One per implementation, because hypothesis drops a saved example that no longer fails: a campaign
    against one implementation must not erase another's failures.
    """
    spec = impl or "reference"
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-.")[:_SLUG_CHARS] or "impl"
    digest = hashlib.sha256(spec.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return cache_directory(environ) / "examples" / f"{readable}-{digest}"
