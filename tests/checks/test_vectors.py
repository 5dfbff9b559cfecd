"""Kill tests for ``conformance.checks.vectors``: the replay's verdicts, notes and diagnosed clauses.

Each test replays one committed known-answer vector against a small variant of the reference.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from conformance.adapters.python import InProcessSubject
from conformance.checks.base import ALGORITHM, INTERFACE
from conformance.checks.common import single_pass_encode
from conformance.checks.vectors import VECTOR_CHECKS, vector_cases, verify_vector
from conformance.diagnosis import GPT2_PATTERN
from conformance.errors import Violation
from conformance.results.advisories import collecting
from reference import Tokenizer
from tests.support import broken_for_checks as broken


def _vector(file_name: str, vector_id: str) -> dict[str, Any]:
    return next(vector for vector in vector_cases(file_name) if vector["id"] == vector_id)


def _first_invalid(operation: str, error: str) -> dict[str, Any]:
    return next(vector for vector in vector_cases("invalid.json")
                if vector["operation"] == operation and vector["error"] == error and "setup" in vector)


def test_vector_checks_have_the_level_of_their_clauses() -> None:
    """Conformance levels: training and load vectors are algorithm level, the rejected calls interface level."""
    levels = {check.name: check.level for check in VECTOR_CHECKS}
    assert levels == {"vectors-training": ALGORITHM, "vectors-load": ALGORITHM, "vectors-invalid": INTERFACE}


def test_the_reference_passes_a_training_vector() -> None:
    """BPE-TRAIN-GREEDY: the reference's trained answer is within the bounds of the request and matches."""
    for vector in vector_cases("training.json")[:3]:
        verify_vector(InProcessSubject(Tokenizer), vector)


class _RaisesTheOtherFamily(Tokenizer):
    """Rejects a negative max_merges with TypeError where the specification prefers ValueError."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        if isinstance(max_merges, int) and max_merges < 0:
            raise TypeError("max_merges must not be negative")
        return super().train(documents, max_merges)


class _ForgetsOnRejection(_RaisesTheOtherFamily):
    """Like its parent, but a rejected call also drops the rules: the model is not unchanged after."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        if isinstance(max_merges, int) and max_merges < 0:
            self._adopt([])
        return super().train(documents, max_merges)


def test_the_other_error_family_is_an_advisory_note_naming_the_vector() -> None:
    """BPE-TRAIN-MAXMERGES: the other input-error family passes with a note naming clause, vector and case."""
    vector = _first_invalid("train", "ValueError")
    assert vector["arguments"]["max_merges"] < 0
    with collecting() as notes:
        verify_vector(InProcessSubject(_RaisesTheOtherFamily), vector)
    assert len(notes) == 1
    note = notes[0]
    assert isinstance(note, str)
    assert vector["clauses"][0] in note and vector["id"] in note and vector["description"] in note
    assert "TypeError" in note


def test_a_mismatch_after_an_advisory_is_still_reported() -> None:
    """BPE-TRAIN-MAXMERGES: a rejected call leaves the model unchanged, also when the error is the other family."""
    vector = _first_invalid("train", "ValueError")
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(_ForgetsOnRejection), vector)
    assert caught.value.clause == "BPE-TRAIN-MAXMERGES"
    assert "after rejected" in caught.value.inputs["operation"]


class _IgnoresMaxMerges(Tokenizer):
    """Trains as if max_merges were unbounded: more rules than asked for."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return super().train(documents, 10_000)


def test_too_many_rules_are_reported_as_the_bound_they_break() -> None:
    """BPE-TRAIN-STOP: a trained answer with more rules than max_merges is reported as that bound."""
    vector = next(vector for vector in vector_cases("training.json")
                  if len(Tokenizer().train(vector["documents"], 10_000)) > vector["max_merges"])
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(_IgnoresMaxMerges), vector)
    assert caught.value.clause == "BPE-TRAIN-STOP"
    assert caught.value.inputs.get("max_merges") == vector["max_merges"]
    assert caught.value.actual["rule_count"] > vector["max_merges"]


class _SinglePass(Tokenizer):
    """Encodes in one pass that merges a new token again with its neighbours at once (the rematching bug)."""

    def encode(self, text: str) -> list[int]:
        return single_pass_encode(text, self.rules)


def test_an_encode_mismatch_is_cross_examined_to_its_clause() -> None:
    """BPE-MERGE-NOREMATCH: a load vector's wrong encoding is named by asking the implementation follow-ups.

    On load-71f129c7d2193c19 the wrong ids alone fit several bug models; only follow-ups (under the
    probe rules too) single out the rematching one.
    """
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(_SinglePass), _vector("load.json", "load-71f129c7d2193c19"))
    assert caught.value.clause == "BPE-MERGE-NOREMATCH"
    assert caught.value.inputs["operation"] == "encode"


class _SinglePassWithoutLoad(_SinglePass):
    """The rematching encoder of an implementation that cannot load rules."""

    capabilities = ("train", "encode", "decode")


def test_an_encode_mismatch_of_an_implementation_without_load_is_judged_on_its_answer() -> None:
    """BPE-MERGE-NOREMATCH: without ``load`` no follow-ups under other rules are asked; wrong ids name the clause."""
    subject = InProcessSubject(_SinglePassWithoutLoad)
    assert not subject.supports("load")
    with pytest.raises(Violation) as caught:
        verify_vector(subject, _vector("training.json", "train-f1fd329093fbb946"))
    assert caught.value.clause == "BPE-MERGE-NOREMATCH"
    assert caught.value.inputs["operation"] == "encode"


def test_a_training_mismatch_is_confirmed_by_retraining_the_implementation() -> None:
    """BPE-TRAIN-DOCS: a trainer joining its documents is named once follow-up trainings confirm it."""
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(broken.TrainsOnJoinedDocuments),
                      _vector("training.json", "train-a1b077bb5f860331"))
    assert caught.value.clause == "BPE-TRAIN-DOCS"
    assert caught.value.inputs["operation"] == "train"


class _Gpt2ChunksWithoutLoad(Tokenizer):
    """Encodes each GPT-2 pre-token separately (pre-tokenization the strict profile forbids); cannot load."""

    capabilities = ("train", "encode", "decode")

    def encode(self, text: str) -> list[int]:
        encode_chunk = super().encode
        return [token for chunk in re.findall(GPT2_PATTERN, text) for token in encode_chunk(chunk)]


def test_without_load_a_pre_tokenizing_encoder_is_named_from_its_wrong_ids() -> None:
    """BPE-ENCODE-RAW: an implementation that cannot load is not asked follow-ups under other rules it cannot take,
    so its wrong ids alone, which only pre-tokenizing models give, name the clause."""
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(_Gpt2ChunksWithoutLoad), _vector("training.json", "train-a1b077bb5f860331"))
    assert caught.value.clause == "BPE-ENCODE-RAW"
    assert caught.value.inputs["operation"] == "encode"
