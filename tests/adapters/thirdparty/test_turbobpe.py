"""turbobpe through its adapter: minbpe with a C core whose ties differ from its own Python fallback."""

from __future__ import annotations

import pytest

pytest.importorskip("turbobpe")

from bpe_conformance.adapters.thirdparty.turbobpe_regex import TurbobpeAdapter
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import MINBPE


def test_agrees_with_minbpe_until_a_tie_of_later_rounds() -> None:
    assert TurbobpeAdapter().train(["cdcdabab"], 1) == [(99, 100)] == train_profile(["cdcdabab"], 1, MINBPE)
    assert TurbobpeAdapter().train(["ab"], 5) == [(97, 98)]  # stops when no pair is left


def test_c_core_and_python_fallback_break_a_tie_differently() -> None:
    """BPE-TRAIN-TIE (docs/findings.md F23): the pure-Python ``training`` takes the pair counted first."""
    from turbobpe import base

    assert TurbobpeAdapter().train(["ABCABCcdcd"], 2) == [(65, 66), (99, 100)]
    python_merges = base.training(2, [list(b"ABCABCcdcd")], 1, False)[0]
    expected = train_profile(["ABCABCcdcd"], 2, MINBPE)
    assert sorted(python_merges, key=python_merges.get) == [(65, 66), (256, 67)] == expected
