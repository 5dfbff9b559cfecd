"""The terminal view of a training trace: the documents' sequences round by round, and why each round did what it did.

>>> from bpe_conformance.reference import trace_training
>>> documents = ["abab", "acac"]
>>> lines = [line.text for line in training_lines(documents, trace_training(documents, 32), width=72)]
>>> print("\\n".join(lines[:13]))
2 documents, 8 bytes, max_merges 32 (the reference, strict profile)
<BLANKLINE>
start: each document is its UTF-8 bytes, one id per byte
  doc 0  [97, 98, 97, 98]  'a' 'b' 'a' 'b'
  doc 1  [97, 99, 97, 99]  'a' 'c' 'a' 'c'
<BLANKLINE>
round 0: merge (97, 98) into 258 = 'ab'
  counts   (97, 98)×2  (97, 99)×2  (98, 97)×1  (99, 97)×1
  chosen   (97, 98) and (97, 99) tie at count 2: the smallest pair,
           compared as integers, wins (BPE-TRAIN-TIE)
  replaced 2 times: length 8 -> 6
  doc 0  [258, 258]        'ab' 'ab'
  doc 1  [97, 99, 97, 99]  'a' 'c' 'a' 'c'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpe_conformance.reference import build_pieces, vocab_size
from bpe_conformance.reference.trace import STOP_MAX_MERGES, RoundSummary, StopRound, TrainingTrace
from bpe_conformance.reports.common import plural
from bpe_conformance.teaching.labels import (
    PARTIAL_LABEL,
    PARTIAL_NOTE,
    fit,
    ids_text,
    is_text,
    pair_text,
    piece_label,
    pieces_of,
    selection_reason,
    sequence_lines,
    short_repr,
    stop_explanation,
    wrap,
    wrap_items,
)
from bpe_conformance.teaching.lines import BLANK, EMPHASIS, HEADING, NOTE, Line

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["DEFAULT_MAX_DOCS", "LABEL", "footnote_lines", "training_lines"]

DEFAULT_MAX_DOCS = 8
LABEL = "  {:<9}"
_DOC = "  doc {}  "


def _documents_block(sequences: Sequence[list[int]], total: int, pieces: list[bytes], width: int) -> list[Line]:
    """One line (or two, when narrow) per kept document, the ids aligned, and how many were left out."""
    prefixes = [_DOC.format(str(index).rjust(len(str(len(sequences) - 1)))) for index in range(len(sequences))]
    column = max((len(ids_text(sequence, width)) for sequence in sequences), default=0)
    lines = []
    for prefix, sequence in zip(prefixes, sequences, strict=True):
        room = width - len(prefix)
        lines += [
            Line(text)
            for text in sequence_lines(prefix, sequence, pieces_of(sequence, pieces), width, min(column, room // 2))
        ]
    if total > len(sequences):
        lines.append(Line(f"  … and {plural(total - len(sequences), 'more document')} (--max-docs)", NOTE))
    return lines


def _labelled(label: str, text: str, width: int, style: str = "") -> list[Line]:
    first = LABEL.format(label)
    return [Line(line, style) for line in wrap(text, width, first, " " * len(first))]


def _counts(counts: Sequence[tuple[tuple[int, int], int]], width: int) -> list[Line]:
    first = LABEL.format("counts")
    items = [f"{pair_text(pair)}×{count}" for pair, count in counts]
    return [Line(line) for line in wrap_items(items, width, first, " " * len(first))]


def _heading(text: str, width: int) -> list[Line]:
    return [Line(line, HEADING) for line in wrap(text, width, "", "  ")]


def _piece_text(piece: bytes) -> str:
    label = piece_label(piece)
    return label if is_text(piece) else f"{label} (hex)"


def _round_lines(
    step: RoundSummary, documents: Sequence[str], pieces: list[bytes], width: int, show_counts: bool
) -> list[Line]:
    lines = _heading(
        f"round {step.rank}: merge {pair_text(step.pair)} into {step.new_id} = {_piece_text(step.piece)}", width
    )
    if show_counts:
        lines += _counts(step.top_counts, width)
    lines += _labelled("chosen", selection_reason(step), width)
    replaced = f"replaced {plural(step.replacements, 'time')}: length {step.length_before} -> {step.length_after}"
    if step.replacements != step.count:
        replaced += (
            f". The count, {step.count}, is not the length reduction: counting takes overlapping windows, "
            f"replacing never does (BPE-MERGE-SCAN)"
        )
    lines += [Line(line) for line in wrap(replaced, width, "  ", " " * 11)]
    lines += _documents_block(step.sequences_after, len(documents), pieces, width)
    if step.overlap is not None:
        overlap = step.overlap
        wrong = overlap.every_window_bytes
        shown = short_repr(wrong.decode("utf-8")) if is_text(wrong) else piece_label(wrong)
        lines += [
            Line(line, EMPHASIS)
            for line in wrap(
                f"why {ids_text(overlap.replaced, width)} and not {ids_text(overlap.every_window, width)} in doc "
                f"{overlap.document}: consuming every counted window would use an id twice, and "
                f"{ids_text(overlap.every_window, width)} decodes to {shown} ({len(wrong)} bytes), not "
                f"{short_repr(documents[overlap.document])}",
                width,
                "  ",
                "  ",
            )
        ]
    return lines


def _stop_lines(
    stop: StopRound, documents: Sequence[str], pieces: list[bytes], width: int, show_counts: bool
) -> list[Line]:
    heading = (
        f"round {stop.rules_made}: not run, max_merges reached"
        if stop.rule == STOP_MAX_MERGES
        else f"round {stop.rules_made}: no rule made, training stops"
    )
    lines = _heading(heading, width)
    if show_counts and stop.top_counts:
        lines += _counts(stop.top_counts, width)
    lines += _labelled("why", stop_explanation(stop), width)
    lines += [
        Line(line, NOTE)
        for line in wrap("final sequences: what encode gives for each training document", width, "  ", "  ")
    ]
    lines += _documents_block(stop.sequences, len(documents), pieces, width)
    return lines


def training_lines(
    documents: Sequence[str],
    trace: TrainingTrace,
    *,
    max_merges: int | None = None,
    width: int = 100,
    show_counts: bool = True,
) -> list[Line]:
    """The whole training view: corpus, starting bytes, every round, the round that stopped, the rules."""
    rules = [step.pair for step in trace.rounds]
    pieces = build_pieces(rules)
    merges = trace.stop.max_merges if max_merges is None else max_merges
    total = sum(len(document.encode("utf-8")) for document in documents)
    lines = [
        *_heading(
            f"{plural(len(documents), 'document')}, {plural(total, 'byte')}, max_merges {merges} "
            f"(the reference, strict profile)",
            width,
        ),
        BLANK,
        *_heading("start: each document is its UTF-8 bytes, one id per byte", width),
        *_documents_block(trace.start, len(documents), pieces, width),
    ]
    for step in trace.rounds:
        lines += [BLANK, *_round_lines(step, documents, pieces, width, show_counts)]
    lines += [BLANK, *_stop_lines(trace.stop, documents, pieces, width, show_counts)]
    made = f"rules made: {len(rules)} (vocabulary size {vocab_size(rules)})"
    if rules:
        made += ": " + fit([pair_text(pair) for pair in rules], max(width - len(made) - 2, 20), noun="rules")
    lines += [BLANK, Line(f"stopped: {trace.stop_reason}"), *(Line(line) for line in wrap(made, width, "", "  "))]
    return lines


def footnote_lines(lines: Sequence[Line], width: int) -> list[Line]:
    """The note on ``<hex>*`` pieces, when any of ``lines`` shows one; nothing otherwise."""
    if not any(PARTIAL_LABEL.search(line.text) for line in lines):
        return []
    return [BLANK, *(Line(line, NOTE) for line in wrap(PARTIAL_NOTE, width))]
