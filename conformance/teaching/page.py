"""The visual walk-through: a training trace (and encodings) as one self-contained HTML page.

Every state is a ``<section class="state">`` with a name a URL fragment can give: ``start``,
``round-0``, ``round-1``, …, ``stop``, then ``encode-0``, ``encode-1``, … Each round shows the counts
table (the winner and the tied pairs marked) and every kept document as two rows of token boxes:
before the round, with the replaced pairs highlighted where they are replaced, and after it, with the
new ids highlighted. Nothing is loaded from anywhere: style and script are inline.

>>> from bpe_conformance.reference import trace_training
>>> page = render_page(["abab", "acac"], trace_training(["abab", "acac"], 32))
>>> page.startswith("<!DOCTYPE html>"), 'data-state="round-1"' in page, "http" in page
(True, True, False)
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from bpe_conformance.reference import (
    BEGIN_ID,
    END_ID,
    build_pieces,
    vocab_size,
)
from bpe_conformance.reference.trace import STOP_MAX_MERGES, RoundSummary, TrainingTrace
from bpe_conformance.reports.common import plural
from bpe_conformance.teaching.labels import (
    PARTIAL_NOTE,
    is_text,
    order_comparison,
    pair_text,
    piece_label,
    selection_reason,
    short_repr,
    stop_explanation,
)
from bpe_conformance.teaching.page_assets import SCRIPT, STYLE

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bpe_conformance.reference.encoding_trace import EncodingTrace

__all__ = ["MAX_TOKENS_SHOWN", "render_page", "replaced_positions"]

# A row of boxes past this many tokens ends in one box that says how many more there are.
MAX_TOKENS_SHOWN = 160
Pair = tuple[int, int]


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def replaced_positions(after: Sequence[int], new_id: int) -> list[int]:
    """Where in the sequence before the round each replacement starts, read off ``after``: each ``new_id`` there stands
    for the two ids at the current position (the new id occurs nowhere before it is made).

    >>> replaced_positions([258, 97], 258), replaced_positions([258, 258], 258)
    ([0], [0, 2])
    """
    starts = []
    index = 0
    for token in after:
        if token == new_id:
            starts.append(index)
            index += 2
        else:
            index += 1
    return starts


def _token(token: int, pieces: list[bytes], marked: str = "") -> str:
    piece = pieces[token]
    classes = " ".join(name for name in ("tok", marked, "" if is_text(piece) else "partial") if name)
    label = "" if token in (BEGIN_ID, END_ID) else piece_label(piece)
    if token in (BEGIN_ID, END_ID):
        classes += " boundary"
        label = "begin" if token == BEGIN_ID else "end"
    return (
        f'<span class="{classes}" data-id="{token}" title="{_e(piece.hex(" ") or label)}"><b>{token}</b>'
        f"<i>{_e(label)}</i></span>"
    )


def _row(
    label: str,
    ids: Sequence[int],
    pieces: list[bytes],
    marks: dict[int, str] | None = None,
    pair_starts: Sequence[int] = (),
) -> str:
    """A row of token boxes; ``pair_starts`` groups the two boxes of each replaced pair in one frame."""
    marks = marks or {}
    starts = set(pair_starts)
    boxes = []
    index = 0
    shown = ids[:MAX_TOKENS_SHOWN]
    while index < len(shown):
        if index in starts and index + 1 < len(shown):
            pair = _token(shown[index], pieces, "hit") + _token(shown[index + 1], pieces, "hit")
            boxes.append(f'<span class="replaced">{pair}</span>')
            index += 2
        else:
            boxes.append(_token(shown[index], pieces, marks.get(index, "")))
            index += 1
    if len(ids) > MAX_TOKENS_SHOWN:
        boxes.append(f'<span class="tok more">… {len(ids) - MAX_TOKENS_SHOWN} more</span>')
    return f'<div class="row" data-row="{_e(label)}"><span class="row-label">{_e(label)}</span>{"".join(boxes)}</div>'


def _documents(
    pairs: Sequence[tuple[list[int], list[int] | None]], total: int, pieces: list[bytes], new_id: int | None
) -> str:
    parts = []
    for index, (before, after) in enumerate(pairs):
        rows = []
        if after is None:
            rows.append(_row("ids", before, pieces))
        else:
            starts = replaced_positions(after, new_id) if new_id is not None else []
            rows.append(_row("before", before, pieces, pair_starts=starts))
            fresh = {position: "new" for position, token in enumerate(after) if token == new_id}
            rows.append(_row("after", after, pieces, fresh))
        parts.append(
            f'<div class="doc" data-document="{index}"><div class="doc-label">document {index}</div>'
            f"{''.join(rows)}</div>"
        )
    if total > len(pairs):
        parts.append(f'<p class="note">… and {plural(total - len(pairs), "more document")} (--max-docs)</p>')
    return "".join(parts)


def _counts_table(
    counts: Sequence[tuple[Pair, int]], pieces: list[bytes], winner: Pair | None, ties: Sequence[Pair]
) -> str:
    rows = []
    for pair, count in counts:
        classes = " ".join(name for name in ("winner" if pair == winner else "", "tie" if pair in ties else "") if name)
        mark = "chosen" if pair == winner else ""
        if pair in ties and len(ties) > 1:
            mark = (mark + " · " if mark else "") + "tie"
        pieces_label = " ".join(piece_label(pieces[part]) for part in pair)
        rows.append(
            f'<tr class="{classes}"><td class="pair">{_e(pair_text(pair))}</td><td class="mono">'
            f'{_e(pieces_label)}</td><td class="count">{count}</td><td class="mark">{mark}</td></tr>'
        )
    return (
        '<table class="counts"><thead><tr><th>pair</th><th>pieces</th><th>count</th><th></th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _state(state_id: str, title: str, body: str) -> str:
    # The fragment names the state through data-state, not id: an id would make the browser scroll to the
    # section before the script has hidden the others, and the page would open half-way down.
    return f'<section class="state" data-state="{_e(state_id)}" data-title="{_e(title)}">{body}</section>'


def _round(step: RoundSummary, documents: Sequence[str], pieces: list[bytes]) -> str:
    title = f"round {step.rank}: {pair_text(step.pair)} → {step.new_id}"
    body = [
        f"<h2>Round {step.rank}: merge {_e(pair_text(step.pair))} into {step.new_id} = "
        f'<span class="mono">{_e(piece_label(step.piece))}</span></h2>',
        f'<p class="why">{_e(selection_reason(step))}</p>',
        _counts_table(step.top_counts, pieces, step.pair, step.tie_candidates),
        f'<p class="result">{plural(step.replacements, "replacement")}: length {step.length_before} → '
        f"{step.length_after}"
        + (
            f" (the count is {step.count}: windows overlap when counted, never when replaced)"
            if step.replacements != step.count
            else ""
        )
        + "</p>",
        _documents(
            list(zip(step.sequences_before, step.sequences_after, strict=True)), len(documents), pieces, step.new_id
        ),
    ]
    if step.overlap is not None:
        wrong = step.overlap.every_window_bytes
        shown = short_repr(wrong.decode("utf-8")) if is_text(wrong) else piece_label(wrong)
        body.append(
            f'<p class="contrast">Not {_e(step.overlap.every_window)}: consuming every counted window in document '
            f"{step.overlap.document} uses an id twice and decodes to {_e(shown)}, not "
            f"{_e(short_repr(documents[step.overlap.document]))} (BPE-MERGE-SCAN).</p>"
        )
    return _state(f"round-{step.rank}", title, "".join(body))


def _stop(trace: TrainingTrace, documents: Sequence[str], pieces: list[bytes]) -> str:
    stop = trace.stop
    heading = "not run, max_merges reached" if stop.rule == STOP_MAX_MERGES else "no rule made, training stops"
    winner = stop.best[0] if stop.best else None
    body = [
        f"<h2>Round {stop.rules_made}: {heading}</h2>",
        f'<p class="why">{_e(stop_explanation(stop))}</p>',
        _counts_table(stop.top_counts, pieces, None, [winner] if winner else []) if stop.top_counts else "",
        "<h3>Final sequences: what encode gives for each training document</h3>",
        _documents([(sequence, None) for sequence in stop.sequences], len(documents), pieces, None),
        f'<p class="result">{plural(stop.rules_made, "rule")} made, vocabulary size '
        f"{vocab_size([step.pair for step in trace.rounds])}</p>",
    ]
    return _state("stop", f"round {stop.rules_made}: stop", "".join(body))


def _encoding(
    number: int, trace: EncodingTrace, pieces: list[bytes], wrong: EncodingTrace | None, rules: Sequence[Pair]
) -> str:
    def steps(encoding: EncodingTrace) -> str:
        rows = [_row("bytes", encoding.start, pieces)]
        for step in encoding.steps:
            fresh = {index: "new" for index, token in enumerate(step.sequence_after) if token == step.new_id}
            rows.append(
                _row(f"rule {step.rank} {pair_text(step.pair)} → {step.new_id}", step.sequence_after, pieces, fresh)
            )
        rows.append(_row("document", encoding.document_ids, pieces))
        decoded = f"decodes to {short_repr(encoding.decoded)}"
        return (
            f'<div class="encoding">{"".join(rows)}</div>'
            f'<p class="result mono">ids {_e(encoding.ids)} · {_e(decoded)}</p>'
        )

    body = [f"<h2>Encode {_e(short_repr(trace.text))}: the rules in rank order</h2>", steps(trace)]
    if wrong is not None:
        body += [f"<h3>The same rules out of rank order (ranks {_e(wrong.order)})</h3>", steps(wrong)]
        verdict = order_comparison(trace, wrong, rules, width=400)
        body.append(f'<p class="contrast">{_e(verdict)}</p>')
    return _state(f"encode-{number}", f"encode {short_repr(trace.text)}", "".join(body))


def _start(trace: TrainingTrace, documents: Sequence[str], pieces: list[bytes]) -> str:
    body = [
        "<h2>Start: each document is its UTF-8 bytes, one id per byte</h2>",
        f'<p class="why">Counts are taken inside each document, never across two (BPE-TRAIN-DOCS); '
        f"{plural(len(documents), 'document')}, {plural(sum(len(d.encode()) for d in documents), 'byte')}.</p>",
        _documents([(sequence, None) for sequence in trace.start], len(documents), pieces, None),
    ]
    return _state("start", "start", "".join(body))


def render_page(
    documents: Sequence[str],
    trace: TrainingTrace | None,
    encodings: Sequence[tuple[EncodingTrace, EncodingTrace | None]] = (),
    rules: Sequence[Pair] | None = None,
    title: str | None = None,
) -> str:
    """The whole page: the training states of ``trace`` (if any), then each encoding, which uses ``rules`` (by
    default the rules ``trace`` made)."""
    if trace is None and rules is None:
        raise ValueError("render_page needs a training trace or the rules the encodings used")
    learned = list(rules) if rules is not None else [step.pair for step in trace.rounds] if trace else []
    pieces = build_pieces(learned)
    states = []
    if trace is not None:
        states += [
            _start(trace, documents, pieces),
            *(_round(step, documents, pieces) for step in trace.rounds),
            _stop(trace, documents, pieces),
        ]
    states += [_encoding(number, right, pieces, wrong, learned) for number, (right, wrong) in enumerate(encodings)]
    if title is not None:
        heading = title
    elif trace is not None:
        heading = f"BPE training trace: {plural(len(documents), 'document')}, max_merges {trace.stop.max_merges}"
    else:
        heading = "BPE encoding, step by step"
    summary = f"The reference, strict profile · {plural(len(learned), 'rule')} · vocabulary size {vocab_size(learned)}"
    shown = "".join(states)
    footnote = f'<p class="note">{_e(PARTIAL_NOTE)}</p>' if re.search(r'class="tok[^"]* partial', shown) else ""
    legend = (
        '<div class="legend"><span><span class="replaced"><span class="tok hit">97</span><span class="tok hit">98'
        '</span></span> a pair replaced in this round</span><span><span class="tok new">258</span> the new id</span>'
        '<span><span class="tok partial"><i>&lt;bd 8e&gt;*</i></span> a piece that is not UTF-8 on its own</span></div>'
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(heading)}</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1>{_e(heading)}</h1>
<p class="summary">{_e(summary)}</p>
<nav class="controls" aria-label="move through the rounds">
<button id="previous" type="button">◀ previous</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="state">
<button id="next" type="button">next ▶</button>
<span id="position" aria-live="polite"></span>
</nav>
{legend}
</header>
<main>
{shown}
{footnote}
</main>
<script>{SCRIPT}</script>
</body>
</html>
"""
