"""The order mutmut's runs take a mutant's tests in (tests/support/mutation_order.py, used by conftest.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, cast

from tests.support.mutation_order import fastest_first, mutant_under_test, recorded_durations, time_limit

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_tests_run_fastest_first_and_untimed_ones_last_in_their_order() -> None:
    durations = {"a::slow": 20.0, "a::fast": 0.05, "b::middle": 1.0}
    order = fastest_first(["a::slow", "new::one", "b::middle", "new::two", "a::fast"], durations)
    assert order == ["a::fast", "b::middle", "a::slow", "new::one", "new::two"]


def test_durations_are_read_from_mutmuts_statistics(tmp_path: Path) -> None:
    stats = tmp_path / "mutmut-stats.json"
    stats.write_text(json.dumps({"duration_by_test": {"t::x": 1.5}, "stats_time": 3}), encoding="utf-8")
    assert recorded_durations(str(stats)) == {"t::x": 1.5}


def test_the_statistics_are_read_once_per_version_of_the_file(tmp_path: Path) -> None:
    stats = tmp_path / "mutmut-stats.json"
    stats.write_text(json.dumps({"duration_by_test": {"t::x": 1.5}}), encoding="utf-8")
    first = recorded_durations(str(stats))
    assert recorded_durations(str(stats)) is first, "each mutant's process would read megabytes again"
    replacement = tmp_path / "new.json"
    replacement.write_text(json.dumps({"duration_by_test": {"t::x": 2.0, "t::y": 0.5}}), encoding="utf-8")
    replacement.replace(stats)
    assert recorded_durations(str(stats)) == {"t::x": 2.0, "t::y": 0.5}


def test_unreadable_statistics_leave_the_order_alone(tmp_path: Path) -> None:
    malformed = tmp_path / "malformed.json"
    malformed.write_text("{", encoding="utf-8")
    wrong_shape = tmp_path / "wrong.json"
    wrong_shape.write_text(json.dumps({"duration_by_test": [1, 2]}), encoding="utf-8")
    for path in (tmp_path / "missing.json", malformed, wrong_shape):
        assert recorded_durations(str(path)) == {}
    assert fastest_first(["b", "a"], {}) == ["b", "a"]


def test_only_a_mutants_run_is_reordered(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("", "stats", "fail", "list_all_tests"):
        monkeypatch.setenv("MUTANT_UNDER_TEST", name)
        assert not mutant_under_test()
    monkeypatch.delenv("MUTANT_UNDER_TEST")
    assert not mutant_under_test()
    monkeypatch.setenv("MUTANT_UNDER_TEST", "bpe_conformance.reference.training.x_train__mutmut_3")
    assert mutant_under_test()


def test_a_test_may_take_6_s_plus_five_times_its_recorded_time() -> None:
    durations = {"t::quick": 0.0, "t::slow": 4.0}
    assert time_limit("t::quick", durations) == 6.0
    assert time_limit("t::slow", durations) == 26.0
    assert time_limit("t::added-since", durations) is None


class _Item:
    """What conftest.py reads and writes of a collected test: its node id and the markers added to it."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid
        self.limits: list[float] = []

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        # The limit times the call alone, which is what mutmut's statistics measured, not fixtures' set-up.
        assert (marker.name, marker.kwargs) == ("timeout", {"func_only": True})
        self.limits.append(marker.args[0])


def test_a_mutants_tests_run_fastest_first_each_with_its_own_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """conftest.py, as mutmut runs it in mutants/ next to its statistics: ordered and limited test by test; a
    test the statistics never timed keeps the run's ``--timeout``."""
    import conftest

    (tmp_path / "mutmut-stats.json").write_text(
        json.dumps({"duration_by_test": {"t::slow": 2.0, "t::fast": 0.1}}), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    items = [_Item("t::new"), _Item("t::slow"), _Item("t::fast")]
    conftest._run_fastest_first(cast("list[pytest.Item]", items))
    assert [(item.nodeid, item.limits) for item in items] == [("t::fast", [6.5]), ("t::slow", [16.0]), ("t::new", [])]


def test_the_mutated_modules_own_tests_count_a_tenth_of_their_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mutant's name, as mutmut sets it, puts its module's test file ahead of quicker tests of other code."""
    import conftest

    durations = {"tests/test_other.py::quick": 0.05, "tests/reference/test_engine.py::sort": 0.3, "t::slow": 2.0}
    (tmp_path / "mutmut-stats.json").write_text(json.dumps({"duration_by_test": durations}), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MUTANT_UNDER_TEST", "bpe_conformance.reference.engine.xǁQueueǁpush__mutmut_4")
    items = [_Item(node) for node in ("t::slow", "tests/reference/test_engine.py::sort", "tests/test_other.py::quick")]
    conftest._run_fastest_first(cast("list[pytest.Item]", items))
    assert [item.nodeid for item in items] == [
        "tests/reference/test_engine.py::sort",
        "tests/test_other.py::quick",
        "t::slow",
    ]
    # Another module's mutant: fastest first, as before; the limits stay those of the test's own time.
    monkeypatch.setenv("MUTANT_UNDER_TEST", "bpe_conformance.checks.vectors.x_verify__mutmut_1")
    conftest._run_fastest_first(cast("list[pytest.Item]", items))
    assert [item.nodeid for item in items][:2] == ["tests/test_other.py::quick", "tests/reference/test_engine.py::sort"]
    assert items[1].limits[-1] == 6.0 + 5.0 * 0.3
