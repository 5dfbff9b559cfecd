"""The bug models: buggy trainers that each differ from the reference in one step.

A model explains an implementation only if it makes exactly the implementation's rules, all of
them: agreeing on one round is too often a coincidence. Each model differs from the judging profile
in one step (:data:`MODELS`); a model equal to the profile is left out.

>>> from bpe_conformance.reference.profiles import STRICT
>>> [MODELS[index][1] for index in reproducing_models(["xay", "xby", "xcy"], 32, [(121, 120)], STRICT)]
['documents joined before training']
>>> replace_right_to_left([97, 97, 97], (97, 97), 258), replace_overlapping([97, 97, 97], (97, 97), 258)
([97, 258], [258, 258])
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import unicodedata
from collections.abc import Callable
from typing import Any

from bpe_conformance.inputs.predicates import character_class
from bpe_conformance.reference import count_pairs, replace_pair
from bpe_conformance.reference.dialects import profile_pieces, select_profile_pair, training_sequences
from bpe_conformance.reference.profiles import Profile

__all__ = [
    "GPT2_PATTERN",
    "MODELS",
    "Counts",
    "Model",
    "Pair",
    "Sequences",
    "checked_rules",
    "initial_sequences",
    "model_cause",
    "model_clause",
    "model_rules",
    "piece_of",
    "replace_overlapping",
    "replace_right_to_left",
    "reproducing_models",
]

Pair = tuple[int, int]
Counts = dict[Pair, int]
Sequences = list[list[int]]
Replace = Callable[[list[int], Pair, int], list[int]]
Count = Callable[[Sequences], Counts]


def replace_right_to_left(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    """The scan-direction bug: ``[a, a, a]`` gives ``[a, n]``."""
    return replace_pair(sequence[::-1], (pair[1], pair[0]), new_id)[::-1]


def replace_overlapping(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    """Every matching window becomes the new id, so ``[a, a, a]`` gives ``[n, n]``: the middle id is used twice."""
    replaced, position = [], 0
    while position < len(sequence):
        if sequence[position : position + 2] == list(pair):
            replaced.append(new_id)
            position += 1 if sequence[position + 1 : position + 3] == list(pair) else 2
        else:
            replaced.append(sequence[position])
            position += 1
    return replaced


def _count_non_overlapping(sequences: Sequences) -> Counts:
    counts: Counts = {}
    for sequence in sequences:
        free_from: dict[Pair, int] = {}
        for position in range(len(sequence) - 1):
            pair = (sequence[position], sequence[position + 1])
            if position >= free_from.get(pair, 0):
                counts[pair] = counts.get(pair, 0) + 1
                free_from[pair] = position + 2
    return counts


def piece_of(pieces: list[bytes], part: int) -> bytes:
    # A broken implementation may name ids that do not exist (yet); they spell nothing.
    return pieces[part] if 0 <= part < len(pieces) else b""


def _simulate(
    sequences: Sequences,
    rounds: int,
    profile: Profile,
    count: Count = count_pairs,
    replace: Replace = replace_pair,
) -> list[Pair]:
    """Greedy training under ``profile`` with ``count`` and ``replace`` swapped in."""
    rules: list[Pair] = []
    pieces = profile_pieces([], profile)
    for rank in range(rounds):
        pair = select_profile_pair(count(sequences), pieces, profile)
        if pair is None:
            break
        rules.append(pair)
        pieces.append(piece_of(pieces, pair[0]) + piece_of(pieces, pair[1]))
        sequences = [replace(sequence, pair, profile.first_rule_id + rank) for sequence in sequences]
    return rules


def _stale_counts(sequences: Sequences, rounds: int, profile: Profile) -> list[Pair]:
    counts, rules = count_pairs(sequences), []
    # The first round's counts hold pairs of bytes only, so no tie ever looks up a rule's piece.
    pieces = profile_pieces([], profile)
    for _ in range(rounds):
        pair = select_profile_pair({pair: n for pair, n in counts.items() if pair not in rules}, pieces, profile)
        if pair is None:
            break
        rules.append(pair)
    return rules


def initial_sequences(documents: list[str], profile: Profile) -> Sequences:
    return training_sequences(documents, profile)


def _words(sequences: Sequences, key: Callable[[int], object]) -> Sequences:
    return [list(group) for data in sequences for _, group in itertools.groupby(data, key=key)]


Model = Callable[[list[str], int, Profile], "list[Pair] | None"]

# GPT-2's pre-tokenization pattern in Python's re: letters are [^\W\d_], digits \d, the rest neither.
GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"


def _variant(**changes: Callable[[Profile], Any]) -> Model:
    """The profile's own training with some parameters changed; None when that changes nothing."""

    def train_with(documents: list[str], rounds: int, profile: Profile) -> list[Pair] | None:
        changed = dataclasses.replace(profile, **{key: value(profile) for key, value in changes.items()})
        if changed == profile:
            return None  # the profile itself is no bug model
        return _simulate(initial_sequences(documents, changed), rounds, changed)

    return train_with


def _documents_changed(transform: Callable[[list[str]], list[str]]) -> Model:
    """The profile's own training on documents ``transform`` rewrote first; None when it rewrote nothing."""

    def train_with(documents: list[str], rounds: int, profile: Profile) -> list[Pair] | None:
        rewritten = transform(list(documents))
        if rewritten == list(documents):
            return None  # the same input: no story about the input to tell
        return _simulate(initial_sequences(rewritten, profile), rounds, profile)

    _INPUT_REWRITES.append(train_with)
    return train_with


# The models that rewrite the input: where they make only a prefix of the profile's rules, the
# story of that counterexample is the stop rule's (reproducing_models), though they still predict it.
_INPUT_REWRITES: list[Model] = []


def _without_repeats(documents: list[str]) -> list[str]:
    return list(dict.fromkeys(documents))


def _stripped(documents: list[str]) -> list[str]:
    return [document.strip() for document in documents]


def _nfc(documents: list[str]) -> list[str]:
    return [unicodedata.normalize("NFC", document) for document in documents]


def _without_overlap(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _simulate(initial_sequences(documents, profile), rounds, profile, _count_non_overlapping)


def _first_counts(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _stale_counts(initial_sequences(documents, profile), rounds, profile)


def _right_to_left(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _simulate(initial_sequences(documents, profile), rounds, profile, count_pairs, replace_right_to_left)


def _overlapping(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _simulate(initial_sequences(documents, profile), rounds, profile, count_pairs, replace_overlapping)


def _split_by_kind(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _simulate(_words(initial_sequences(documents, profile), character_class), rounds, profile)


def _split_at_whitespace(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _simulate(_words(initial_sequences(documents, profile), lambda byte: chr(byte).isspace()), rounds, profile)


# The models whose documents are cut into pieces before counting: behind a profile's split, cutting them
# otherwise breaks the split (model_clause).
_split_by_gpt2 = _variant(pre_tokenization=lambda _: GPT2_PATTERN, split=lambda _: None)
_CUTS_DOCUMENTS = frozenset({_split_by_kind, _split_at_whitespace, _split_by_gpt2})


# Tie dialects come first: when one of them explains the rules too, the tie is the simpler story.
# Each model differs from the judging profile in one step; a model equal to the profile is left out.
MODELS: tuple[tuple[str, str, Model], ...] = (
    ("BPE-TRAIN-TIE", "ties broken towards the largest pair", _variant(tie_break=lambda _: "largest-ids")),
    ("BPE-TRAIN-TIE", "ties broken towards the pair seen first", _variant(tie_break=lambda _: "first-seen")),
    (
        "BPE-TRAIN-TIE",
        "ties broken by the pair's decimal string",
        _variant(tie_break=lambda _: "smallest-string-key"),
    ),
    (
        "BPE-TRAIN-STOP",
        "a pair counted exactly {minimum} left unmerged",
        _variant(min_count=lambda profile: profile.min_count + 1),
    ),
    ("BPE-TRAIN-STOP", "pairs seen once merged too", _variant(min_count=lambda _: 1)),
    ("BPE-TRAIN-DOCS", "documents joined before training", _variant(documents=lambda _: "concatenated")),
    ("BPE-TRAIN-COUNT", "overlapping windows counted once", _without_overlap),
    ("BPE-TRAIN-RECOUNT", "the first round's counts reused", _first_counts),
    ("BPE-MERGE-SCAN", "replacement scanning right to left", _right_to_left),
    ("BPE-MERGE-SCAN", "overlapping occurrences all replaced", _overlapping),
    # A trainer that splits its documents breaks BPE-TRAIN-INPUT ("Documents MUST NOT be ... split into
    # words first"); BPE-ENCODE-RAW is the encoder's clause, and these models only train.
    ("BPE-TRAIN-INPUT", "documents split into words, spaces and punctuation first", _split_by_kind),
    ("BPE-TRAIN-INPUT", "documents split at whitespace first", _split_at_whitespace),
    ("BPE-TRAIN-INPUT", "documents split by GPT-2's pre-tokenization pattern first", _split_by_gpt2),
    # Only behind a split (elsewhere the model equals the profile and is left out).
    (
        "BPE-PRETOK-SPLIT",
        "the profile's split pattern ignored: whole documents trained",
        _variant(split=lambda _: None),
    ),
    # Last: a rewrite of the input explains fewer, different rules only when no step of the algorithm does.
    ("BPE-TRAIN-DOCS", "repeated documents dropped before counting", _documents_changed(_without_repeats)),
    ("BPE-TRAIN-INPUT", "documents stripped of surrounding whitespace", _documents_changed(_stripped)),
    ("BPE-TRAIN-INPUT", "documents normalized to NFC", _documents_changed(_nfc)),
)


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def model_clause(index: int, profile: Profile) -> str:
    """The clause model ``index`` breaks under ``profile``: behind a split, cutting the documents otherwise
    breaks the split (BPE-PRETOK-SPLIT), not BPE-TRAIN-INPUT, which the split replaces."""
    if profile.split is not None and MODELS[index][2] in _CUTS_DOCUMENTS:
        return "BPE-PRETOK-SPLIT"
    return MODELS[index][0]


def model_cause(index: int, profile: Profile) -> str:
    return MODELS[index][1].format(minimum=_times(profile.min_count))


@functools.lru_cache(maxsize=4096)
def model_rules(index: int, documents: tuple[str, ...], max_merges: int, profile: Profile) -> tuple[Pair, ...] | None:
    rules = MODELS[index][2](list(documents), max_merges, profile)
    return None if rules is None else tuple(rules)


def reproducing_models(documents: list[str], max_merges: int, rules: list[Pair], profile: Profile) -> list[int]:
    """The indices of the bug models that make exactly ``rules`` from these documents.

    >>> from bpe_conformance.reference.profiles import STRICT
    >>> [MODELS[index][1] for index in reproducing_models(["xay", "xby", "xcy"], 32, [(121, 120)], STRICT)]
    ['documents joined before training']
    """
    wanted = tuple(rules)
    given = tuple(documents)
    found = [index for index in range(len(MODELS)) if model_rules(index, given, max_merges, profile) == wanted]
    if any(MODELS[index][2] in _INPUT_REWRITES for index in found):
        own = tuple(_simulate(initial_sequences(documents, profile), max_merges, profile))
        if wanted == own[: len(wanted)]:
            # A prefix of the right rules is better told as stopping early than as rewritten input.
            found = [index for index in found if MODELS[index][2] not in _INPUT_REWRITES]
    return found


def checked_rules(rules: object) -> list[Pair]:
    """``rules`` as a list of int pairs; TypeError naming the first entry that is not one."""
    if not isinstance(rules, (list, tuple)):
        raise TypeError(f"actual_rules must be a list of (int, int) pairs, not {type(rules).__name__}")
    checked = []
    for rank, rule in enumerate(rules):
        if not isinstance(rule, (list, tuple)) or len(rule) != 2 or not all(type(part) is int for part in rule):
            raise TypeError(f"actual_rules[{rank}] must be a pair of ints, not {rule!r}")
        checked.append((rule[0], rule[1]))
    return checked
