"""Training under a profile at corpus scale, with fast engines proven equal to the literal dialects.

:func:`fast_train_profile` returns exactly what :func:`bpe_conformance.reference.dialects.train_profile` returns,
for every profile with a training algorithm. The profile's parameters map onto the fast engines:

* ``documents="concatenated"``: the documents joined with ``document_separator`` are one sequence;
  ``pre_tokenization`` or ``split``: each sequence's chunks are sequences of their own (the literal dialect's
  own chunking, so a pattern that does not cover the text fails with the same error). Identical
  sequences are kept once with a multiplicity, as in :func:`bpe_conformance.reference.fast_training.fast_train`.
* ``min_count``: a pair counted fewer times is never merged (1 for rustbpe, bpeasy and minbpe).
* ``first_rule_id``: the engines number rules from it, so a tie-break that reads ids reads the
  profile's own ids.
* ``tie_break``: a fixed order of ids for ``smallest-ids``, ``largest-ids``, ``smallest-hf-ids``
  and ``smallest-string-key`` (a rank per id, pairs compared rank by rank: the string ``"a,b"``
  compares like ``(str(a), str(b))`` because ``,`` sorts before every digit); the pieces for
  ``largest-pieces``; and the position of the pair's first window in the current sequences for
  ``first-seen`` (insertion order of the literal count: sequences in order, then positions).

The plain-Python engine does ``smallest-ids`` with any ``min_count``; the numpy engine does every
tie-break. Without numpy, a profile the plain engine cannot do runs the literal dialect.

>>> from bpe_conformance.reference.profiles import MINBPE, STRICT, get_profile
>>> fast_train_profile(["abab", "acac"], 32, STRICT)
[(97, 98), (97, 99)]
>>> fast_train_profile(["abab", "acac"], 32, get_profile("largest-pair"))
[(97, 99), (97, 98)]
>>> fast_train_profile(["aaaa", "aaaa"], 32, get_profile("subword-nmt"))  # rule ids from 256
[(97, 97), (256, 256)]
>>> fast_train_profile(["cdcdabab"], 1, MINBPE), fast_train_profile(["cdcdabab"], 1, STRICT)  # first seen
([(99, 100)], [(97, 98)])
>>> has_fast_engine(STRICT), has_fast_engine(get_profile("tiktoken"))
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bpe_conformance.reference.alphabet import BYTE_COUNT
from bpe_conformance.reference.dialects import _chunks, byte_level_symbol, train_profile
from bpe_conformance.reference.fast_counts import deduplicate
from bpe_conformance.reference.fast_training import ENGINES, _choose_engine, numpy_available, train_linked
from bpe_conformance.reference.profiles import pre_tokenizes
from bpe_conformance.reference.validation import check_documents, check_max_merges

if TYPE_CHECKING:  # imported when used: numpy stays unloaded until a numpy engine runs
    from bpe_conformance.reference.fast_training_numpy import PairOrder
    from bpe_conformance.reference.profiles import Profile

__all__ = ["fast_train_profile", "has_fast_engine", "id_ranks", "profile_sequences"]

Rules = list[tuple[int, int]]
Progress = Callable[[int], None] | None
# Tie-breaks that are a fixed order of ids (the others need the numpy engine's special keys).
_ID_ORDERS = ("smallest-ids", "largest-ids", "smallest-hf-ids", "smallest-string-key")
_PLAIN_ENGINE_TIE_BREAKS = ("smallest-ids",)


def has_fast_engine(profile: Profile) -> bool:
    """True when a fast engine can train ``profile`` here (encode-only profiles cannot be trained at all)."""
    if profile.tie_break is None:
        return False
    return profile.tie_break in _PLAIN_ENGINE_TIE_BREAKS or numpy_available()


def profile_sequences(documents: list[str], profile: Profile) -> list[bytes]:
    """The byte sequences training counts in under ``profile``, as
    :func:`~bpe_conformance.reference.dialects.training_sequences`.

    >>> from bpe_conformance.reference.profiles import MINBPE
    >>> profile_sequences(["ab", "cd"], MINBPE)
    [b'abcd']
    """
    encoded = check_documents(documents)
    if profile.documents == "concatenated":
        encoded = [profile.document_separator.encode().join(encoded)]
    if not pre_tokenizes(profile):
        return encoded
    return [chunk for data in encoded for chunk in _chunks(data, profile)]


def id_ranks(tie_break: str, vocabulary: int) -> list[int] | None:
    """A rank for every id below ``vocabulary`` such that comparing pairs rank by rank, smaller first,
    is ``tie_break``'s order; ``None`` for ``smallest-ids`` (the ids themselves).

    >>> id_ranks("largest-ids", 3), id_ranks("smallest-string-key", 12)[:3], id_ranks("smallest-ids", 9)
    ([2, 1, 0], [0, 1, 4], None)
    """
    if tie_break == "smallest-ids":
        return None
    if tie_break == "largest-ids":
        return [vocabulary - 1 - token for token in range(vocabulary)]
    if tie_break == "smallest-hf-ids":
        # Bytes by their byte-level symbol, then every rule id after every byte, in id order.
        by_symbol = sorted(range(BYTE_COUNT), key=lambda value: ord(byte_level_symbol(value)))
        ranks = list(range(vocabulary))
        for rank, value in enumerate(by_symbol):
            ranks[value] = rank
        return ranks
    if tie_break == "smallest-string-key":
        position = {token: rank for rank, token in enumerate(sorted(range(vocabulary), key=str))}
        return [position[token] for token in range(vocabulary)]
    raise ValueError(f"tie_break {tie_break!r} is not an order of ids")


def _numpy_order(profile: Profile, vocabulary: int) -> PairOrder:
    import numpy as np

    from bpe_conformance.reference.fast_training_numpy import PairOrder

    tie_break = str(profile.tie_break)
    if tie_break == "largest-pieces":
        return PairOrder("pieces")
    if tie_break == "first-seen":
        return PairOrder("first-seen")
    ranks = id_ranks(tie_break, vocabulary)
    return PairOrder("ids", None if ranks is None else np.asarray(ranks, dtype=np.int64))


def _fast_engine(profile: Profile, engine: str, sequences: list[bytes]) -> str | None:
    """The engine that trains ``profile`` here, or ``None`` for the literal dialect."""
    chosen = _choose_engine(engine, sequences)
    if profile.tie_break in _PLAIN_ENGINE_TIE_BREAKS:
        return chosen
    if chosen == "numpy" or (engine == "auto" and numpy_available()):
        return "numpy"
    return None


def _train_plain(
    sequences: list[bytes], multiplicities: list[int], max_merges: int, profile: Profile, progress: Progress
) -> Rules:
    return train_linked(
        sequences,
        multiplicities,
        max_merges,
        first_rule_id=profile.first_rule_id,
        min_count=profile.min_count,
        progress=progress,
    )


def _train_numpy(
    sequences: list[bytes], multiplicities: list[int], max_merges: int, profile: Profile, progress: Progress
) -> Rules:
    from bpe_conformance.reference.fast_training_numpy import train_arrays

    # No sequence of n bytes makes more than n - 1 rules: ids stay below this bound.
    vocabulary = profile.first_rule_id + min(max_merges, sum(len(sequence) for sequence in sequences))
    return train_arrays(
        sequences,
        multiplicities,
        max_merges,
        first_rule_id=profile.first_rule_id,
        min_count=profile.min_count,
        order=_numpy_order(profile, vocabulary),
        progress=progress,
    )


def fast_train_profile(
    documents: list[str],
    max_merges: int,
    profile: Profile,
    *,
    engine: str = "auto",
    progress: Callable[[int], None] | None = None,
) -> Rules:
    """The rules ``train_profile(documents, max_merges, profile)`` learns, fast where possible.

    ``engine`` is ``"auto"``, ``"numpy"`` or ``"python"`` (a profile the plain engine cannot do
    runs on numpy under ``"auto"``, or the literal dialect without numpy). ``progress``, when given,
    is called with the number of rounds done after every round and once at the end.
    """
    checked_max_merges = check_max_merges(max_merges)
    if profile.tie_break is None:
        raise ValueError(f"profile {profile.name!r} is encode-only: it has no training algorithm")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    sequences, multiplicities = deduplicate(profile_sequences(documents, profile))
    chosen = _fast_engine(profile, engine, sequences)
    if chosen is None:
        rules = train_profile(documents, checked_max_merges, profile)
    else:
        train = {"python": _train_plain, "numpy": _train_numpy}[chosen]
        rules = train(sequences, multiplicities, checked_max_merges, profile, progress)
    if progress is not None:
        progress(len(rules))
    return rules
