"""Load the named hypothesis profile for tests and doctests alike; keep hypothesis's files out of the checkout.

dev locally, ci under CI, or $BPE_HYPOTHESIS_PROFILE. Hypothesis's storage (its Unicode tables, and an example
database where a test asks for one) goes to a temporary directory removed at exit, as for the command line,
unless $HYPOTHESIS_STORAGE_DIRECTORY names one; pytest's cache is off (pyproject.toml's addopts), so a test run
leaves neither .hypothesis/ nor .pytest_cache/ behind.
"""

import gc

import pytest
from hypothesis import settings

from bpe_conformance.settings import active_effort_name, keep_storage_out_of_cwd, register_efforts
from tests.support.mutation_order import (
    fastest_first,
    mutant_name,
    mutant_under_test,
    recorded_durations,
    time_limit,
    without_shrinking,
)

register_efforts()
settings.load_profile(active_effort_name())
# A mutant's run needs a failing example, not a minimal one (tests/support/mutation_order.py).
MUTANT_PROFILE = "mutant"
settings.register_profile(MUTANT_PROFILE, without_shrinking(settings.get_profile(active_effort_name())))
keep_storage_out_of_cwd()

# Hostile fixtures are programs that talk on stdin/stdout; importing them to look for doctests would run them.
# Third-party adapters import optional libraries; tests/adapters/thirdparty/ tests them where they are installed.
collect_ignore_glob = [
    "tests/fixtures/*",
    "bench/*",
    "bpe_conformance/adapters/thirdparty/*",
    "conformance/*",
    "reference/*",
]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under mutmut, a mutant's tests fastest first and without shrinking; name the tests of xdist groups as
    xdist does."""
    if mutant_under_test():
        settings.load_profile(MUTANT_PROFILE)
        _run_fastest_first(items)
    else:
        # Where mutmut's fork server collects (in mutants/, next to the statistics): read them once, for every
        # mutant's process it forks. Anywhere else there is no statistics file, and this costs one stat().
        recorded_durations()
    _name_xdist_groups(config, items)


def pytest_collection_finish() -> None:
    """Take what the collection built (every module, test item and strategy) out of the garbage collector's way.

    It lives until the session ends, yet every full collection during the run walked all of it again.
    """
    gc.collect()
    gc.freeze()


def _run_fastest_first(items: list[pytest.Item]) -> None:
    """Under mutmut, the tests of a mutant fastest first, each stopped far past its measured time
    (``tests/support/mutation_order.py`` says why)."""
    durations = recorded_durations()
    by_node = {item.nodeid: item for item in items}
    items[:] = [by_node[node] for node in fastest_first(list(by_node), durations, mutant_name())]
    for item in items:
        limit = time_limit(item.nodeid, durations)
        if limit is not None:
            # func_only: the statistics measured the call alone, so fixtures' set-up is not held to it.
            item.add_marker(pytest.mark.timeout(limit, func_only=True))


def _name_xdist_groups(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a pytest-xdist worker under ``--dist loadgroup``, name each test of an ``xdist_group`` as xdist does.

    pytest-xdist (3.8) sends the tests of a group to one worker by appending ``@GROUP`` to their node ids, which it
    sets through ``item._nodeid``; pytest 9 keeps the id in ``item._id`` and ignores the other, so the groups were
    silently spread over the workers. Where xdist's renaming took, this finds the suffix in place and does nothing.
    """
    if not hasattr(config, "workerinput") or not getattr(config.option, "loadgroup", False):
        return
    try:
        from _pytest.nodeid import coerce_node_id
    except ImportError:  # pytest < 9: xdist's own renaming works
        return
    for item in items:
        marks = item.iter_markers("xdist_group")
        names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default")) for mark in marks}
        suffix = "@" + "_".join(sorted(names))
        if names and not item.nodeid.endswith(suffix):
            item._id = coerce_node_id(item.nodeid + suffix)
