"""The example database: a failure of the harness's own storage is a harness error, never the implementation's.

A database that fails while a check runs (a Redis server gone, a full disk) must end the run with a
one-line error (exit 2), not turn into an ``error`` outcome blamed on the implementation.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.database import InMemoryExampleDatabase

from bpe_conformance import reference
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.running.database import DatabaseUnavailable, GuardedDatabase, open_database
from bpe_conformance.running.runner import run_check
from bpe_conformance.running.suite import select
from bpe_conformance.zoo import TiesToLargestPair


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
    assert again.counterexample is not None and found.counterexample is not None
    assert again.counterexample["inputs"] == found.counterexample["inputs"]
    # A correct implementation passes the saved example, and hypothesis drops it.
    assert (
        run_check(tie_break, InProcessSubject(reference.Tokenizer), settings(max_examples=5), 0, database).outcome.value
        == "pass"
    )
