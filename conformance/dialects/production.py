"""A run in production configuration: a released profile, a vocabulary file, and the implementation bound to it.

``run --profile cl100k --vocabulary cl100k_base.tiktoken`` judges an encoder by the profile's split
pattern and special tokens (:mod:`bpe_conformance.reference.pretokenization`) over the ranks read from
the file (:mod:`bpe_conformance.reference.vocabulary`). Before anything is judged the implementation gets
the vocabulary through the contract, or shows that the one it has built in is the same:

* ``load_vocabulary(ranks: dict[bytes, int], special_tokens: dict[str, int])``, when it has that method;
* otherwise a ``vocabulary`` attribute naming a built-in one (``vocabulary = "cl100k_base"``), which is
  compared with the file: the specials and a spread sample of pieces must decode to the file's bytes, and
  the first id past the pieces that is no special must be unknown to it.

Only Python implementations run in-process can be given a vocabulary: the JSON-lines protocol has no
vocabulary message yet.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.adapters.subject import Subject
from bpe_conformance.errors import HarnessError, ImplementationRaised
from bpe_conformance.reference.pretokenization import SplitProfile
from bpe_conformance.reference.vocabulary import Vocabulary

__all__ = ["BUILT_IN_SAMPLE", "ProductionSetup", "VocabularyBoundSubject", "bind_vocabulary", "production_setup"]

# How many pieces, spread evenly over the ranks, a built-in vocabulary must match before it is judged.
BUILT_IN_SAMPLE = 512


@dataclass(frozen=True)
class ProductionSetup:
    """What a production run judges by: the profile's pattern and specials, and the vocabulary read from a file."""

    profile: SplitProfile
    vocabulary: Vocabulary

    def describe(self) -> str:
        """One line for every report: the profile, the file, its size and its SHA-256."""
        vocabulary = self.vocabulary
        return (
            f"profile {self.profile.name} · vocabulary {vocabulary.source} ({vocabulary.size} pieces, "
            f"{len(vocabulary.special_tokens)} specials, sha256 {vocabulary.sha256})"
        )


class VocabularyBoundSubject(Subject):
    """An in-process implementation given the setup's vocabulary, again after every reset."""

    def __init__(self, inner: InProcessSubject, setup: ProductionSetup) -> None:
        self.inner = inner
        self.setup = setup
        self.info = dataclasses.replace(inner.info, profile=setup.profile.name)
        self._bind()

    def _bind(self) -> None:
        instance = self.inner._instance
        loader = getattr(instance, "load_vocabulary", None)
        vocabulary = self.setup.vocabulary
        if callable(loader):
            try:
                loader(dict(vocabulary.rank_of), dict(vocabulary.special_tokens))
            except Exception as error:
                raise HarnessError(
                    f"{self.info.name}: load_vocabulary refused {vocabulary.source}: {type(error).__name__}: {error}"
                ) from None
            return
        built_in = getattr(instance, "vocabulary", None)
        if not isinstance(built_in, str):
            raise HarnessError(
                f"{self.info.name} can be given no vocabulary: it has no load_vocabulary(ranks, special_tokens) "
                "method and declares no built-in vocabulary (a 'vocabulary' attribute naming it)"
            )
        problem = built_in_difference(self.inner, vocabulary)
        if problem is not None:
            raise HarnessError(
                f"{self.info.name}'s built-in vocabulary {built_in!r} is not {vocabulary.source}: {problem}"
            )

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return self.inner.train(documents, max_merges)

    def encode(self, text: str) -> list[int]:
        return self.inner.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self.inner.decode(ids)

    def load(self, rules: list[tuple[int, int]]) -> None:
        self.inner.load(rules)

    def reset(self) -> None:
        self.inner.reset()
        self._bind()

    def close(self) -> None:
        self.inner.close()


def _sample_ids(vocabulary: Vocabulary) -> list[int]:
    step = max(1, vocabulary.size // BUILT_IN_SAMPLE)
    return sorted({*range(0, vocabulary.size, step), vocabulary.size - 1})


def built_in_difference(subject: Subject, vocabulary: Vocabulary) -> str | None:
    """How ``subject``'s own vocabulary differs from ``vocabulary`` on the sample, or None when it does not."""
    expected = {
        **{token_id: vocabulary.pieces[token_id] for token_id in _sample_ids(vocabulary)},
        **{token_id: text.encode() for text, token_id in vocabulary.special_tokens.items()},
    }
    for token_id, piece in expected.items():
        want = piece.decode("utf-8", errors="replace")
        try:
            got = subject.decode([token_id])
        except ImplementationRaised as raised:
            return f"decode([{token_id}]) raised {raised.kind}, the file's piece is {piece!r}"
        if got != want:
            return f"decode([{token_id}]) is {got!r}, the file's piece is {piece!r}"
    unknown = next(
        token_id
        for token_id in range(vocabulary.size, vocabulary.size + len(vocabulary.special_tokens) + 1)
        if vocabulary.piece_of(token_id) is None
    )
    try:
        extra = subject.decode([unknown])
    except ImplementationRaised:
        return None
    return f"decode([{unknown}]) is {extra!r}, but the file has {vocabulary.size} pieces and no special with that id"


def bind_vocabulary(subject: Subject, setup: ProductionSetup) -> VocabularyBoundSubject:
    """``subject`` given the setup's vocabulary; an implementation in its own process is a usage error."""
    if not isinstance(subject, InProcessSubject):
        raise HarnessError(
            "--vocabulary needs a Python implementation run in-process (--isolation inprocess): the protocol "
            "has no message that hands over a vocabulary"
        )
    return VocabularyBoundSubject(subject, setup)


def production_setup(subject: Subject) -> ProductionSetup | None:
    """The setup ``subject`` is judged by, or None when the run is not in production configuration."""
    return subject.setup if isinstance(subject, VocabularyBoundSubject) else None
