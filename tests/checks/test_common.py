"""Tests of ``bpe_conformance.checks.common``: rejection verdicts, encoding models and cross-examination.

Each test pins one documented behaviour of the helpers shared by the checks, on a fixed small example.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.common import (
    PROBE_RULES,
    cross_examine_encodings,
    encoding_clause,
    expect_rejection,
    follow_up_texts,
    rejection_verdict,
    subject_answer,
    subject_encoder,
    subject_retrainer,
    training_examples,
    training_violation,
    verify_encodings,
    verify_training_rounds,
)
from bpe_conformance.checks.encoding_models import _ENCODING_MODELS, EncodingModel
from bpe_conformance.diagnosis import judge_rounds
from bpe_conformance.dialects.context import profile_encode
from bpe_conformance.errors import ImplementationRaised, Violation
from bpe_conformance.reference import LiteralTokenizer
from bpe_conformance.reference.profile_spec import parse_profile
from bpe_conformance.reference.profiles import MINBPE, RUSTBPE, STRICT
from bpe_conformance.results.advisories import collecting
from bpe_conformance.zoo import by_name as zoo_by_name
from tests.checks.helpers import dialect, drawable, violation_of
from tests.support import broken_for_checks as broken
from tests.support import localisation_bugs as bugs


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
        expect_rejection(
            _raiser("ValueError"),
            clause="BPE-INPUT-DOCS",
            what="train(5, 3)",
            inputs={"documents": 5},
            kind="ValueError",
        )
        expect_rejection(
            _raiser("UnicodeDecodeError", ("UnicodeError", "ValueError")),
            clause="BPE-INPUT-DOCS",
            what="train(5, 3)",
            inputs={"documents": 5},
            kind="ValueError",
        )
    assert notes == []


def test_expect_rejection_notes_the_other_family() -> None:
    """BPE-INPUT-DOCS: the other input-error family is allowed, with an advisory note naming the clause."""
    with collecting() as notes:
        expect_rejection(
            _raiser("TypeError"),
            clause="BPE-INPUT-DOCS",
            what="train(5, 3)",
            inputs={"documents": 5},
            kind="ValueError",
        )
    assert len(notes) == 1
    assert "BPE-INPUT-DOCS" in notes[0]
    assert "TypeError" in notes[0]


def test_expect_rejection_reports_an_error_of_neither_family() -> None:
    """BPE-INPUT-DOCS: an error of neither family is a violation stating inputs, expected kind and actual error."""
    with pytest.raises(Violation) as caught:
        expect_rejection(
            _raiser("KeyError"), clause="BPE-INPUT-DOCS", what="train(5, 3)", inputs={"documents": 5}, kind="TypeError"
        )
    violation = caught.value
    assert violation.clause == "BPE-INPUT-DOCS"
    assert violation.inputs == {"documents": 5}
    assert violation.expected == "TypeError"
    assert "KeyError" in violation.actual
    assert "bad input" in violation.actual


def test_expect_rejection_reports_an_accepted_call() -> None:
    """BPE-INPUT-DOCS: bad input that is accepted is a violation carrying what was returned."""
    with pytest.raises(Violation) as caught:
        expect_rejection(
            lambda: [(97, 98)], clause="BPE-INPUT-DOCS", what="train(5, 3)", inputs={"documents": 5}, kind="TypeError"
        )
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
    assert "cba" in follow_ups
    assert "ed" in follow_ups


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
    rule_lists = [
        list(PROBE_RULES[0]),
        list(PROBE_RULES[1]),
        [(120, 44), (258, 121), (121, 32)],
        [(105, 116), (39, 115), (49, 50)],
        [(97, 97)],
        [(97, 32), (32, 98), (98, 32)],
    ]
    assert _parting(fixed, rule_lists) == fixed


def _recorder(answer_model: EncodingModel, asked: list[tuple[str, list[tuple[int, int]]]]) -> Any:
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
    cross_examine_encodings(
        [("A", agreeing), ("B", parts_on(1)), ("C", parts_on(2))],
        ["ab"],
        given,
        RUSTBPE,
        _recorder(agreeing, asked),
        PROBE_RULES,
    )
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
    kept = cross_examine_encodings(
        [("X", always_one), ("Y", one_on_first)], ["ab"], [(97, 98)], STRICT, _recorder(always_one, asked)
    )
    assert [clause for clause, _ in kept] == ["X"]
    assert asked
    assert all(text != "ab" for text, _ in asked)


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


def _stale_cache_under_a_b() -> InProcessSubject:
    """The zoo's encode cache holding rule (a, b), with "abab" cached from when it held (a, a)."""
    subject = InProcessSubject(zoo_by_name("caches-encodings-across-models"))
    subject.load([(97, 97)])
    subject.encode("abab")
    subject.load([(97, 98)])
    return subject


def test_a_fresh_subject_encoder_resets_and_loads_even_the_rules_the_subject_holds() -> None:
    """Localisation's questions go to a fresh instance: even under the rules the subject holds now, the encoder
    resets it and loads them, so what it kept from earlier calls (a stale cache here) answers no question."""
    subject = _stale_cache_under_a_b()
    assert subject.encode("abab") == [97, 98, 97, 98]  # the stale answer
    encode = subject_encoder(subject, [(97, 98)], fresh=True)
    assert encode("abab", [(97, 98)]) == [258, 258]


@pytest.mark.parametrize(
    ("text", "answer", "rules", "profile", "clause"),
    [
        ("ab", [256, 97], [(97, 98)], STRICT, "BPE-ENCODE-BOUNDARY"),
        ("ab", [256, 97], [(97, 98)], MINBPE, "BPE-ENCODE-ORDER"),  # 256 is minbpe's first rule, no boundary
        ("ab", [98, 97], [], STRICT, "BPE-ALPHA-BYTES"),
        ("aabb", [260, 98], [(97, 97), (98, 98), (258, 98)], STRICT, "BPE-MERGE-NOREMATCH"),
        ("aabb", [258, 98], [(97, 97), (98, 98), (256, 98)], MINBPE, "BPE-MERGE-NOREMATCH"),
        ("aaa", [97, 258], [(97, 97)], STRICT, "BPE-MERGE-SCAN"),  # scanned from the right
        ("aaa", [97, 256], [(97, 97)], MINBPE, "BPE-MERGE-SCAN"),
        ("aaa", [258, 258], [(97, 97)], STRICT, "BPE-MERGE-SCAN"),  # overlapping windows both merged
        ("aaa", [256, 256], [(97, 97)], MINBPE, "BPE-MERGE-SCAN"),
        ("aaa", [97, 259], [(98, 98), (97, 97)], STRICT, "BPE-MERGE-SCAN"),  # scanned from the right, rule 1
        ("aaa", [259, 259], [(98, 98), (97, 97)], STRICT, "BPE-MERGE-SCAN"),  # overlapping windows, rule 1
        ("caabb", [99, 260, 98], [(97, 97), (98, 98), (258, 98)], STRICT, "BPE-MERGE-NOREMATCH"),  # after a byte
        ("ab,ab", [97, 98, 44, 97, 98], [(98, 44)], STRICT, "BPE-ENCODE-RAW"),  # split at punctuation
        ("ab,ab", [97, 98, 44, 97, 98], [(98, 44)], MINBPE, "BPE-ENCODE-RAW"),
        ("a ,b", [97, 32, 44, 98], [(32, 44), (44, 98)], STRICT, "BPE-ENCODE-RAW"),  # space apart from punctuation
        ("\x80,", [194, 128, 44], [(128, 44)], STRICT, "BPE-ENCODE-RAW"),  # U+0080 is a word character
        ("ab ab", [97, 98, 32, 97, 98], [(98, 32)], STRICT, "BPE-ENCODE-RAW"),
        ("aba ", [258, 97, 32], [(97, 98), (97, 32)], STRICT, "BPE-ENCODE-RAW"),  # a chunk of several characters
        ("xyz", [1], [(97, 98)], STRICT, "BPE-ENCODE-ORDER"),
        ("abc", [259, 99], [(98, 99), (97, 98)], STRICT, "BPE-ENCODE-ORDER"),  # rules applied last to first
        ("abc", [257, 99], [(98, 99), (97, 98)], MINBPE, "BPE-ENCODE-ORDER"),
    ],
)
def test_a_wrong_encoding_is_blamed_on_the_bug_that_reproduces_it(
    text: str, answer: list[int], rules: list[tuple[int, int]], profile: Any, clause: str
) -> None:
    """Each model of an encoding bug names its clause only when it gives exactly the wrong ids."""
    assert encoding_clause([(text, answer)], rules, profile) == clause
    assert profile_encode(text, rules, profile) != answer


def test_the_encoding_models_need_every_wrong_answer_reproduced() -> None:
    """One answer a scan model explains and one it does not: no model fits both, so the order clause."""
    wrong = [("aaa", [97, 258]), ("abab", [98, 97, 98, 97])]
    assert encoding_clause(wrong[:1], [(97, 97)]) == "BPE-MERGE-SCAN"
    assert encoding_clause(wrong, [(97, 97)]) == "BPE-ENCODE-ORDER"


def test_a_wrong_encoding_names_the_text_the_context_and_the_profile() -> None:
    """The message says which text, after what, how many texts were wrong (of several), under which profile."""
    rules = [(98, 99), (97, 258)]
    subject = InProcessSubject(broken.EncodesRulesInReverse)
    subject.load(rules)
    with pytest.raises(Violation) as caught:
        verify_encodings(subject, ["abc"], rules, context="after load(rules)")
    violation = caught.value
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-ENCODE-ORDER", [259], [97, 258])
    assert (
        violation.message
        == "encode('abc') after load(rules) gave ids that are not the canonical encoding under the model's rules"
    )

    def encode_right_to_left(self: Any, text: str) -> list[int]:
        ids = list(text.encode("utf-8"))
        for rank, pair in enumerate(self.model.rules):
            ids = broken.replace_right_to_left(ids, pair, 256 + rank)
        return ids

    loading = dialect(MINBPE, encode=encode_right_to_left, load=lambda self, rules: self.model.load(rules))
    example = {"rules": [(97, 97)], "texts": ["aaa", "aaaa"]}
    violation = violation_of("encode-loaded-rules", loading, example)
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-MERGE-SCAN", [256, 97], [97, 256])
    assert violation.message.endswith(" (1 of 2 texts were wrong) (profile minbpe: rank-order)")


def test_subject_answer_asks_a_fresh_instance_the_operation_under_the_rules() -> None:
    """The answer to encode is encode's, to decode decode's, each on a fresh instance that loaded the rules."""
    subject = InProcessSubject(LiteralTokenizer)
    subject.load([(98, 97)])
    assert subject_answer(subject, "encode", "abab")([(97, 98)], None) == [258, 258]
    assert subject_answer(subject, "decode", [258])([(97, 98)], None) == "ab"


class DecodesUnknownIdsAsNone(LiteralTokenizer):
    """Answers None (no text: a malformed answer) for ids it has no piece for, instead of raising."""

    def decode(self, ids: list[int]) -> Any:
        try:
            return super().decode(ids)
        except ValueError:
            return None


@pytest.mark.parametrize("implementation", [LiteralTokenizer, DecodesUnknownIdsAsNone], ids=["raises", "malformed"])
def test_subject_answer_goes_on_whatever_the_question_under_the_earlier_rules_answered(implementation: type) -> None:
    """Id 258 has no piece under no rules: the decoder raises there, or answers no text, and is asked again
    after loading (97, 98); only that last answer counts."""
    answer = subject_answer(InProcessSubject(implementation), "decode", [258])
    assert answer([(97, 98)], []) == "ab"


def test_subject_answer_asks_under_the_earlier_rules_first() -> None:
    """An encoder that memoises across loads answers "abab" with what it encoded under (97, 98), held before
    (98, 97); a fresh instance, asked nothing before, encodes it right."""
    answer = subject_answer(InProcessSubject(bugs.EncodingsMemoisedPerTrain), "encode", "abab")
    assert answer([(98, 97)], [(97, 98)]) == [258, 258]
    assert answer([(98, 97)], None) == [97, 258, 98]


def test_a_wrong_encoding_kept_from_before_a_load_is_blamed_on_loading() -> None:
    """BPE-SER-LOAD: a fresh instance encodes "abab" right under the loaded rules (the control), one that held
    other rules and was asked the same text first does not: the load did not adopt the rules whole."""
    subject = InProcessSubject(bugs.EncodingsMemoisedPerTrain)
    subject.load([(97, 98)])
    subject.encode("abab")
    subject.load([(98, 97)])
    with pytest.raises(Violation) as caught:
        verify_encodings(subject, ["abab"], [(98, 97)], context="after load(rules)", loaded=True)
    violation = caught.value
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-SER-LOAD", [97, 258, 98], [258, 258])
    localisation = violation.localisation
    assert localisation is not None
    assert (localisation["localised"], localisation["stage"]) == (True, "load")
    experiments = localisation["experiments"]
    assert isinstance(experiments, list)
    assert [(experiment["control"], experiment["agrees"]) for experiment in experiments] == [
        (True, True),
        (False, False),
    ]
    assert [experiment["inputs"]["text"] for experiment in experiments] == ["abab", "abab"]


def _model_of(clause: str) -> EncodingModel:
    return next(model for model_clause, model in _ENCODING_MODELS if model_clause == clause)


class RematchesInTheSameRound(LiteralTokenizer):
    """Encodes as the same-round-rematch model of a bug does (BPE-MERGE-NOREMATCH); trains right."""

    def encode(self, text: str) -> list[int]:
        return _model_of("BPE-MERGE-NOREMATCH")(text, self.rules, STRICT)


def test_an_encoding_two_bug_models_explain_is_blamed_once_the_implementation_answered_follow_ups() -> None:
    """BPE-MERGE-NOREMATCH: "a a" under [(32, 97), (97, 32)] encodes to [259, 97] both when the rules are
    applied out of rank order (BPE-ENCODE-ORDER) and when a made id is rematched in its own round; only the
    implementation's answers to follow-up texts ("a b a b" parts them) may pick one, and without them no
    clause but the generic one is named."""
    rules = [(32, 97), (97, 32)]
    for clause in ("BPE-ENCODE-ORDER", "BPE-MERGE-NOREMATCH"):
        assert _model_of(clause)("a a", rules, STRICT) == [259, 97]
    assert encoding_clause([("a a", [259, 97])], rules) == "BPE-ENCODE-ORDER"
    subject = InProcessSubject(RematchesInTheSameRound)
    subject.load(rules)
    encoder = subject_encoder(subject, rules)
    assert encoding_clause([("a a", [259, 97])], rules, STRICT, encoder) == "BPE-MERGE-NOREMATCH"
    # The check's clause comes from localisation, not from a model: this single pass also breaks rank order
    # itself (rules (b, c), (a, b) on "abc"), so the violation names BPE-ENCODE-ORDER, as the zoo's stack
    # encoder is classed; the rematch question is asked only of an encoder that keeps rank order.
    with pytest.raises(Violation) as raised:
        verify_encodings(subject, ["a a"], rules, context="after load")
    assert raised.value.localisation is not None
    assert raised.value.clause == "BPE-ENCODE-ORDER"
    assert raised.value.localisation["stage"] == "rule-order"
    rank_order = next(e for e in raised.value.localisation["experiments"] if e["stage"] == "no-rematch")
    assert rank_order["control"]
    assert rank_order["agrees"] is False
    assert (raised.value.expected, raised.value.actual) == ([97, 258], [259, 97])


def test_training_examples_ask_for_0_to_24_merges_unless_told_otherwise() -> None:
    """BPE-TRAIN-STOP: the training checks' examples reach 0 and 24 merges, and never more than 24."""
    examples = training_examples(st.just(["ab"]))
    for end in (0, 24):
        # mypy cannot infer a lambda with default arguments (bound to fix the loop's values)
        assert drawable(examples, lambda example, end=end: example["max_merges"] == end)["max_merges"] == end  # type: ignore[misc]
    with pytest.raises(NoSuchExample):
        drawable(examples, lambda example: example["max_merges"] > 24)


def test_a_training_violation_carries_the_localised_stage_in_its_divergence() -> None:
    """BPE-TRAIN-DOCS: asked of the trainer, the divergence names the stage, its clause and that it is
    localised; not asked (no trainer given), the clause is the symptom's and nothing claims a stage."""
    documents = ["xay", "xby", "xcy"]
    actual = broken.TrainsOnJoinedDocuments().train(documents, 1)
    judgement = next(judge_rounds(documents, 1, actual, STRICT))
    asked = training_violation(judgement, documents, 1, actual, STRICT, broken.TrainsOnJoinedDocuments().train)
    assert asked.clause == "BPE-TRAIN-DOCS"
    assert asked.divergence is not None
    divergence = asked.divergence
    assert (divergence["clause"], divergence["localised"], divergence["stage"]) == ("BPE-TRAIN-DOCS", True, "documents")
    assert asked.localisation is not None
    assert asked.localisation["stage"] == "documents"
    unasked = training_violation(judgement, documents, 1, actual)
    assert unasked.clause == judgement.kind.clause
    assert unasked.localisation is None
    assert unasked.divergence is not None
    assert "stage" not in unasked.divergence


@pytest.mark.parametrize(
    ("profile", "chunks"),
    [("rustbpe+split=cl100k", [["ab", " cd"], ["ef"]]), ("minbpe+split=cl100k", [["ab", " cdef"]])],
    ids=["documents-apart", "documents-joined"],
)
def test_a_training_violation_behind_a_split_shows_the_chunks_the_pattern_makes(
    profile: str, chunks: list[list[str]]
) -> None:
    """Behind a split the counterexample shows each document's chunks, or the joined text's where the profile
    joins its documents (the chunks are then those of the one text)."""
    documents, actual = ["ab cd", "ef"], [(101, 102)]
    judged = parse_profile(profile)
    judgement = next(judge_rounds(documents, 1, actual, judged))
    violation = training_violation(judgement, documents, 1, actual, judged)
    assert violation.inputs["chunks"] == chunks
    assert violation.message.startswith("train(documents, 1) ")  # the chunks follow the finding, not replace it
    assert f"chunks under split=cl100k: {chunks!r}" in violation.message


class _BoundaryIdFirst(LiteralTokenizer):
    """Starts every encoding with the boundary id 256 (BPE-ENCODE-BOUNDARY)."""

    def encode(self, text: str) -> list[int]:
        return [256, *super().encode(text)]


class _BytesReversed(LiteralTokenizer):
    """Encodes a text's bytes in reverse order (with no rules loaded: BPE-ALPHA-BYTES)."""

    def encode(self, text: str) -> list[int]:
        return super().encode(text)[::-1]


@pytest.mark.parametrize(
    ("implementation", "rules", "clause"),
    [(_BoundaryIdFirst, [(97, 98)], "BPE-ENCODE-BOUNDARY"), (_BytesReversed, [], "BPE-ALPHA-BYTES")],
    ids=["boundary-id", "no-rules"],
)
def test_encodings_the_ids_alone_convict_are_named_without_questions(
    implementation: type, rules: list[tuple[int, int]], clause: str
) -> None:
    """A boundary id in the ids, or wrong ids with no rules loaded, names its clause from the ids alone: no
    stage is asked about, so nothing is localised and the message carries no label."""
    subject = InProcessSubject(implementation)
    subject.load(rules)
    with pytest.raises(Violation) as caught:
        verify_encodings(subject, ["ab"], rules, context="after load(rules)", loaded=True)
    assert caught.value.clause == clause
    assert caught.value.localisation is None
    assert caught.value.message.startswith("encode('ab') after load(rules) gave ids")


def test_an_encoding_the_questions_cannot_localise_is_labelled_unlocalised() -> None:
    """A stale cache after rules that did not come from ``load``: a fresh instance encodes the text right, and
    without a load to blame no stage is found; the message begins by saying so."""
    subject = _stale_cache_under_a_b()
    with pytest.raises(Violation) as caught:
        verify_encodings(subject, ["abab"], [(97, 98)], context="after training")
    assert caught.value.localisation is not None
    assert caught.value.localisation["localised"] is False
    assert caught.value.message.startswith(f"{caught.value.localisation['label']}: encode('abab') after training")


class _ReversedWithoutLoad(_BytesReversed):
    capabilities = ("train", "encode", "decode")


def test_an_encoding_of_an_implementation_without_load_is_still_judged() -> None:
    """Without ``load`` no question under other rules can be asked; the wrong ids are still a violation with a
    clause (the harness does not break on the rules it cannot hand over)."""
    subject = InProcessSubject(_ReversedWithoutLoad)
    rules = subject.train(["abab", "abab"], 1)
    with pytest.raises(Violation) as caught:
        verify_encodings(subject, ["abc"], rules, context="after training")
    assert caught.value.clause.startswith("BPE-")
    assert (caught.value.expected, caught.value.actual) == ([258, 99], [99, 258])


class _CountsInstances:
    """Counts the instances of the class it is mixed into: one when a subject starts, one more per reset."""

    instances = 0

    def __init__(self) -> None:
        super().__init__()
        type(self).instances += 1


class _CountsTraining(_CountsInstances, LiteralTokenizer):
    """The literal reference, counting its instances and its trainings."""

    trainings = 0

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        type(self).trainings += 1
        return super().train(documents, max_merges)


def _counted_subject() -> InProcessSubject:
    """A subject whose counts start at 0 once it has made its first instance."""
    subject = InProcessSubject(_CountsTraining)
    _CountsTraining.instances = _CountsTraining.trainings = 0
    return subject


def test_a_subject_answers_a_small_question_once_across_retrainers_up_to_4096_characters() -> None:
    """Answers to questions of at most 4096 characters are kept for the subject's life: a later retrainer reuses
    them without training (and records nothing it trained); a larger question is trained again."""
    subject = _counted_subject()
    for documents in (["ab" * 1024, "ab" * 1024], ["ab" * 1024, "ab" * 1024 + "a"]):
        first, _ = subject_retrainer(subject)
        second, trained = subject_retrainer(subject)
        assert first(documents, 2) == second(documents, 2) == [(97, 98), (258, 258)]
        assert trained == ({} if sum(map(len, documents)) <= 4096 else {(tuple(documents), 2): [(97, 98), (258, 258)]})
    assert _CountsTraining.trainings == 3  # 4096 characters once, 4097 twice
    assert _CountsTraining.instances == 0  # the diagnosis's retrainer never resets the subject


def test_fresh_questions_reset_the_subject_and_never_reuse_answers_given_without_a_reset() -> None:
    """Localisation's questions (``fresh``) are answered by a reset subject: an answer the diagnosis's retrainer got
    from the subject as it was is not taken for one, but fresh answers are kept for later fresh questions."""
    subject = _counted_subject()
    plain, _ = subject_retrainer(subject)
    plain(["abab"], 2)
    fresh, trained = subject_retrainer(subject, fresh=True)
    assert fresh(["abab"], 2) == [(97, 98)]
    assert trained == {(("abab",), 2): [(97, 98)]}
    assert (_CountsTraining.trainings, _CountsTraining.instances) == (2, 1)
    again, _ = subject_retrainer(subject, fresh=True)
    again(["abab"], 2)
    assert (_CountsTraining.trainings, _CountsTraining.instances) == (2, 1)


class _ReplacesOverlappingCountingResets(_CountsInstances, broken.ReplacesOverlapping):
    """Replaces overlapping windows in training, counting its instances."""


def test_a_training_violation_names_the_confirmed_cause_and_localises_on_a_reset_subject() -> None:
    """The rounds are judged with the implementation in the loop (a cause is confirmed by retraining it), and the
    stage questions are asked of a reset subject each time."""
    subject = InProcessSubject(_ReplacesOverlappingCountingResets)
    _ReplacesOverlappingCountingResets.instances = 0
    with pytest.raises(Violation) as raised:
        verify_training_rounds(subject, {"documents": ["aaaa", "bcbc"], "max_merges": 8})
    divergence = raised.value.divergence or {}
    assert divergence["confirmed"] is True
    assert "overlapping occurrences all replaced" in divergence["cause"]
    assert _ReplacesOverlappingCountingResets.instances > 0
