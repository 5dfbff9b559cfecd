"""Batched numpy encoding: rules applied a *layer* at a time to every text at once (BPE-ENCODE-*).

The literal encoder applies rule 0, then rule 1, ... to each text. Most neighbouring rules do not
interact, and rules that do not interact may be applied in one step. Call rules ``P = (p1, p2)``
and ``Q = (q1, q2)`` (``P`` makes ``X``) *independent* when ``p2 != q1``, ``p1 != q2``, ``Q`` does
not use ``X`` (nor ``P`` the id ``Q`` makes) and ``P != Q``. Then applying ``P`` then ``Q`` is the
same as applying ``Q`` then ``P``, and the same as merging the occurrences of both found in the
state before either:

1. A merge of ``P`` at windows ``(s, t)`` destroys only windows containing ``s`` or ``t``. A window
   ``(u, v)`` of ``Q`` containing one of them would need ``v = s`` (``q2 = p1``), ``u = t``
   (``q1 = p2``), or ``(u, v) = (s, t)`` (``Q = P``): all excluded. So every occurrence of ``Q``
   survives ``P``, and symmetrically.
2. Every window a merge of ``P`` creates holds ``X``, which ``Q`` does not use: ``P`` creates no
   occurrence of ``Q``. So ``Q`` after ``P`` merges exactly ``Q``'s occurrences before ``P``.
3. An occurrence of ``P`` and one of ``Q`` share no position (by the same case analysis as 1), so
   merging both sets at once is well defined, and a run ``t t t`` of a rule ``(t, t)`` is scanned
   left to right exactly as in :func:`bpe_conformance.reference.replacement.replace_pair`.

:func:`rule_layers` gives rule ``j`` the layer ``1 + max(layer of every earlier rule it is not
independent of)``. Applying the layers in order, each layer's rules at once, is a reordering of the
rank order that swaps only independent rules (every dependent pair keeps its order), so it gives the
literal ids. A rule that repeats an earlier pair never applies (after the earlier one no window of
that pair is left, and none is ever created again, since created windows hold new ids), and neither
does any rule using the id of a rule that never applies: such rules get no layer.

Each layer finds its windows without a scan, like the numpy trainer: pairs of two bytes from the
initial windows sorted by pair, pairs involving a rule id from the positions where that id was made.

>>> encode_arrays([b"abac", b"ab"], [(97, 98), (97, 99)])
[[258, 259], [258]]
>>> rule_layers([(97, 98), (99, 100), (258, 99), (97, 98), (261, 97)])  # 3 repeats 0; 4 uses 3's id
[0, 0, 1, -1, -1]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bpe_conformance.reference.alphabet import BYTE_COUNT, FIRST_RULE_ID

__all__ = ["NEVER_APPLIES", "encode_arrays", "layered_rules", "rule_layers"]

Rules = Sequence[tuple[int, int]]
NEVER_APPLIES = -1
_NONE = -1


def rule_layers(rules: Rules) -> list[int]:
    """The layer of every rule, or :data:`NEVER_APPLIES` for a repeated rule and the rules built on one."""
    latest_left: dict[int, int] = {}  # token -> highest layer of a rule with it on the left
    latest_right: dict[int, int] = {}
    made_in: dict[int, int] = {}  # rule id -> its rule's layer; bytes are in no layer
    seen: set[tuple[int, int]] = set()
    dead: set[int] = set()
    layers: list[int] = []
    for rank, (first, second) in enumerate(rules):
        new_id = FIRST_RULE_ID + rank
        if (first, second) in seen or first in dead or second in dead:
            dead.add(new_id)
            layers.append(NEVER_APPLIES)
            continue
        seen.add((first, second))
        layer = 1 + max(
            latest_right.get(first, _NONE),
            latest_left.get(second, _NONE),
            made_in.get(first, _NONE),
            made_in.get(second, _NONE),
        )
        layers.append(layer)
        made_in[new_id] = layer
        latest_left[first] = max(latest_left.get(first, _NONE), layer)
        latest_right[second] = max(latest_right.get(second, _NONE), layer)
    return layers


def layered_rules(rules: Rules) -> list[list[int]]:
    """The ranks of the rules that can apply, grouped by layer, layers in order."""
    layers = rule_layers(rules)
    grouped: list[list[int]] = [[] for _ in range(max(layers, default=NEVER_APPLIES) + 1)]
    for rank, layer in enumerate(layers):
        if layer != NEVER_APPLIES:
            grouped[layer].append(rank)
    return grouped


class _Texts:
    """All texts end to end as linked int32 arrays; position ``size`` is a sentinel holding -1."""

    def __init__(self, texts: list[bytes]) -> None:
        size = sum(len(text) for text in texts)
        lengths = np.fromiter((len(text) for text in texts), dtype=np.int64, count=len(texts))
        self.ends = np.cumsum(lengths)
        starts = self.ends - lengths
        data = np.frombuffer(b"".join(texts), dtype=np.uint8)
        self.tokens = np.empty(size + 1, dtype=np.int32)
        self.tokens[:size] = data
        self.tokens[size] = -1
        self.following = np.arange(1, size + 2, dtype=np.int32)
        self.preceding = np.arange(-1, size, dtype=np.int32)
        self.sentinel = size
        nonempty = lengths > 0
        self.following[self.ends[nonempty] - 1] = size
        self.following[size] = size
        self.preceding[starts[nonempty]] = size
        self.preceding[size] = size
        # Every window sorted by its byte pair; windows across texts fail the partner check.
        pairs = data[:-1].astype(np.uint16) << 8 | data[1:]
        self.pair_positions = np.argsort(pairs, kind="stable").astype(np.int32)
        bounds = np.zeros(BYTE_COUNT * BYTE_COUNT + 1, dtype=np.int64)
        np.cumsum(np.bincount(pairs, minlength=BYTE_COUNT * BYTE_COUNT), out=bounds[1:])
        self.pair_bounds = bounds.tolist()
        # How many tokens hold each id right now: a rule whose part is absent is skipped for free.
        self.present = np.bincount(data, minlength=BYTE_COUNT).tolist()
        # Positions holding each token, sorted: bytes from the text, rule ids where they were made.
        by_byte = np.argsort(data, kind="stable").astype(np.int32)
        byte_bounds = np.cumsum([0, *self.present]).tolist()
        self.held_at: dict[int, np.ndarray] = {
            value: by_byte[byte_bounds[value] : byte_bounds[value + 1]] for value in range(BYTE_COUNT)
        }


def _holding(texts: _Texts, token: int) -> np.ndarray:
    """Positions still holding ``token`` (sorted), pruning its stored list as a side effect."""
    held: np.ndarray = texts.held_at[token]
    positions: np.ndarray = held[texts.tokens[held] == token]
    texts.held_at[token] = positions
    return positions


def _candidates(texts: _Texts, first: int, second: int) -> np.ndarray:
    """Sorted positions where ``(first, second)`` may start: a superset of its windows."""
    if first < BYTE_COUNT and second < BYTE_COUNT:
        code = first * BYTE_COUNT + second
        return texts.pair_positions[texts.pair_bounds[code] : texts.pair_bounds[code + 1]]
    if texts.present[first] <= texts.present[second]:
        return _holding(texts, first)
    preceding: np.ndarray = texts.preceding[_holding(texts, second)]
    return preceding


def _apply_layer(texts: _Texts, rules: Rules, ranks: list[int]) -> None:
    """Merge every window of every rule of one layer, each run of one token left to right.

    Each rule's candidates are checked against that rule's own pair, so a position offered by two
    rules' candidates is kept at most once, and the windows found come in blocks, one per rule,
    each in text order.
    """
    present = texts.present
    applicable = []
    found = []
    for rank in ranks:
        first, second = rules[rank]
        if present[first] and present[second] and (first != second or present[first] > 1):
            applicable.append(rank)
            found.append(_candidates(texts, first, second))
    if not applicable:
        return
    sizes = [len(candidates) for candidates in found]
    candidates = np.concatenate(found)
    rule_of = np.repeat(np.arange(len(applicable), dtype=np.int32), sizes)
    tokens, following, preceding = texts.tokens, texts.following, texts.preceding
    firsts = np.array([rules[rank][0] for rank in applicable], dtype=np.int32)
    seconds = np.array([rules[rank][1] for rank in applicable], dtype=np.int32)
    hit = tokens[candidates] == firsts[rule_of]
    hit &= tokens[following[candidates]] == seconds[rule_of]
    starts = candidates[hit]
    which = rule_of[hit]
    # Windows of one rule (t, t) chain through a run; only every other one from each chain's start
    # is merged. Windows of two rules of a layer never chain (that would need p2 == q1).
    chained = np.zeros(len(starts), dtype=bool)
    chained[1:] = following[starts[:-1]] == starts[1:]
    if chained.any():
        index = np.arange(len(starts), dtype=np.int64)
        chain_start = np.maximum.accumulate(np.where(chained, 0, index))
        keep = (index - chain_start) % 2 == 0
        starts, which = starts[keep], which[keep]
    if not len(starts):
        return
    partners = following[starts]
    rights = following[partners]
    tokens[starts] = np.asarray(applicable, dtype=np.int32)[which] + FIRST_RULE_ID
    tokens[partners] = -1
    following[starts] = rights
    preceding[rights] = starts
    preceding[texts.sentinel] = texts.sentinel
    merged = np.bincount(which, minlength=len(applicable)).tolist()
    taken = 0  # windows are in blocks, one per applicable rule, in that order
    for slot, rank in enumerate(applicable):
        count = merged[slot]
        if count:
            first, second = rules[rank]
            present[first] -= count
            present[second] -= count
            present[FIRST_RULE_ID + rank] = count
            texts.held_at[FIRST_RULE_ID + rank] = starts[taken : taken + count]
            taken += count


def encode_arrays(texts: list[bytes], rules: Rules, layers: list[list[int]] | None = None) -> list[list[int]]:
    """The literal ids of every text in ``texts`` under ``rules`` (trusted), computed all at once.

    ``layers`` is :func:`layered_rules` of ``rules``, when the caller keeps it.
    """
    if layers is None:
        layers = layered_rules(rules)
    batch = _Texts(texts)
    batch.present.extend([0] * (FIRST_RULE_ID - BYTE_COUNT + len(rules)))
    for ranks in layers:
        _apply_layer(batch, rules, ranks)
    size = batch.sentinel
    alive = batch.tokens[:size] >= 0
    kept = batch.tokens[:size][alive]
    alive_before = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(alive, out=alive_before[1:])
    bounds = [0, *alive_before[batch.ends].tolist()]
    return [kept[bounds[index] : bounds[index + 1]].tolist() for index in range(len(texts))]
