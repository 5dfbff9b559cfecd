"""A smaller corpus with the same first divergence: fewer documents, then shorter ones.

The first divergence is its *signature*: the round, the reference's rule there and the
implementation's (either may be "no rule"). A candidate corpus reproduces it when both sides, trained
on it, first differ at the same round with the same two rules. Only the rounds up to that one matter,
so candidates are trained with ``round + 1`` merges, unless the implementation needs the original
``max_merges`` to diverge (checked once, on the whole corpus).

Two passes, each keeping only changes that reproduce: documents are dropped in chunks (halves, then
quarters, ... single documents); then each remaining document, longest first, is cut to the shortest
prefix and the shortest suffix a bisection finds (to within 1/64 of its length), and a document that
is then short loses any run of characters it can spare. A failing call (an error, a timeout, a crash) does
not reproduce. The passes stop when ``seconds`` have passed; the result says whether they finished.

>>> signature_of([(97, 98), (97, 99)], [(97, 98), (99, 97)])
Signature(round=1, expected=(97, 99), actual=(99, 97))

The reference (strict) judged under ``largest-pair``, which breaks ties the other way:

>>> from bpe_conformance.adapters import load_implementation
>>> from bpe_conformance.reference.dialects import train_profile
>>> from bpe_conformance.reference.profiles import LARGEST_PAIR
>>> subject = load_implementation("reference", isolation="inprocess")
>>> corpus = ["the cat sat", "on the mat", "xyxy abab cdcd", "a hat"]
>>> expected, actual = train_profile(corpus, 8, LARGEST_PAIR), subject.train(corpus, 8)
>>> signature_of(expected, actual)
Signature(round=1, expected=(120, 121), actual=(32, 99))
>>> result = shrink_corpus(subject, corpus, 8, LARGEST_PAIR, expected, actual)
>>> result.documents, result.merges, result.complete
([' catat', 'xyxy c', 'at'], 2, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.checks.common import subject_retrainer
from bpe_conformance.compare.state import Divergence, first_difference, judge_first_divergence
from bpe_conformance.compare.training import train_both

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.reference.profiles import Profile

__all__ = ["BISECTION_SLACK", "SHORT_DOCUMENT", "ShrinkResult", "Signature", "shrink_corpus", "signature_of"]

Pair = tuple[int, int]
Rules = list[Pair]

# Documents at most this long after the bisections also lose every run of characters they can spare.
SHORT_DOCUMENT = 64
# A bisection stops once its cut is known to within 1/BISECTION_SLACK of the length kept: the last few
# halvings of a long document cost an attempt each and gain almost nothing.
BISECTION_SLACK = 64


@dataclass(frozen=True)
class Signature:
    """The first divergence: its round, and the rule each side made there (None: no rule)."""

    round: int
    expected: Pair | None
    actual: Pair | None


def signature_of(expected: Rules, actual: Rules) -> Signature | None:
    """The first divergence of ``actual`` from ``expected``; None when they are equal."""
    rank = first_difference(expected, actual)
    if rank is None:
        return None
    return Signature(
        rank,
        expected[rank] if rank < len(expected) else None,
        actual[rank] if rank < len(actual) else None,
    )


@dataclass(frozen=True)
class ShrinkResult:
    """The smallest corpus found, the ``max_merges`` it reproduces with, and how the search went.

    ``divergence`` is the first divergence judged on that corpus (a small corpus is examined by the bug
    models, so its cause line may say more than the whole corpus's).
    """

    documents: list[str]
    merges: int
    attempts: int
    complete: bool
    seconds: float
    divergence: Divergence | None


class _OutOfTime(Exception):
    pass


class _Search:
    """Tries candidates against the signature, keeping the last corpus that reproduced it."""

    def __init__(
        self,
        subject: Subject,
        profile: Profile,
        target: Signature,
        deadline: float,
        on_attempt: Callable[[int, int, int], None] | None,
    ) -> None:
        self.subject, self.profile, self.target = subject, profile, target
        self.deadline, self.on_attempt = deadline, on_attempt
        self.attempts = 0
        self.best: tuple[list[str], Rules, Rules] | None = None

    def reproduces(self, documents: list[str], merges: int) -> bool:
        if time.monotonic() > self.deadline:
            raise _OutOfTime
        if not any(documents):
            return False
        self.attempts += 1
        trained = train_both(self.subject, documents, merges, self.profile)
        found = trained.implementation is not None and (
            signature_of(trained.reference, trained.implementation) == self.target
        )
        if found:
            assert trained.implementation is not None
            self.best = (list(documents), trained.reference, trained.implementation)
        if self.on_attempt is not None and self.best is not None:
            self.on_attempt(self.attempts, len(self.best[0]), _size(self.best[0]))
        return found


def _size(documents: list[str]) -> int:
    return sum(len(document.encode("utf-8")) for document in documents)


def _drop_documents(search: _Search, documents: list[str], merges: int) -> list[str]:
    chunk = max(1, len(documents) // 2)
    while True:
        start = 0
        while start < len(documents) and len(documents) > 1:
            candidate = documents[:start] + documents[start + chunk :]
            if candidate and search.reproduces(candidate, merges):
                documents = candidate
            else:
                start += chunk
        if chunk == 1:
            return documents
        chunk = max(1, chunk // 2)


def _shortest(search: _Search, documents: list[str], index: int, merges: int, keep_start: bool) -> list[str]:
    """``documents`` with document ``index`` cut to the shortest prefix (or suffix) a bisection finds."""
    text = documents[index]
    low, high = 0, len(text)  # the cut to ``high`` characters is known to reproduce
    while high - low > high // BISECTION_SLACK:
        middle = (low + high) // 2
        piece = text[:middle] if keep_start else text[len(text) - middle :]
        if search.reproduces([*documents[:index], piece, *documents[index + 1 :]], merges):
            high = middle
        else:
            low = middle + 1
    piece = text[:high] if keep_start else text[len(text) - high :]
    return [*documents[:index], piece, *documents[index + 1 :]]


def _drop_characters(search: _Search, documents: list[str], index: int, merges: int) -> list[str]:
    """Document ``index`` without every run of characters whose removal still reproduces (halves, ..., single)."""
    text = documents[index]
    chunk = max(1, len(text) // 2)
    while text:
        start = 0
        while start < len(text):
            candidate = text[:start] + text[start + chunk :]
            if search.reproduces([*documents[:index], candidate, *documents[index + 1 :]], merges):
                text = candidate
            else:
                start += chunk
        if chunk == 1:
            break
        chunk = max(1, chunk // 2)
    return [*documents[:index], text, *documents[index + 1 :]]


def _shorten_documents(search: _Search, documents: list[str], merges: int) -> list[str]:
    for index in sorted(range(len(documents)), key=lambda position: -len(documents[position])):
        for keep_start in (True, False):
            documents = _shortest(search, documents, index, merges, keep_start)
        if len(documents[index]) <= SHORT_DOCUMENT:
            documents = _drop_characters(search, documents, index, merges)
    return documents


def shrink_corpus(
    subject: Subject,
    documents: list[str],
    max_merges: int,
    profile: Profile,
    expected: Rules,
    actual: Rules,
    *,
    seconds: float = 300.0,
    on_attempt: Callable[[int, int, int], None] | None = None,
) -> ShrinkResult | None:
    """The smallest corpus found within ``seconds`` with the first divergence of ``actual`` from ``expected``.

    ``expected`` and ``actual`` are the reference's and the implementation's rules for ``documents`` and
    ``max_merges``; None when they agree (nothing to shrink). Out of time, the smallest corpus so far is
    kept (at worst the whole one).
    """
    target = signature_of(expected, actual)
    if target is None:
        return None
    started = time.monotonic()
    search = _Search(subject, profile, target, started + seconds, on_attempt)
    search.best = (list(documents), expected, actual)
    merges, complete = max_merges, True
    try:
        if target.round + 1 < max_merges and search.reproduces(documents, target.round + 1):
            merges = target.round + 1
        kept = _drop_documents(search, list(documents), merges)
        _shorten_documents(search, kept, merges)
    except _OutOfTime:
        complete = False
    best, best_expected, best_actual = search.best
    retrain, _ = subject_retrainer(subject)
    divergence = judge_first_divergence(best, merges, best_expected, best_actual, profile, retrain)
    return ShrinkResult(best, merges, search.attempts, complete, time.monotonic() - started, divergence)
