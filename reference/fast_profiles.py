"""Training under a profile at corpus scale: a fast engine where one exists, else the literal dialect.

:func:`fast_train_profile` returns exactly what :func:`reference.dialects.train_profile` returns.
Profiles that train like strict (ties to the smallest ``(a, b)``, stop below 2, documents apart,
no pre-tokenization) run on :func:`reference.fast_training.fast_train`, with the rule ids moved to
the profile's numbering; the others run the literal dialect, which recounts every round.

>>> from reference.profiles import MINBPE, STRICT, get_profile
>>> fast_train_profile(["abab", "acac"], 32, STRICT)
[(97, 98), (97, 99)]
>>> fast_train_profile(["abab", "acac"], 32, get_profile("largest-pair"))
[(97, 99), (97, 98)]
>>> fast_train_profile(["aaaa", "aaaa"], 32, get_profile("subword-nmt"))  # rule ids from 256
[(97, 97), (256, 256)]
>>> has_fast_engine(STRICT), has_fast_engine(MINBPE)
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable

from reference.alphabet import MIN_MERGE_COUNT
from reference.dialects import renumbered, train_profile
from reference.fast_training import fast_train
from reference.profiles import Profile

__all__ = ["fast_train_profile", "has_fast_engine"]

Rules = list[tuple[int, int]]


def has_fast_engine(profile: Profile) -> bool:
    """True when ``profile`` trains like strict up to its id numbering, so the fast engines apply."""
    return (
        profile.tie_break == "smallest-ids"
        and profile.min_count == MIN_MERGE_COUNT
        and profile.documents == "separate"
        and profile.pre_tokenization is None
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

    ``progress``, when given, is called with the number of rounds done (at least once, at the end).
    """
    if profile.tie_break is None:
        raise ValueError(f"profile {profile.name!r} is encode-only: it has no training algorithm")
    if has_fast_engine(profile):
        rules = renumbered(fast_train(documents, max_merges, engine), profile.first_rule_id)
    else:
        rules = train_profile(documents, max_merges, profile)
    if progress is not None:
        progress(len(rules))
    return rules
