"""Behind a profile's split, a divergence is blamed on the split only when the counterexample's chunks prove it."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from bpe_conformance.diagnosis import judge_rounds, localise_training
from bpe_conformance.diagnosis.models import MODELS, model_clause
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profile_spec import parse_profile
from bpe_conformance.reference.profiles import STRICT

if TYPE_CHECKING:
    from bpe_conformance.reference.profiles import Profile

BEHIND_CL100K = parse_profile("rustbpe+split=cl100k")


def _localise(documents: list[str], max_merges: int, trainer: Profile) -> tuple[bool, str | None, str]:
    def ask(docs: list[str], merges: int) -> list[tuple[int, int]]:
        return train_profile(docs, merges, trainer)

    rules = ask(documents, max_merges)
    judgement = next(judge_rounds(documents, max_merges, rules, BEHIND_CL100K, ask))
    found = localise_training(documents, max_merges, judgement, BEHIND_CL100K, ask)
    return found.localised, None if found.stage is None else found.stage.value, found.clause


def test_a_trainer_behind_rustbpes_default_is_blamed_on_the_split_by_the_lettered_chunks() -> None:
    # "\n " is one chunk under cl100k (\s++$) and two under rustbpe's default: the documents are their own
    # chunks, so only the same chunks spelt "ab" tell the split from the stop rule.
    assert _localise(["\n ", "\n "], 4, parse_profile("rustbpe+split=rustbpe")) == (True, "split", "BPE-PRETOK-SPLIT")


def test_a_trainer_ignoring_the_split_is_blamed_on_it_by_the_chunks_given_as_documents() -> None:
    assert _localise(["ab ab", "ab ab"], 8, parse_profile("rustbpe")) == (True, "split", "BPE-PRETOK-SPLIT")


def test_a_stop_rule_bug_behind_a_split_is_not_blamed_on_the_split() -> None:
    stops_at_two = dataclasses.replace(BEHIND_CL100K, name="stops-at-two", min_count=2)
    _, stage, clause = _localise(["\n "], 4, stops_at_two)
    assert stage != "split"
    assert clause == "BPE-TRAIN-STOP"  # its own clause (here the symptom's: no stage question departs)


def test_models_that_cut_the_text_otherwise_name_the_split_behind_one() -> None:
    cutting = [index for index, model in enumerate(MODELS) if model[1].startswith("documents split ")]
    assert len(cutting) == 3
    assert {model_clause(index, BEHIND_CL100K) for index in cutting} == {"BPE-PRETOK-SPLIT"}
    assert {model_clause(index, STRICT) for index in cutting} == {"BPE-TRAIN-INPUT"}
    # Rewriting a document is no split: stripped or normalized documents keep their clause behind one.
    rewriting = [
        index
        for index, model in enumerate(MODELS)
        if model[1].startswith(("documents stripped", "documents normalized"))
    ]
    assert {model_clause(index, BEHIND_CL100K) for index in rewriting} == {"BPE-TRAIN-INPUT"}
    ignored = next(index for index, model in enumerate(MODELS) if model[0] == "BPE-PRETOK-SPLIT")
    assert MODELS[ignored][2](["ab ab"], 4, STRICT) is None  # no split to ignore: no model
    assert MODELS[ignored][2](["ab ab"], 4, BEHIND_CL100K) == train_profile(["ab ab"], 4, parse_profile("rustbpe"))
