"""Under mutmut, run a mutant's tests fastest first, so that a killed mutant is usually killed by a fast test.

mutmut runs the tests that reach the mutated function with ``-x``, in the order it lists them, which follows
no measure; a mutant that a 0.05 s test kills could first wait for a 20 s whole-check test. Sorting by the
durations mutmut measured in its statistics run (``mutmut-stats.json``, next to the copied tests) changes
only the order: a surviving mutant still runs every test, so no verdict depends on it.

>>> durations = {"t::slow": 20.0, "t::fast": 0.05}
>>> fastest_first(["t::slow", "t::new", "t::fast"], durations)
['t::fast', 't::slow', 't::new']
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["fastest_first", "mutant_under_test", "recorded_durations"]

STATS_FILE = "mutmut-stats.json"


def mutant_under_test() -> bool:
    """Whether this process runs a mutant's tests (not mutmut's statistics, clean or forced-fail runs)."""
    return "__mutmut_" in os.environ.get("MUTANT_UNDER_TEST", "")


def recorded_durations(path: str = STATS_FILE) -> dict[str, float]:
    """Each test's duration in mutmut's statistics run, or nothing when they cannot be read (order unchanged)."""
    try:
        with open(path, encoding="utf-8") as stats:
            durations = json.load(stats)["duration_by_test"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {str(node): float(seconds) for node, seconds in durations.items()} if isinstance(durations, dict) else {}


def fastest_first(node_ids: Sequence[str], durations: Mapping[str, float]) -> list[str]:
    """``node_ids`` by recorded duration, fastest first; a test with none keeps its place after all the timed ones."""
    return sorted(node_ids, key=lambda node: durations.get(node, float("inf")))
