"""Where hypothesis keeps the failing examples it found: a directory, or a Redis server many machines share.

``--database DIR`` (``run``, ``fuzz``, and ``--bpe-database`` in the pytest plugin) is a directory,
``--database redis://HOST:PORT[/DB]`` a Redis database, through hypothesis's own
:class:`~hypothesis.database.DirectoryBasedExampleDatabase` and
:class:`~hypothesis.extra.redis.RedisExampleDatabase` (the ``redis`` client is the optional extra
``bpe-conformance[redis]``). Every check keeps its examples under its own key, so a failure saved by
``fuzz`` is replayed first by ``run`` and by the plugin, whichever machine saved it.

Every write is verified (the directory database writes beside the entry, fsyncs, renames and reads
back; the Redis one asks the server whether the set holds the value), because hypothesis's own
directory database swallows write errors: on a full disk a campaign would "save" empty files. Redis
entries are kept without expiry unless ``?expire=SECONDS`` asks for one (hypothesis's default is 8 days).

>>> location = parse_location("redis://127.0.0.1:6390/3")
>>> location.kind, location.host, location.port, location.db, location.expire_seconds
('redis', '127.0.0.1', 6390, 3, None)
>>> parse_location("redis://cache/1?expire=86400").expire_seconds
86400
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
import stat
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from bpe_conformance.errors import DatabaseUnavailable, HarnessError
from bpe_conformance.files import LAUNCH_DIRECTORY, TEMPORARY_PREFIX, write_atomically
from bpe_conformance.settings import cache_directory

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

__all__ = [
    "DEFAULT_REDIS_PORT",
    "KEY_PREFIX",
    "DatabaseLocation",
    "DatabaseUnavailable",
    "GuardedDatabase",
    "VerifiedDirectoryDatabase",
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
# hypothesis's entries are a few kilobytes of choices; anything far larger was not written by it.
MAX_ENTRY_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class DatabaseLocation:
    """A parsed ``--database``: ``kind`` is ``directory`` (``path``) or ``redis`` (``host``, ``port``, ``db``)."""

    kind: str
    text: str
    path: str | None = None
    host: str | None = None
    port: int | None = None
    db: int = 0
    expire_seconds: int | None = None


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


def _read_entry(path: Path) -> bytes | None:
    """The bytes of the entry file ``path``; None when it is not a regular file of a sane size.

    A FIFO would block and a link to ``/dev/zero`` never ends: neither was written by a database.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as stream:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        data = stream.read(MAX_ENTRY_BYTES + 1)
    return data if len(data) <= MAX_ENTRY_BYTES else None


class VerifiedDirectoryDatabase(DirectoryBasedExampleDatabase):
    """hypothesis's directory database, except that a write which did not land raises :class:`OSError`.

    hypothesis writes to a temporary file in the system's temporary directory and swallows every
    ``OSError``; here the entry is written beside its destination, fsynced, renamed, and read back.
    """

    def fetch(self, key: bytes) -> Iterator[bytes]:
        """The entries saved under ``key``, skipping half-written and non-regular files."""
        key_path = self._key_path(key)
        try:
            names = sorted(os.listdir(key_path))
        except (FileNotFoundError, NotADirectoryError):
            return
        for name in names:
            if not name.startswith(TEMPORARY_PREFIX):
                value = _read_entry(key_path / name)
                if value is not None:
                    yield value

    def save(self, key: bytes, value: bytes) -> None:
        """Save ``value`` under ``key``; :class:`OSError` unless it reads back exactly."""
        key_path = self._key_path(key)
        if key_path.name != self._metakeys_hash:
            self.save(self._metakeys_name, key)  # hypothesis's index of keys, as its own save keeps it
        key_path.mkdir(parents=True, exist_ok=True)
        path = self._value_path(key, value)
        if _read_entry(path) == value:
            return
        write_atomically(path, value)
        if _read_entry(path) != value:
            raise OSError(f"the entry {path} does not read back as written")


def _persistent_redis(client: Any, expire_seconds: int | None) -> ExampleDatabase:
    """hypothesis's Redis database, with every write verified and, without ``expire_seconds``, no expiry."""
    from hypothesis.extra.redis import RedisExampleDatabase

    class VerifiedRedisDatabase(RedisExampleDatabase):
        @contextmanager
        def _pipeline(self, *reset_expire_keys: bytes, **options: Any) -> Iterator[Any]:
            # hypothesis resets an expiry on every key it touches; PERSIST instead keeps entries forever.
            with super()._pipeline(*reset_expire_keys, **options) as pipe:
                if expire_seconds is None:
                    pipe.expire = lambda name, _time: pipe.persist(name)
                yield pipe

        def save(self, key: bytes, value: bytes) -> None:
            super().save(key, value)
            if not self.redis.sismember(self._prefix + key, value):  # type: ignore[arg-type]  # bytes are fine
                raise OSError("the saved entry is not in the set when read back")

    expire_after = timedelta(seconds=expire_seconds or 8 * 24 * 3600)
    return VerifiedRedisDatabase(client, expire_after=expire_after, key_prefix=KEY_PREFIX)


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
    if url.fragment:
        raise _Unusable("a redis URL is redis://HOST:PORT[/DB][?expire=SECONDS], without a '#' part")
    expire_seconds = _expire_seconds(url.query)
    try:
        host = url.hostname
    except ValueError as error:  # urllib's own words for a malformed host, such as an unclosed '[::1'
        raise _Unusable(f"malformed host: {error}") from None
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
    return DatabaseLocation("redis", text, host=host, port=port, db=int(db_text or 0), expire_seconds=expire_seconds)


def _expire_seconds(query: str) -> int | None:
    """The ``expire=SECONDS`` of a redis URL's query, or None (keep entries forever) without one."""
    if not query:
        return None
    name, separator, value = query.partition("=")
    if name != "expire" or not separator:
        raise _Unusable(f"the only query a redis URL takes is ?expire=SECONDS, got {query!r}")
    if not (value.isascii() and value.isdigit() and 0 < int(value) <= 10**9):
        raise _Unusable(f"expire must be a number of seconds from 1 to 1000000000, got {value!r}")
    return int(value)


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
        if not path.is_absolute() and LAUNCH_DIRECTORY is not None:  # where the user meant it, whatever chdir since
            path = Path(LAUNCH_DIRECTORY) / path
        if path.exists() and not path.is_dir():
            raise _Unusable("exists and is not a directory")
        if not path.exists() and not path.parent.is_dir():
            # The database directory itself is made; a missing parent is more likely a typo than a wish.
            raise _Unusable(f"directory {str(path.parent)!r} does not exist (only the last folder is created)")
        return DatabaseLocation("directory", text, path=str(path))
    try:
        url = urllib.parse.urlsplit(text)
    except ValueError as error:  # urllib's own words for a malformed URL, such as an unclosed '[::1'
        raise _Unusable(f"malformed URL: {error}") from None
    if url.scheme.lower() != "redis":
        raise _Unusable(f"unknown scheme {url.scheme!r}; give a directory or redis://HOST:PORT[/DB]")
    return _parse_redis(text, url)


def _open_redis(location: DatabaseLocation) -> ExampleDatabase:
    try:
        import hypothesis.extra.redis  # noqa: F401 (needs the client too)
        import redis
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
    return _persistent_redis(client, location.expire_seconds)


def _open_directory(location: DatabaseLocation) -> ExampleDatabase:
    assert location.path is not None
    path = Path(location.path)
    try:
        path.mkdir(exist_ok=True)
    except OSError as error:
        raise _Unusable(f"cannot create the directory: {error.strerror or error}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise _Unusable("the directory is not writable")
    return VerifiedDirectoryDatabase(str(path))


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


def default_directory(impl: str | None, environ: Mapping[str, str] | None = None) -> Path:
    """The database ``fuzz`` keeps by default: one directory per implementation spec, under the cache dir.

    One per implementation, because hypothesis drops a saved example that no longer fails: a campaign
    against one implementation must not erase another's failures.
    """
    spec = impl or "reference"
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-.")[:_SLUG_CHARS] or "impl"
    digest = hashlib.sha256(spec.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return cache_directory(environ) / "examples" / f"{readable}-{digest}"
