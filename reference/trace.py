"""A round-by-round account of training, for teaching and for failure reports.

>>> trace = trace_training(["abab", "acac"], 32)
>>> [(step.pair, step.count, step.tie_candidates) for step in trace.rounds]
[((97, 98), 2, [(97, 98), (97, 99)]), ((97, 99), 2, [(97, 99)])]
>>> trace.stop_reason
'best count 1 < 2 after 2 rules'
>>> print(format_trace(trace).splitlines()[1])
    0  (97, 98)             2  258  61 62            tie of 2         8 -> 6
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.alphabet import MIN_MERGE_COUNT
from reference.counting import count_pairs
from reference.pieces import build_pieces, piece_hex
from reference.selection import select_pair, tied_pairs
from reference.training import training_rounds

__all__ = ["RoundSummary", "TrainingTrace", "format_trace", "trace_training"]


@dataclass(frozen=True)
class RoundSummary:
    """What one round saw and did."""

    rank: int
    pair: tuple[int, int]
    count: int
    new_id: int
    piece: bytes
    top_counts: list[tuple[tuple[int, int], int]]
    tie_candidates: list[tuple[int, int]]
    length_before: int
    length_after: int


@dataclass(frozen=True)
class TrainingTrace:
    """Every round, and why training stopped."""

    rounds: list[RoundSummary]
    stop_reason: str


def _top_counts(counts: dict[tuple[int, int], int], top: int) -> list[tuple[tuple[int, int], int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]


def _total_length(sequences: list[list[int]]) -> int:
    return sum(len(sequence) for sequence in sequences)


def _stop_reason(rules_made: int, max_merges: int, last_sequences: list[list[int]]) -> str:
    if rules_made == max_merges:
        return f"max_merges reached ({max_merges})"
    counts = count_pairs(last_sequences)
    best = select_pair(counts)
    best_count = 0 if best is None else counts[best]
    return f"best count {best_count} < {MIN_MERGE_COUNT} after {rules_made} rules"


def trace_training(documents: list[str], max_merges: int, top: int = 5) -> TrainingTrace:
    """Train like :func:`reference.train`, recording each round's top ``top`` counts and tie candidates."""
    rounds = []
    rules: list[tuple[int, int]] = []
    merges = training_rounds(documents, max_merges)  # validates before anything is read below
    last_sequences = [list(document.encode()) for document in documents]
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
            )
        )
        last_sequences = merge.sequences_after
    return TrainingTrace(rounds, _stop_reason(len(rules), max_merges, last_sequences))


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
