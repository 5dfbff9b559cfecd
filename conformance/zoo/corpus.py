"""Zoo members whose one bug is in what training counts in: which documents, which bytes.

>>> ConcatenatesDocuments().train(["a", "a", "a"], 32)  # the spec gives []
[(97, 97)]
>>> DeduplicatesDocuments().train(["ab", "ab"], 32)  # the spec gives [(97, 98)]
[]
"""

from __future__ import annotations

import re
import unicodedata

from bpe_conformance.zoo.base import BOUNDARY_IDS, ZooMember
from bpe_conformance.zoo.witness import make_witness

__all__ = [
    "MEMBERS",
    "ConcatenatesDocuments",
    "DeduplicatesDocuments",
    "JoinsDocumentsWithSpace",
    "NormalizesDocumentsNFC",
    "StripsDocuments",
    "TrainsOnWords",
    "TrainsWithBoundaryIds",
]


# ---- documents and their bytes ------------------------------------------------------------------


class ConcatenatesDocuments(ZooMember):
    """Concatenates the documents into one stream before counting.

    Breaks BPE-TRAIN-DOCS: the last byte of one document and the first of the next form a pair.
    Seen in the wild: minbpe and tiktoken's ``_educational.bpe_train`` train on a single text, so
    callers join their corpus first; source chapter 004 warns that joining sentences teaches
    cross-sentence tokens, and apetokenizer issue #2 reports the same flattening across molecules.
    """

    name = "concatenates-documents"
    clause = "BPE-TRAIN-DOCS"
    also = ("BPE-TRAIN-INPUT", "BPE-TRAIN-COUNT", "BPE-PROP-PERMUTE")
    witness = make_witness("train", ["a", "a", "a"], 32)
    why = (
        "Three one-letter documents have no pairs at all, so the spec makes no rule. Glue them into "
        "'aaa' and two (a, a) windows appear that no document contains; the trainer merges them. "
        "Windows must stop at every document boundary."
    )

    def prepare_documents(self, documents: list[str]) -> list[str]:
        return ["".join(documents)]


class JoinsDocumentsWithSpace(ZooMember):
    """Joins the documents with a space into one text before counting.

    Breaks BPE-TRAIN-DOCS: pairs with the separator and across documents are counted. Seen in the
    wild: the sampler in source chapter 004 trains on ``" ".join(texts)``; it is the usual way to
    feed a list of documents to a trainer that accepts one string (minbpe, tiktoken's
    ``_educational``).
    """

    name = "joins-documents-with-space"
    clause = "BPE-TRAIN-DOCS"
    also = ("BPE-TRAIN-INPUT", "BPE-TRAIN-COUNT", "BPE-PROP-PERMUTE")
    witness = make_witness("train", ["a", "a", "a"], 32)
    why = (
        "A separator looks harmless, but it is bytes the documents never contained: 'a a a' has "
        "two (a, space) and two (space, a) windows, so a rule for a space-prefixed 'a' is learned "
        "from a corpus without a single space."
    )

    def prepare_documents(self, documents: list[str]) -> list[str]:
        return [" ".join(documents)]


class TrainsWithBoundaryIds(ZooMember):
    """Wraps every training document in the begin and end ids before counting.

    Breaks BPE-ALPHA-BOUNDARY: boundary ids take part in pairs and get merged, and the rules refer
    to them (BPE-RULE-REF). Seen in the wild: language-model data pipelines put an end-of-text
    token between documents (nanoGPT issue #244 discusses it for model training); source chapter
    000 states that special symbols never appear in the sequences BPE training merges.
    """

    name = "trains-with-boundary-ids"
    clause = "BPE-ALPHA-BOUNDARY"
    also = ("BPE-RULE-REF", "BPE-TRAIN-COUNT", "BPE-TRAIN-DOCS")
    witness = make_witness("train", ["ab", "ac"], 32)
    why = (
        "Boundary ids mark where a document starts and ends when a model reads it; they are not "
        "text. Put them into the training sequences and every document starts with the pair "
        "(256, first byte), which is frequent exactly because documents are many: 'ab' and 'ac' "
        "yield the rule (256, 97), a rule that refers to an id no rule may use."
    )

    def document_sequence(self, document: str) -> list[int]:
        return [BOUNDARY_IDS[0], *document.encode("utf-8"), BOUNDARY_IDS[1]]


class DeduplicatesDocuments(ZooMember):
    """Drops repeated documents before counting.

    Breaks BPE-TRAIN-DOCS: counts are summed over every document given, duplicates included.
    Seen in the wild: corpus deduplication is a routine cleaning step; source chapter 000 points
    out that BPE itself cannot know whether repeated documents should weigh twice, so that is a
    policy for the corpus, never something the trainer may decide silently.
    """

    name = "deduplicates-documents"
    clause = "BPE-TRAIN-DOCS"
    also = ("BPE-TRAIN-COUNT", "BPE-TRAIN-INPUT")
    witness = make_witness("train", ["ab", "ab"], 32)
    why = (
        "Two copies of 'ab' hold the pair (a, b) twice, enough for a rule. Removing the copy leaves "
        "one occurrence and no rule. Deduplication may be right for a corpus, but it changes the "
        "counts, so it belongs before the tokenizer, in plain sight."
    )

    def prepare_documents(self, documents: list[str]) -> list[str]:
        return list(dict.fromkeys(documents))


class StripsDocuments(ZooMember):
    """Strips leading and trailing whitespace from each document before counting.

    Breaks BPE-TRAIN-INPUT: each document is UTF-8 encoded exactly as given. Seen in the wild:
    subword-nmt's ``get_vocabulary`` strips every line (``line.strip('\\r\\n ')``) before counting,
    which is right for its word-frequency model; line readers everywhere do the same.
    """

    name = "strips-documents"
    clause = "BPE-TRAIN-INPUT"
    also = ("BPE-TRAIN-COUNT",)
    witness = make_witness("train", ["ab ", "ab "], 32)
    why = (
        "Trailing spaces are bytes like any other. In two documents 'ab ' the pair (ab, space) occurs "
        "twice, so the spec learns it as a second rule; a trainer that strips first never sees it, "
        "and its tokenizer spends more ids on every text ending in 'ab '."
    )

    def prepare_documents(self, documents: list[str]) -> list[str]:
        return [document.strip() for document in documents]


class NormalizesDocumentsNFC(ZooMember):
    """Applies Unicode NFC normalization to the documents before counting.

    Breaks BPE-TRAIN-INPUT: training sees the documents' own bytes, not a normalized form. Seen in
    the wild: SentencePiece normalizes with NFKC by default (google/sentencepiece issues #329,
    #839, #185 show characters changed and reversibility lost); Hugging Face tokenizers have a
    separate normalizer stage; source chapter 003 lists the normalizer as a fixed, explicit part
    of the pipeline.
    """

    name = "normalizes-documents-nfc"
    clause = "BPE-TRAIN-INPUT"
    also = ("BPE-TRAIN-COUNT", "BPE-ENCODE-RAW")
    witness = make_witness("train", ["e\u0301e\u0301"], 32)
    why = (
        "'e' followed by a combining acute accent is three bytes; NFC turns it into the two bytes of "
        "'é'. The rules learned from the normalized text are about bytes the corpus does not "
        "contain, while the real bytes get no rules at all."
    )

    def prepare_documents(self, documents: list[str]) -> list[str]:
        return [unicodedata.normalize("NFC", document) for document in documents]


class TrainsOnWords(ZooMember):
    """Splits documents into runs of whitespace and non-whitespace and counts inside each run.

    Breaks BPE-TRAIN-INPUT: documents "MUST NOT be ... split into words first", so pairs across a
    space boundary must be counted. Its counting is right on the pieces it makes (every window of a
    word counts), so it does not break BPE-TRAIN-COUNT. Seen in the wild:
    this is pre-tokenization, the norm in subword-nmt (counts words), GPT-2 and tiktoken (regex
    splitting before BPE); the strict profile has none, and merges may cross spaces and
    punctuation (source chapter 000).
    """

    name = "trains-on-words"
    clause = "BPE-TRAIN-INPUT"
    witness = make_witness("train", ["a a a"], 32)
    why = (
        "In 'a a a' the pairs (a, space) and (space, a) each occur twice, so the spec learns a rule. "
        "Cut the text into words and spaces first and no window ever holds a letter and a space: "
        "the vocabulary of a pre-tokenizing dialect, not of this one."
    )

    def prepare_documents(self, documents: list[str]) -> list[str]:
        return [run for document in documents for run in re.findall(r"\s+|\S+", document)]


MEMBERS = [
    ConcatenatesDocuments,
    JoinsDocumentsWithSpace,
    TrainsWithBoundaryIds,
    DeduplicatesDocuments,
    StripsDocuments,
    NormalizesDocumentsNFC,
    TrainsOnWords,
]
