"""What the tests of the checks share: the checks by name, the violation a check raises, small dialects."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.dialects.probes import ProfileModel
from bpe_conformance.errors import Violation
from bpe_conformance.inputs import strategies
from bpe_conformance.reference import LiteralTokenizer
from tests.support.fresh_modules import fresh_copy as fresh

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from bpe_conformance.checks.base import Check

CHECKS = {check.name: check for check in ALL_CHECKS}
LOW = "低" * 30


def violation_of(check_name: str, implementation: type, example: Mapping[str, object]) -> Violation:
    with pytest.raises(Violation) as caught:
        CHECKS[check_name].verify(InProcessSubject(implementation), example)
    return caught.value


def dialect(profile: Any, **overrides: Any) -> type:
    """An implementation that follows ``profile`` exactly (the profile's literal reference), with overrides."""

    class Dialect:
        profile: str

        def __init__(self) -> None:
            self.model = ProfileModel(profile)

        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            return self.model.train(documents, max_merges)

        def encode(self, text: str) -> list[int]:
            return self.model.encode(text)

        def decode(self, ids: list[int]) -> str:
            return self.model.decode(ids)

    Dialect.profile = profile.name
    for name, method in overrides.items():
        setattr(Dialect, name, method)
    return Dialect


def trains_to(rules: list[tuple[int, int]]) -> type:
    """An implementation whose train returns ``rules`` whatever the documents."""
    return type("TrainsTo", (LiteralTokenizer,), {"train": lambda self, documents, max_merges: list(rules)})


def assert_inapplicable(reason: str | None, profile: str, settings: str, why: str) -> None:
    """A skipped check's reason names the profile, the parameters that make the clause moot, and why."""
    assert reason is not None
    assert reason.startswith(f"not applicable under profile {profile} ("), reason
    assert f"({settings}: " in reason, reason
    assert reason.endswith(f": {why})"), reason


# The factories as conformance/inputs/strategies.py defines them, whose signatures give the defaults.
_FACTORIES = {
    name: getattr(strategies, name)
    for name in ("corpora", "unicode_corpora", "encode_texts", "max_merges_values", "texts_and_rules")
}


def _sizes(factory: Callable[..., Any], arguments: dict[str, Any]) -> dict[str, Any]:
    bound = inspect.signature(factory).bind(**arguments)
    bound.apply_defaults()
    return dict(bound.arguments)


def _ends(low: int, high: int) -> st.SearchStrategy[int]:
    return st.sampled_from(sorted({low, high}))


def _documents_at_their_length(factory: Callable[..., Any], character: str) -> Callable[..., Any]:
    def stand_in(**arguments: Any) -> st.SearchStrategy[list[str]]:
        sizes = _sizes(factory, arguments)
        document = character * sizes["max_length"]
        return _ends(sizes.get("min_documents", 1), sizes["max_documents"]).map(lambda count: [document] * count)

    return stand_in


def _texts_at_their_length(**arguments: Any) -> st.SearchStrategy[str]:
    return st.just("t" * _sizes(_FACTORIES["encode_texts"], arguments)["max_length"])


def _ends_of_max_merges(**arguments: Any) -> st.SearchStrategy[int]:
    return _ends(0, _sizes(_FACTORIES["max_merges_values"], arguments)["max_value"])


def _text_at_its_length_and_rules(**arguments: Any) -> st.SearchStrategy[tuple[str, list[tuple[int, int]]]]:
    sizes = _sizes(_FACTORIES["texts_and_rules"], arguments)
    rules = _ends(0, sizes["max_rules"]).map(lambda count: [(116, 116)] * count)
    return st.tuples(st.just("t" * sizes["max_length"]), rules)


def checks_drawing_their_sizes(
    monkeypatch: pytest.MonkeyPatch, module: str, max_merges: Callable[..., Any] = _ends_of_max_merges
) -> dict[str, Check]:
    """The checks of a fresh copy of ``module``, whose input strategies draw exactly the sizes they are asked for.

    The corpora of conformance/inputs/strategies.py may exceed their sizes a little (a special kind needs
    room), so a check's bounds cannot be read off what they draw. Here each factory is replaced by one that
    draws documents and texts of exactly ``max_length`` characters, and either end of the asked-for numbers
    of documents, rules and merges (so about every other example is at the top); anything the check module
    draws itself is left as it is. What the check draws then shows every bound it asks for.
    """
    monkeypatch.setattr(strategies, "corpora", _documents_at_their_length(_FACTORIES["corpora"], "a"))
    monkeypatch.setattr(strategies, "unicode_corpora", _documents_at_their_length(_FACTORIES["unicode_corpora"], "é"))
    monkeypatch.setattr(strategies, "encode_texts", _texts_at_their_length)
    monkeypatch.setattr(strategies, "texts_and_rules", _text_at_its_length_and_rules)
    monkeypatch.setattr(strategies, "max_merges_values", max_merges)
    tables = [table for name, table in vars(fresh(module)).items() if name.endswith("_CHECKS")]
    return {check.name: check for table in tables for check in table}


def longest(strings: list[str]) -> int:
    """The length of the longest of ``strings``, 0 for none."""
    return max(map(len, strings), default=0)


def drawable(strategy: st.SearchStrategy[Any], condition: Callable[[Any], bool]) -> Any:
    """An example of ``strategy`` meeting ``condition``, found as ``hypothesis.find`` finds one, but not shrunk.

    These tests ask whether a strategy *can* draw such an example, not for the smallest one; shrinking it (and
    explaining the shrunk example) took 90% of their time, which put them past mutmut's 60 s limit per test. The
    search itself is find's, under the active effort (derandomized under ``ci`` and ``mutation``).
    """
    searching = settings(settings.default, max_examples=2000, phases=(Phase.explicit, Phase.reuse, Phase.generate))
    return find(strategy, condition, settings=searching)


def assert_ranges(strategy: st.SearchStrategy[Any], ranges: dict[str, tuple[Callable[[Any], int], int, int]]) -> None:
    """Each end of each measure's range is drawn (``hypothesis.find``), and no example leaves a range (``given``,
    under the active profile: the mutation profile's 20 examples see the top of every stood-in size)."""
    for name, (measure, low, high) in ranges.items():
        for end in (low, high):
            try:
                # mypy cannot infer a lambda with default arguments (bound to fix the loop's values)
                drawable(strategy, lambda example, measure=measure, end=end: measure(example) == end)  # type: ignore[misc]
            except NoSuchExample:
                pytest.fail(f"{name} never reaches {end}")

    @given(strategy)
    def within(example: Any) -> None:
        for name, (measure, low, high) in ranges.items():
            assert low <= measure(example) <= high, f"{name} is {measure(example)}, outside {low}-{high}"

    within()
