"""A round-by-round account of training, for teaching and for failure reports.

Each round records the documents' sequences before and after it, the counts it chose from and why
its pair won; the trace ends with the round that stopped training, its counts and the rule of
BPE-TRAIN-STOP that stopped it.

>>> trace = trace_training(["abab", "acac"], 32)
>>> [(step.pair, step.count, step.tie_candidates) for step in trace.rounds]
[((97, 98), 2, [(97, 98), (97, 99)]), ((97, 99), 2, [(97, 99)])]
>>> trace.rounds[0].sequences_after
[[258, 258], [97, 99, 97, 99]]
>>> trace.stop.rule, trace.stop.top_counts
('best count below 2', [((258, 258), 1), ((259, 259), 1)])
>>> trace.stop_reason
'best count 1 < 2 after 2 rules'
>>> print(format_trace(trace).splitlines()[1])
    0  (97, 98)             2  258  61 62            tie of 2         8 -> 6

Counting includes overlapping windows, replacing does not: the round that merges (97, 97) in
``aaa`` counts it twice but replaces it once, and records what replacing every window would give.

>>> step = trace_training(["aaa"], 32).rounds[0]
>>> step.count, step.replacements, step.sequences_after
(2, 1, [[258, 97]])
>>> step.overlap.every_window, step.overlap.every_window_bytes
([258, 258], b'aaaa')
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe_conformance.reference.alphabet import MIN_MERGE_COUNT
from bpe_conformance.reference.counting import count_pairs
from bpe_conformance.reference.pieces import build_pieces, piece_hex
from bpe_conformance.reference.selection import select_pair, tied_pairs
from bpe_conformance.reference.training import training_rounds

__all__ = [
    "STOP_BELOW_MINIMUM",
    "STOP_MAX_MERGES",
    "STOP_NO_PAIR",
    "OverlapContrast",
    "RoundSummary",
    "StopRound",
    "TrainingTrace",
    "format_trace",
    "replace_every_window",
    "trace_training",
]

# The three ways training ends (BPE-TRAIN-STOP), as StopRound.rule says them.
STOP_MAX_MERGES = "max_merges reached"
STOP_NO_PAIR = "no pair left"
STOP_BELOW_MINIMUM = f"best count below {MIN_MERGE_COUNT}"

Pair = tuple[int, int]


@dataclass(frozen=True)
class OverlapContrast:
    """The first document where the merged pair's windows overlap, and what replacing each window would give.

    ``replaced`` is the document's sequence after the round (BPE-MERGE-SCAN); ``every_window`` is the
    sequence a replacement that consumed every counted window would give, and ``every_window_bytes``
    the bytes it stands for, more than the document has.
    """

    document: int
    replaced: list[int]
    every_window: list[int]
    every_window_bytes: bytes


@dataclass(frozen=True)
class RoundSummary:
    """What one round saw and did.

    ``sequences_before`` and ``sequences_after`` hold the kept documents' sequences (all of them
    unless :func:`trace_training` was asked to keep fewer). ``replacements`` is how much shorter
    the round made the corpus, which is not the count when windows overlap. ``runner_up`` is the
    best pair with a lower count than the winner's, if any.
    """

    rank: int
    pair: Pair
    count: int
    new_id: int
    piece: bytes
    top_counts: list[tuple[Pair, int]]
    tie_candidates: list[Pair]
    length_before: int
    length_after: int
    replacements: int
    runner_up: tuple[Pair, int] | None
    sequences_before: list[list[int]]
    sequences_after: list[list[int]]
    overlap: OverlapContrast | None


@dataclass(frozen=True)
class StopRound:
    """The round that made no rule: which rule of BPE-TRAIN-STOP ended training, and the counts left.

    ``top_counts`` and ``best`` are the counts of the final sequences; when ``max_merges`` ended
    training they are what a further round would have chosen from.
    """

    rule: str
    rules_made: int
    max_merges: int
    top_counts: list[tuple[Pair, int]]
    best: tuple[Pair, int] | None
    sequences: list[list[int]]


@dataclass(frozen=True)
class TrainingTrace:
    """Every round, the kept documents' starting byte sequences, and why training stopped."""

    rounds: list[RoundSummary]
    stop_reason: str
    start: list[list[int]]
    stop: StopRound


def _top_counts(counts: dict[Pair, int], top: int) -> list[tuple[Pair, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]


def _runner_up(counts: dict[Pair, int], best_count: int) -> tuple[Pair, int] | None:
    lower = {pair: count for pair, count in counts.items() if count < best_count}
    pair = select_pair(lower)
    return None if pair is None else (pair, lower[pair])


def _total_length(sequences: list[list[int]]) -> int:
    return sum(len(sequence) for sequence in sequences)


def _window_at(sequence: list[int], position: int, pair: Pair) -> bool:
    return position + 1 < len(sequence) and (sequence[position], sequence[position + 1]) == pair


def replace_every_window(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    """``sequence`` with every counted window of ``pair`` turned into ``new_id``, overlapping ones too.

    This is the replacement BPE-MERGE-SCAN forbids: a window that overlaps the next one gives up only
    its first id, so an id in the middle stands for bytes twice.

    >>> replace_every_window([97, 97, 97], (97, 97), 258)
    [258, 258]
    >>> replace_every_window([97, 97, 98, 97, 97], (97, 97), 258)
    [258, 98, 258]
    """
    replaced = []
    position = 0
    while position < len(sequence):
        if _window_at(sequence, position, pair):
            replaced.append(new_id)
            position += 1 if _window_at(sequence, position + 1, pair) else 2
        else:
            replaced.append(sequence[position])
            position += 1
    return replaced


def _overlap(
    before: list[list[int]], after: list[list[int]], pair: Pair, new_id: int, rules: list[Pair]
) -> OverlapContrast | None:
    for document, old in enumerate(before):
        new = after[document]
        windows = sum(1 for position in range(len(old)) if _window_at(old, position, pair))
        if windows > len(old) - len(new):
            every_window = replace_every_window(old, pair, new_id)
            pieces = build_pieces(rules)
            return OverlapContrast(document, new, every_window, b"".join(pieces[token] for token in every_window))
    return None


def _rules_made(count: int) -> str:
    return f"{count} rule" if count == 1 else f"{count} rules"


def _stop_round(rules_made: int, max_merges: int, sequences: list[list[int]], top: int, kept: int | None) -> StopRound:
    counts = count_pairs(sequences)
    best = select_pair(counts)
    best_entry = None if best is None else (best, counts[best])
    if rules_made == max_merges:
        rule = STOP_MAX_MERGES
    elif best is None:
        rule = STOP_NO_PAIR
    else:
        rule = STOP_BELOW_MINIMUM
    return StopRound(rule, rules_made, max_merges, _top_counts(counts, top), best_entry, sequences[:kept])


def _stop_reason(stop: StopRound) -> str:
    if stop.rule == STOP_MAX_MERGES:
        return f"max_merges reached ({stop.max_merges})"
    if stop.best is None:
        return f"no pair left after {_rules_made(stop.rules_made)}"
    return f"best count {stop.best[1]} < {MIN_MERGE_COUNT} after {_rules_made(stop.rules_made)}"


def trace_training(
    documents: list[str], max_merges: int, top: int = 5, kept_documents: int | None = None
) -> TrainingTrace:
    """Train like :func:`reference.train`, recording each round's top ``top`` counts, ties and sequences.

    ``kept_documents`` limits the sequences kept per round to the first documents (all by default),
    so a long corpus can be traced without holding every round of every document.
    """
    rounds = []
    rules: list[Pair] = []
    merges = training_rounds(documents, max_merges)  # validates before anything is read below
    last_sequences = [list(document.encode()) for document in documents]
    start = last_sequences[:kept_documents]
    for merge in merges:
        rules.append(merge.pair)
        rounds.append(
            RoundSummary(
                rank=merge.rank,
                pair=merge.pair,
                count=merge.count,
                new_id=merge.new_id,
                piece=build_pieces(rules)[merge.new_id],
                top_counts=_top_counts(merge.counts, top),
                tie_candidates=tied_pairs(merge.counts),
                length_before=_total_length(merge.sequences_before),
                length_after=_total_length(merge.sequences_after),
                replacements=_total_length(merge.sequences_before) - _total_length(merge.sequences_after),
                runner_up=_runner_up(merge.counts, merge.count),
                sequences_before=merge.sequences_before[:kept_documents],
                sequences_after=merge.sequences_after[:kept_documents],
                overlap=_overlap(merge.sequences_before, merge.sequences_after, merge.pair, merge.new_id, rules),
            )
        )
        last_sequences = merge.sequences_after
    stop = _stop_round(len(rules), max_merges, last_sequences, top, kept_documents)
    return TrainingTrace(rounds, _stop_reason(stop), start, stop)


def format_trace(trace: TrainingTrace) -> str:
    """The trace as a plain-text table, one line per round, then the stop reason."""
    lines = [f"{'rank':>5}  {'pair':<16} {'count':>5}  {'id':<4} {'piece (hex)':<16} {'ties':<16} length"]
    for step in trace.rounds:
        ties = f"tie of {len(step.tie_candidates)}" if len(step.tie_candidates) > 1 else ""
        lines.append(
            f"{step.rank:>5}  {step.pair!s:<16} {step.count:>5}  {step.new_id:<4} "
            f"{piece_hex(step.piece):<16} {ties:<16} {step.length_before} -> {step.length_after}"
        )
    lines.append(f"stopped: {trace.stop_reason}")
    return "\n".join(lines)
