"""A vocabulary-bound encoder in its own process: the vocabulary goes over the protocol (specs/protocol.md 3.4).

Python implementations served by ``bpe_conformance.adapters.host`` (no node needed): one that loads the
vocabulary, ports with one bug each, one with the vocabulary built in (and one whose built-in one differs),
one that crashes, and one that can be given no vocabulary at all.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.adapters import load_implementation
from bpe_conformance.adapters.protocol import VocabularySupport
from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.checks.production import PRODUCTION_CHECKS
from bpe_conformance.dialects.production import ProductionSetup, VocabularyBoundSubject, bind_vocabulary
from bpe_conformance.errors import HarnessError, ImplementationCrashed
from bpe_conformance.reference.pretokenization import CL100K, encode_production, split_text
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.settings import EFFORTS
from tests.support.production_subjects import CRASH_TEXT, VOCABULARY

if TYPE_CHECKING:
    from collections.abc import Iterator

SETUP = ProductionSetup(CL100K, VOCABULARY)
CHECKS = {check.name: check for check in PRODUCTION_CHECKS}


def _process(spec: str) -> ProcessSubject:
    subject = load_implementation(spec, isolation="process")
    assert isinstance(subject, ProcessSubject)
    return subject


@pytest.fixture
def bound_correct_port() -> Iterator[VocabularyBoundSubject]:
    bound = bind_vocabulary(_process("tests.support.broken_ports:CorrectPort"), SETUP)
    yield bound
    bound.close()


def test_the_host_declares_load_vocabulary_and_the_built_in_one() -> None:
    for spec, support in (
        ("tests.support.broken_ports:CorrectPort", VocabularySupport(loads=True)),
        ("tests.support.production_subjects:BuiltInPort", VocabularySupport(built_in="small-cl100k")),
        ("bpe_conformance.reference:Tokenizer", VocabularySupport()),
    ):
        subject = _process(spec)
        try:
            assert subject.vocabulary_support == support
        finally:
            subject.close()


def test_a_correct_port_over_the_protocol_passes_every_production_check(
    bound_correct_port: VocabularyBoundSubject,
) -> None:
    for name, check in CHECKS.items():
        result = run_check(check, bound_correct_port, EFFORTS["dev"], seed=0)
        assert result.outcome is Outcome.PASS, (name, result.message)


def test_a_broken_port_over_the_protocol_is_rejected_with_the_chunks() -> None:
    bound = bind_vocabulary(_process("tests.support.broken_ports:WhitespaceWithoutLookahead"), SETUP)
    try:
        result = run_check(CHECKS["production-encode"], bound, EFFORTS["dev"], seed=0)
    finally:
        bound.close()
    assert result.outcome is Outcome.FAIL
    assert result.clause == "BPE-PRETOK-SPLIT"
    divergence = (result.counterexample or {})["divergence"]
    text = (result.counterexample or {})["inputs"]["text"]
    assert divergence["chunks"] == split_text(text, CL100K)
    assert "".join(divergence["actual_tokens"]) == text
    assert re.search(r"spans two chunks|splits it where the pattern does not|splits the text elsewhere", result.message)


def test_the_vocabulary_is_sent_again_after_a_reset_and_after_a_crash() -> None:
    bound = bind_vocabulary(_process("tests.support.production_subjects:CrashingPort"), SETUP)
    text = "I'LL say 12345678  or\r\n  more"
    expected = encode_production(text, VOCABULARY, CL100K)
    try:
        assert bound.encode(text) == expected
        bound.reset()
        assert bound.encode(text) == expected
        with pytest.raises(ImplementationCrashed, match="exited with code 3"):
            bound.encode(CRASH_TEXT)
        assert bound.encode(text) == expected  # a new process, given the vocabulary before this call
    finally:
        bound.close()


def test_a_built_in_vocabulary_over_the_protocol_is_compared_with_the_file() -> None:
    bound = bind_vocabulary(_process("tests.support.production_subjects:BuiltInPort"), SETUP)
    try:
        result = run_check(CHECKS["production-encode"], bound, EFFORTS["dev"], seed=0)
    finally:
        bound.close()
    assert result.outcome is Outcome.PASS, result.message
    other = _process("tests.support.production_subjects:BuiltInOtherPiece")
    last = VOCABULARY.size - 1
    try:
        with pytest.raises(HarnessError, match=rf"built-in vocabulary 'small-cl100k' is not .*decode\(\[{last}\]\)"):
            bind_vocabulary(other, SETUP)
    finally:
        other.close()


def test_a_decode_policy_is_no_reason_to_refuse_a_built_in_vocabulary() -> None:
    """Half a character decoding to nothing, an unknown id to '': the same pieces, another decode policy."""
    subject = _process("tests.support.production_subjects:BuiltInDropsPartial")
    try:
        assert bind_vocabulary(subject, SETUP).encode("naïve  12345") == encode_production(
            "naïve  12345", VOCABULARY, CL100K
        )
    finally:
        subject.close()


def test_an_implementation_without_either_way_is_a_usage_error_naming_the_protocol() -> None:
    subject = _process("bpe_conformance.reference:Tokenizer")
    try:
        with pytest.raises(HarnessError, match=r"declares no capability load_vocabulary .*specs/protocol.md 3.4"):
            bind_vocabulary(subject, SETUP)
    finally:
        subject.close()


def test_a_refused_vocabulary_is_a_usage_error_with_the_implementation_s_reason() -> None:
    subject = _process("tests.support.production_subjects:RefusingPort")
    try:
        with pytest.raises(HarnessError, match=r"load_vocabulary refused .*: ValueError: this port takes at most 100"):
            bind_vocabulary(subject, SETUP)
    finally:
        subject.close()


def test_only_gapless_ranks_are_sent() -> None:
    subject = _process("tests.support.broken_ports:CorrectPort")
    try:
        with pytest.raises(ValueError, match="without a gap"):
            subject.load_vocabulary({b"a": 1}, {})
    finally:
        subject.close()
