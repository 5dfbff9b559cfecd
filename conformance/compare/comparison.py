"""One comparison: read the corpus, train both sides, compare the rules, encode with both, judge, shrink.

Without ``--encode`` every tenth document (the 10th, 20th, ...) is held back from training and encoded
instead; a corpus of two to nine documents holds back its last one, and one document holds back
nothing. With ``--encode`` every corpus document is trained on and the texts of those paths are
encoded, one at a time, as they are read.

Encoding runs with each side's own trained rules when the rules agree. When they differ, the ids would
differ as a consequence, so an implementation that can ``load`` is given the reference's rules first and
its encoder is compared alone; one that cannot encodes with its own rules, and the report says so.

>>> import json, tempfile
>>> from bpe_conformance.reference.profiles import STRICT
>>> from bpe_conformance.adapters import load_implementation
>>> corpus = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
>>> _ = corpus.write("".join(json.dumps({"text": text}) + "\\n" for text in ["abab", "acac", "abac"])); corpus.close()
>>> subject = load_implementation("reference", isolation="inprocess")
>>> documents = read_corpus([corpus.name], hold_back=True)
>>> result = compare(subject, Request("reference", (corpus.name,), None, 32, STRICT), documents)
>>> result.agree, result.corpus.training_documents, result.training.reference, result.encode.texts
(True, 2, [(97, 98), (97, 99)], 1)
"""

from __future__ import annotations

import dataclasses
import enum
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.checks.common import subject_retrainer
from bpe_conformance.compare.corpus import Document, disk_bytes, read_documents
from bpe_conformance.compare.progress import Observer
from bpe_conformance.compare.shrink import ShrinkResult, shrink_corpus
from bpe_conformance.compare.state import Divergence, ReferenceEncoder, first_difference, judge_first_divergence
from bpe_conformance.compare.training import Failure, Trained, failure_of, train_both
from bpe_conformance.errors import CallAborted, HarnessError, ImplementationRaised, MalformedResult
from bpe_conformance.reference.dialects import profile_pieces
from bpe_conformance.results.implementation import ImplementationRecord

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.reference.pretokenization import SplitProfile
    from bpe_conformance.reference.profiles import Profile
    from bpe_conformance.results.outcomes import LimitsRecord

__all__ = [
    "CONTEXT_IDS",
    "DEFAULT_SHRINK_SECONDS",
    "DEFAULT_TIMEOUT",
    "HOLD_BACK_EVERY",
    "SPLIT_DIAGNOSIS_SKIPPED",
    "Comparison",
    "Corpus",
    "CorpusSummary",
    "EncodeResult",
    "Request",
    "RuleSource",
    "TextSource",
    "check_texts",
    "compare",
    "held_back",
    "read_corpus",
]

Rules = list[tuple[int, int]]


class RuleSource(str, enum.Enum):
    """Which rules the implementation encoded with; the value is the report's ``encode.rules`` slug."""

    TRAINED = "trained"  # the rules agree: each side used its own
    REFERENCE = "reference"  # they differ: the reference's were loaded into the implementation
    OWN = "own"  # they differ and it cannot load: each side used its own

    @property
    def description(self) -> str:
        """The rules as the terminal report names them."""
        return {
            RuleSource.TRAINED: "each side's trained rules",
            RuleSource.REFERENCE: "the reference's rules loaded into the implementation (its own rules differ)",
            RuleSource.OWN: "each side's own rules, which differ (the implementation cannot load): "
            "ids differ as a consequence",
        }[self]


class TextSource(str, enum.Enum):
    """Where the encoded texts came from; the value is the report's ``encode.source`` slug."""

    HELD_BACK = "held-back"
    ENCODE = "encode"

    @property
    def description(self) -> str:
        """The texts' origin as the terminal report says it."""
        return "held back from training" if self is TextSource.HELD_BACK else "from --encode"


HOLD_BACK_EVERY = 10
# Training a real corpus can take minutes in a slow implementation: the limit is per call, and generous.
DEFAULT_TIMEOUT = 3600.0
DEFAULT_SHRINK_SECONDS = 300.0
# Ids shown on each side of the first differing id.
CONTEXT_IDS = 8
# Why a comparison behind a split pattern judges no first divergence (and shrinks nothing).
SPLIT_DIAGNOSIS_SKIPPED = (
    "skipped behind a split pattern: the diagnosis, its bug models and the shrinker retrain on whole "
    "documents, so they would judge a state the split never makes"
)


@dataclass(frozen=True)
class Request:
    """What to compare: the implementation's spec, corpus and encode paths, ``max_merges``, the profile."""

    impl: str
    corpus: tuple[str, ...]
    encode: tuple[str, ...] | None
    merges: int
    profile: Profile
    timeout: float = DEFAULT_TIMEOUT
    isolation: str = "process"
    shrink: str | None = None
    shrink_seconds: float = DEFAULT_SHRINK_SECONDS
    split: SplitProfile | None = None  # both sides train and encode behind this production pattern
    limits: LimitsRecord | None = None  # what an implementation in its own process ran under; None in process


@dataclass(frozen=True)
class CorpusSummary:
    """How many documents and bytes were read, trained on, and held back to encode."""

    documents: int
    bytes: int
    training_documents: int
    training_bytes: int
    held_back: int


@dataclass
class EncodeResult:
    """The encode comparison: where the texts came from, which rules the implementation used, what differed.

    ``rules`` is ``trained`` (the rules agree, each side used its own), ``reference`` (they differ, the
    reference's were loaded into the implementation) or ``own`` (they differ and it cannot load).
    """

    source: TextSource
    rules: RuleSource
    texts: int = 0
    bytes: int = 0
    differing: int = 0
    first_difference: JSONObject | None = None
    failure: Failure | None = None

    @property
    def agree(self) -> bool:
        return self.failure is None and self.differing == 0


@dataclass
class Comparison:
    """Everything a comparison found; ``agree`` when nothing differed and nothing failed."""

    request: Request
    implementation: ImplementationRecord
    corpus: CorpusSummary
    training: Trained
    divergence: Divergence | None = None
    encode: EncodeResult | None = None
    shrink: ShrinkResult | None = None
    seconds: float = 0.0

    @property
    def failure(self) -> Failure | None:
        """The implementation's failed call, in training or in encoding."""
        if self.training.failure is not None:
            return self.training.failure
        return None if self.encode is None else self.encode.failure

    @property
    def merges_compared(self) -> int:
        """Rounds compared: every rule when the lists agree, else up to and including the first divergent one."""
        actual = self.training.implementation
        if actual is None:
            return 0
        rank = first_difference(self.training.reference, actual)
        return len(actual) if rank is None else rank + 1

    @property
    def agree(self) -> bool:
        return (
            self.failure is None
            and self.training.implementation == self.training.reference
            and (self.encode is None or self.encode.agree)
        )


def held_back(index: int, count: int) -> bool:
    """Whether document ``index`` of ``count`` is held back from training to be encoded.

    >>> [index for index in range(25) if held_back(index, 25)], [i for i in range(3) if held_back(i, 3)]
    ([9, 19], [2])
    >>> held_back(0, 1)
    False
    """
    if count >= HOLD_BACK_EVERY:
        return (index + 1) % HOLD_BACK_EVERY == 0
    return count > 1 and index == count - 1


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


@dataclass(frozen=True)
class Corpus:
    """The documents to train on, those held back to encode, and how much was read."""

    training: list[str]
    held_back: list[Document]
    summary: CorpusSummary


def read_corpus(paths: Sequence[str], hold_back: bool, observer: Observer | None = None) -> Corpus:
    """Every document of ``paths``; with ``hold_back``, every tenth kept apart to encode (:func:`held_back`)."""
    observer = observer or Observer()
    observer.reading(disk_bytes(paths))
    documents: list[Document] = []
    total = 0
    for document in read_documents(paths):
        size = _utf8_size(document.text)
        total += size
        documents.append(document)
        observer.document_read(size)
    if not documents:
        raise HarnessError(f"--corpus {' '.join(paths)}: the corpus holds no document")
    kept = [hold_back and held_back(index, len(documents)) for index in range(len(documents))]
    training = [item.text for item, keep in zip(documents, kept, strict=True) if not keep]
    held = [item for item, keep in zip(documents, kept, strict=True) if keep]
    training_bytes = sum(_utf8_size(text) for text in training)
    if training_bytes == 0:
        raise HarnessError(f"--corpus {' '.join(paths)}: the documents to train on hold no text")
    return Corpus(training, held, CorpusSummary(len(documents), total, len(training), training_bytes, len(held)))


def check_texts(paths: Sequence[str]) -> int:
    """Read every ``--encode`` text once, keeping none, so a bad one is found before training; their bytes."""
    return sum(_utf8_size(document.text) for document in read_documents(paths, "--encode"))


def _difference(
    index: int, document: Document, expected: list[int], actual: list[int], pieces: list[bytes]
) -> JSONObject:
    position = first_difference(expected, actual)
    assert position is not None
    start = max(0, position - CONTEXT_IDS)
    shown = slice(start, position + CONTEXT_IDS + 1)

    def text_of(ids: list[int]) -> str:
        data = b"".join(pieces[token] if 0 <= token < len(pieces) else b"?" for token in ids)
        return data.decode("utf-8", errors="backslashreplace")

    return {
        "text": index,
        "origin": document.origin,
        "position": position,
        "byte_offset": sum(len(pieces[token]) for token in expected[:position]),
        "context_start": start,
        "expected": expected[shown],
        "actual": actual[shown],
        "expected_length": len(expected),
        "actual_length": len(actual),
        "context": text_of(expected[shown]),
    }


def _encode_texts(
    subject: Subject, texts: Iterable[Document], encoder: ReferenceEncoder, result: EncodeResult, observer: Observer
) -> None:
    pieces: list[bytes] | None = None
    for index, document in enumerate(texts):
        expected = encoder(document.text)
        try:
            actual = subject.encode(document.text)
        except (CallAborted, ImplementationRaised, MalformedResult) as error:
            result.failure = failure_of(error)
            return
        size = _utf8_size(document.text)
        result.texts, result.bytes = result.texts + 1, result.bytes + size
        observer.text_encoded(size)
        if actual != expected:
            result.differing += 1
            if result.first_difference is None:
                pieces = pieces or profile_pieces(encoder.rules, encoder.profile)
                result.first_difference = _difference(index, document, expected, actual, pieces)


def _compare_encoding(
    subject: Subject, request: Request, trained: Trained, held: list[Document], observer: Observer
) -> EncodeResult:
    agreed = trained.implementation == trained.reference
    rules = RuleSource.TRAINED if agreed else (RuleSource.REFERENCE if subject.supports("load") else RuleSource.OWN)
    result = EncodeResult(TextSource.HELD_BACK if request.encode is None else TextSource.ENCODE, rules)
    if request.encode is None:
        texts: Iterable[Document] = held
        observer.encoding(sum(_utf8_size(item.text) for item in held))
    else:
        texts = read_documents(request.encode, "--encode")  # one at a time, as they are encoded
        observer.encoding(disk_bytes(request.encode, "--encode"))
    if rules is RuleSource.REFERENCE:
        try:
            subject.load(list(trained.reference))
        except (CallAborted, ImplementationRaised, MalformedResult) as error:
            result.failure = failure_of(error)
            return result
    encoder = ReferenceEncoder(trained.reference, request.profile, request.split)
    _encode_texts(subject, texts, encoder, result, observer)
    return result


def compare(subject: Subject, request: Request, corpus: Corpus, observer: Observer | None = None) -> Comparison:
    """Compare ``subject`` with the reference under ``request.profile`` on ``corpus``, as ``request`` asks."""
    observer = observer or Observer()
    started = time.monotonic()
    training_documents, held, summary = corpus.training, corpus.held_back, corpus.summary
    observer.training(request.merges)
    trained = train_both(
        subject,
        training_documents,
        request.merges,
        request.profile,
        reference_progress=observer.reference_rounds,
        implementation_done=observer.implementation_trained,
        split=request.split,
    )
    implementation = _implementation_record(subject, request)
    comparison = Comparison(request, implementation, summary, trained)
    if trained.implementation is None:
        comparison.seconds = time.monotonic() - started
        return comparison
    comparison.encode = _compare_encoding(subject, request, trained, held, observer)
    if trained.implementation != trained.reference and request.split is None:
        rank = first_difference(trained.reference, trained.implementation)
        observer.judging(int(rank or 0))
        retrain, _ = subject_retrainer(subject)
        comparison.divergence = judge_first_divergence(
            training_documents, request.merges, trained.reference, trained.implementation, request.profile, retrain
        )
        if request.shrink is not None:
            observer.shrinking()
            comparison.shrink = shrink_corpus(
                subject,
                training_documents,
                request.merges,
                request.profile,
                trained.reference,
                trained.implementation,
                seconds=request.shrink_seconds,
                on_attempt=observer.shrink_attempt,
            )
    comparison.seconds = time.monotonic() - started
    return comparison


def _implementation_record(subject: Subject, request: Request) -> ImplementationRecord:
    record = ImplementationRecord.of(subject, request.impl, request.isolation)
    return dataclasses.replace(record, profile=request.profile.name)
