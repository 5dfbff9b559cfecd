"""rustbpe trains behind a split pattern exactly as the reference's chunk training under profile ``rustbpe``.

``train_from_iterator(..., pattern=P)`` with each production pattern, against
:func:`bpe_conformance.reference.chunk_training.train_chunks_literal` with the same pattern: the merges are
counted inside chunks only, ties go to the smallest pair, pairs seen once are merged.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, rules_from_ranks
from bpe_conformance.inputs.split_texts import split_texts
from bpe_conformance.reference.chunk_training import train_chunks_literal
from bpe_conformance.reference.pretokenization import SPLIT_PROFILES, SplitProfile
from bpe_conformance.reference.profiles import RUSTBPE

rustbpe = pytest.importorskip("rustbpe")


@pytest.mark.parametrize("split", list(SPLIT_PROFILES.values()), ids=list(SPLIT_PROFILES))
@given(
    documents=st.lists(split_texts(max_fragments=6, max_run=40), min_size=1, max_size=3),
    max_merges=st.integers(1, 30),
)
def test_rustbpe_with_a_pattern_trains_as_the_chunk_reference(
    split: SplitProfile, documents: list[str], max_merges: int
) -> None:
    tokenizer = rustbpe.Tokenizer()
    tokenizer.train_from_iterator(iter(documents), FIRST_RULE_ID + max_merges, pattern=split.pattern)
    trained = rules_from_ranks(dict(tokenizer.get_mergeable_ranks()))
    assert trained == train_chunks_literal(documents, max_merges, RUSTBPE, split)
