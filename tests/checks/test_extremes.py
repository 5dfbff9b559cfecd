"""The checks at the extremes: wide max_merges, counts past 8 and 16 bits, determinism across processes.

Each convicts its bug under its own clause with a shrunk counterexample, accepts the reference, and
leaves a bug of another clause to that clause's check rather than blaming it on the extreme input.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar

import pytest
from hypothesis import Phase, settings

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import extremes
from bpe_conformance.errors import Violation
from bpe_conformance.inputs.corpora.training import WIDE_MAX_MERGES
from bpe_conformance.inputs.large_counts import LargeCountCorpus
from bpe_conformance.reference import LiteralTokenizer, Tokenizer
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.zoo import by_name
from bpe_conformance.zoo.base import BYTE_COUNT, Pair, ZooBase
from bpe_conformance.zoo.extremes import CountsInEightBits, HashSeededTies, NarrowsIntegersTo32Bits
from tests.checks.helpers import CHECKS, violation_of
from tests.support.held_dialects import LargestPairStyle

if TYPE_CHECKING:
    from bpe_conformance.checks.examples import TextsExample, TrainingExample
    from bpe_conformance.checks.extremes import LargeCountExample


class CountsInSixteenBits(ZooBase):
    """Pair counts kept in 16 bits: 65 536 reads as 0."""

    def count_pairs(self, sequences: list[list[int]]) -> dict[Pair, int]:
        return {pair: count % BYTE_COUNT**2 for pair, count in super().count_pairs(sequences).items()}


class CountsModulo255(ZooBase):
    """Pair counts kept modulo 255, one short of 8 bits: wrong from 255 windows on, right up to 254."""

    def count_pairs(self, sequences: list[list[int]]) -> dict[Pair, int]:
        return {pair: count % (BYTE_COUNT - 1) for pair, count in super().count_pairs(sequences).items()}


class StopsAtThree(ZooBase):
    """A stop-rule bug (a pair needs three windows), which has nothing to do with a wide budget or a big count."""

    def should_stop(self, best_count: int) -> bool:
        return best_count < 3


def _dev() -> settings:
    return settings(max_examples=60, deadline=None, phases=[phase for phase in Phase if phase is not Phase.explain])


def _numbers(message: str) -> set[int]:
    return {int(number) for number in re.findall(r"\d+", message)}


def _run(check_name: str, implementation: Any) -> Any:
    return run_check(CHECKS[check_name], InProcessSubject(implementation), _dev(), seed=0)


# ---- max-merges-wide ---------------------------------------------------------------------------


@pytest.mark.parametrize("max_merges", WIDE_MAX_MERGES)
def test_a_wide_max_merges_trains_as_a_budget_never_reached(max_merges: int) -> None:
    for implementation in (Tokenizer, LiteralTokenizer, ZooBase):
        example: TrainingExample = {"documents": ["abab", "acac", "aaaa"], "max_merges": max_merges}
        extremes.verify_wide_max_merges(InProcessSubject(implementation), example)
        assert implementation().train(["abab", "acac", "aaaa"], max_merges) == Tokenizer().train(
            ["abab", "acac", "aaaa"], 10
        )


def test_a_32_bit_narrower_is_reported_with_the_budget_it_refused_or_misread() -> None:
    """BPE-TRAIN-MAXMERGES, on fixed inputs: a refused wide budget names it and what was refused; a budget
    read as another number shows both rule lists and how many rules each side made."""
    refused = violation_of("max-merges-wide", NarrowsIntegersTo32Bits, {"documents": ["abab"], "max_merges": 2**31})
    assert refused.clause == "BPE-TRAIN-MAXMERGES"
    assert refused.inputs == {"documents": ["abab"], "max_merges": 2**31}
    assert "refused max_merges=2147483648" in refused.message
    assert refused.expected == [[97, 98]]
    assert refused.actual.startswith("ValueError: ")
    stopped = violation_of(
        "max-merges-wide", NarrowsIntegersTo32Bits, {"documents": ["abab", "acac"], "max_merges": 2**32 + 1}
    )
    assert stopped.clause == "BPE-TRAIN-MAXMERGES"
    assert stopped.inputs == {"documents": ["abab", "acac"], "max_merges": 2**32 + 1}
    assert (stopped.expected, stopped.actual) == ([[97, 98], [97, 99]], [[97, 98]])
    assert _numbers(stopped.message) == {2**32 + 1, 2, 1}


def test_the_max_merges_check_convicts_a_32_bit_narrower_at_the_first_width_that_wraps() -> None:
    result = _run("max-merges-wide", NarrowsIntegersTo32Bits)
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-TRAIN-MAXMERGES")
    assert result.counterexample["inputs"]["max_merges"] == 2**31  # shrunk to the first width that wraps


def test_a_stop_rule_bug_is_not_blamed_on_a_wide_budget() -> None:
    example: TrainingExample = {"documents": ["abab", "acac"], "max_merges": 2**32 + 1}
    extremes.verify_wide_max_merges(InProcessSubject(StopsAtThree), example)  # stop-rule's finding, not this one's
    assert _run("max-merges-wide", StopsAtThree).outcome is Outcome.PASS


# ---- large-counts ------------------------------------------------------------------------------


def test_an_8_bit_counter_is_convicted_on_a_count_of_256_shrunk() -> None:
    result = _run("large-counts", CountsInEightBits)
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-TRAIN-COUNT")
    inputs = result.counterexample["inputs"]
    assert (inputs["largest_count"], inputs["right_with_count"], inputs["max_merges"]) == (256, 255, 1)
    assert inputs["documents"] in ("['ab'] * 256 + ['xy'] * 2", "['a' * 257] + ['xy'] * 2")


# One test per shape and one for the check's own search: each takes seconds, and apart they run in parallel.
@pytest.mark.parametrize("shape", ["copies", "run"])
def test_a_16_bit_counter_is_convicted_on_a_count_of_65536_and_passes_below(shape: str) -> None:
    below: LargeCountExample = {"corpus": LargeCountCorpus(shape, 65535, 3), "max_merges": 2}
    extremes.verify_large_counts(InProcessSubject(CountsInSixteenBits), below)
    wrapped: LargeCountExample = {"corpus": LargeCountCorpus(shape, 65536, 3), "max_merges": 2}
    violation = violation_of("large-counts", CountsInSixteenBits, wrapped)
    assert violation.clause == "BPE-TRAIN-COUNT"
    assert violation.inputs["largest_count"] == 65536


def test_the_large_counts_check_finds_the_16_bit_counter_at_65536() -> None:
    result = _run("large-counts", CountsInSixteenBits)
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-TRAIN-COUNT")
    assert result.counterexample["inputs"]["largest_count"] == 65536


def test_a_bug_that_small_counts_show_too_is_left_to_its_own_check() -> None:
    corpus = LargeCountCorpus("copies", 256, 2)
    assert StopsAtThree().train(corpus.documents(), 2) != Tokenizer().train(corpus.documents(), 2)
    extremes.verify_large_counts(InProcessSubject(StopsAtThree), {"corpus": corpus, "max_merges": 2})
    assert _run("large-counts", StopsAtThree).outcome is Outcome.PASS


def test_a_bug_that_shows_just_below_the_width_is_not_put_down_to_the_count() -> None:
    """Packing pairs as a * 256 + b breaks on rule ids, which a run of 'a' makes at 255 windows as at 256."""
    packs = by_name("packs-pairs-with-byte-base")
    corpus = LargeCountCorpus("run", 256, 2)
    assert packs().train(corpus.documents(), 2) != Tokenizer().train(corpus.documents(), 2)
    extremes.verify_large_counts(InProcessSubject(packs), {"corpus": corpus, "max_merges": 2})
    assert _run("large-counts", packs).outcome is Outcome.PASS


def test_a_count_wrong_one_below_the_width_too_is_not_put_down_to_the_width() -> None:
    """The control is the big pair seen 255 times, once fewer than the width 256, not fewer still: a counter
    wrong at 255 and 256 but right at 254 does not wrap at the width, and is another check's finding."""
    corpus = LargeCountCorpus("copies", 256, 3)
    for count in (254, 255, 256):
        documents = corpus.with_count(count).documents()
        right = CountsModulo255().train(documents, 2) == Tokenizer().train(documents, 2)
        assert right == (count == 254), count
    extremes.verify_large_counts(InProcessSubject(CountsModulo255), {"corpus": corpus, "max_merges": 2})


class StopsWhenACountPassesEightBits(ZooBase):
    """Reads a best count past 8 bits as no pair left: training stops at once, its rules a prefix of the right ones."""

    def should_stop(self, best_count: int) -> bool:
        return best_count < 2 or best_count >= BYTE_COUNT


def test_a_wrapped_count_is_reported_with_its_corpus_the_control_and_the_first_round_that_differs() -> None:
    """BPE-TRAIN-COUNT: the finding names the big count, the count just below the width that trains right,
    the first round that differs (0: the rival wins it), and both rule lists; its message names no other number."""
    corpus = LargeCountCorpus("copies", 256, 3)
    example: LargeCountExample = {"corpus": corpus, "max_merges": 2}
    with pytest.raises(Violation) as caught:
        extremes.verify_large_counts(InProcessSubject(CountsInEightBits), example)
    violation = caught.value
    assert violation.clause == "BPE-TRAIN-COUNT"
    assert violation.inputs == {
        "documents": repr(corpus),
        "max_merges": 2,
        "largest_count": 256,
        "right_with_count": 255,
    }
    assert (violation.expected, violation.actual) == ([[97, 98], [120, 121]], [[120, 121]])
    assert _numbers(violation.message) == {256, 0, 255}


def test_rules_that_stop_short_of_the_right_ones_differ_at_the_first_rule_missing() -> None:
    """BPE-TRAIN-COUNT: no rule differs where both lists have one; the first round that differs is then the
    first the implementation did not make (0 here, where it made none)."""
    example: LargeCountExample = {"corpus": LargeCountCorpus("copies", 256, 3), "max_merges": 2}
    with pytest.raises(Violation) as caught:
        extremes.verify_large_counts(InProcessSubject(StopsWhenACountPassesEightBits), example)
    assert (caught.value.expected, caught.value.actual) == ([[97, 98], [120, 121]], [])
    assert _numbers(caught.value.message) == {256, 0, 255}


def test_a_dialect_trainer_is_judged_on_large_counts_by_its_own_profiles_rules() -> None:
    """Under a profile other than strict the expected rules are the profile's (ties to the largest pair here)."""
    example: LargeCountExample = {"corpus": LargeCountCorpus("copies", 256, 3), "max_merges": 2}
    extremes.verify_large_counts(InProcessSubject(LargestPairStyle), example)


def test_the_reference_engines_pass_large_counts() -> None:
    for implementation in (Tokenizer, LiteralTokenizer):
        assert _run("large-counts", implementation).outcome is Outcome.PASS


# ---- determinism-across-processes ----------------------------------------------------------------


def test_hash_seeded_ties_pass_in_one_process_and_fail_across_two() -> None:
    example: TextsExample = {"documents": ["ABCABC", "cdcd"], "max_merges": 1, "texts": []}
    CHECKS["determinism"].verify(InProcessSubject(HashSeededTies), example)  # one process agrees with itself
    result = _run("determinism-across-processes", HashSeededTies)
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-PROP-DETERMINISM")
    assert "PYTHONHASHSEED=1 and PYTHONHASHSEED=2" in result.message
    assert result.counterexample["expected"] != result.counterexample["actual"]
    assert extremes._FRESH == {}, "the processes are closed once the check is over"


def test_the_reference_is_the_same_in_other_processes() -> None:
    result = _run("determinism-across-processes", Tokenizer)
    assert result.outcome is Outcome.PASS
    assert result.examples >= 1
    assert extremes._FRESH == {}


def test_a_factory_that_cannot_be_imported_by_name_is_skipped_saying_why() -> None:
    result = run_check(CHECKS["determinism-across-processes"], InProcessSubject(lambda: Tokenizer()), _dev(), seed=0)
    assert result.outcome is Outcome.SKIP
    assert "cannot be imported by name" in result.message
    assert result.examples == 0


class _NeverStopsOnItsOwn(LiteralTokenizer):
    """A stop-rule bug with a twist: it never stops before the budget (so a wide one would loop for ever).

    It records every budget it is asked to train with.
    """

    budgets: ClassVar[list[int]] = []

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        type(self).budgets.append(max_merges)
        if max_merges >= 2**31:
            raise AssertionError("trained with a wide budget after the small control already failed")
        return [(97, 97)] * max_merges


def test_a_wide_budget_is_only_asked_for_after_the_small_control_trains_right() -> None:
    """The small never-reached budget comes first: an implementation that gets it wrong (another check's
    finding) is never handed a budget past 2**31 to loop on, which in process would hang the harness."""
    _NeverStopsOnItsOwn.budgets = []
    example: TrainingExample = {"documents": ["abab", "acac"], "max_merges": WIDE_MAX_MERGES[1]}
    extremes.verify_wide_max_merges(InProcessSubject(_NeverStopsOnItsOwn), example)
    assert _NeverStopsOnItsOwn.budgets
    assert max(_NeverStopsOnItsOwn.budgets) < 2**31


# ---- determinism-across-processes, on fixed inputs: the two processes stood in for in this one ------------------


class _SameEverywhere(LiteralTokenizer):
    """The literal reference, started with a hash seed it pays no attention to."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed


class _SeededTrainer(_SameEverywhere):
    """Right under the first hash seed; under the other it stops after one rule (a hash-order bug)."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        rules = super().train(documents, max_merges)
        return rules if self.seed == extremes.HASH_SEEDS[0] else rules[:1]


class _SeededTrainerWithoutEncode(_SeededTrainer):
    capabilities = ("train", "decode")


class _SeededEncoder(_SameEverywhere):
    """Trains the same rules under every seed; under the second its encode answers the byte ids."""

    def encode(self, text: str) -> list[int]:
        return super().encode(text) if self.seed == extremes.HASH_SEEDS[0] else list(text.encode())


class _RefusesTrainingEncodesBySeed(_SameEverywhere):
    """Refuses every training (when the pairs run out, the stop rule's finding); under the second seed its
    encode answers the ids reversed."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        raise ValueError("no training here")

    def encode(self, text: str) -> list[int]:
        ids = super().encode(text)
        return ids if self.seed == extremes.HASH_SEEDS[0] else ids[::-1]


class _StandInProcess(InProcessSubject):
    """A 'fresh process' run in this one: the stand-in records how it was started and whether it was closed."""

    started: ClassVar[list[tuple[int, bool]]] = []
    closed: ClassVar[list[int]] = []

    def __init__(self, implementation: type[Any], seed: int) -> None:
        super().__init__(lambda: implementation(seed), label=f"{implementation.__name__}@{seed}")
        self.seed = seed

    def close(self) -> None:
        type(self).closed.append(self.seed)


def _across_processes(monkeypatch: pytest.MonkeyPatch, implementation: type[Any], *examples: TextsExample) -> None:
    """One check run over ``examples``, the two processes stood in for in this one."""

    def fresh_process(subject: Any, *, hash_seed: int, reverse_environment: bool = False) -> _StandInProcess:
        _StandInProcess.started.append((hash_seed, reverse_environment))
        return _StandInProcess(implementation, hash_seed)

    monkeypatch.setattr(extremes, "fresh_process", fresh_process)
    _StandInProcess.started, _StandInProcess.closed = [], []
    subject = InProcessSubject(Tokenizer)
    try:
        for example in examples:
            extremes.verify_across_processes(subject, example)
    finally:
        extremes._close(subject)
        assert sorted(_StandInProcess.closed) == sorted(extremes.HASH_SEEDS)  # both stand-ins closed, once each


def test_rules_that_differ_between_two_processes_are_reported_with_both_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """BPE-PROP-DETERMINISM: the second process (other hash seed, environment reversed) trains other rules."""
    example: TextsExample = {"documents": ["abab", "cdcd"], "max_merges": 2, "texts": []}
    for implementation in (_SeededTrainer, _SeededTrainerWithoutEncode):
        with pytest.raises(Violation) as caught:
            _across_processes(monkeypatch, implementation, example)
        assert _StandInProcess.started == [(extremes.HASH_SEEDS[0], False), (extremes.HASH_SEEDS[1], True)]
        violation = caught.value
        assert violation.clause == "BPE-PROP-DETERMINISM"
        assert violation.inputs == {"documents": ["abab", "cdcd"], "max_merges": 2}
        assert (violation.expected, violation.actual) == ([[97, 98], [99, 100]], [[97, 98]])
        assert {f"PYTHONHASHSEED={seed}" for seed in extremes.HASH_SEEDS} <= set(
            re.findall(r"PYTHONHASHSEED=\d+", violation.message)
        )


def test_ids_that_differ_between_two_processes_name_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """BPE-PROP-DETERMINISM: the same rules, but the second process encodes the first text otherwise."""
    example: TextsExample = {"documents": ["abab"], "max_merges": 1, "texts": ["ab"]}
    with pytest.raises(Violation) as caught:
        _across_processes(monkeypatch, _SeededEncoder, example)
    violation = caught.value
    assert violation.clause == "BPE-PROP-DETERMINISM"
    assert violation.inputs == {"documents": ["abab"], "max_merges": 1, "text": "abab"}
    assert repr("abab") in violation.message
    assert (violation.expected, violation.actual) == ([258, 258], [97, 98, 97, 98])


def test_processes_that_agree_or_train_nothing_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """No rules to compare (training refused in both once the pairs ran out: the stop-rule check's finding)
    leaves nothing to judge, whatever the encoders answer."""
    _across_processes(monkeypatch, _SameEverywhere, {"documents": ["abab"], "max_merges": 1, "texts": ["ab"]})
    past_the_pairs: TextsExample = {"documents": ["abab", "abab"], "max_merges": 5, "texts": ["ab"]}
    _across_processes(monkeypatch, _RefusesTrainingEncodesBySeed, past_the_pairs)


def test_the_two_processes_are_started_once_per_check_run_not_once_per_example(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every example of a run goes to the same two processes, which closing the run closes; starting two per
    example would leave all but the last pair running (the run closes the ones it holds)."""
    examples: list[TextsExample] = [
        {"documents": documents, "max_merges": 1, "texts": ["ab"]} for documents in (["abab"], ["cdcd", "cd"], ["efef"])
    ]
    _across_processes(monkeypatch, _SameEverywhere, *examples)
    assert _StandInProcess.started == [(extremes.HASH_SEEDS[0], False), (extremes.HASH_SEEDS[1], True)]


def test_closing_a_check_run_that_started_no_process_does_nothing() -> None:
    extremes._close(InProcessSubject(Tokenizer))
