"""Tests of ``bpe_conformance.checks.vectors``: the replay's verdicts, notes and diagnosed clauses.

Each test replays one committed known-answer vector against a small variant of the reference.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.base import ALGORITHM, INTERFACE
from bpe_conformance.checks.common import single_pass_encode, subject_answer
from bpe_conformance.checks.vectors import (
    VECTOR_CHECKS,
    _localised,
    mismatch_clause,
    vector_cases,
    vectors_inapplicable,
    verify_vector,
)
from bpe_conformance.diagnosis import GPT2_PATTERN, describe
from bpe_conformance.dialects.context import pairs_run_out, with_profile
from bpe_conformance.dialects.probes import ProfileModel
from bpe_conformance.errors import HarnessError, Violation
from bpe_conformance.reference import Tokenizer
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profile_spec import parse_profile
from bpe_conformance.reference.profiles import LARGEST_PAIR, MINBPE, PROFILES, RUSTBPE, TIKTOKEN, Profile
from bpe_conformance.reference.training import train
from bpe_conformance.results.advisories import collecting
from bpe_conformance.spec.clauses import load_clauses
from bpe_conformance.vectors.files import read_vector_files
from bpe_conformance.vectors.replay import Mismatch
from bpe_conformance.zoo import by_name as zoo_by_name
from bpe_conformance.zoo.extremes import NarrowsIntegersTo32Bits
from tests.checks.helpers import assert_inapplicable
from tests.support import broken_for_checks as broken
from tests.support.fresh_modules import fresh_copy as fresh

if TYPE_CHECKING:
    from pathlib import Path


def _vector(file_name: str, vector_id: str, profile: str = "strict") -> dict[str, Any]:
    return next(vector for vector in vector_cases(file_name, profile) if vector["id"] == vector_id)


def _first_invalid(operation: str, error: str) -> dict[str, Any]:
    return next(
        vector
        for vector in vector_cases("invalid.json")
        if vector["operation"] == operation and vector["error"] == error and "setup" in vector
    )


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
    assert vector["clauses"][0] in note
    assert vector["id"] in note
    assert vector["description"] in note
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
    vector = next(
        vector
        for vector in vector_cases("training.json")
        if len(Tokenizer().train(vector["documents"], 10_000)) > vector["max_merges"]
    )
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
    """BPE-ENCODE-ORDER: a load vector's wrong encoding is localised by asking the implementation questions.

    On load-71f129c7d2193c19 the wrong ids alone fit several bug models; the questions show this single
    pass breaks rank order itself (rules (b, c), (a, b) on "abc"), as the zoo classes its stack encoder,
    so the clause is rule order's, not the rematch's (a consequence of the same pass).
    """
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(_SinglePass), _vector("load.json", "load-71f129c7d2193c19"))
    assert caught.value.localisation is not None
    assert caught.value.clause == "BPE-ENCODE-ORDER"
    assert caught.value.localisation["stage"] == "rule-order"
    assert caught.value.inputs["operation"] == "encode"
    assert caught.value.message.endswith("encode gave a different answer")  # localised: no "unlocalised" label


class _SinglePassWithoutLoad(_SinglePass):
    """The rematching encoder of an implementation that cannot load rules."""

    capabilities = ("train", "encode", "decode")


def test_an_encode_mismatch_of_an_implementation_without_load_is_judged_on_its_answer() -> None:
    """BPE-MERGE-NOREMATCH: without ``load`` no follow-ups under other rules are asked; wrong ids name the clause."""
    subject = InProcessSubject(_SinglePassWithoutLoad)
    assert not subject.supports("load")
    with pytest.raises(Violation) as caught:
        verify_vector(subject, _vector("training.json", "train-acf4e9f1eb7d1e23"))
    assert caught.value.clause == "BPE-MERGE-NOREMATCH"
    assert caught.value.inputs["operation"] == "encode"


def test_a_training_mismatch_is_confirmed_by_retraining_the_implementation() -> None:
    """BPE-TRAIN-DOCS: a trainer joining its documents is named once follow-up trainings confirm it."""
    with pytest.raises(Violation) as caught:
        verify_vector(
            InProcessSubject(broken.TrainsOnJoinedDocuments), _vector("training.json", "train-a1b077bb5f860331")
        )
    assert caught.value.clause == "BPE-TRAIN-DOCS"
    assert caught.value.inputs["operation"] == "train"
    # Localised by the training experiments on the vector's own corpus, with the first round that departs.
    assert caught.value.localisation is not None
    assert (caught.value.localisation["localised"], caught.value.localisation["stage"]) == (True, "documents")
    divergence = caught.value.divergence
    assert divergence is not None
    assert (divergence["round"], divergence["stage"], divergence["clause"]) == (0, "documents", "BPE-TRAIN-DOCS")
    assert divergence["localised"] is True
    assert caught.value.message.endswith(f"train gave a different answer: {describe(divergence)}")


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


def _mismatch(operation: str, actual: Any, given: Any = None) -> Mismatch:
    return Mismatch("train-x", (), operation, given or {}, None, actual)


TRAIN_VECTOR = {"id": "train-x", "documents": ["abab", "acac"], "max_merges": 1, "clauses": ["BPE-TRAIN-GREEDY"]}


LOAD_VECTOR = {"id": "load-x", "rules": [[97, 97], [98, 98], [258, 98]], "clauses": ["BPE-ENCODE-ORDER"]}


INVALID_VECTOR = {"id": "invalid-x-y", "clauses": ["BPE-TRAIN-MAXMERGES", "BPE-INPUT-DOCS"]}


@pytest.mark.parametrize(
    ("vector", "mismatch", "clause"),
    [
        (INVALID_VECTOR, _mismatch("train", "returned [[97, 98]]"), "BPE-TRAIN-MAXMERGES"),
        (INVALID_VECTOR, _mismatch("encode", [97]), "BPE-TRAIN-MAXMERGES"),
        (TRAIN_VECTOR, _mismatch("train", [[97, 99]]), "BPE-TRAIN-TIE"),
        (TRAIN_VECTOR, _mismatch("train", [[97, 98], [97, 99]]), "BPE-TRAIN-STOP"),  # more than max_merges
        (TRAIN_VECTOR, _mismatch("train", [[97, 98]]), "BPE-TRAIN-INPUT"),  # the right rules, another answer
        (TRAIN_VECTOR, _mismatch("train", "raised ValueError: no"), "BPE-TRAIN-INPUT"),
        (TRAIN_VECTOR, _mismatch("train", [[97, 98, 99]]), "BPE-TRAIN-INPUT"),
        (TRAIN_VECTOR, _mismatch("train", [[97, True]]), "BPE-TRAIN-INPUT"),
        (TRAIN_VECTOR, _mismatch("train", [(97, 99)]), "BPE-TRAIN-INPUT"),
        (LOAD_VECTOR, _mismatch("encode", [260, 98], {"text": "aabb"}), "BPE-MERGE-NOREMATCH"),
        (LOAD_VECTOR, _mismatch("encode", [256, 97, 97, 98, 98], {"text": "aabb"}), "BPE-ENCODE-BOUNDARY"),
        (LOAD_VECTOR, _mismatch("encode", [True, 98], {"text": "aabb"}), "BPE-ENCODE-ORDER"),
        (LOAD_VECTOR, _mismatch("encode", (256, 97, 97, 98, 98), {"text": "aabb"}), "BPE-ENCODE-ORDER"),  # no list
        (LOAD_VECTOR, _mismatch("encode", "raised TypeError: no", {"text": "aabb"}), "BPE-ENCODE-ORDER"),
        (LOAD_VECTOR, _mismatch("load", "raised ValueError: no"), "BPE-INPUT-RULES"),
        (LOAD_VECTOR, _mismatch("decode", "baca"), "BPE-DECODE-CONCAT"),
        (LOAD_VECTOR, _mismatch("document_ids", [1]), "BPE-ENCODE-ORDER"),
    ],
)
def test_a_vector_mismatch_is_blamed_on_the_clause_it_breaks(
    vector: dict[str, Any], mismatch: Mismatch, clause: str
) -> None:
    """Invalid vectors name their own clause; rules and ids are diagnosed; anything else goes by operation."""
    assert mismatch_clause(vector, mismatch) == clause


def test_a_vector_failure_carries_the_vector_the_operation_and_both_answers() -> None:
    """BPE-TRAIN-TIE on the first training vector, and BPE-DECODE-CONCAT found after skipped replays."""
    vector = vector_cases("training.json")[0]
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(broken.LargestTiedPair), vector)
    violation = caught.value
    assert violation.clause == "BPE-TRAIN-TIE"
    assert violation.inputs == {
        "vector": vector["id"],
        "operation": "train",
        "input": {"documents": ["abab", "acac"], "max_merges": 32},
    }
    assert (violation.expected, violation.actual) == ([[97, 98], [97, 99]], [[97, 99], [97, 98]])
    assert vector["id"] in violation.message
    assert vector["description"] in violation.message
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(broken.PiecesReversed), vector)
    assert (caught.value.clause, caught.value.inputs["operation"]) == ("BPE-DECODE-CONCAT", "decode")
    assert (caught.value.expected, caught.value.actual) == ("abac", "baca")


def test_vectors_replay_load_only_where_load_is_offered() -> None:
    """A subject without load skips the load vectors; one with it is judged by them."""
    vector = next(vector for vector in vector_cases("load.json") if vector["id"] == "load-7b4cff2076002117")
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(broken.EncodesRulesInReverse), vector)
    assert (caught.value.clause, caught.value.expected, caught.value.actual) == (
        "BPE-ENCODE-ORDER",
        [258, 258],
        [259, 259],
    )

    class WithoutLoad(broken.EncodesRulesInReverse):
        capabilities = ("train", "encode", "decode")

    class ReferenceWithoutLoad(Tokenizer):
        capabilities = ("train", "encode", "decode")

    verify_vector(InProcessSubject(WithoutLoad), vector)
    verify_vector(InProcessSubject(ReferenceWithoutLoad), vector_cases("training.json")[0])
    invalid = next(vector for vector in vector_cases("invalid.json") if vector["description"] == "max_merges True")
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(broken.AcceptsBoolMaxMerges), invalid)
    assert (caught.value.clause, caught.value.expected, caught.value.actual) == (
        "BPE-TRAIN-MAXMERGES",
        "TypeError",
        "returned [[97, 98]]",
    )


class _ProfileWithLoad:
    """The literal reference under one profile, with load: what a faithful dialect implementation answers."""

    profile_object: Profile = LARGEST_PAIR
    capabilities = frozenset({"train", "load", "encode", "decode"})

    def __init__(self) -> None:
        self.model = ProfileModel(self.profile_object)
        self.profile = self.profile_object.name

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return self.model.train(documents, max_merges)

    def load(self, rules: list[tuple[int, int]]) -> None:
        self.model.load(rules)

    def encode(self, text: str) -> list[int]:
        return self.model.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self.model.decode(ids)


def _declaring(profile: Profile, declared: str | None = None) -> type:
    return type("Dialect", (_ProfileWithLoad,), {"profile_object": profile, "declared": declared or profile.name})


def test_a_dialect_is_judged_by_its_own_profiles_vectors_and_never_by_stricts() -> None:
    """BPE-TRAIN-TIE under largest-pair: its vectors pass it, strict's are refused, and declaring strict fails it."""
    largest = InProcessSubject(_declaring(LARGEST_PAIR))
    for file_name in ("training.json", "load.json", "invalid.json"):
        for vector in vector_cases(file_name, "largest-pair")[:20]:
            verify_vector(largest, vector)
    strict_vector = vector_cases("training.json")[0]
    own_vector = vector_cases("training.json", "largest-pair")[0]
    assert own_vector["id"] == strict_vector["id"]
    assert own_vector["rules"] != strict_vector["rules"]
    with pytest.raises(HarnessError, match="not one of profile largest-pair's vectors"):
        verify_vector(largest, strict_vector)
    with pytest.raises(Violation) as caught:
        verify_vector(with_profile(largest, "strict"), strict_vector)
    assert caught.value.clause == "BPE-TRAIN-TIE"
    assert "of profile strict" in caught.value.message


def test_a_dialect_mismatch_is_diagnosed_under_its_profile() -> None:
    """BPE-TRAIN-TIE: a minbpe-style trainer breaking ties by the smallest pair fails minbpe's tie vectors there."""

    class SmallestTieUnderMinbpe(_ProfileWithLoad):
        profile_object = MINBPE

        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            smallest_ties = dataclasses.replace(MINBPE, tie_break="smallest-ids")
            self.model.rules = train_profile(documents, max_merges, smallest_ties)
            return list(self.model.rules)

    subject = InProcessSubject(SmallestTieUnderMinbpe)
    parting = [
        vector
        for vector in vector_cases("training.json", "minbpe")
        if [list(rule) for rule in SmallestTieUnderMinbpe().train(vector["documents"], vector["max_merges"])]
        != vector["rules"]
    ]
    assert len(parting) >= 5
    for vector in parting[:5]:
        with pytest.raises(Violation) as caught:
            verify_vector(subject, vector)
        assert caught.value.clause == "BPE-TRAIN-TIE"
        assert caught.value.inputs["operation"] == "train"
        assert "of profile minbpe" in caught.value.message
    verify_vector(subject, next(vector for vector in vector_cases("training.json", "minbpe") if vector not in parting))


def test_an_encode_only_subject_is_judged_by_load_and_invalid_vectors_set_up_by_load() -> None:
    """BPE-DECODE-STRICT under tiktoken: no training vectors, and the rejected calls are set up through load."""

    class Tiktoken(_ProfileWithLoad):
        profile_object = TIKTOKEN
        capabilities = frozenset({"load", "encode", "decode"})

    assert all(vector["operation"] != "train" for vector in vector_cases("invalid.json", "tiktoken"))
    subject = InProcessSubject(Tiktoken)
    for file_name in ("load.json", "invalid.json"):
        for vector in vector_cases(file_name, "tiktoken"):
            verify_vector(subject, vector)

    class KeyErrorOnUnknownIds(Tiktoken):
        def decode(self, ids: list[int]) -> str:
            if any(isinstance(token, int) and token >= 256 + len(self.model.rules) for token in ids):
                raise KeyError(ids[-1])
            return super().decode(ids)

    unknown = next(
        vector for vector in vector_cases("invalid.json", "tiktoken") if vector["arguments"] == {"ids": [260]}
    )
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(KeyErrorOnUnknownIds), unknown)
    assert caught.value.clause == unknown["clauses"][0] == "BPE-DECODE-STRICT"
    assert "KeyError" in caught.value.actual


def test_the_vectors_apply_under_every_profile_but_training_under_an_encode_only_one() -> None:
    """Every profile has its vectors; the reason for the one gap names the parameter and why."""
    for profile in PROFILES.values():
        for file_name in ("load.json", "invalid.json"):
            assert vectors_inapplicable(profile, file_name) is None
        if profile.tie_break is not None:
            assert vectors_inapplicable(profile, "training.json") is None
    assert_inapplicable(
        vectors_inapplicable(TIKTOKEN, "training.json"),
        "tiktoken",
        "tie_break=None",
        "an encode-only profile has no training vectors",
    )
    assert vectors_inapplicable(RUSTBPE) is None


def test_a_profile_whose_files_are_missing_has_no_vectors_to_replay(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    vectors = fresh("bpe_conformance.checks.vectors")
    monkeypatch.setattr(vectors, "profile_directory", lambda profile: tmp_path / profile)
    reason = vectors.vectors_inapplicable(RUSTBPE, "load.json")
    assert reason is not None
    assert reason.startswith("no known-answer vectors for profile rustbpe: ")
    assert str(tmp_path / "rustbpe" / "load.json") in reason


_EXPECTED_VECTOR_CHECKS = {
    "vectors-training": ("training.json", "BPE-TRAIN-GREEDY", {"train", "encode", "decode"}, set(), ALGORITHM),
    "vectors-load": ("load.json", "BPE-ENCODE-ORDER", {"load", "encode", "decode"}, set(), ALGORITHM),
    "vectors-invalid": ("invalid.json", "BPE-INPUT-DOCS", {"encode"}, {"train", "load"}, INTERFACE),
}


def test_each_vector_check_has_its_files_clause_requirements_and_level() -> None:
    """What each vector check declares, on a fresh copy (built at import); it may report any clause but its own.

    Apart from the replay below, which reads and validates every vector file (seconds): a mutant of the table is
    usually told here, in milliseconds.
    """
    vectors = fresh("bpe_conformance.checks.vectors")
    checks = {check.name: check for check in vectors.VECTOR_CHECKS}
    assert set(checks) == set(_EXPECTED_VECTOR_CHECKS)
    defined = set(load_clauses())
    for name, (_, clause, requires, requires_any, level) in _EXPECTED_VECTOR_CHECKS.items():
        check = checks[name]
        assert check.level == level  # invalid input is the interface level; valid-input vectors the algorithm
        assert (check.clause, check.requires, check.requires_any) == (clause, requires, requires_any)
        assert (check.strategy, check.cases) == (None, None)
        assert check.verify is vectors.verify_vector
        assert check.summary
        assert clause not in check.also
        assert set(check.also) <= defined
        assert set(check.also) == {
            other for other in vectors.CLAUSE_IDS if other not in vectors._NEVER_REPORTED and other != clause
        }
        assert "BPE-SER-JSON" not in check.also
        assert "BPE-TRAIN-TIE" in check.clauses


def test_vector_checks_replay_every_vector_of_their_file_under_the_subjects_profile() -> None:
    """Each vector check replays its file's vectors of the profile, in file order, and is inapplicable where the
    profile has no such file."""
    vectors = fresh("bpe_conformance.checks.vectors")
    checks = {check.name: check for check in vectors.VECTOR_CHECKS}
    for name, (file_name, *_) in _EXPECTED_VECTOR_CHECKS.items():
        check = checks[name]
        # The fresh copy (which reads and validates the files again) for three profiles, the imported checks for all.
        imported = next(check for check in VECTOR_CHECKS if check.name == name)
        for profile in PROFILES.values():
            chosen = check if profile.name in ("strict", "minbpe", "tiktoken") else imported
            if vectors.vectors_inapplicable(profile, file_name) is None:
                stored = read_vector_files(profile=profile.name)[file_name]["vectors"]
                assert [vector["id"] for vector in chosen.fixed_cases(profile)] == [vector["id"] for vector in stored]
            assert check.inapplicable(profile) == vectors.vectors_inapplicable(profile, file_name)


class _RaisesOnceNoPairIsLeft(_ProfileWithLoad):
    """minbpe's trainer taking ``max()`` of no pairs (docs/findings.md F13): it raises where the profile runs out."""

    profile_object = MINBPE

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        if pairs_run_out(list(documents), max_merges, MINBPE):
            raise ValueError("max() arg is an empty sequence")
        return super().train(documents, max_merges)


class _RaisesOnEveryTraining(_ProfileWithLoad):
    profile_object = MINBPE

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        raise ValueError("max() arg is an empty sequence")


def test_a_trainer_that_raises_once_pairs_run_out_is_left_to_the_stop_rule_check() -> None:
    """BPE-TRAIN-STOP: raising where no pair is left is one defect, reported by stop-rule, not again per vector;
    raising where pairs remain is the vector's own failure."""
    vectors = vector_cases("training.json", "minbpe")
    running_out = [vector for vector in vectors if pairs_run_out(vector["documents"], vector["max_merges"], MINBPE)]
    pairs_left = [vector for vector in vectors if vector not in running_out]
    assert running_out
    assert pairs_left
    for vector in running_out:
        verify_vector(InProcessSubject(_RaisesOnceNoPairIsLeft), vector)
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(_RaisesOnEveryTraining), pairs_left[0])
    assert caught.value.inputs["operation"] == "train"
    assert "ValueError" in str(caught.value.actual)


class _RematchesUnderMinbpe(_ProfileWithLoad):
    """A minbpe dialect whose encoder merges a new token again with its neighbours in the same pass."""

    profile_object = MINBPE

    def encode(self, text: str) -> list[int]:
        return single_pass_encode(text, self.model.rules, MINBPE.first_rule_id)


def test_an_encode_mismatch_is_named_by_the_bug_models_in_the_profiles_own_numbering() -> None:
    """Under minbpe the questions that localise a wrong encoding number rules from 256: the single pass is
    told by the rule-order question in that numbering (BPE-ENCODE-ORDER), as under strict."""
    subject = InProcessSubject(_RematchesUnderMinbpe)

    def rematching_parts(vector: dict[str, Any]) -> bool:
        implementation = _RematchesUnderMinbpe()
        implementation.load([(first, second) for first, second in vector["rules"]])
        return any(implementation.encode(case["text"]) != case["ids"] for case in vector["encodings"])

    parting = [vector for vector in vector_cases("load.json", "minbpe") if rematching_parts(vector)]
    assert parting, "no minbpe load vector tells a rematching encoder apart"
    with pytest.raises(Violation) as caught:
        verify_vector(subject, parting[0])
    assert caught.value.clause == "BPE-ENCODE-ORDER"
    assert caught.value.inputs["operation"] == "encode"
    assert caught.value.localisation is not None
    assert caught.value.localisation["localised"]


def _reference_retrain(documents: list[str], max_merges: int) -> list[tuple[int, int]] | None:
    return train_profile(documents, max_merges, PROFILES["strict"])


WIDE_VECTOR = {"id": "train-wide", "documents": ["abab", "acac"], "max_merges": 2**31, "clauses": ["BPE-TRAIN-STOP"]}


@pytest.mark.parametrize(
    ("vector", "actual", "clause"),
    [
        # 2**31 read as a narrower budget: a small budget past the rules trains right, so the width is at fault.
        (WIDE_VECTOR, [[97, 98]], "BPE-TRAIN-MAXMERGES"),
        (WIDE_VECTOR, "raised OverflowError: too wide", "BPE-TRAIN-MAXMERGES"),
        # Below 2**31 the budget is never blamed, however the trainer answers a small one.
        ({**WIDE_VECTOR, "max_merges": 2**31 - 1}, [[97, 98]], "BPE-TRAIN-STOP"),
        ({**TRAIN_VECTOR, "max_merges": 1}, [[97, 99]], "BPE-TRAIN-TIE"),
    ],
)
def test_a_wide_budget_is_blamed_only_past_31_bits_and_when_a_small_one_trains_right(
    vector: dict[str, Any], actual: Any, clause: str
) -> None:
    """BPE-TRAIN-MAXMERGES: a wrong answer to max_merges >= 2**31 where the implementation, given the number
    of expected rules + 1 (also never reached), makes exactly the expected rules."""
    expected = train_profile(list(vector["documents"]), vector["max_merges"], PROFILES["strict"])
    mismatch = Mismatch(str(vector["id"]), (), "train", {}, [list(rule) for rule in expected], actual)
    assert mismatch_clause(vector, mismatch, _reference_retrain) == clause


def test_a_training_mismatch_is_named_by_the_bug_model_the_implementation_confirms() -> None:
    """BPE-TRAIN-RECOUNT: with the implementation to ask, the model its follow-ups confirm names the clause."""
    documents = ["低" * 30]
    vector = {"id": "train-x", "documents": documents, "max_merges": 2, "clauses": ["BPE-TRAIN-RECOUNT"]}
    trainer = broken.NeverRecounts()
    actual = trainer.train(documents, 2)
    expected = train_profile(documents, 2, PROFILES["strict"])
    mismatch = Mismatch("train-x", (), "train", {}, [list(rule) for rule in expected], [list(r) for r in actual])
    assert mismatch_clause(vector, mismatch, trainer.train) == "BPE-TRAIN-RECOUNT"


def test_a_wrong_encoding_is_cross_examined_with_the_probes_numbered_once() -> None:
    """BPE-MERGE-NOREMATCH under rustbpe (rules from 256): the probe rules reach the implementation in the
    profile's numbering, so "a " then "a b" is (97, 32), (256, 98), and the probe parts the one-pass encoder
    from reverse rank order. Renumbered twice, the second rule became (254, 98) and the two stayed tied."""
    asked: list[list[tuple[int, int]]] = []

    def one_pass(text: str, rules: list[tuple[int, int]]) -> list[int]:
        asked.append(list(rules))
        return single_pass_encode(text, rules, RUSTBPE.first_rule_id)

    vector = {"id": "load-x", "rules": [[97, 98], [97, 97]], "clauses": ["BPE-ENCODE-ORDER"]}
    mismatch = Mismatch("load-x", (), "encode", {"text": "aab"}, [97, 256], [257, 98])
    assert mismatch_clause(vector, mismatch, encode=one_pass, profile=RUSTBPE) == "BPE-MERGE-NOREMATCH"
    assert [(97, 32), (256, 98)] in asked


class _CachesDecodings(Tokenizer):
    """Caches decode results by ids and never clears the cache when the rules change (a BPE-SER-LOAD bug)."""

    def __init__(self) -> None:
        super().__init__()
        self._decoded: dict[tuple[int, ...], str] = {}

    def decode(self, ids: list[int]) -> str:
        key = tuple(ids)
        if key not in self._decoded:
            self._decoded[key] = super().decode(ids)
        return self._decoded[key]


def _asked(implementation: type) -> tuple[list[tuple[str, Any]], Any]:
    """The history question of ``implementation`` in process, recording each operation and argument asked."""
    asked: list[tuple[str, Any]] = []
    subject = InProcessSubject(implementation)

    def history(operation: str, argument: Any) -> Any:
        asked.append((operation, argument))
        return subject_answer(subject, operation, argument)

    return asked, history


@pytest.mark.parametrize(
    ("implementation", "operation", "argument", "expected", "actual"),
    [
        (zoo_by_name("caches-encodings-across-models"), "encode", "abab", [258, 258], [97, 98, 97, 98]),
        (_CachesDecodings, "decode", [258, 99], "abc", "`cc"),
    ],
    ids=["encode", "decode"],
)
def test_a_load_vectors_wrong_answer_that_needs_the_instances_history_is_blamed_on_load(
    implementation: type, operation: str, argument: Any, expected: Any, actual: Any
) -> None:
    """BPE-SER-LOAD: asked again, a fresh instance that loaded the vector's rules answers right, and one that
    held other rules first answers wrong: the departure is the load's, and the record shows both questions."""
    vector = {"id": "load-x", "rules": [[97, 98]], "clauses": ["BPE-ENCODE-ORDER"]}
    key = "text" if operation == "encode" else "ids"
    mismatch = Mismatch("load-x", (), operation, {key: argument}, expected, actual)
    asked, history = _asked(implementation)
    localised = _localised(vector, mismatch, None, None, PROFILES["strict"], history)
    assert localised is not None
    clause, tail, _, record = localised
    assert (clause, tail, record["localised"], record["stage"]) == ("BPE-SER-LOAD", "", True, "load")
    assert asked == [(operation, argument)]
    fresh, after_other_rules = record["experiments"]
    assert fresh["inputs"] == {key: argument, "rules": [[97, 98]]}
    assert (fresh["expected"], fresh["answer"], fresh["agrees"]) == (expected, expected, True)
    assert (after_other_rules["answer"], after_other_rules["agrees"]) == (actual, False)


def test_a_trained_vectors_wrong_answer_is_not_blamed_on_a_load_it_did_not_make() -> None:
    """BPE-SER-LOAD only where the counterexample's rules came from ``load``: under a training vector's rules
    the same history is not asked about other rules first, and the departure stays unlocalised."""
    vector = {"id": "train-x", "rules": [[97, 98]], "clauses": ["BPE-ENCODE-ORDER"]}
    mismatch = Mismatch("train-x", (), "encode", {"text": "abab"}, [258, 258], [97, 98, 97, 98])
    _, history = _asked(zoo_by_name("caches-encodings-across-models"))
    localised = _localised(vector, mismatch, None, None, PROFILES["strict"], history)
    assert localised is not None
    assert localised[3]["localised"] is False
    assert localised[1] == f" ({localised[3]['label']})"
    assert "unlocalised: first seen as" in localised[1]
    assert len(localised[3]["experiments"]) == 1


def test_an_invalid_input_vectors_mismatch_is_not_localised() -> None:
    """An invalid-input vector asks for an error, not for ids: its mismatch is judged as it is, nothing is asked."""
    vector = {"id": "invalid-x", "rules": [[97, 98]], "clauses": ["BPE-INPUT-TEXT"]}
    mismatch = Mismatch("invalid-x", (), "encode", {"text": "abab"}, [258, 258], [97, 98, 97, 98])
    asked, history = _asked(zoo_by_name("caches-encodings-across-models"))
    assert _localised(vector, mismatch, None, None, PROFILES["strict"], history) is None
    assert asked == []


def test_an_encode_that_answered_no_ids_is_not_asked_again() -> None:
    """An error for an answer is no ids to compare: no history question is asked about it."""
    vector = {"id": "load-x", "rules": [[97, 98]], "clauses": ["BPE-ENCODE-ORDER"]}
    mismatch = Mismatch("load-x", (), "encode", {"text": "abab"}, [258, 258], "ValueError: no")
    asked, history = _asked(zoo_by_name("caches-encodings-across-models"))
    assert _localised(vector, mismatch, None, None, PROFILES["strict"], history) is None
    assert asked == []


def test_a_vector_mismatch_the_questions_cannot_localise_says_so() -> None:
    """An implementation that answers none of the questions leaves the clause at the symptom's, and the message
    says so (``unlocalised: first seen as ...``) rather than presenting the symptom as the stage that departs."""
    cannot_answer: dict[str, tuple[dict[str, Any], Mismatch]] = {
        "encode": (
            {"id": "load-x", "rules": [[97, 98]], "clauses": ["BPE-ENCODE-ORDER"]},
            Mismatch("load-x", (), "encode", {"text": "abab"}, [258, 258], [97, 98, 97, 98]),
        ),
        "train": (
            {"id": "train-x", "documents": ["abab", "cdcd"], "max_merges": 2, "clauses": ["BPE-TRAIN-TIE"]},
            Mismatch("train-x", (), "train", {}, [[97, 98], [99, 100]], [[99, 100], [97, 98]]),
        ),
    }
    for operation, (vector, mismatch) in cannot_answer.items():
        localised = _localised(
            vector,
            mismatch,
            lambda documents, max_merges: None,
            lambda rules: lambda text, rules: None,
            PROFILES["strict"],
        )
        assert localised is not None, operation
        clause, tail, _, record = localised
        assert record["localised"] is False, operation
        assert f"(unlocalised: first seen as {record['symptom']} [{clause}])" in tail, operation


def test_an_encoding_without_rules_or_with_boundary_ids_is_not_cross_examined() -> None:
    """No rules leaves no merge stage to ask about, and a boundary id in the answer is that clause's own finding
    (BPE-ENCODE-BOUNDARY, named from the ids): neither is sent to the encoding questions."""
    asked: list[list[tuple[int, int]]] = []

    def fresh(rules: list[tuple[int, int]]) -> Any:
        asked.append(list(rules))
        return lambda text, rules: None

    no_rules = Mismatch("load-x", (), "encode", {"text": "ab"}, [97, 98], [98, 97])
    boundary = Mismatch("load-x", (), "encode", {"text": "ab"}, [258], [256, 258, 257])
    assert _localised({"id": "load-x", "rules": []}, no_rules, None, fresh, PROFILES["strict"]) is None
    assert _localised({"id": "load-x", "rules": [[97, 98]]}, boundary, None, fresh, PROFILES["strict"]) is None
    assert asked == []


def test_a_train_mismatch_whose_rules_the_profile_makes_is_not_localised() -> None:
    """Rules every round of the profile agrees with leave no round to localise (a hand-made vector's expected
    rules that the reference does not make): no clause is guessed and the implementation is not asked."""
    documents = ["abab", "cdcd"]
    made = [list(rule) for rule in train(documents, 2)]
    vector = {"id": "train-x", "documents": documents, "max_merges": 2, "clauses": ["BPE-TRAIN-TIE"]}
    mismatch = Mismatch("train-x", (), "train", {}, made[::-1], made)
    asked: list[object] = []
    assert _localised(vector, mismatch, lambda docs, budget: asked.append(docs), None, PROFILES["strict"]) is None
    assert asked == []


def test_the_questions_about_a_vector_use_its_own_rules_and_budget() -> None:
    """A wrong encoding is asked again of an instance loaded with the vector's rules; behind a split, the
    counterexample is asked again with the vector's own budget (the split questions retrain it as given)."""
    loaded: list[list[tuple[int, int]]] = []

    def fresh(rules: list[tuple[int, int]]) -> Any:
        loaded.append(list(rules))
        return lambda text, rules: None

    wrong = Mismatch("load-x", (), "encode", {"text": "abab"}, [258, 258], [97, 98, 97, 98])
    _localised({"id": "load-x", "rules": [[97, 98]]}, wrong, None, fresh, PROFILES["strict"])
    assert loaded == [[(97, 98)]]

    asked: list[tuple[list[str], int]] = []
    documents = ["ab12ab", "abab"]  # its chunks (ab, 12, ab, abab) train the same rules: an equivalent question
    vector = {"id": "train-x", "documents": documents, "max_merges": 3, "clauses": ["BPE-TRAIN-STOP"]}
    split = parse_profile("strict+split=gpt2")
    expected = [list(rule) for rule in train_profile(documents, 3, split)]
    mismatch = Mismatch("train-x", (), "train", {}, expected, [])
    _localised(vector, mismatch, lambda docs, budget: asked.append((list(docs), budget)), None, split)
    assert asked[0] == (documents, 3)


@pytest.mark.parametrize(
    ("vector_id", "actual"),
    [("train-5a1aab6cbdef183c", "raised ValueError"), ("train-f08ec0f2fd5a9da0", [[103, 99]])],
    ids=["2**31-refused", "2**32+1-read-as-1"],
)
def test_a_wide_budget_read_as_another_number_is_blamed_on_the_budget(vector_id: str, actual: Any) -> None:
    """BPE-TRAIN-MAXMERGES: a 32-bit narrower refuses 2**31 (negative to it) and trains one rule for 2**32 + 1;
    a small budget, never reached either, trains right, so the budget is at fault, not the stop rule the
    rules alone suggest (the training questions use small budgets, which it reads right)."""
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(NarrowsIntegersTo32Bits), _vector("training.json", vector_id))
    assert caught.value.clause == "BPE-TRAIN-MAXMERGES"
    assert caught.value.message.endswith("train gave a different answer")  # no localisation to add
    assert caught.value.localisation is None
    if isinstance(actual, str):
        assert str(caught.value.actual).startswith(actual)
    else:
        assert caught.value.actual == actual


def test_a_decoder_that_keeps_the_pieces_of_an_earlier_load_is_blamed_on_load() -> None:
    """BPE-SER-LOAD through the replay: the vectors are replayed on one instance, so a decoder that keeps the
    piece table of the previous vector's rules decodes the next vector's ids wrong. Asked again, a fresh
    instance that loaded the same rules decodes them right: the departure is the load's."""
    subject = InProcessSubject(zoo_by_name("stale-pieces-after-load"))
    verify_vector(subject, _vector("load.json", "load-cfbd2071443e6a4e"))
    with pytest.raises(Violation) as caught:
        verify_vector(subject, _vector("load.json", "load-7b4cff2076002117"))
    assert (caught.value.clause, caught.value.inputs["operation"]) == ("BPE-SER-LOAD", "decode")
    assert caught.value.localisation is not None
    assert (caught.value.localisation["localised"], caught.value.localisation["stage"]) == (True, "load")


def test_a_mismatch_left_to_the_ids_alone_is_named_under_the_subjects_profile() -> None:
    """BPE-ALPHA-BYTES under minbpe: with no rules loaded, an encoder that answers 256 (minbpe's first rule id,
    no boundary id there) has the bytes wrong. Under strict numbering the same id would be a boundary id."""

    class RuleIdWithoutRules(_ProfileWithLoad):
        profile_object = MINBPE

        def encode(self, text: str) -> list[int]:
            return [256, *super().encode(text)] if text else []

    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(RuleIdWithoutRules), _vector("load.json", "load-a9bc1061177b3575", "minbpe"))
    assert (caught.value.clause, caught.value.inputs["operation"]) == ("BPE-ALPHA-BYTES", "encode")
