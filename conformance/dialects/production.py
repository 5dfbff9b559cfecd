"""A run in production configuration: a released profile, a vocabulary file, and the implementation bound to it.

``run --profile cl100k --vocabulary cl100k_base.tiktoken`` judges an encoder by the profile's split
pattern and special tokens (:mod:`bpe_conformance.reference.pretokenization`) over the ranks read from
the file (:mod:`bpe_conformance.reference.vocabulary`). Before anything is judged the implementation gets
the vocabulary through the contract, or shows that the one it has built in is the same:

* ``load_vocabulary(ranks: dict[bytes, int], special_tokens: dict[str, int])``, when it has that method;
* otherwise a ``vocabulary`` attribute naming a built-in one (``vocabulary = "cl100k_base"``), which is
  compared with the file: the specials and a spread sample of pieces (those that are valid UTF-8) must
  decode to the file's bytes, and the first id past the pieces that is no special must be refused or decode
  to nothing.

An implementation in its own process (``cmd:``, or a Python one under ``--isolation process``) does the
same over the protocol (``specs/protocol.md`` 3.4): it declares the capability ``load_vocabulary`` and is
sent the pieces and specials, or names its built-in vocabulary in the handshake (``"vocabulary":
"cl100k_base"``), which is compared with the file exactly as in-process.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.adapters.subject import Subject
from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.errors import CallAborted, HarnessError, ImplementationRaised

if TYPE_CHECKING:
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


Loader = Callable[[dict[bytes, int], dict[str, int]], None]


def vocabulary_access(subject: Subject) -> tuple[Loader | None, str | None]:
    """How ``subject`` gets a vocabulary: its ``load_vocabulary`` (or None) and the built-in one it names (or None)."""
    if isinstance(subject, InProcessSubject):
        instance = subject._instance
        loader = getattr(instance, "load_vocabulary", None)
        built_in = getattr(instance, "vocabulary", None)
        return (loader if callable(loader) else None), (built_in if isinstance(built_in, str) else None)
    if isinstance(subject, ProcessSubject):
        support = subject.vocabulary_support
        return (subject.load_vocabulary if support.loads else None), support.built_in
    return None, None


class VocabularyBoundSubject(Subject):
    """An implementation given the setup's vocabulary, again after every reset (in its process or in ours)."""

    def __init__(self, inner: Subject, setup: ProductionSetup) -> None:
        self.inner = inner
        self.setup = setup
        self.info = dataclasses.replace(inner.info, profile=setup.profile.name)
        self._bind()

    def _bind(self) -> None:
        loader, built_in = vocabulary_access(self.inner)
        vocabulary = self.setup.vocabulary
        if loader is not None:
            try:
                loader(dict(vocabulary.rank_of), dict(vocabulary.special_tokens))
            except ImplementationRaised as raised:
                raise HarnessError(
                    f"{self.info.name}: load_vocabulary refused {vocabulary.source}: {raised.kind}: {raised.message}"
                ) from None
            except CallAborted as aborted:
                raise HarnessError(
                    f"{self.info.name}: load_vocabulary of {vocabulary.source} failed: {aborted.detail}"
                ) from None
            except Exception as error:  # noqa: BLE001 - load_vocabulary is the implementation's code: whatever it raises is a refusal
                raise HarnessError(
                    f"{self.info.name}: load_vocabulary refused {vocabulary.source}: {type(error).__name__}: {error}"
                ) from None
            return
        if built_in is None:
            how = (
                "declares no capability load_vocabulary and no 'vocabulary' in its handshake (specs/protocol.md 3.4)"
                if isinstance(self.inner, ProcessSubject)
                else "has no load_vocabulary(ranks, special_tokens) method and declares no built-in vocabulary "
                "(a 'vocabulary' attribute naming it)"
            )
            raise HarnessError(f"{self.info.name} can be given no vocabulary: it {how}")
        try:
            problem = built_in_difference(self.inner, vocabulary)
        except CallAborted as aborted:
            raise HarnessError(
                f"{self.info.name}: comparing its built-in vocabulary failed: {aborted.detail}"
            ) from None
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
        if not isinstance(self.inner, ProcessSubject):
            # A process subject sends the vocabulary it loaded again itself (after a reset or a restart), and
            # a built-in one is the same program's: binding again would send or compare it twice.
            self._bind()

    def close(self) -> None:
        self.inner.close()


def _is_text(piece: bytes) -> bool:
    try:
        piece.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _sample_ids(vocabulary: Vocabulary) -> list[int]:
    """About :data:`BUILT_IN_SAMPLE` ids spread over the ranks, each moved on to the next piece that is text.

    ``decode`` answers text, which shows a piece's bytes exactly only when they are valid UTF-8: a piece
    that is part of a character decodes to U+FFFD, to nothing or to an error, as the decode policy says
    (judged by the decode checks, not here). So only such pieces can prove two vocabularies apart.
    """
    step = max(1, vocabulary.size // BUILT_IN_SAMPLE)
    chosen: set[int] = set()
    for start in [*range(0, vocabulary.size, step), vocabulary.size - 1]:
        token_id = start
        while token_id < vocabulary.size and not _is_text(vocabulary.pieces[token_id]):
            token_id += 1
        if token_id < vocabulary.size:
            chosen.add(token_id)
    return sorted(chosen)


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
    if extra == "":
        # No piece is empty, so an empty text is an unknown id dropped, not a piece the file lacks: that is
        # the decode policy, which production-unknown-id judges, not a different vocabulary.
        return None
    return f"decode([{unknown}]) is {extra!r}, but the file has {vocabulary.size} pieces and no special with that id"


def bind_vocabulary(subject: Subject, setup: ProductionSetup) -> VocabularyBoundSubject:
    """``subject`` given the setup's vocabulary, in-process or over the protocol; a HarnessError if it cannot be."""
    return VocabularyBoundSubject(subject, setup)


def production_setup(subject: Subject) -> ProductionSetup | None:
    """The setup ``subject`` is judged by, or None when the run is not in production configuration."""
    return subject.setup if isinstance(subject, VocabularyBoundSubject) else None
