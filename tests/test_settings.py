"""Hypothesis's storage: a temporary directory per process, and one copy of its tables per user.

A process killed outright leaves its directory (no ``atexit`` runs); a later process removes it once it is a day old
and its process is gone.

Computing the characters UTF-8 text may hold takes hypothesis 1.8 s of CPU, and reading the constants of this
package's modules about a second; every command and every test worker drew text in a fresh temporary storage,
so each paid both again.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from bpe_conformance.settings import (
    ABANDONED_AFTER_SECONDS,
    STORAGE_PREFIX,
    cache_directory,
    remove_abandoned_storage,
    share_hypothesis_tables,
)

# A process as the command line starts one: its own storage, then a text drawn with the default alphabet.
DRAW_TEXT = """
from hypothesis import find, settings, strategies as st
from bpe_conformance.settings import keep_storage_out_of_cwd
print(keep_storage_out_of_cwd())
print(find(st.text(min_size=1), lambda text: True, settings=settings(database=None)))
"""


def _draw_text_in_a_new_process(cache: Path, cwd: Path) -> tuple[Path, str]:
    """The process's own storage directory and the simplest text it drew."""
    environment = {key: value for key, value in os.environ.items() if key != "HYPOTHESIS_STORAGE_DIRECTORY"}
    environment["XDG_CACHE_HOME"] = str(cache)
    completed = subprocess.run(
        [sys.executable, "-c", DRAW_TEXT], cwd=cwd, env=environment, capture_output=True, text=True, check=True
    )
    storage, text = completed.stdout.splitlines()
    return Path(storage), text


def test_the_storage_links_the_users_tables(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    storage.mkdir()
    assert share_hypothesis_tables(storage, {"XDG_CACHE_HOME": str(tmp_path / "cache")})
    for tables in ("unicode_data", "constants"):
        shared = cache_directory({"XDG_CACHE_HOME": str(tmp_path / "cache")}) / "hypothesis" / tables
        assert (storage / tables).resolve() == shared.resolve()
        assert shared.is_dir()


def test_the_second_process_loads_the_tables_the_first_computed(tmp_path: Path) -> None:
    cache, cwd = tmp_path / "cache", tmp_path / "cwd"
    cwd.mkdir()
    first_storage, first_text = _draw_text_in_a_new_process(cache, cwd)
    assert first_text == "0"
    assert not first_storage.exists(), "the process's own storage outlived it"
    assert list(cwd.iterdir()) == []
    shared = cache / "bpe-conformance" / "hypothesis"
    assert any((shared / "constants").iterdir()), "no module's constants were kept"
    (table,) = (shared / "unicode_data").rglob("codec-*-utf-8.json.gz")
    # Were the second process to compute its own table, it would draw "0" again; from this one it can draw only
    # "a" and "b" (the table lists the characters UTF-8 can encode, and those that do not decode back).
    with gzip.open(table, "wt", encoding="ascii") as rewritten:
        json.dump([[[97, 98]], []], rewritten)
    assert _draw_text_in_a_new_process(cache, cwd)[1] == "a"


def test_an_unusable_cache_links_nothing_and_hypothesis_keeps_its_tables_in_the_storage(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    storage = tmp_path / "storage"
    storage.mkdir()
    assert not share_hypothesis_tables(storage, {"XDG_CACHE_HOME": str(blocker)})
    assert list(storage.iterdir()) == []


def test_a_storage_that_has_its_own_tables_keeps_them(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    (storage / "unicode_data").mkdir(parents=True)
    assert not share_hypothesis_tables(storage, {"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert (storage / "unicode_data").is_dir()
    assert not (storage / "unicode_data").is_symlink()
    assert (storage / "constants").is_symlink(), "the other tables are shared all the same"


# A process killed outright: its storage stays, since no atexit runs.
KILLED_OUTRIGHT = """
import os, signal
from bpe_conformance.settings import keep_storage_out_of_cwd
print(keep_storage_out_of_cwd(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_processs_storage_is_removed_by_a_later_process_once_a_day_old(tmp_path: Path) -> None:
    environment = {key: value for key, value in os.environ.items() if key != "HYPOTHESIS_STORAGE_DIRECTORY"}
    environment["TMPDIR"] = str(tmp_path)
    environment["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    killed = subprocess.run([sys.executable, "-c", KILLED_OUTRIGHT], env=environment, capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL
    left = Path(killed.stdout.strip())
    assert left.parent == tmp_path
    assert left.is_dir(), "a process killed outright left no storage: nothing to test"
    assert left.name.startswith(STORAGE_PREFIX)
    mine = tmp_path / f"{STORAGE_PREFIX}{os.getpid()}-mine"
    mine.mkdir()
    unrelated = tmp_path / "bpe-conformance-build-1234"
    unrelated.mkdir()
    # A day old: the dead process's directory goes; the live process's and another name's stay.
    day_old = time.time() - ABANDONED_AFTER_SECONDS - 60
    for path in (left, mine, unrelated):
        os.utime(path, (day_old, day_old))
    assert remove_abandoned_storage(tmp_path) == [left]
    assert not left.exists()
    assert mine.is_dir()
    assert unrelated.is_dir()


def test_a_storage_younger_than_a_day_is_kept_even_if_its_process_is_gone(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    recent = tmp_path / f"{STORAGE_PREFIX}{gone.stdout.strip()}-recent"
    recent.mkdir()
    assert remove_abandoned_storage(tmp_path) == []
    assert recent.is_dir()
    assert remove_abandoned_storage(tmp_path, now=time.time() + ABANDONED_AFTER_SECONDS + 60) == [recent]
