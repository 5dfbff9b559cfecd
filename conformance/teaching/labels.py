"""How the teaching views write ids, pieces, counts and the reasons behind a round, the same in every view.

A piece that is valid UTF-8 is written as a Python string literal; one that is not (part of a
character: pairs are counted over bytes) is written as its hex bytes with :data:`PARTIAL_MARK`, which
:data:`PARTIAL_NOTE` explains once per view.

>>> piece_label(b"ab"), piece_label(b"\\xbd\\x8e"), piece_label(b"\\n")
("'ab'", '<bd 8e>*', "'\\\\n'")
>>> ids_text([258, 258], 40), ids_text(list(range(90)), 28)
('[258, 258]', '[0, 1, 2, 3, 4, 5, … 90 ids]')
>>> counts_text([((97, 98), 2), ((97, 99), 2)])
'(97, 98)×2  (97, 99)×2'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.cells import cell_len

from bpe_conformance.reference.encoding_trace import EncodingTrace, unmade_ids
from bpe_conformance.reference.pieces import piece_hex
from bpe_conformance.reference.trace import STOP_MAX_MERGES, RoundSummary, StopRound

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "MAX_LABEL_CELLS",
    "MAX_PAIRS_NAMED",
    "PARTIAL_LABEL",
    "PARTIAL_MARK",
    "PARTIAL_NOTE",
    "counts_text",
    "fit",
    "ids_text",
    "is_text",
    "labels_text",
    "order_comparison",
    "pair_text",
    "piece_label",
    "pieces_of",
    "selection_reason",
    "sequence_lines",
    "short_repr",
    "stop_explanation",
    "wrap",
    "wrap_items",
]

PARTIAL_MARK = "*"
# How a partial piece looks in any view's text: <bd 8e>*.
PARTIAL_LABEL = re.compile(r"<[0-9a-f]{2}(?: [0-9a-f]{2})*(?: …)?>" + re.escape(PARTIAL_MARK))
PARTIAL_NOTE = (
    f"<..>{PARTIAL_MARK} a piece's bytes in hex: not valid UTF-8 on its own (pairs are counted over bytes, so a "
    "piece can hold part of a character, BPE-RULE-PIECE); decoding it alone would invent U+FFFD, so it is "
    "never shown as text. A document's ids together always decode."
)
MAX_PAIRS_NAMED = 8
_ELLIPSIS = "…"
# A piece or text wider than this many columns is cut in the middle of prose and in rows of pieces.
MAX_LABEL_CELLS = 32
# Pairs stay whole when prose is wrapped: "(116, 260)" is never split after its comma.
_PAIR = re.compile(r"\((\d+), (\d+)\)")
_KEPT_SPACE = "\ue000"  # one column wide, not whitespace, never in a view's text


def is_text(piece: bytes) -> bool:
    """True when ``piece`` is valid UTF-8 on its own."""
    try:
        piece.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def short_repr(text: str, limit: int = MAX_LABEL_CELLS) -> str:
    """``repr(text)``, or when wider than ``limit`` columns its start, ``…'`` and the length in characters.

    >>> short_repr("ab"), short_repr("abcdefghijklmnopqrstuvwxyz", 24)
    ("'ab'", "'abcde…' (26 characters)")
    """
    whole = repr(text)
    if cell_len(whole) <= limit:
        return whole
    suffix = f" ({len(text)} characters)"
    kept = ""
    for character in text:
        if cell_len(repr(kept + character)) + 1 + len(suffix) > limit:
            break
        kept += character
    quoted = repr(kept)
    return quoted[:-1] + _ELLIPSIS + quoted[-1] + suffix


def piece_label(piece: bytes, limit: int = MAX_LABEL_CELLS) -> str:
    """The piece as a string literal, or as ``<hex>*`` when it is not valid UTF-8 on its own; a piece wider than
    ``limit`` columns is cut, saying how long it is."""
    if is_text(piece):
        return short_repr(piece.decode("utf-8"), limit)
    whole = f"<{piece_hex(piece)}>{PARTIAL_MARK}"
    if len(whole) <= limit:
        return whole
    suffix = f" ({len(piece)} bytes)"
    kept = max((limit - len(suffix) - len(f"< {_ELLIPSIS}>{PARTIAL_MARK}") + 1) // 3, 1)
    return f"<{piece_hex(piece[:kept])} {_ELLIPSIS}>{PARTIAL_MARK}{suffix}"


def pieces_of(ids: Sequence[int], pieces: Sequence[bytes]) -> list[bytes]:
    """The piece of every id (``pieces`` indexed by id, as :func:`reference.build_pieces` makes them)."""
    return [pieces[token] for token in ids]


def pair_text(pair: tuple[int, int]) -> str:
    """``(97, 98)``."""
    return f"({pair[0]}, {pair[1]})"


def fit(
    items: Sequence[str], width: int, opening: str = "", closing: str = "", separator: str = " ", noun: str = ""
) -> str:
    """``items`` joined and wrapped in ``opening``/``closing``, cut with a count of the whole when wider than
    ``width`` (at least one item is always shown)."""
    whole = opening + separator.join(items) + closing
    if cell_len(whole) <= width or not items:
        return whole
    tail = f"{separator.rstrip()} {_ELLIPSIS} {len(items)} {noun}{closing}"
    shown = [items[0]]
    for item in items[1:]:
        if cell_len(opening + separator.join([*shown, item]) + tail) > width:
            break
        shown.append(item)
    return opening + separator.join(shown) + tail


def ids_text(ids: Sequence[int], width: int) -> str:
    """``[258, 258]``, or its start and the number of ids when wider than ``width``."""
    return fit([str(token) for token in ids], width, "[", "]", ", ", "ids")


def labels_text(pieces: Sequence[bytes], width: int) -> str:
    """The pieces' labels side by side, or their start and how many when wider than ``width``."""
    return fit([piece_label(piece) for piece in pieces], width, noun="pieces")


def sequence_lines(
    prefix: str, ids: Sequence[int], pieces: Sequence[bytes], width: int, ids_column: int = 0
) -> list[str]:
    """One line ``prefix [ids]  'pieces'`` when it fits in ``width``, else the ids and, under them, the pieces."""
    ids_part = ids_text(ids, max(width - len(prefix), 12))
    labels = labels_text(pieces, width)
    padded = ids_part.ljust(max(ids_column, len(ids_part)))
    if len(prefix) + len(padded) + 2 + cell_len(labels) <= width:
        return [f"{prefix}{padded}  {labels}".rstrip()]
    indent = " " * len(prefix)
    return [prefix + ids_part, indent + labels_text(pieces, max(width - len(indent), 12))]


def counts_text(counts: Sequence[tuple[tuple[int, int], int]]) -> str:
    """``(97, 98)×2  (97, 99)×2``: pairs with their counts, as a round saw them."""
    return "  ".join(f"{pair_text(pair)}×{count}" for pair, count in counts)


def _pairs_named(pairs: Sequence[tuple[int, int]]) -> str:
    named = [pair_text(pair) for pair in pairs[:MAX_PAIRS_NAMED]]
    more = len(pairs) - len(named)
    if more:
        return ", ".join(named) + f" and {more} more"
    if len(named) == 2:
        return " and ".join(named)
    return ", ".join(named[:-1]) + " and " + named[-1]


def selection_reason(step: RoundSummary) -> str:
    """Why the round's pair won: a tie broken by the smaller pair, or the highest count alone."""
    if len(step.tie_candidates) > 1:
        return (
            f"{_pairs_named(step.tie_candidates)} tie at count {step.count}: the smallest pair, compared as "
            f"integers, wins (BPE-TRAIN-TIE)"
        )
    if step.runner_up is None:
        return f"the only pair counted; it occurs {step.count} times (BPE-TRAIN-GREEDY)"
    pair, count = step.runner_up
    return f"the highest count, {step.count}; the next best, {pair_text(pair)}, has {count} (BPE-TRAIN-GREEDY)"


def stop_explanation(stop: StopRound) -> str:
    """Why no further rule was made, in the words of BPE-TRAIN-STOP."""
    if stop.rule == STOP_MAX_MERGES:
        return (
            f"{stop.rules_made} rule{'' if stop.rules_made == 1 else 's'} made, all that max_merges "
            f"{stop.max_merges} allows, so training ends without counting again; the counts left are what a further "
            f"round would have chosen from (BPE-TRAIN-STOP)"
        )
    if stop.best is None:
        return "no pair left: every sequence is a single id or empty (BPE-TRAIN-STOP)"
    pair, count = stop.best
    return (
        f"the best pair, {pair_text(pair)}, occurs {'once' if count == 1 else f'{count} times'}, below 2: merging "
        f"a pair seen once spends an id to save one position (BPE-TRAIN-STOP)"
    )


def _why_nothing(rank: int, rules: Sequence[tuple[int, int]], wrong: EncodingTrace) -> str:
    unmade = unmade_ids(rules[rank], wrong.order, rank)
    if unmade:
        return f"rule {rank} {pair_text(rules[rank])} names {', '.join(map(str, unmade))}, which no rule had made yet"
    return f"rule {rank} {pair_text(rules[rank])} found its ids already merged otherwise by the rules applied before it"


def order_comparison(
    right: EncodingTrace, wrong: EncodingTrace, rules: Sequence[tuple[int, int]], width: int = 100
) -> str:
    """What applying the rules out of rank order changed: nothing for this text, or other ids that decode the same,
    with the reason each rule that matched in rank order matched nothing (BPE-ENCODE-ORDER)."""
    if wrong.ids == right.ids:
        return f"the same ids, {ids_text(right.ids, width)}: for this text the order of these rules makes no difference"
    missed = sorted({step.rank for step in right.steps} - {step.rank for step in wrong.steps})
    text = (
        f"{ids_text(wrong.ids, width)}, not the canonical {ids_text(right.ids, width)}; both decode to "
        f"{short_repr(right.text)}, so a round trip cannot tell them apart: the exact ids are the contract "
        f"(BPE-ENCODE-ORDER)."
    )
    if missed:
        reasons = "; ".join(_why_nothing(rank, rules, wrong) for rank in missed[:MAX_PAIRS_NAMED])
        more = f" ({len(missed) - MAX_PAIRS_NAMED} more)" if len(missed) > MAX_PAIRS_NAMED else ""
        text += f" Out of order, rules that matched in rank order match nothing: {reasons}{more}."
    return text


def wrap(text: str, width: int, indent: str = "", subsequent: str | None = None) -> list[str]:
    """``text`` wrapped to ``width`` terminal columns (a CJK character takes two), never breaking a word, a
    hyphenated id or a pair.

    >>> wrap("then merge (116, 260) now", 20)
    ['then merge', '(116, 260) now']
    """
    words = _PAIR.sub(lambda match: f"({match[1]},{_KEPT_SPACE}{match[2]})", text).split()
    lines = wrap_items(words, width, indent, indent if subsequent is None else subsequent, separator=" ")
    return [line.replace(_KEPT_SPACE, " ") for line in lines]


def wrap_items(items: Sequence[str], width: int, indent: str, subsequent: str, separator: str = "  ") -> list[str]:
    """``items`` on as few lines as fit ``width`` columns, never splitting one (a line holds at least one).

    >>> wrap_items(["(97, 98)×2", "(97, 99)×2", "(98, 97)×1"], 26, "  ", "  ")
    ['  (97, 98)×2  (97, 99)×2', '  (98, 97)×1']
    """
    width = max(width, 20)
    lines: list[str] = []
    current, filled = indent, False
    for item in items:
        joined = current + separator + item if filled else current + item
        if filled and cell_len(joined) > width:
            lines.append(current)
            current = subsequent + item
        else:
            current = joined
        filled = True
    lines.append(current)
    return lines
