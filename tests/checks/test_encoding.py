"""Tests of conformance/checks/encoding.py: the encoding checks (BPE-ENCODE-*).

Each test names the clause whose verdict it protects, on small fixed examples.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.encoding import (
    _with_variants,
    pre_tokenization_inapplicable,
    split_inapplicable,
    verify_encode_loaded_rules,
    verify_split,
)
from bpe_conformance.errors import ImplementationRaised, Violation
from bpe_conformance.reference import LiteralTokenizer, Tokenizer
from bpe_conformance.reference.profile_spec import parse_profile
from bpe_conformance.reference.profiles import STRICT
from bpe_conformance.zoo import by_name as zoo_by_name
from tests.checks.helpers import (
    CHECKS,
    assert_inapplicable,
    assert_ranges,
    checks_drawing_their_sizes,
    drawable,
    longest,
    violation_of,
)
from tests.support import broken_for_checks as broken
from tests.support.split_profile_trainers import CorrectSplitTrainer, EncodesAcrossChunks

if TYPE_CHECKING:
    from bpe_conformance.checks.examples import TextsExample


def _refusing(refuse: Any, profile: str) -> type:
    class Refusing(LiteralTokenizer):
        profile: str

        # The contract's load takes the rules alone; the reference's also takes a piece bound.
        def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:  # type: ignore[override]
            if refuse(rules):
                raise ValueError("two rules make the same piece")
            return super().load(rules)

    Refusing.profile = profile
    return Refusing


def test_only_a_piece_rank_encoder_may_refuse_rules_that_repeat_a_piece() -> None:
    """BPE-ENCODE-ORDER under tiktoken: one rank per piece, so a repeated piece may be refused with ValueError."""
    repeated = {"rules": [(97, 98), (97, 98)], "texts": ["abab"]}
    distinct = {"rules": [(97, 98), (258, 99)], "texts": ["abc"]}
    dialect_refusal = _refusing(lambda rules: len(set(rules)) < len(rules), "tiktoken")
    CHECKS["encode-loaded-rules"].verify(InProcessSubject(dialect_refusal), repeated)
    for implementation, example in (
        (_refusing(lambda rules: True, "tiktoken"), distinct),
        (_refusing(lambda rules: len(set(rules)) < len(rules), "strict"), repeated),
    ):
        with pytest.raises(ImplementationRaised, match="two rules make the same piece"):
            CHECKS["encode-loaded-rules"].verify(InProcessSubject(implementation), example)


class EncodesWordByWord(LiteralTokenizer):
    """Trains on the raw documents but encodes each run of spaces or non-spaces on its own."""

    def encode(self, text: str) -> list[int]:
        encode = super().encode
        return [token for chunk in re.findall(r"\s+|\S+", text) for token in encode(chunk)]


def recording_encodes(encoded: list[str]) -> type:
    """The literal reference, appending every text it is asked to encode to ``encoded``."""

    class RecordsEncodes(LiteralTokenizer):
        def encode(self, text: str) -> list[int]:
            encoded.append(text)
            return super().encode(text)

    return RecordsEncodes


def test_no_pre_tokenization_checks_the_encodings_too() -> None:
    """BPE-ENCODE-RAW: rules trained right but applied word by word are a violation of encoding."""
    example: dict[str, Any] = {"documents": ["the cat, the hat, the mat, the bat"], "max_merges": 2}
    violation = violation_of("no-pre-tokenization", EncodesWordByWord, example)
    assert (violation.clause, violation.inputs["text"]) == ("BPE-ENCODE-RAW", example["documents"][0])
    assert violation.message.startswith(f"encode({example['documents'][0]!r}) after training gave ids")


def test_no_pre_tokenization_encodes_the_documents_joined_by_space_comma_and_newline() -> None:
    """BPE-ENCODE-RAW: the joined documents put spaces and punctuation between pairs the rules know."""
    encoded: list[str] = []
    example = {"documents": ["ab", "cd"], "max_merges": 2}
    CHECKS["no-pre-tokenization"].verify(InProcessSubject(recording_encodes(encoded)), example)
    assert encoded == ["ab", "cd", "ab cd", "ab, cd", "ab\ncd"]


def test_no_pre_tokenization_reports_other_encoding_bugs_under_their_own_clause() -> None:
    """One bug, one clause: no-pre-tokenization fails on the wrong ids its example provokes, but rules applied
    last to first are localised to BPE-ENCODE-ORDER, not BPE-ENCODE-RAW, as encode-trained says too."""
    example = {"documents": ["abcbc", "abcbc"], "max_merges": 2}
    raw = violation_of("no-pre-tokenization", broken.EncodesRulesInReverse, example)
    trained = violation_of("encode-trained", broken.EncodesRulesInReverse, {**example, "texts": []})
    assert raw.clause == trained.clause == "BPE-ENCODE-ORDER"
    assert raw.localisation is not None
    assert raw.localisation["localised"]
    assert raw.localisation["stage"] == "rule-order"


def test_loaded_rules_are_checked_on_the_text_its_reverse_and_the_text_twice() -> None:
    """BPE-ENCODE-ORDER after load: the reverse and the doubled text put the rules' pairs in new places."""
    assert _with_variants(("abc", [(97, 98)])) == {"rules": [(97, 98)], "texts": ["abc", "cba", "abcabc"]}


class _ModelThatComesBackEveryFourthPass(Tokenizer):
    """Impure: each encoding of "xyxyxyxy" moves its model on one step of a cycle of four (reversed ids
    in three steps of four), so a check that encodes the other texts a multiple of four times misses it."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0

    def encode(self, text: str) -> list[int]:
        if text == "xyxyxyxy":
            self.steps += 1
        ids = super().encode(text)
        return ids if self.steps % 4 == 0 else ids[::-1]


def test_encode_pure_snapshots_again_after_encoding_the_other_texts_exactly_twice() -> None:
    """BPE-ENCODE-PURE: "encoding MUST NOT change the model". The check encodes the probes, the other
    texts twice, then the probes again; a model that has moved on by then is caught, whatever its cycle."""
    example = {"documents": ["abcd"], "max_merges": 0, "texts": []}
    with pytest.raises(Violation) as caught:
        CHECKS["encode-pure"].verify(InProcessSubject(_ModelThatComesBackEveryFourthPass), example)
    assert (caught.value.clause, caught.value.expected, caught.value.actual) == (
        "BPE-ENCODE-PURE",
        [97, 98, 99, 100],
        [100, 99, 98, 97],
    )


def test_no_pre_tokenization_is_skipped_under_a_pre_tokenizing_profile() -> None:
    """BPE-ENCODE-RAW: the reason names the profile's pattern and why the clause is moot."""
    words = dataclasses.replace(STRICT, name="words", pre_tokenization=r"\w+|\s+")
    reason = pre_tokenization_inapplicable(words)
    assert_inapplicable(
        reason,
        "words",
        r"pre_tokenization=\w+|\s+",
        "the profile splits text into chunks before merging",
    )
    assert pre_tokenization_inapplicable(STRICT) is None


def test_no_pre_tokenization_is_skipped_under_a_split_profile_naming_the_check_that_replaces_it() -> None:
    """BPE-ENCODE-RAW is replaced by BPE-PRETOK-SPLIT under a profile that names a split pattern."""
    assert_inapplicable(
        pre_tokenization_inapplicable(parse_profile("rustbpe+split=cl100k")),
        "rustbpe+split=cl100k",
        "split=cl100k",
        "the profile's split pattern replaces it: see pre-tokenization-split",
    )


def test_the_split_check_is_skipped_under_a_profile_without_a_split() -> None:
    """BPE-PRETOK-SPLIT: the reason names the profile, its missing split and why the clause is moot."""
    assert_inapplicable(split_inapplicable(STRICT), "strict", "split=None", "the profile names no split pattern")
    assert split_inapplicable(parse_profile("rustbpe+split=cl100k")) is None


def test_the_split_check_encodes_the_documents_joined_by_space_newline_and_nothing_then_the_texts() -> None:
    """BPE-PRETOK-SPLIT: the joined documents put chunk boundaries between pairs the rules know."""
    encoded: list[str] = []

    class RecordsEncodes(CorrectSplitTrainer):
        def encode(self, text: str) -> list[int]:
            encoded.append(text)
            return super().encode(text)

    verify_split(InProcessSubject(RecordsEncodes), {"documents": ["ab", "cd"], "max_merges": 2, "texts": ["x"]})
    assert encoded == ["ab", "cd", "ab cd", "ab\ncd", "abcd", "x"]


def test_the_split_check_says_a_wrong_encoding_came_after_training() -> None:
    """BPE-PRETOK-SPLIT: rules trained behind the split, applied across its chunks: the wrong ids are those of
    encode after training (not after load)."""
    example: TextsExample = {"documents": ["1212", "1212"], "max_merges": 1, "texts": []}
    with pytest.raises(Violation) as caught:
        verify_split(InProcessSubject(EncodesAcrossChunks), example)
    assert (caught.value.clause, caught.value.inputs["text"]) == ("BPE-PRETOK-SPLIT", "1212")
    assert caught.value.message.startswith("encode('1212') after training gave ids")
    # The counterexample shows the chunks both sides made: the pattern's, and the ids' tokens across them.
    assert caught.value.inputs["chunks"] == ["121", "2"]
    assert caught.value.message.endswith(
        "its chunks under split=cl100k: ['121', '2'], the ids' tokens: ['12', '12'] (token '12' spans two chunks)"
    )


class _SplitTrainerCrashingWhenPairsRunOut(CorrectSplitTrainer):
    """Right behind the split, but raises once no pair is left before the budget (minbpe's max() of nothing)."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        rules = super().train(documents, max_merges)
        if len(rules) < max_merges:
            raise ValueError("max() arg is an empty sequence")
        return rules


def test_the_split_check_leaves_a_crash_when_pairs_run_out_to_the_stop_rule() -> None:
    """BPE-PRETOK-SPLIT: training that raises once pairs run out gives no rules to judge the encodings by, so the
    split check has no verdict (stop-rule reports the crash); it neither fails nor errors."""
    example: TextsExample = {"documents": ["ab", "ab"], "max_merges": 8, "texts": []}
    with pytest.raises(ImplementationRaised):
        InProcessSubject(_SplitTrainerCrashingWhenPairsRunOut).train(["ab", "ab"], 8)
    verify_split(InProcessSubject(_SplitTrainerCrashingWhenPairsRunOut), example)  # no Violation, no error


@pytest.mark.parametrize(("name", "documents"), [("encode-trained", (4, 24)), ("encode-pure", (3, 20))])
def test_trained_encoding_examples_have_up_to_three_unseen_texts(
    monkeypatch: pytest.MonkeyPatch, name: str, documents: tuple[int, int]
) -> None:
    """BPE-ENCODE-ORDER, BPE-ENCODE-PURE: documents, max_merges from 0 to 24, and up to 3 unseen texts of up to
    24 characters (encode-trained: up to 4 documents of 24 characters; encode-pure: 3 of 20)."""
    max_documents, max_length = documents
    check = checks_drawing_their_sizes(monkeypatch, "bpe_conformance.checks.encoding")[name]
    ranges = {
        "documents": (lambda example: len(example["documents"]), 0, max_documents),
        "document length": (lambda example: longest(example["documents"]), 0, max_length),
        "max_merges": (lambda example: example["max_merges"], 0, 24),
        "texts": (lambda example: len(example["texts"]), 0, 3),
        "text length": (lambda example: longest(example["texts"]), 0, 24),
    }
    assert check.strategy is not None
    assert_ranges(check.strategy(), ranges)


def test_loaded_rule_examples_have_up_to_ten_rules_for_a_text_of_up_to_24_characters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """BPE-ENCODE-ORDER after load: a text and up to 10 rules aimed at it, then the text's variants."""
    check = checks_drawing_their_sizes(monkeypatch, "bpe_conformance.checks.encoding")["encode-loaded-rules"]
    ranges = {
        "rules": (lambda example: len(example["rules"]), 0, 10),
        "text length": (lambda example: len(example["texts"][0]), 24, 24),
    }
    assert check.strategy is not None
    assert_ranges(check.strategy(), ranges)
    example = drawable(check.strategy(), lambda example: True)
    assert example["texts"] == _with_variants((example["texts"][0], example["rules"]))["texts"]


def test_a_stale_encoding_after_a_second_load_is_blamed_on_load() -> None:
    """BPE-SER-LOAD: the same text encoded after a load of other rules gives what the first rules gave. Asked
    again, a fresh instance that loaded the same rules is right and one that held the first rules is not, so
    the loaded rules' departure is the load's (the encoder's answer alone would be rule order's symptom)."""
    subject = InProcessSubject(zoo_by_name("caches-encodings-across-models"))
    verify_encode_loaded_rules(subject, {"rules": [(97, 97)], "texts": ["abab"]})
    with pytest.raises(Violation) as caught:
        verify_encode_loaded_rules(subject, {"rules": [(97, 98)], "texts": ["abab"]})
    assert caught.value.clause == "BPE-SER-LOAD"
    assert caught.value.localisation is not None
    assert caught.value.localisation["stage"] == "load"
