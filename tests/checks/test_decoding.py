"""What the decoding, encoding, training and validation checks decide on small fixed inputs (mutation survivors).

Each test names the clause whose verdict it protects; the inputs are fixed and tiny, so no hypothesis
search is involved and the file runs in well under a second.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from types import ModuleType
from typing import Any

import pytest

from conformance.adapters.python import InProcessSubject
from conformance.checks import ALL_CHECKS
from conformance.checks.base import INTERFACE
from conformance.checks.decoding import BAD_ID_KINDS, bad_ids
from conformance.dialects.probes import ProfileModel
from conformance.errors import Violation
from conformance.results.advisories import collecting
from reference import LiteralTokenizer
from reference.profiles import MINBPE, STRICT

CHECKS = {check.name: check for check in ALL_CHECKS}


def fresh(name: str) -> ModuleType:
    """A new copy of module ``name`` with its top-level code run again (tables built at import)."""
    importlib.import_module(name)
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _appending(extra_id: Any) -> type:
    """A tokenizer whose encoder appends one id after the right ones (``extra_id(self)`` gives it)."""

    class Appending(LiteralTokenizer):
        def encode(self, text: str) -> list[int]:
            return [*super().encode(text), extra_id(self)]

    return Appending


def _round_trip_violation(implementation: type) -> Violation:
    example = {"documents": ["abab"], "max_merges": 1, "texts": []}
    with pytest.raises(Violation) as caught:
        CHECKS["round-trip"].verify(InProcessSubject(implementation), example)
    return caught.value


def test_round_trip_blames_the_encoder_when_the_ids_spell_other_bytes() -> None:
    """BPE-ROUNDTRIP: ids whose pieces (byte 0 included) spell other bytes are reported as the encoder's loss.

    The counterexample names the ids, the text they should spell and the ids as what the encoder gave.
    """
    violation = _round_trip_violation(_appending(lambda self: 0))
    ids = [258, 258, 0]
    assert violation.clause == "BPE-ROUNDTRIP"
    assert violation.inputs["ids"] == ids
    assert violation.inputs["text"] == "abab"
    assert violation.expected == "abab"
    assert violation.actual == ids
    assert "00" in violation.message  # the spelled bytes are shown, the trailing NUL among them


@pytest.mark.parametrize("past", [0, 7], ids=["first unknown id", "far unknown id"])
def test_round_trip_with_an_unknown_id_from_the_encoder_is_a_violation_not_a_crash(past: int) -> None:
    """BPE-ROUNDTRIP: an id past the vocabulary has no piece; the check still reports a violation."""
    violation = _round_trip_violation(_appending(lambda self: 258 + len(self.rules) + past))
    assert violation.clause == "BPE-ROUNDTRIP"
    assert violation.inputs["ids"][-1] == 258 + 1 + past


@pytest.mark.parametrize("kind", BAD_ID_KINDS)
def test_the_error_bad_ids_demands_is_the_one_the_reference_raises(kind: str) -> None:
    """BPE-DECODE-STRICT / BPE-INPUT-IDS: the preferred error kind is the strict reference's own error."""
    rules = [(97, 98), (0xE4, 0xBD)]
    chosen = bad_ids(kind, rules, STRICT)
    assert chosen is not None
    ids, wanted, clause = chosen
    tokenizer = LiteralTokenizer()
    tokenizer.load(rules)
    with pytest.raises((ValueError, TypeError)) as caught:
        tokenizer.decode(ids)
    assert type(caught.value).__name__ == wanted
    assert clause in {CHECKS["decode-strict"].clause, *CHECKS["decode-strict"].also}


class UnknownIdsAreTypeErrors(LiteralTokenizer):
    """Rejects unknown ids with a TypeError (strict prefers ValueError)."""

    def decode(self, ids: list[int]) -> str:
        if any(isinstance(token, int) and token >= 258 + len(self.rules) for token in ids):
            raise TypeError("unknown id")
        return super().decode(ids)


def test_a_far_unknown_id_is_judged_under_decode_strict() -> None:
    """BPE-DECODE-STRICT: a far unknown id must raise ValueError; TypeError is noted, ValueError is not."""
    example = {"documents": ["abab"], "max_merges": 2, "kind": "far unknown id", "prefix": "a"}
    with collecting() as notes:
        CHECKS["decode-strict"].verify(InProcessSubject(LiteralTokenizer), example)
    assert notes == []
    with collecting() as notes:
        CHECKS["decode-strict"].verify(InProcessSubject(UnknownIdsAreTypeErrors), example)
    assert len(notes) == 1
    assert "BPE-DECODE-STRICT" in notes[0] and "ValueError" in notes[0]


def _minbpe(decode: Any) -> type:
    class Minbpe:
        profile = MINBPE.name

        def __init__(self) -> None:
            self.model = ProfileModel(MINBPE)

        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            return self.model.train(documents, max_merges)

        def encode(self, text: str) -> list[int]:
            return self.model.encode(text)

    Minbpe.decode = decode
    return Minbpe


_UNKNOWN_UNDER_MINBPE = {"documents": ["abab"], "max_merges": 2, "kind": "far unknown id", "prefix": "a"}


def test_a_lenient_profile_raising_its_preferred_error_gets_no_note() -> None:
    """BPE-DECODE-STRICT under minbpe: an unknown id raises ValueError, as the profile does: no advisory."""

    def decode(self: Any, ids: list[int]) -> str:
        return self.model.decode(ids)

    with collecting() as notes:
        CHECKS["decode-strict"].verify(InProcessSubject(_minbpe(decode)), _UNKNOWN_UNDER_MINBPE)
    assert notes == []


def test_a_lenient_profile_raising_an_error_of_neither_family_is_a_violation() -> None:
    """BPE-DECODE-STRICT under minbpe: an unknown id answered by a KeyError is neither input-error family."""

    def decode(self: Any, ids: list[int]) -> str:
        if any(token >= 256 + len(self.model.rules) for token in ids):
            raise KeyError("unknown id")
        return self.model.decode(ids)

    with pytest.raises(Violation) as caught:
        CHECKS["decode-strict"].verify(InProcessSubject(_minbpe(decode)), _UNKNOWN_UNDER_MINBPE)
    assert caught.value.clause == "BPE-DECODE-STRICT"
    assert "KeyError" in caught.value.actual


class MalformedRules(LiteralTokenizer):
    """Trains a rule whose second part is an id no earlier rule made (rule-references reports it)."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        super().train(documents, max_merges)
        return [(97, 300)]


_MALFORMED = {"documents": ["abab", "a b"], "max_merges": 2, "texts": ["ab"]}


@pytest.mark.parametrize("name", ["encode-trained", "no-pre-tokenization", "rule-ids"])
def test_checks_that_need_valid_rules_leave_malformed_rules_to_rule_references(name: str) -> None:
    """BPE-ENCODE-ORDER, BPE-ENCODE-RAW, BPE-RULE-ID: malformed trained rules are not judged a second time."""
    CHECKS[name].verify(InProcessSubject(MalformedRules), dict(_MALFORMED))


class PreTokenizingWithMalformedRules(LiteralTokenizer):
    """Splits text at spaces before merging, and trains one valid rule that crosses a space plus a malformed one."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        self.load([(97, 32)])
        return [(97, 32), (97, 10**6)]

    def encode(self, text: str) -> list[int]:
        return [token for chunk in re.split("( )", text) if chunk for token in LiteralTokenizer.encode(self, chunk)]


def test_no_pre_tokenization_does_not_judge_encodings_under_malformed_rules() -> None:
    """BPE-ENCODE-RAW: with malformed rules the canonical encoding is undefined, so no violation is reported."""
    CHECKS["no-pre-tokenization"].verify(
        InProcessSubject(PreTokenizingWithMalformedRules), {"documents": ["a b a b"], "max_merges": 2}
    )


def test_every_validation_check_is_at_the_interface_level() -> None:
    """BPE-TRAIN-MAXMERGES, BPE-INPUT-DOCS, BPE-INPUT-TEXT, BPE-INPUT-IDS: input validation is interface-level."""
    validation = fresh("conformance.checks.validation")
    assert validation.VALIDATION_CHECKS
    assert {check.level for check in validation.VALIDATION_CHECKS} == {INTERFACE}
