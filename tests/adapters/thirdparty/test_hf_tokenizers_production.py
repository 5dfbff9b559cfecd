"""HF tokenizers behind GPT-2's ByteLevel pattern, judged under profile gpt2 on a vocabulary built in the test."""

from __future__ import annotations

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.production import PRODUCTION_CHECKS
from bpe_conformance.dialects.production import ProductionSetup, VocabularyBoundSubject
from bpe_conformance.reference.pretokenization import GPT2
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.settings import EFFORTS
from tests.support.vocabularies import trained_vocabulary

pytest.importorskip("tokenizers")
from bpe_conformance.adapters.thirdparty.hf_tokenizers_production import HFByteLevelGpt2, merge_of

SETUP = ProductionSetup(GPT2, trained_vocabulary(merges=300, special_tokens=dict(GPT2.special_tokens)))
CHECKS = {check.name: check for check in PRODUCTION_CHECKS}


def _run(implementation: type, check: str) -> Outcome:
    subject = VocabularyBoundSubject(InProcessSubject(implementation), SETUP)
    return run_check(CHECKS[check], subject, EFFORTS["dev"], seed=0).outcome


class _HonoursSpecials(HFByteLevelGpt2):
    """HF's default: added tokens are matched in any text."""

    def load_vocabulary(self, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> None:
        super().load_vocabulary(ranks, special_tokens)
        self._loaded().encode_special_tokens = False


def test_hf_bytelevel_passes_the_algorithm_level_of_gpt2() -> None:
    for name, check in CHECKS.items():
        if check.level == "algorithm":
            assert _run(HFByteLevelGpt2, name) is Outcome.PASS, name


def test_hf_default_of_matching_added_tokens_is_rejected_as_special_in_ordinary_text() -> None:
    subject = VocabularyBoundSubject(InProcessSubject(_HonoursSpecials), SETUP)
    result = run_check(CHECKS["production-encode"], subject, EFFORTS["dev"], seed=0)
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-SPECIAL-ORDINARY")


def test_a_merge_is_the_pair_lowest_rank_merging_ends_in() -> None:
    ranks = {bytes([value]): value for value in range(256)} | {b"bc": 256, b"ab": 257, b"abc": 258}
    assert merge_of(b"abc", 258, ranks) == (b"a", b"bc")
    unreachable = {bytes([value]): value for value in range(256)} | {b"bc": 256, b"ab": 257, b"cd": 258}
    with pytest.raises(ValueError, match="not reached by merging"):
        merge_of(b"abcd", 259, unreachable)  # "bc" first leaves a, bc, d, and nothing joins them
