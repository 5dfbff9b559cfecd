"""The default run is parallel (pytest-xdist, ``--dist loadgroup``): the tests of one ``xdist_group`` share a worker.

xdist sends a group to one worker by the ``@GROUP`` suffix of its tests' node ids; under pytest 9 the suffix is
set by conftest.py (xdist 3.8's own renaming does not take). Without it the groups were silently spread.

Each process of the run also moves what its collection built out of the garbage collector's way (conftest.py):
about 5% of the run's CPU went to full collections walking it again.
"""

from __future__ import annotations

import gc

import pytest


@pytest.mark.xdist_group("parallel-self-test")
def test_a_grouped_test_carries_its_group_in_its_node_id(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not in a pytest-xdist worker under --dist loadgroup (-n 0, or another --dist)")
    assert request.node.nodeid.endswith("@parallel-self-test"), request.node.nodeid


def test_an_ungrouped_test_keeps_its_node_id(request: pytest.FixtureRequest) -> None:
    assert "@" not in request.node.nodeid


def test_what_the_collection_built_is_frozen_out_of_the_garbage_collectors_way() -> None:
    assert gc.get_freeze_count() > 0
