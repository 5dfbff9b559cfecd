"""Training behind a split pattern: pairs are counted inside chunks only, never across one.

A pre-tokenizing trainer (rustbpe's default pattern, HF ``ByteLevel`` with its regex, minbpe's
``RegexTokenizer``) splits each document with the pattern of a production profile
(:mod:`bpe_conformance.reference.pretokenization`) and trains on the chunks as if each were a document
of its own; everything else (tie-break, stop rule, numbering, documents joined or not) is the dialect
profile's (:mod:`bpe_conformance.reference.profiles`).

:func:`train_chunks_literal` is that sentence as code: every chunk occurrence is a sequence, recounted
from scratch each round. :func:`train_chunks_fast` is the word-count engine real trainers use: each
distinct chunk once, with its frequency, so memory follows the table of distinct chunks, not the corpus.
``tests/reference/test_chunk_training.py`` proves the two equal, first-seen ties included.

>>> from bpe_conformance.reference.pretokenization import CL100K
>>> from bpe_conformance.reference.profiles import RUSTBPE
>>> train_chunks_literal(["ab ab ab"], 2, RUSTBPE, CL100K)  # chunks "ab", " ab", " ab": never "b" + " "
[(97, 98), (32, 256)]
>>> train_chunks_fast(["ab ab ab"], 2, RUSTBPE, CL100K)
[(97, 98), (32, 256)]
"""

from __future__ import annotations

from bpe_conformance.reference.counting import count_pairs
from bpe_conformance.reference.dialects import profile_pieces, select_profile_pair
from bpe_conformance.reference.pretokenization import SplitProfile, split_text
from bpe_conformance.reference.profiles import Profile
from bpe_conformance.reference.replacement import replace_pair
from bpe_conformance.reference.validation import check_documents, check_max_merges

__all__ = ["chunk_counts", "train_chunks_fast", "train_chunks_literal"]

Pair = tuple[int, int]


def _texts(documents: list[str], profile: Profile) -> list[str]:
    check_documents(documents)
    if profile.tie_break is None:
        raise ValueError(f"profile {profile.name!r} is encode-only: it has no training algorithm")
    return [profile.document_separator.join(documents)] if profile.documents == "concatenated" else list(documents)


def train_chunks_literal(documents: list[str], max_merges: int, profile: Profile, split: SplitProfile) -> list[Pair]:
    """Every chunk occurrence is a sequence; each round counts them all, picks, and replaces in each."""
    rounds = check_max_merges(max_merges)
    sequences = [list(chunk.encode()) for text in _texts(documents, profile) for chunk in split_text(text, split)]
    pieces = profile_pieces([], profile)
    rules: list[Pair] = []
    for rank in range(rounds):
        pair = select_profile_pair(count_pairs(sequences), pieces, profile)
        if pair is None:
            break
        new_id = profile.first_rule_id + rank
        sequences = [replace_pair(sequence, pair, new_id) for sequence in sequences]
        rules.append(pair)
        pieces.append(pieces[pair[0]] + pieces[pair[1]])
    return rules


def chunk_counts(documents: list[str], profile: Profile, split: SplitProfile) -> dict[bytes, int]:
    """Each distinct chunk and how often it occurs, in order of first occurrence."""
    counts: dict[bytes, int] = {}
    for text in _texts(documents, profile):
        for chunk in split_text(text, split):
            data = chunk.encode()
            counts[data] = counts.get(data, 0) + 1
    return counts


def train_chunks_fast(documents: list[str], max_merges: int, profile: Profile, split: SplitProfile) -> list[Pair]:
    """Word-count BPE: distinct chunks with frequencies; pair counts kept up to date around each merge.

    Pair counts are recounted only in the chunks that contain the merged pair (an index from pair to
    chunks tells which), and the tie-break sees the tied pairs in order of first occurrence, which is
    the order of the first distinct chunk (in order of first occurrence) that holds them.
    """
    rounds = check_max_merges(max_merges)
    counted = chunk_counts(documents, profile, split)
    words = [list(chunk) for chunk in counted]
    frequencies = list(counted.values())
    counts: dict[Pair, int] = {}
    holders: dict[Pair, set[int]] = {}
    for index, word in enumerate(words):
        _add(word, index, frequencies[index], counts, holders, sign=1)
    pieces = profile_pieces([], profile)
    rules: list[Pair] = []
    for rank in range(rounds):
        live = {pair: count for pair, count in counts.items() if count > 0}
        pair = select_profile_pair(_in_first_occurrence_order(live, holders, words), pieces, profile)
        if pair is None:
            break
        new_id = profile.first_rule_id + rank
        for index in sorted(holders.get(pair, ())):
            _add(words[index], index, frequencies[index], counts, holders, sign=-1)
            words[index] = replace_pair(words[index], pair, new_id)
            _add(words[index], index, frequencies[index], counts, holders, sign=1)
        rules.append(pair)
        pieces.append(pieces[pair[0]] + pieces[pair[1]])
    return rules


def _add(
    word: list[int], index: int, frequency: int, counts: dict[Pair, int], holders: dict[Pair, set[int]], sign: int
) -> None:
    for position in range(len(word) - 1):
        pair = (word[position], word[position + 1])
        counts[pair] = counts.get(pair, 0) + sign * frequency
        if sign > 0:
            holders.setdefault(pair, set()).add(index)
        else:  # the word is about to change: adding its new form back records what it still holds
            holders[pair].discard(index)


def _in_first_occurrence_order(
    live: dict[Pair, int], holders: dict[Pair, set[int]], words: list[list[int]]
) -> dict[Pair, int]:
    # Only "first-seen" looks at the order; the key is (first chunk holding the pair, position in it).
    def first_place(pair: Pair) -> tuple[int, int]:
        index = min(holders[pair])
        word = words[index]
        return index, next(p for p in range(len(word) - 1) if (word[p], word[p + 1]) == pair)

    return {pair: live[pair] for pair in sorted(live, key=first_place)}
