"""A confirmed cause is true of the implementation, even of one a step away from the model it resembles.

The implementations of ``tests/support/near_misses.py`` rewrite their documents almost like a bug
model does. Whatever the suite says of them, every cause it calls confirmed must make exactly the
implementation's rules on fresh corpora built to tell the two apart: repeats near and far, leading
and trailing whitespace, documents equal up to case.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from bpe_conformance import diagnosis
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import STRICT
from bpe_conformance.running.runner import run_checks
from bpe_conformance.settings import EFFORTS, active_effort_name
from tests.support.confirmed_causes import model_named
from tests.support.near_misses import NEAR_MISSES

if TYPE_CHECKING:
    from bpe_conformance.reference import LiteralTokenizer

TRAINING_CHECKS = [check for check in ALL_CHECKS if check.level == "algorithm"]


def _fresh_corpora(count: int = 60) -> list[list[str]]:
    """Small corpora with repeats at every distance, surrounding whitespace and case variants."""
    draw = random.Random(23)
    corpora = []
    for _ in range(count):
        words = ["".join(draw.choice("abAB") for _ in range(draw.randint(2, 6))) for _ in range(draw.randint(2, 4))]
        words = [draw.choice(["", " ", "\t "]) + word + draw.choice(["", " ", " \n"]) for word in words]
        corpus = [draw.choice(words) for _ in range(draw.randint(2, 6))]
        corpus += [draw.choice(corpus).swapcase()] if draw.random() < 0.3 else []
        corpora.append(corpus)
    return corpora


def _model_agrees(index: int, documents: list[str], rules: list[tuple[int, int]], max_merges: int = 8) -> bool:
    """Whether ``rules`` are what model ``index`` makes of ``documents``.

    A model that has no story of its own for an input (None) stands for the profile's rules, or a
    prefix of them: fewer rules than the profile's are told as stopping early, never as the model.
    """
    predicted = diagnosis.MODELS[index][2](documents, max_merges, STRICT)
    if predicted is not None:
        return list(predicted) == rules
    own = train_profile(documents, max_merges, STRICT)
    return rules == own[: len(rules)]


def test_the_fresh_corpora_tell_each_near_miss_from_its_model() -> None:
    """Without this the test below could not fail: each near miss parts from every model on some corpus."""
    for implementation in NEAR_MISSES:
        for index in range(len(diagnosis.MODELS)):
            assert not all(
                _model_agrees(index, corpus, implementation().train(corpus, 8)) for corpus in _fresh_corpora()
            ), (implementation.name, diagnosis.MODELS[index][1])


# Its subject is what the checks and the diagnosis make of a near miss. Under mutmut it runs for their mutants
# only: it runs every algorithm check, so it also reaches the training engines, which their own differential
# tests judge (a surviving engine mutant paid 15 s for it; tools/mutation_run.py).
@pytest.mark.mutation_scope("bpe_conformance.checks", "bpe_conformance.diagnosis")
@pytest.mark.parametrize("implementation", NEAR_MISSES, ids=lambda implementation: implementation.name)
def test_no_cause_is_confirmed_that_is_false_of_a_near_miss(implementation: type[LiteralTokenizer]) -> None:
    results = run_checks(TRAINING_CHECKS, InProcessSubject(implementation), EFFORTS[active_effort_name()])
    assert any(not result.outcome.counts_as_success for result in results), "the near miss went unnoticed"
    for result in results:
        divergence = (result.counterexample or {}).get("divergence") or {}
        if not divergence.get("confirmed"):
            continue
        index = model_named(divergence["cause"])
        for corpus in _fresh_corpora():
            assert _model_agrees(index, corpus, implementation().train(corpus, 8)), (
                result.check,
                divergence["cause"],
                corpus,
            )
