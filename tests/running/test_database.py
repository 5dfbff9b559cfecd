"""The example database: a failure of the harness's own storage is a harness error, never the implementation's.

A database that fails while a check runs (a Redis server gone, a full disk) must end the run with a
one-line error (exit 2), not turn into an ``error`` outcome blamed on the implementation.
"""

from __future__ import annotations

import errno
import os
import re
from typing import TYPE_CHECKING, Any

import pytest
import redis
from hypothesis import settings
from hypothesis.database import InMemoryExampleDatabase

from bpe_conformance import reference
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.errors import HarnessError
from bpe_conformance.running import database as database_module
from bpe_conformance.running.database import (
    DatabaseUnavailable,
    GuardedDatabase,
    VerifiedDirectoryDatabase,
    open_database,
    parse_location,
)
from bpe_conformance.running.runner import run_check
from bpe_conformance.running.suite import select
from bpe_conformance.zoo import TiesToLargestPair

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import timedelta
    from pathlib import Path

    from redis.typing import ChannelT, EncodableT


class BrokenDatabase(InMemoryExampleDatabase):
    """Reads work; every write fails, as on a full disk or a server that went away mid-run."""

    def save(self, key: bytes, value: bytes) -> None:
        raise ConnectionError("Connection reset by peer")


def test_a_failing_database_stops_the_run_as_a_harness_error_naming_it() -> None:
    database = GuardedDatabase(BrokenDatabase(), "redis://cache:6379/0")
    (tie_break,) = select(["tie-break"])
    with pytest.raises(DatabaseUnavailable, match="the example database redis://cache:6379/0 failed: Connection reset"):
        run_check(tie_break, InProcessSubject(TiesToLargestPair), settings(max_examples=60), 0, database)


def test_a_working_database_replays_what_it_saved(tmp_path: Path) -> None:
    database = open_database(str(tmp_path / "db"))
    assert isinstance(database, GuardedDatabase)
    (tie_break,) = select(["tie-break"])
    found = run_check(tie_break, InProcessSubject(TiesToLargestPair), settings(max_examples=60), 0, database)
    again = run_check(tie_break, InProcessSubject(TiesToLargestPair), settings(max_examples=60), 99, database)
    assert found.outcome.value == again.outcome.value == "fail"
    assert again.counterexample is not None
    assert found.counterexample is not None
    assert again.counterexample["inputs"] == found.counterexample["inputs"]
    # A correct implementation passes the saved example, and hypothesis drops it.
    assert (
        run_check(tie_break, InProcessSubject(reference.Tokenizer), settings(max_examples=5), 0, database).outcome.value
        == "pass"
    )


def test_a_failed_write_names_the_check_and_prints_the_example_it_could_not_save() -> None:
    database = GuardedDatabase(BrokenDatabase(), "fuzz-db")
    (tie_break,) = select(["tie-break"])
    with pytest.raises(DatabaseUnavailable) as raised:
        run_check(tie_break, InProcessSubject(TiesToLargestPair), settings(max_examples=60), 0, database)
    message = str(raised.value)
    assert "check tie-break, example not saved: " in message
    assert "the failure it found was NOT SAVED, here it is in full: [BPE-TRAIN-TIE]" in message
    assert "with inputs {'documents': [" in message
    assert raised.value.lost_failure


def test_the_directory_database_verifies_and_rewrites_an_entry_that_did_not_land(tmp_path: Path) -> None:
    directory = VerifiedDirectoryDatabase(tmp_path)
    directory.save(b"key", b"value")
    entry = directory._value_path(b"key", b"value")
    entry.write_bytes(b"")  # what hypothesis's own database left behind on a full disk
    directory.save(b"key", b"value")
    assert entry.read_bytes() == b"value"
    assert list(directory.fetch(b"key")) == [b"value"]
    assert not [name for name in os.listdir(entry.parent) if name.startswith(".")]


def test_a_write_that_fails_is_a_harness_error_not_silence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(path: str | os.PathLike[str], data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(database_module, "write_atomically", disk_full)
    database = open_database(str(tmp_path / "db"))
    assert database is not None
    with pytest.raises(DatabaseUnavailable, match="No space left on device"):
        database.save(b"key", b"value")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fetch_skips_a_fifo_and_a_link_to_an_endless_device_without_blocking(tmp_path: Path) -> None:
    directory = VerifiedDirectoryDatabase(tmp_path)
    directory.save(b"key", b"value")
    key_path = directory._key_path(b"key")
    os.mkfifo(key_path / "fifo")
    (key_path / "zero").symlink_to("/dev/zero")
    assert list(directory.fetch(b"key")) == [b"value"]


class FakePipeline:
    def __init__(self, store: dict[bytes, set[bytes]], log: list[tuple[str, bytes]]) -> None:
        self.store, self.log = store, log
        self.queued: list[Callable[[], object]] = []

    def sadd(self, name: bytes, value: bytes) -> None:
        def add() -> int:
            members = self.store.setdefault(name, set())
            added = value not in members
            members.add(value)
            return int(added)

        self.queued.append(add)

    def smembers(self, name: bytes) -> None:
        self.queued.append(lambda: set(self.store.get(name, set())))

    def expire(self, name: bytes, time: timedelta) -> None:
        self.log.append(("expire", name))
        self.queued.append(lambda: 1)

    def persist(self, name: bytes) -> None:
        self.log.append(("persist", name))
        self.queued.append(lambda: 1)

    def execute(self) -> list[object]:
        results = [operation() for operation in self.queued]
        self.queued = []
        return results


class FakeRedis(redis.Redis):
    """Enough of a redis client for hypothesis's RedisExampleDatabase: sets, expiry calls recorded."""

    def __init__(self, drops_writes: bool = False) -> None:  # no connection: nothing of redis.Redis runs
        self.store: dict[bytes, set[bytes]] = {}
        self.log: list[tuple[str, bytes]] = []
        self.drops_writes = drops_writes

    def pipeline(self) -> FakePipeline:  # type: ignore[override]  # a stand-in for redis's Pipeline
        return FakePipeline({} if self.drops_writes else self.store, self.log)

    def sismember(self, name: bytes, value: bytes) -> bool:  # type: ignore[override]  # bool: only its truth is read
        return value in self.store.get(name, set())

    def publish(self, channel: ChannelT, message: EncodableT, **kwargs: Any) -> int:
        return 0


def test_redis_entries_are_kept_without_expiry_unless_asked() -> None:
    client = FakeRedis()
    forever = database_module._persistent_redis(client, None)
    forever.save(b"key", b"value")
    assert list(forever.fetch(b"key")) == [b"value"]
    assert {action for action, _ in client.log} == {"persist"}
    expiring = FakeRedis()
    database_module._persistent_redis(expiring, 3600).save(b"key", b"value")
    assert {action for action, _ in expiring.log} == {"expire"}


def test_a_redis_write_that_does_not_read_back_raises() -> None:
    database = database_module._persistent_redis(FakeRedis(drops_writes=True), None)
    with pytest.raises(OSError, match="not in the set"):
        database.save(b"key", b"value")


@pytest.mark.parametrize(
    ("url", "fault"),
    [
        ("redis://[::1", "malformed URL"),
        ("redis://cache?expire=0", "expire must be a number of seconds"),
        ("redis://cache?ttl=5", "the only query a redis URL takes is ?expire=SECONDS"),
    ],
)
def test_bad_redis_urls_are_one_line_errors(url: str, fault: str) -> None:
    with pytest.raises(HarnessError, match=re.escape(fault)):
        parse_location(url)
