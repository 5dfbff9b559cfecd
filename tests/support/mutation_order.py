"""Under mutmut, run a mutant's tests fastest first, so that a killed mutant is usually killed by a fast test,
stop a test that runs far past its measured time, so that a mutant that loops is caught in seconds, and do not
shrink what a property test found, since a mutant needs one failure and no minimal one.

mutmut runs the tests that reach the mutated function with ``-x``, in the order it lists them, which follows
no measure; a mutant that a 0.05 s test kills could first wait for a 20 s whole-check test. Sorting by the
durations mutmut measured in its statistics run (``mutmut-stats.json``, next to the copied tests) changes
only the order: a surviving mutant still runs every test, so no verdict depends on it.

>>> durations = {"t::slow": 20.0, "t::fast": 0.05}
>>> fastest_first(["t::slow", "t::new", "t::fast"], durations)
['t::fast', 't::slow', 't::new']
>>> time_limit("t::slow", durations), time_limit("t::new", durations)
(106.0, None)

A mutant that makes a loop endless (a heap entry packed wrong, a window never merged) otherwise runs until
mutmut's own limit, three times the estimated time of *all* its tests plus 5 s, doubled as CPU seconds: 108 s
for a fast trainer's mutant whose tests take 13 s in all. The per-test limit is generous, because the
durations come from the statistics run, which traces every call and is slower than a mutant's run: 6 s plus
five times the test's own time, for its call alone (the statistics time no fixture's set-up). The 6 s covers
what a test may do first in a freshly forked process that the statistics run did once for all its tests
(reading and validating the vector files, under a second); a looping mutant's fastest test, usually under 0.1 s,
is stopped there instead of after 15 s as it was until the run of ``43c3bfb``, where some thirty such mutants
took 15 s each. A test stopped
there fails, as under pytest-timeout's ``--timeout`` of the whole run, so the mutant counts as killed
(docs/mutation.md, "Which tests mutmut runs").

A property test that fails under a mutant fails on the first failing example hypothesis generates; shrinking it
then (seconds, for a mutant of a trainer) changes the example reported, never whether the test fails. So a
mutant's tests run under :func:`without_shrinking` of the profile in force, the same examples in the same order.
Only the tests' own ``@given`` take it from the profile: the checks keep shrinking their counterexamples, since
some tests assert what a minimal one is (their settings come from the effort, not from the loaded profile).

>>> from hypothesis import Phase, settings
>>> Phase.shrink in without_shrinking(settings(max_examples=20)).phases
False
>>> without_shrinking(settings(max_examples=20)).max_examples
20
"""

from __future__ import annotations

import functools
import json
import os
from types import MappingProxyType
from typing import TYPE_CHECKING

from hypothesis import Phase, settings

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = [
    "fastest_first",
    "mutant_name",
    "mutant_under_test",
    "mutated_module",
    "recorded_durations",
    "time_limit",
    "without_shrinking",
]

STATS_FILE = "mutmut-stats.json"
LIMIT_FLOOR_SECONDS = 6.0
LIMIT_FACTOR = 5.0
OWN_TESTS_WEIGHT = 0.1


def mutant_name() -> str:
    """What mutmut says this process runs: a mutant's name, or ``stats``, ``fail``, ... ("" outside mutmut)."""
    return os.environ.get("MUTANT_UNDER_TEST", "")


def mutant_under_test() -> bool:
    """Whether this process runs a mutant's tests (not mutmut's statistics, clean or forced-fail runs)."""
    return "__mutmut_" in mutant_name()


def recorded_durations(path: str = STATS_FILE) -> Mapping[str, float]:
    """Each test's duration in mutmut's statistics run, or nothing when they cannot be read (order unchanged).

    Read once per version of the file: the statistics are megabytes of JSON (35 ms to read, a quarter of a fast
    mutant's run), so ``conftest.py`` reads them where mutmut's fork server collects, and every mutant's process
    forked from it finds them read (a file written since is read again).
    """
    try:
        status = os.stat(path)
    except OSError:
        return {}
    return _durations_in(path, (status.st_mtime_ns, status.st_size, status.st_ino))


@functools.lru_cache(maxsize=4)
def _durations_in(path: str, version: tuple[int, int, int]) -> Mapping[str, float]:
    """The durations of ``path`` as of ``version`` (its modification time, size and inode), read-only."""
    del version  # only the cache's key
    try:
        with open(path, encoding="utf-8") as stats:
            durations = json.load(stats)["duration_by_test"]
    except (OSError, ValueError, KeyError, TypeError):
        return MappingProxyType({})
    if not isinstance(durations, dict):
        return MappingProxyType({})
    return MappingProxyType({str(node): float(seconds) for node, seconds in durations.items()})


def fastest_first(node_ids: Sequence[str], durations: Mapping[str, float], mutant: str = "") -> list[str]:
    """``node_ids`` by recorded duration, fastest first; a test with none keeps its place after all the timed ones.

    The tests of the mutated module's own test file (``test_<module>.py``) count a tenth of their time: they were
    written for that code and are the likeliest to fail first. Before, a mutant of the numpy trainer's window
    sort ran some twenty quicker tests of every engine, all passing, before the test of the sort killed it (2.3 s
    each, for 57 mutants in the run of ``43c3bfb``). A tenth, not nothing: a slow test of the module still
    waits behind the quick tests of others.

    >>> durations = {"tests/test_other.py::quick": 0.05, "tests/test_engine.py::sort": 0.3, "tests/x.py::slow": 2.0}
    >>> fastest_first(list(durations), durations, "pkg.engine.x_sort__mutmut_3")
    ['tests/test_engine.py::sort', 'tests/test_other.py::quick', 'tests/x.py::slow']
    """
    own_file = f"test_{mutated_module(mutant)}.py" if mutant else None

    def weighted(node: str) -> float:
        seconds = durations.get(node, float("inf"))
        return seconds * OWN_TESTS_WEIGHT if node.split("::")[0].rsplit("/", 1)[-1] == own_file else seconds

    return sorted(node_ids, key=weighted)


def mutated_module(mutant: str) -> str:
    """The last name of the module a mutmut mutant (or mangled function) name lies in.

    >>> mutated_module("bpe_conformance.reference.fast_corpus.xǁCorpusǁadd_rule__mutmut_7")
    'fast_corpus'
    >>> mutated_module("bpe_conformance.checks.vectors.x__localised__mutmut_12")
    'vectors'
    """
    names = mutant.split(".")
    module = [name for name in names if not (name.startswith("x_") or name.startswith("xǁ"))]
    return module[-1] if len(module) < len(names) else ""


def time_limit(node_id: str, durations: Mapping[str, float]) -> float | None:
    """Seconds a mutant's run of ``node_id`` may take: 6 s plus five times its recorded time; None when it has
    none (a test added since the statistics run keeps the run's own ``--timeout``)."""
    recorded = durations.get(node_id)
    return None if recorded is None else LIMIT_FLOOR_SECONDS + LIMIT_FACTOR * recorded


def without_shrinking(profile: settings) -> settings:
    """``profile`` with neither the shrink phase nor the explain phase that follows it."""
    return settings(profile, phases=[phase for phase in profile.phases if phase not in (Phase.shrink, Phase.explain)])
