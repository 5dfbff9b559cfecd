"""Kill tests for ``conformance.checks.common``: rejection verdicts, encoding models and cross-examination.

Each test pins one documented behaviour of the helpers shared by the checks, on a fixed small example.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.common import (
    _ENCODING_MODELS,
    PROBE_RULES,
    cross_examine_encodings,
    encoding_clause,
    expect_rejection,
    follow_up_texts,
    rejection_verdict,
    subject_encoder,
)
from conformance.errors import ImplementationRaised, Violation
from conformance.results.advisories import collecting
from reference.profiles import RUSTBPE, STRICT


def _raiser(kind: str, ancestors: tuple[str, ...] = ()) -> Any:
    def call() -> Any:
        raise ImplementationRaised("train", kind, "bad input", ancestors)

    return call


def test_rejection_verdict_names_preferred_other_and_outside_families() -> None:
    """BPE-INPUT-DOCS: the preferred family, the other allowed family, and neither, are three verdicts."""
    assert rejection_verdict(ImplementationRaised("train", "ValueError", ""), "ValueError") == "preferred"
    assert rejection_verdict(ImplementationRaised("train", "TypeError", ""), "ValueError") == "other"
    assert rejection_verdict(ImplementationRaised("train", "KeyError", ""), "ValueError") == "outside"
    assert rejection_verdict(ImplementationRaised("train", "KeyError", ""), "TypeError") == "outside"


def test_expect_rejection_accepts_the_preferred_family_without_a_note() -> None:
    """BPE-INPUT-DOCS: raising the preferred family (a subclass too) passes and leaves no advisory note."""
    with collecting() as notes:
        expect_rejection(_raiser("ValueError"), clause="BPE-INPUT-DOCS", what="train(5, 3)",
                         inputs={"documents": 5}, kind="ValueError")
        expect_rejection(_raiser("UnicodeDecodeError", ("UnicodeError", "ValueError")), clause="BPE-INPUT-DOCS",
                         what="train(5, 3)", inputs={"documents": 5}, kind="ValueError")
    assert notes == []


def test_expect_rejection_notes_the_other_family() -> None:
    """BPE-INPUT-DOCS: the other input-error family is allowed, with an advisory note naming the clause."""
    with collecting() as notes:
        expect_rejection(_raiser("TypeError"), clause="BPE-INPUT-DOCS", what="train(5, 3)",
                         inputs={"documents": 5}, kind="ValueError")
    assert len(notes) == 1
    assert "BPE-INPUT-DOCS" in notes[0] and "TypeError" in notes[0]


def test_expect_rejection_reports_an_error_of_neither_family() -> None:
    """BPE-INPUT-DOCS: an error of neither family is a violation stating inputs, expected kind and actual error."""
    with pytest.raises(Violation) as caught:
        expect_rejection(_raiser("KeyError"), clause="BPE-INPUT-DOCS", what="train(5, 3)",
                         inputs={"documents": 5}, kind="TypeError")
    violation = caught.value
    assert violation.clause == "BPE-INPUT-DOCS"
    assert violation.inputs == {"documents": 5}
    assert violation.expected == "TypeError"
    assert "KeyError" in violation.actual and "bad input" in violation.actual


def test_expect_rejection_reports_an_accepted_call() -> None:
    """BPE-INPUT-DOCS: bad input that is accepted is a violation carrying what was returned."""
    with pytest.raises(Violation) as caught:
        expect_rejection(lambda: [(97, 98)], clause="BPE-INPUT-DOCS", what="train(5, 3)",
                         inputs={"documents": 5}, kind="TypeError")
    assert caught.value.inputs == {"documents": 5}
    assert caught.value.expected == "TypeError"


def test_a_word_pretokenizing_encoder_is_diagnosed_as_raw_encoding() -> None:
    """BPE-ENCODE-RAW: ids made by splitting words from punctuation (no pre-tokenization allowed) name it.

    Under rules "it" then "'s", splitting "it's" into "it", "'", "s" gives [258, 39, 115], which no other
    model (whitespace split, GPT-2 pattern, reverse order, rematching) gives.
    """
    rules = [(105, 116), (39, 115)]
    assert encoding_clause([("it's", [258, 39, 115])], rules) == "BPE-ENCODE-RAW"


def test_follow_up_texts_hold_the_wrong_texts_joined_and_reversed() -> None:
    """BPE-ENCODE-ORDER diagnosis: follow-ups are the wrong texts joined by a space, by ", ", and each reversed."""
    follow_ups = follow_up_texts(["abc", "de"])
    assert "abc de" in follow_ups
    assert "abc, de" in follow_ups
    assert "cba" in follow_ups and "ed" in follow_ups


def _parting(texts: list[str], rule_lists: list[list[tuple[int, int]]]) -> list[str]:
    parted = []
    for text in texts:
        for rules in rule_lists:
            if len({tuple(model(text, rules, STRICT)) for _, model in _ENCODING_MODELS}) > 1:
                parted.append(text)
                break
    return parted


def test_every_fixed_follow_up_parts_the_encoding_models() -> None:
    """BPE-ENCODE-ORDER diagnosis: each fixed follow-up text parts some encoding models under the probe rules
    or rules over its own letters, so asking it can drop a wrong model."""
    fixed = follow_up_texts([])[2:]
    assert fixed
    rule_lists = [list(PROBE_RULES[0]), list(PROBE_RULES[1]), [(120, 44), (258, 121), (121, 32)],
               [(105, 116), (39, 115), (49, 50)], [(97, 97)], [(97, 32), (32, 98), (98, 32)]]
    assert _parting(fixed, rule_lists) == fixed


def _recorder(answer_model: Any, asked: list[tuple[str, list[tuple[int, int]]]]) -> Any:
    def encode(text: str, rules: list[tuple[int, int]]) -> list[int]:
        asked.append((text, list(rules)))
        return answer_model(text, rules, STRICT)

    return encode


def test_probe_rules_are_asked_in_the_profile_numbering() -> None:
    """BPE-ENCODE-ORDER diagnosis: probe rules are renumbered to the profile's first rule id (bytes unchanged)."""
    given = [(0, 0)]
    last = follow_up_texts(["ab"])[-1]

    def agreeing(text: str, rules: Any, profile: Any) -> list[int]:
        return [0]

    def parts_on(probe: int) -> Any:
        def model(text: str, rules: Any, profile: Any) -> list[int]:
            return [probe] if rules != given and text == last and len(rules) == len(PROBE_RULES[probe - 1]) else [0]

        return model

    asked: list[tuple[str, list[tuple[int, int]]]] = []
    cross_examine_encodings([("A", agreeing), ("B", parts_on(1)), ("C", parts_on(2))], ["ab"], given, RUSTBPE,
                            _recorder(agreeing, asked), PROBE_RULES)
    shift = RUSTBPE.first_rule_id - STRICT.first_rule_id
    assert shift == -2
    assert [rules for _, rules in asked] == [[(97, 32), (256, 98)], [(98, 97), (97, 256), (32, 97)]]


def test_cross_examination_keeps_asking_after_a_text_the_models_agree_on() -> None:
    """BPE-ENCODE-ORDER diagnosis: a follow-up all candidates agree on is skipped, not the end of the rule list."""
    def always_one(text: str, rules: Any, profile: Any) -> list[int]:
        return [1]

    def one_on_first(text: str, rules: Any, profile: Any) -> list[int]:
        return [1] if text == "ab" else [2]

    asked: list[tuple[str, list[tuple[int, int]]]] = []
    kept = cross_examine_encodings([("X", always_one), ("Y", one_on_first)], ["ab"], [(97, 98)], STRICT,
                                   _recorder(always_one, asked))
    assert [clause for clause, _ in kept] == ["X"]
    assert asked and all(text != "ab" for text, _ in asked)


class _CountingLoads:
    """A stand-in subject that records each load and encodes every text as its byte count."""

    def __init__(self) -> None:
        self.loads: list[list[tuple[int, int]]] = []

    def supports(self, capability: str) -> bool:
        return True

    def load(self, rules: list[tuple[int, int]]) -> None:
        self.loads.append(list(rules))

    def encode(self, text: str) -> list[int]:
        return [len(self.loads)]


def test_subject_encoder_loads_other_rules_once() -> None:
    """BPE-ENCODE-ORDER diagnosis: the encoder loads rules other than its current ones once, then keeps them."""
    subject = _CountingLoads()
    encode = subject_encoder(subject, [(97, 98)])  # type: ignore[arg-type]
    assert encode("ab", [(97, 98)]) == [0]
    assert subject.loads == []
    encode("ab", [(98, 97)])
    encode("ba", [(98, 97)])
    assert subject.loads == [[(98, 97)]]
    encode("ab", [(97, 98)])
    assert subject.loads == [[(98, 97)], [(97, 98)]]
