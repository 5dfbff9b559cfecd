"""The efforts: named hypothesis settings, defined once for the tests and the harness.

Each effort is registered as the hypothesis profile of the same name (``settings.load_profile("ci")``); this
project says "effort" so that "profile" always means a dialect (:mod:`bpe_conformance.reference.profiles`).

``dev`` is the everyday default, ``ci`` is what hypothesis loads by itself when ``CI`` is set,
``thorough`` is for nightly runs and ``mutation`` for mutmut: derandomized, no deadline, no
example database, so a mutant is killed or not the same way every time.

>>> sorted(EFFORTS)
['ci', 'dev', 'mutation', 'thorough']
>>> EFFORTS["mutation"].database is None and EFFORTS["mutation"].derandomize
True

The harness writes nothing into the working directory unless asked: :func:`keep_storage_out_of_cwd` moves
hypothesis's own files to a temporary directory, and the example database is off unless one is asked for
(``run --database``, :mod:`bpe_conformance.running.database`). Only hypothesis's tables (the characters of
Unicode, the constants of local modules), which take seconds to compute and depend on nothing but the versions
and the source, are kept for the next process, in the user's cache (:func:`share_hypothesis_tables`).
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import hypothesis
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "ABANDONED_AFTER_SECONDS",
    "EFFORTS",
    "EFFORT_ENV_VAR",
    "HYPOTHESIS_VERSION",
    "STORAGE_PREFIX",
    "active_effort_name",
    "cache_directory",
    "hypothesis_cache_directory",
    "keep_storage_out_of_cwd",
    "register_efforts",
    "remove_abandoned_storage",
    "share_hypothesis_tables",
]

# The same seed draws the same examples only under the same hypothesis version (pyproject.toml bounds it);
# every report records it.
HYPOTHESIS_VERSION: str = hypothesis.__version__
_STORAGE_ENV_VAR = "HYPOTHESIS_STORAGE_DIRECTORY"

EFFORT_ENV_VAR = "BPE_HYPOTHESIS_PROFILE"

# Each process's own storage directory, named with its pid; one left a day by a process that is gone is removed.
STORAGE_PREFIX = "bpe-conformance-hypothesis-"
ABANDONED_AFTER_SECONDS = 24 * 3600

# Subprocess implementations and long documents are slow by nature; that is not a bug in a strategy.
_SLOW_IS_FINE = (HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example)

EFFORTS: dict[str, settings] = {
    "dev": settings(max_examples=60, deadline=None, suppress_health_check=_SLOW_IS_FINE),
    "ci": settings(
        max_examples=100,
        derandomize=True,
        deadline=None,
        database=None,
        print_blob=True,
        suppress_health_check=_SLOW_IS_FINE,
    ),
    "thorough": settings(max_examples=2000, deadline=None, suppress_health_check=_SLOW_IS_FINE),
    "mutation": settings(
        max_examples=20,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=_SLOW_IS_FINE,
    ),
}


def register_efforts() -> None:
    """Register every effort as the hypothesis profile of its name; re-registering an active ``ci`` makes ours count."""
    for name, effort in EFFORTS.items():
        settings.register_profile(name, effort)


def active_effort_name() -> str:
    """``$BPE_HYPOTHESIS_PROFILE`` if set, ``ci`` under CI, else ``dev``."""
    chosen = os.environ.get(EFFORT_ENV_VAR)
    if chosen:
        if chosen not in EFFORTS:
            raise ValueError(f"{EFFORT_ENV_VAR}={chosen!r} is not an effort; choose one of {sorted(EFFORTS)}")
        return chosen
    return "ci" if os.environ.get("CI") else "dev"


@functools.cache  # once per process: every later call returns the same directory
def keep_storage_out_of_cwd() -> str | None:
    """Point hypothesis's storage at a temporary directory removed at exit, unless the user chose one.

    Without this, hypothesis creates ``.hypothesis/`` in whatever directory the harness runs from.
    Returns the directory chosen, None when ``$HYPOTHESIS_STORAGE_DIRECTORY`` decides.
    """
    if os.environ.get(_STORAGE_ENV_VAR):
        return None
    directory = tempfile.mkdtemp(prefix=f"{STORAGE_PREFIX}{os.getpid()}-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    remove_abandoned_storage(Path(directory).parent)
    share_hypothesis_tables(Path(directory))
    set_hypothesis_home_dir(directory)
    return directory


def remove_abandoned_storage(parent: Path, now: float | None = None) -> list[Path]:
    """Remove, from ``parent``, the storage directories of processes that ended without removing their own.

    A process killed outright (``kill -9`` of the harness, which ``tests/adapters/test_hostile_orphans.py`` does on
    purpose) runs no ``atexit``, so its directory stays. One is taken here only when it is surely abandoned: named
    as this module names them, untouched for :data:`ABANDONED_AFTER_SECONDS`, and its process (the pid in its name)
    gone. A name without a pid (before the pid was put in it) counts as gone. Returns what was removed.

    >>> import tempfile
    >>> parent = Path(tempfile.mkdtemp())
    >>> (parent / f"{STORAGE_PREFIX}{os.getpid()}-alive").mkdir()
    >>> (parent / f"{STORAGE_PREFIX}1x2y").mkdir()
    >>> [path.name for path in remove_abandoned_storage(parent, now=time.time() + ABANDONED_AFTER_SECONDS + 1)]
    ['bpe-conformance-hypothesis-1x2y']
    >>> remove_abandoned_storage(parent)  # a day later, the live process's directory is still its own
    []
    >>> shutil.rmtree(parent)
    """
    moment = time.time() if now is None else now
    removed = []
    for candidate in sorted(parent.glob(f"{STORAGE_PREFIX}*")):
        try:
            untouched = moment - candidate.lstat().st_mtime
        except OSError:
            continue
        if untouched < ABANDONED_AFTER_SECONDS or not candidate.is_dir() or _owner_alive(candidate.name):
            continue
        shutil.rmtree(candidate, ignore_errors=True)
        if not candidate.exists():
            removed.append(candidate)
    return removed


def _owner_alive(name: str) -> bool:
    """Whether the process whose pid a storage directory's name holds is running (True when unsure)."""
    pid, dash, _ = name[len(STORAGE_PREFIX) :].partition("-")
    if not dash or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or no way to tell: keep its directory
        return True
    return True


def cache_directory(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/bpe-conformance``, else ``~/.cache/bpe-conformance`` (a relative XDG value is ignored).

    >>> cache_directory({"XDG_CACHE_HOME": "/c"}).as_posix()
    '/c/bpe-conformance'
    """
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "bpe-conformance"


def hypothesis_cache_directory(environ: Mapping[str, str] | None = None) -> Path:
    """Hypothesis's storage kept for the user: the fuzz workers' whole storage, and every process's tables.

    >>> hypothesis_cache_directory({"XDG_CACHE_HOME": "/c"}).as_posix()
    '/c/bpe-conformance/hypothesis'
    """
    return cache_directory(environ) / "hypothesis"


def share_hypothesis_tables(storage: Path, environ: Mapping[str, str] | None = None) -> bool:
    """Link hypothesis's tables in ``storage`` to the user's copies; whether both were linked.

    Hypothesis computes two kinds of tables into its storage directory and loads them from there afterwards:
    the characters text may hold (``unicode_data``: 1.8 s of CPU for UTF-8, the default alphabet of ``text()``)
    and the constants of each local module it draws examples near (``constants``: about a second for this
    package's modules). In a fresh temporary directory every process would compute them again: each command,
    each test worker, each implementation check run by a test. Neither depends on the process: the Unicode
    tables' path holds the versions they were computed for, and a module's constants are filed under a hash of
    its source. Hypothesis replaces each file whole (a temporary file renamed), so one copy serves every process
    of the user. The fuzz workers' storage is that directory itself, so they share them too.

    Best effort: where the cache cannot be made (a read-only home), nothing is linked and hypothesis computes
    the tables in ``storage`` as it would without this.
    """
    linked = 0
    for tables in ("unicode_data", "constants"):
        shared = hypothesis_cache_directory(environ) / tables
        try:
            shared.mkdir(parents=True, exist_ok=True)
            (storage / tables).symlink_to(shared, target_is_directory=True)
        except OSError:
            continue
        linked += 1
    return linked == 2
