"""The order mutmut's runs take a mutant's tests in (tests/support/mutation_order.py, used by conftest.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.support.mutation_order import fastest_first, mutant_under_test, recorded_durations

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
