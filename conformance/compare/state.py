"""The reference's training state at a round, found by encoding, and the judgement of the first divergent round.

After ``k`` rounds, training has replaced the pair of rule 0, then of rule 1, ..., of rule ``k - 1`` in
every training sequence, each with the same left-to-right replacement: that is the rank-order encoding
of each sequence with those ``k`` rules (BPE-ENCODE-ORDER), whatever the profile's own encode
algorithm. So the state at the first divergent round comes from the fast encoder, one sequence at a
time, never from training again; its pair counts are what the profile selects by.

The judgement is :func:`bpe_conformance.diagnosis.judge_round`'s, with the honesty rule of the checks: a
cause is named only when a bug model made the implementation's rules here and on follow-up inputs it
was retrained on. The models retrain literally, so they run only while the corpus times the rounds
stays within :data:`MODEL_BUDGET`; beyond it the cause line says that no cause was examined.

>>> from bpe_conformance.reference.profiles import STRICT, get_profile
>>> training_state_counts(["abab", "acac"], [(97, 98)], STRICT)
{(258, 258): 1, (97, 99): 2, (99, 97): 1}
>>> training_state_counts(["abab", "acac"], [(97, 98)], get_profile("largest-pair"))  # rules from 256
{(256, 256): 1, (97, 99): 2, (99, 97): 1}
>>> first_difference([(97, 98), (97, 99)], [(97, 98), (99, 97)]), first_difference([(1, 2)], [(1, 2)])
(1, None)
>>> divergence = judge_first_divergence(["abab", "acac"], 32, [(97, 98), (97, 99)], [(97, 98), (99, 97)], STRICT)
>>> divergence.judgement.round, divergence.judgement.kind.description, divergence.examined
(1, 'pair not maximal', True)
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.diagnosis import Explanation, Judgement, Retrain, judge_round, tie_free_departures
from bpe_conformance.diagnosis.confirmation import explanation_of
from bpe_conformance.errors import CallAborted
from bpe_conformance.reference.alphabet import BYTE_COUNT, FIRST_RULE_ID
from bpe_conformance.reference.dialects import encode_profile, profile_pieces, training_sequences
from bpe_conformance.reference.fast_encoding import MergeTable, encode_many_with_table, encode_with_table
from bpe_conformance.reference.pretokenization import SplitProfile, split_text
from bpe_conformance.reference.profiles import pre_tokenizes

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from bpe_conformance.reference.profiles import Profile

__all__ = [
    "MODEL_BUDGET",
    "STATE_BATCH_BYTES",
    "Divergence",
    "ReferenceEncoder",
    "encodes_like_strict",
    "first_difference",
    "judge_first_divergence",
    "profile_ids",
    "strict_rules",
    "training_state_counts",
]

Pair = tuple[int, int]
Rules = list[Pair]
Counts = dict[Pair, int]

# Corpus bytes times rounds up to which the bug models retrain literally (about 3 s on this project's
# machine): beyond it no cause is examined, and the report says so.
MODEL_BUDGET = 250_000
# Bytes of training sequences encoded at once when the state at a round is counted: large enough for the
# batched encoder to pay, small enough to keep its arrays a small multiple of the batch.
STATE_BATCH_BYTES = 8_000_000


def _moved(token_id: int, start: int, to: int) -> int:
    return token_id if token_id < BYTE_COUNT else token_id - start + to


def strict_rules(rules: Rules, profile: Profile) -> Rules:
    """``rules`` of the profile's numbering in strict's (rule ``r`` is ``258 + r``): the fast encoder's."""
    if profile.first_rule_id == FIRST_RULE_ID:
        return list(rules)
    start = profile.first_rule_id
    return [(_moved(first, start, FIRST_RULE_ID), _moved(second, start, FIRST_RULE_ID)) for first, second in rules]


def profile_ids(ids: list[int], profile: Profile) -> list[int]:
    """Ids the fast encoder gave (strict numbering, no boundary ids) in the profile's numbering."""
    if profile.first_rule_id == FIRST_RULE_ID:
        return ids
    return [_moved(token_id, FIRST_RULE_ID, profile.first_rule_id) for token_id in ids]


def _sequences(documents: list[str], profile: Profile) -> Iterator[list[int]]:
    """The training sequences, one document at a time where the profile keeps documents apart."""
    if profile.documents != "separate":
        yield from training_sequences(documents, profile)
        return
    for document in documents:
        yield from training_sequences([document], profile)


def _batches(sequences: Iterator[list[int]], limit: int) -> Iterator[list[bytes]]:
    """The sequences as bytes, in batches of about ``limit`` bytes (at least one sequence each)."""
    batch: list[bytes] = []
    size = 0
    for sequence in sequences:
        batch.append(bytes(sequence))
        size += len(sequence)
        if size >= limit:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def training_state_counts(documents: list[str], rules: Rules, profile: Profile) -> Counts:
    """The pair counts of the training state after ``rules`` (the profile's own first rules) were merged.

    Sequences are encoded a batch at a time, so a large corpus takes the batched encoder.
    """
    table = MergeTable(strict_rules(rules, profile))
    counts: Counter[Pair] = Counter()
    for batch in _batches(_sequences(documents, profile), STATE_BATCH_BYTES):
        for ids in encode_many_with_table(batch, table, "auto"):
            counts.update(itertools.pairwise(profile_ids(ids, profile)))
    return dict(counts)


def encodes_like_strict(profile: Profile) -> bool:
    """True when the profile encodes as strict does, up to its numbering (rank order, no pre-tokenization)."""
    return profile.encode_algorithm == "rank-order" and not pre_tokenizes(profile)


class ReferenceEncoder:
    """The profile's encoding of a text with fixed rules: the fast encoder where the profile encodes like strict.

    Behind a ``split`` (a production profile's pattern) the text is split into chunks first and each
    chunk is encoded on its own, the ids joined in order (BPE-PRETOK-SPLIT); a chunk seen before is not
    encoded again.

    >>> from bpe_conformance.reference.pretokenization import CL100K
    >>> from bpe_conformance.reference.profiles import RUSTBPE
    >>> ReferenceEncoder([(98, 32)], RUSTBPE)("ab c"), ReferenceEncoder([(98, 32)], RUSTBPE, CL100K)("ab c")
    ([97, 256, 99], [97, 98, 32, 99])
    """

    def __init__(self, rules: Rules, profile: Profile, split: SplitProfile | None = None) -> None:
        self.rules = list(rules)
        self.profile = profile
        self.split = split
        self._table = MergeTable(strict_rules(self.rules, profile)) if encodes_like_strict(profile) else None
        self._chunks: dict[str, list[int]] = {}

    def __call__(self, text: str) -> list[int]:
        if self.split is None:
            return self._whole(text)
        ids: list[int] = []
        for chunk in split_text(text, self.split):
            known = self._chunks.get(chunk)
            if known is None:
                known = self._chunks[chunk] = self._whole(chunk)
            ids.extend(known)
        return ids

    def _whole(self, text: str) -> list[int]:
        if self._table is None:
            return encode_profile(text, self.rules, self.profile)
        return profile_ids(encode_with_table(text.encode("utf-8"), self._table), self.profile)


def first_difference(expected: Sequence[object], actual: Sequence[object]) -> int | None:
    """The first round whose rule differs (or exists on one side only); None when the lists are equal."""
    for rank, (wanted, made) in enumerate(zip(expected, actual, strict=False)):
        if wanted != made:
            return rank
    return None if len(expected) == len(actual) else min(len(expected), len(actual))


@dataclass(frozen=True)
class Divergence:
    """The judgement of the first divergent round, the pieces of every id then, and whether causes were examined."""

    judgement: Judgement
    pieces: list[bytes]
    examined: bool


def _not_examined(corpus_bytes: int, rounds: int, budget: int) -> str:
    return (
        f"not examined: the bug models retrain literally, and {corpus_bytes} bytes x {rounds} rounds is past their "
        f"budget of {budget}; a corpus within it with the same divergence would be (--shrink looks for a smaller one)"
    )


def _aborted(aborted: CallAborted) -> str:
    verbs = {"timeout": "timed out", "memory-limit": "ran out of its memory limit"}
    verb = verbs.get(aborted.outcome, "crashed")
    return f"not examined: the implementation {verb} when retrained on a follow-up input ({aborted.detail[:200]})"


def judge_first_divergence(
    documents: list[str],
    max_merges: int,
    expected: Rules,
    actual: Rules,
    profile: Profile,
    retrain: Retrain | None = None,
    *,
    budget: int = MODEL_BUDGET,
) -> Divergence | None:
    """The first round where ``actual`` leaves ``expected`` (the profile's rules for these documents), judged.

    ``retrain`` trains the implementation on follow-up inputs, as in the checks; without it no cause is
    confirmed. Only the rules up to that round are put to the bug models.
    """
    rank = first_difference(expected, actual)
    if rank is None:
        return None
    counts = training_state_counts(documents, expected[:rank], profile)
    pieces = profile_pieces(expected[:rank], profile)
    corpus_bytes = sum(len(document.encode("utf-8")) for document in documents)
    examined = corpus_bytes * (rank + 1) <= budget
    judged_rules, judged_merges = actual[: rank + 1], min(max_merges, rank + 1)

    def explain() -> Explanation | None:
        return explanation_of(documents, judged_merges, judged_rules, profile, retrain) if examined else None

    def without_ties() -> tuple[int, int] | None:
        return tie_free_departures(profile, retrain) if examined else None

    cause = None
    try:
        judgement = judge_round(actual, rank, counts, max_merges, pieces, profile, explain, without_ties)
    except CallAborted as aborted:
        examined, cause = False, _aborted(aborted)
        judgement = judge_round(actual, rank, counts, max_merges, pieces, profile, explain, without_ties)
    reference_rule = expected[rank] if rank < len(expected) else None
    if judgement is None or judgement.expected != reference_rule:
        raise RuntimeError(
            f"the reference's state at round {rank} does not select its own rule {reference_rule}: the fast "
            "engines and the literal reference disagree (a bug of bpe-conformance; please report it)"
        )
    if not examined:
        cause = cause or _not_examined(corpus_bytes, rank + 1, budget)
        judgement = dataclasses.replace(judgement, cause=cause, confirmed=False)
    return Divergence(judgement, pieces, examined)
