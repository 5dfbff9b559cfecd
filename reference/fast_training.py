"""Fast training: the literal rules, found with incremental counts instead of recounting (BPE-TRAIN-*).

:func:`fast_train` returns exactly what :func:`bpe_conformance.reference.training.train` returns. Instead of
recounting every pair and rewriting every sequence each round, it keeps the documents as one
doubly linked list of token positions (a document's last position links to nothing, so no pair
ever spans two documents), the count of every pair, and a heap of pairs by count. A round visits
only the occurrences of the chosen pair and changes only the counts of the windows it destroys
and creates, so each round costs about the number of occurrences it merges.

Two engines do this: :func:`train_linked` in plain Python, and the batched numpy engine of
:mod:`bpe_conformance.reference.fast_training_numpy`, which does each round with a few array operations.
``engine="auto"`` picks numpy when it is installed and the corpus is large enough to amortise
its fixed cost per round.

>>> fast_train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> fast_train(["aaab", "aab"], 32)
[(97, 97)]
>>> fast_train(["aaaa", "aaaa"], 32, engine="python")  # one copy counted twice
[(97, 97), (258, 258)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpe_conformance.reference.alphabet import FIRST_RULE_ID, MIN_MERGE_COUNT
from bpe_conformance.reference.fast_counts import (
    apply_changes,
    deduplicate,
    pair_code,
    pop_best,
    split_code,
    start_heap,
)
from bpe_conformance.reference.validation import check_documents, check_max_merges

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["ENGINES", "NUMPY_MIN_BYTES", "fast_train", "numpy_available", "train_linked"]

Rules = list[tuple[int, int]]
# Tokens, next and previous positions, and each position's weight (see _linked_corpus).
_Corpus = tuple[list[int], list[int], list[int], list[int]]

ENGINES = ("auto", "numpy", "python")
# Below this many distinct bytes the plain engine wins: numpy costs tens of microseconds per round.
NUMPY_MIN_BYTES = 32_768
_NO_POSITION = -1


def numpy_available() -> bool:
    """True when numpy can be imported, so the batched engine can run."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def _linked_corpus(documents: list[bytes], multiplicities: list[int]) -> _Corpus:
    """Tokens, next and previous positions, and the weight of every position, for all documents end to end."""
    tokens: list[int] = []
    following: list[int] = []
    preceding: list[int] = []
    weights: list[int] = []
    for document, multiplicity in zip(documents, multiplicities, strict=True):
        start, end = len(tokens), len(tokens) + len(document)
        tokens.extend(document)
        following.extend(range(start + 1, end))
        following.append(_NO_POSITION)
        preceding.append(_NO_POSITION)
        preceding.extend(range(start, end - 1))
        weights.extend([multiplicity] * len(document))
    return tokens, following, preceding, weights


def _initial_counts(
    tokens: list[int], following: list[int], weights: list[int]
) -> tuple[dict[int, int], dict[int, list[int]]]:
    """Every window's weighted count, and the positions where each pair starts."""
    counts: dict[int, int] = {}
    where: dict[int, list[int]] = {}
    for position, next_position in enumerate(following):
        if next_position != _NO_POSITION:
            code = pair_code(tokens[position], tokens[next_position])
            counts[code] = counts.get(code, 0) + weights[position]
            where.setdefault(code, []).append(position)
    return counts, where


def _merge_everywhere(corpus: _Corpus, where: dict[int, list[int]], merged: int, new_id: int) -> dict[int, int]:
    """Replace every occurrence of the merged pair, leftmost first, and return the count changes.

    Positions are visited in increasing order, which is document order, and each is checked
    against the current tokens: inside a run of a repeated token, a window whose first position
    was just swallowed by the merge to its left no longer matches, which is exactly the
    left-to-right, non-overlapping scan (BPE-MERGE-SCAN). Each merge updates the links at once,
    so the next occurrence sees its true neighbours, including a token made this round.
    """
    tokens, following, preceding, weights = corpus
    first, second = split_code(merged)
    changes: dict[int, int] = {}
    positions = where.pop(merged)
    if first == second:
        positions.sort()
    for position in positions:
        partner = following[position]
        if tokens[position] != first or partner == _NO_POSITION or tokens[partner] != second:
            continue
        weight = weights[position]
        left, right = preceding[position], following[partner]
        if left != _NO_POSITION:
            _move_window(changes, where, pair_code(tokens[left], first), pair_code(tokens[left], new_id), left, weight)
        if right != _NO_POSITION:
            _move_window(
                changes, where, pair_code(second, tokens[right]), pair_code(new_id, tokens[right]), position, weight
            )
            preceding[right] = position
        following[position] = right
        tokens[position] = new_id
        tokens[partner] = _NO_POSITION
    return changes


def _move_window(
    changes: dict[int, int], where: dict[int, list[int]], old: int, new: int, start: int, weight: int
) -> None:
    changes[old] = changes.get(old, 0) - weight
    changes[new] = changes.get(new, 0) + weight
    where.setdefault(new, []).append(start)


def train_linked(
    documents: list[bytes],
    multiplicities: list[int],
    max_merges: int,
    *,
    first_rule_id: int = FIRST_RULE_ID,
    min_count: int = MIN_MERGE_COUNT,
    progress: Callable[[int], None] | None = None,
) -> Rules:
    """The plain-Python engine over distinct byte documents counted with their multiplicities.

    Ties go to the smallest ``(a, b)``; pairs counted fewer than ``min_count`` times are never merged.
    """
    corpus = _linked_corpus(documents, multiplicities)
    counts, where = _initial_counts(corpus[0], corpus[1], corpus[3])
    heap = start_heap(counts, min_count)
    rules: Rules = []
    for rank in range(max_merges):
        merged = pop_best(heap, counts)
        if merged is None:
            break
        changes = _merge_everywhere(corpus, where, merged, first_rule_id + rank)
        apply_changes(counts, heap, changes.items(), merged, min_count)
        rules.append(split_code(merged))
        if progress is not None:
            progress(len(rules))
    return rules


def _choose_engine(engine: str, documents: list[bytes]) -> str:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "auto":
        large = sum(len(document) for document in documents) >= NUMPY_MIN_BYTES
        return "numpy" if large and numpy_available() else "python"
    return engine


def fast_train(
    documents: list[str], max_merges: int, engine: str = "auto", progress: Callable[[int], None] | None = None
) -> Rules:
    """Learn the same rules as :func:`bpe_conformance.reference.training.train`, much faster.

    ``engine`` is ``"python"``, ``"numpy"`` or ``"auto"``; every engine gives the same rules.
    ``progress``, when given, is called with the number of rules made after every round.
    """
    checked_max_merges = check_max_merges(max_merges)
    distinct, multiplicities = deduplicate(check_documents(documents))
    if _choose_engine(engine, distinct) == "numpy":
        from bpe_conformance.reference.fast_training_numpy import train_arrays

        return train_arrays(distinct, multiplicities, checked_max_merges, progress=progress)
    return train_linked(distinct, multiplicities, checked_max_merges, progress=progress)
