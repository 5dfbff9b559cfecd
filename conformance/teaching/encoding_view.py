"""The terminal view of encoding: each rule in rank order, the ids with and without boundaries, the decode back.

With the out-of-order trace beside it, the view shows what applying the same rules in another order
gives, and that both decode to the text, so only the exact ids tell them apart.

>>> from bpe_conformance.reference import reversed_ranks, trace_encoding
>>> rules = [(97, 98), (258, 99)]
>>> right = trace_encoding("abc", rules)
>>> wrong = trace_encoding("abc", rules, order=reversed_ranks(2))
>>> print("\\n".join(line.text for line in encoding_lines(right, rules, width=70)))
encode 'abc' with 2 rules, in rank order (BPE-ENCODE-ORDER)
  bytes                   [97, 98, 99]  'a' 'b' 'c'
  rule 0 (97, 98) → 258   [258, 99]     'ab' 'c'
  rule 1 (258, 99) → 259  [259]         'abc'
  ids       [259]
  document  [256, 259, 257] (begin 256, the ids, end 257:
            BPE-ENCODE-BOUNDARY)
  decode    'abc' = 'abc', the text again (BPE-ROUNDTRIP)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpe_conformance.reference import BEGIN_ID, END_ID, build_pieces
from bpe_conformance.reports.common import plural
from bpe_conformance.teaching.labels import (
    fit,
    ids_text,
    order_comparison,
    pair_text,
    piece_label,
    pieces_of,
    sequence_lines,
    short_repr,
    wrap,
)
from bpe_conformance.teaching.lines import EMPHASIS, HEADING, NOTE, Line

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bpe_conformance.reference.encoding_trace import EncodingTrace

__all__ = ["encoding_lines"]


def _steps(trace: EncodingTrace, pieces: list[bytes], width: int) -> list[Line]:
    rows = [("bytes", trace.start)]
    rows += [(f"rule {step.rank} {pair_text(step.pair)} → {step.new_id}", step.sequence_after) for step in trace.steps]
    label_width = max(len(label) for label, _ in rows)
    column = max(len(ids_text(ids, width)) for _, ids in rows)
    lines = []
    for label, ids in rows:
        prefix = f"  {label:<{label_width}}  "
        if len(prefix) > width // 2:  # narrow: the label on its own line, the sequence under it
            lines.append(Line(f"  {label}"))
            prefix = "      "
        room = width - len(prefix)
        lines += [
            Line(text) for text in sequence_lines(prefix, ids, pieces_of(ids, pieces), width, min(column, room // 2))
        ]
    return lines


def _decode_line(trace: EncodingTrace, pieces: list[bytes], width: int) -> list[Line]:
    joined = (
        fit([piece_label(pieces[token]) for token in trace.ids], max(width - 40, 20), separator=" + ", noun="pieces")
        or "''"
    )
    same = "the text again" if trace.decoded == trace.text else "NOT the text"
    return [
        Line(line)
        for line in wrap(
            f"{joined} = {short_repr(trace.decoded)}, {same} (BPE-ROUNDTRIP)", width, "  decode    ", " " * 12
        )
    ]


def _result_lines(trace: EncodingTrace, pieces: list[bytes], width: int) -> list[Line]:
    room = width - 12
    document = f"{ids_text(trace.document_ids, room)} (begin {BEGIN_ID}, the ids, end {END_ID}: BPE-ENCODE-BOUNDARY)"
    return [
        Line(f"  ids       {ids_text(trace.ids, room)}", EMPHASIS),
        *(Line(line) for line in wrap(document, width, "  document  ", " " * 12)),
        *_decode_line(trace, pieces, width),
    ]


def _skipped_note(trace: EncodingTrace, rule_count: int, width: int) -> list[Line]:
    unused = rule_count - len(trace.steps)
    if not unused:
        return []
    text = f"{plural(unused, 'rule')} of {rule_count} replaced nothing: each pair was absent when its turn came"
    return [Line(line, NOTE) for line in wrap(text, width, "  ", "  ")]


def _comparison(right: EncodingTrace, wrong: EncodingTrace, rules: Sequence[tuple[int, int]], width: int) -> list[Line]:
    style = "" if wrong.ids == right.ids else EMPHASIS
    return [Line(line, style) for line in wrap(order_comparison(right, wrong, rules, width), width, "  ", "  ")]


def encoding_lines(
    trace: EncodingTrace, rules: Sequence[tuple[int, int]], *, wrong: EncodingTrace | None = None, width: int = 100
) -> list[Line]:
    """Encoding step by step, the result, the decode; and, with ``wrong``, the same rules out of rank order."""
    pieces = build_pieces(list(rules))
    heading = f"encode {short_repr(trace.text)} with {plural(len(rules), 'rule')}, in rank order (BPE-ENCODE-ORDER)"
    lines = [Line(line, HEADING) for line in wrap(heading, width, "", "  ")]
    lines += _steps(trace, pieces, width)
    lines += _skipped_note(trace, len(rules), width)
    lines += _result_lines(trace, pieces, width)
    if wrong is not None:
        order = ", ".join(str(rank) for rank in wrong.order[:12]) + (", …" if len(wrong.order) > 12 else "")
        lines += [
            Line(""),
            *(
                Line(line, HEADING)
                for line in wrap(
                    f"the same rules out of rank order (ranks {order}), as an encoder that lost the order would",
                    width,
                    "",
                    "  ",
                )
            ),
            *_steps(wrong, pieces, width),
            *_result_lines(wrong, pieces, width),
            *_comparison(trace, wrong, rules, width),
        ]
    return lines
