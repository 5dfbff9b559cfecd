"""riptoken 0.2.4 in production configuration: it parts from tiktoken on runs of 500 bytes or more.

Reproduced by hand (docs/findings.md): with the pieces ``aa`` < ``aaaa`` < ``aaaaaaaa``, tiktoken 0.14.0 and
the reference encode ``"a" * 500`` as 62 ``aaaaaaaa`` then ``aaaa`` (equal ranks merge leftmost first); riptoken
puts the ``aaaa`` first, and for 499 bytes it agrees. The check finds it on the real cl100k_base too.
"""

from __future__ import annotations

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.production import PRODUCTION_CHECKS
from bpe_conformance.dialects.production import ProductionSetup, VocabularyBoundSubject
from bpe_conformance.reference.pretokenization import CL100K, encode_production
from bpe_conformance.reference.vocabulary import vocabulary_from_pieces
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.settings import EFFORTS

riptoken = pytest.importorskip("riptoken")

PIECES = [bytes([value]) for value in range(256)] + [b"aa", b"aaaa", b"aaaaaaaa"]
VOCABULARY = vocabulary_from_pieces([(piece, rank, None) for rank, piece in enumerate(PIECES)], "a-runs")


def test_by_hand_riptoken_merges_long_runs_from_the_other_end() -> None:
    core = riptoken.CoreBPE(dict(VOCABULARY.rank_of), {}, CL100K.pattern)
    assert list(core.encode_ordinary("a" * 499)) == encode_production("a" * 499, VOCABULARY, CL100K)
    expected = encode_production("a" * 500, VOCABULARY, CL100K)
    assert expected == [258] * 62 + [257]
    assert list(core.encode_ordinary("a" * 500)) == [257] + [258] * 62


def test_the_long_runs_check_rejects_it_on_the_merge_order() -> None:
    from bpe_conformance.adapters.thirdparty.riptoken_production import RiptokenCl100k

    subject = VocabularyBoundSubject(InProcessSubject(RiptokenCl100k), ProductionSetup(CL100K, VOCABULARY))
    check = next(check for check in PRODUCTION_CHECKS if check.name == "production-long-runs")
    result = run_check(check, subject, EFFORTS["dev"], seed=0)
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-PRETOK-RANK")
    text = (result.counterexample or {})["inputs"]["text"]
    assert len(text) >= 500


def test_a_long_run_of_spaces_is_blamed_on_the_merge_through_a_run_of_a_as_long() -> None:
    from bpe_conformance.adapters.thirdparty.riptoken_production import RiptokenCl100k
    from bpe_conformance.checks.production import verify_production_encode
    from bpe_conformance.errors import Violation

    pieces = [*PIECES, b"  ", b"    "]
    vocabulary = vocabulary_from_pieces([(piece, rank, None) for rank, piece in enumerate(pieces)], "runs")
    subject = VocabularyBoundSubject(InProcessSubject(RiptokenCl100k), ProductionSetup(CL100K, vocabulary))
    with pytest.raises(Violation) as raised:
        verify_production_encode(subject, " " * 601)
    assert raised.value.clause == "BPE-PRETOK-RANK"
    assert "the merging itself is wrong: 'aaaa" in raised.value.message
