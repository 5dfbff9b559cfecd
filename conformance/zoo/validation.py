"""Zoo members whose one bug is in checking input: max_merges, documents, texts, ids and rules.

>>> AcceptsBoolMaxMerges().train(["abab"], True)  # the spec raises TypeError
[(97, 98)]
>>> LoadAcceptsBoundaryIds().load([(256, 97)])  # the spec raises ValueError
[(256, 97)]
"""

from __future__ import annotations

from bpe_conformance.zoo.base import BOUNDARY_IDS, ZooMember, is_int
from bpe_conformance.zoo.witness import make_witness

__all__ = [
    "DEFAULT_MAX_MERGES",
    "MEMBERS",
    "AcceptsBoolIds",
    "AcceptsBoolMaxMerges",
    "AcceptsSingleStringCorpus",
    "ClampsNegativeMaxMerges",
    "EncodeTreatsFalsyAsEmpty",
    "IgnoresZeroMaxMerges",
    "LoadAcceptsBoundaryIds",
    "LoadAcceptsForwardReferences",
    "LoadCoercesIds",
    "NegativeIdsIndexFromEnd",
    "SurrogatePassEncode",
]

DEFAULT_MAX_MERGES = 32


# ---- max_merges ---------------------------------------------------------------------------


class AcceptsBoolMaxMerges(ZooMember):
    """Checks max_merges with ``isinstance(max_merges, int)``, so True passes as 1.

    Breaks BPE-TRAIN-MAXMERGES: bool is rejected. Seen in the wild: ``bool`` is a subclass of
    ``int`` in Python, and most hand-written type checks forget it; the trainer in source chapter
    000 checks ``type(max_merges) is not int`` for this reason.
    """

    name = "accepts-bool-max-merges"
    level = "interface"
    clause = "BPE-TRAIN-MAXMERGES"
    also = ("BPE-INPUT-DOCS",)
    witness = make_witness("train", ["abab"], True)
    why = (
        "``isinstance(True, int)`` is true, so a flag passed by mistake, say train(docs, verbose) in "
        "the wrong position, trains one rule instead of failing. A count must be an int and not a "
        "bool; the check has to say so explicitly."
    )

    def check_max_merges(self, max_merges: object) -> int:
        if not isinstance(max_merges, int):
            raise TypeError(f"max_merges must be an int, not {type(max_merges).__name__}")
        if max_merges < 0:
            raise ValueError(f"max_merges must not be negative, got {max_merges}")
        return int(max_merges)


class ClampsNegativeMaxMerges(ZooMember):
    """Treats a negative max_merges as 0 instead of rejecting it.

    Breaks BPE-TRAIN-MAXMERGES: max_merges must be non-negative. Seen in the wild: with no check
    at all, ``range(-1)`` is simply empty, so a negative budget silently trains nothing; clamping
    with ``max(0, n)`` makes the same choice on purpose.
    """

    name = "clamps-negative-max-merges"
    level = "interface"
    clause = "BPE-TRAIN-MAXMERGES"
    also = ()
    witness = make_witness("train", ["abab"], -1)
    why = (
        "A negative number of merges is a caller's bug, often an underflow such as vocab_size - 258 "
        "with too small a vocab_size. Training nothing and succeeding hides it; the spec rejects it "
        "with a message that names the value."
    )

    def check_max_merges(self, max_merges: object) -> int:
        if not is_int(max_merges):
            raise TypeError(f"max_merges must be an int, not {type(max_merges).__name__}")
        return max(max_merges, 0)


class IgnoresZeroMaxMerges(ZooMember):
    """Uses ``max_merges or 32``, so max_merges=0 trains the default number of rules.

    Breaks BPE-TRAIN-MAXMERGES: 0 is a valid budget meaning no rules (also BPE-TRAIN-STOP, and
    BPE-PROP-PREFIX: the rules for 0 merges are not a prefix of those for 1). Seen in the wild:
    ``x or default`` is the common Python idiom for optional arguments and treats 0 like None.
    """

    name = "ignores-zero-max-merges"
    # 0 is a valid budget (BPE-TRAIN-MAXMERGES is about which values are valid): training past it is
    # BPE-TRAIN-STOP's "stop ... after max_merges rules".
    clause = "BPE-TRAIN-STOP"
    also = ("BPE-TRAIN-MAXMERGES", "BPE-PROP-PREFIX")
    witness = make_witness("train", ["abab"], 0)
    why = (
        "``max_merges or 32`` cannot tell 'not given' from 0, because 0 is falsy. A byte-only "
        "tokenizer is a legitimate request, the baseline of every comparison, and here it silently "
        "gets rules."
    )

    def merge_budget(self, max_merges: int) -> int:
        return max_merges or DEFAULT_MAX_MERGES


# ---- documents and texts ------------------------------------------------------------------


class AcceptsSingleStringCorpus(ZooMember):
    """Turns any iterable of documents into a list, so a single str becomes a list of characters.

    Breaks BPE-INPUT-DOCS: documents must be a list of str. Seen in the wild: minbpe and tiktoken's
    ``_educational`` train on one string, so ``train(text, n)`` is what their users write; here it
    silently trains on one-character documents.
    """

    name = "accepts-single-string-corpus"
    level = "interface"
    clause = "BPE-INPUT-DOCS"
    also = ("BPE-TRAIN-INPUT",)
    witness = make_witness("train", "abab", 32)
    why = (
        "A str is an iterable of str, so ``list('abab')`` is four one-letter documents without a "
        "single pair. The call that meant 'train on this text' returns no rules and no error. "
        "Strings have to be rejected by name, with a hint to wrap them in a list."
    )

    def check_documents(self, documents: object) -> list[str]:
        return super().check_documents(list(documents))  # type: ignore[call-overload]


class SurrogatePassEncode(ZooMember):
    """Encodes texts with ``"surrogatepass"``, turning a lone surrogate into three bytes.

    Breaks BPE-INPUT-TEXT: a text with a lone surrogate has no UTF-8 encoding and is a ValueError.
    Seen in the wild: tiktoken accepts lone surrogates by repairing the text through UTF-16 with
    ``surrogatepass`` and replacing what is left (tiktoken issue #82); passing surrogates straight
    through produces WTF-8, which no strict decoder accepts.
    """

    name = "surrogate-pass-encode"
    level = "interface"
    clause = "BPE-INPUT-TEXT"
    also = ("BPE-ROUNDTRIP",)
    witness = make_witness("encode", "\ud800")
    why = (
        "U+D800 alone is not a character and has no UTF-8 form. 'surrogatepass' emits ed a0 80 "
        "anyway; the ids look fine, but decoding them is invalid UTF-8, so the round trip fails far "
        "from the bad input. Rejecting it at encode names the index where it is."
    )

    def check_text(self, text: object) -> bytes:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        return text.encode("utf-8", "surrogatepass")


class EncodeTreatsFalsyAsEmpty(ZooMember):
    """Starts ``encode`` with ``if not text: return []``, so None encodes to nothing.

    Breaks BPE-INPUT-TEXT: anything but a str is a TypeError. Seen in the wild: an early return for
    the empty string written as a falsiness test accepts None, 0 and [] as well.
    """

    name = "encode-treats-falsy-as-empty"
    level = "interface"
    clause = "BPE-INPUT-TEXT"
    also = ()
    witness = make_witness("encode", None)
    why = (
        "The shortcut for '' is fine; the spelling is not. ``not None`` is true, so a missing text "
        "(a failed read, an absent field) encodes to [] and flows on as an empty document."
    )

    def encode(self, text: str) -> list[int]:
        if not text:
            return []
        return super().encode(text)


# ---- ids ----------------------------------------------------------------------------------


class AcceptsBoolIds(ZooMember):
    """Checks ids with ``isinstance(token_id, int)``, so True decodes as id 1.

    Breaks BPE-INPUT-IDS: ids are ints, not bools. Seen in the wild: the same ``bool``-is-``int``
    trap as for max_merges, in the id check of a decoder.
    """

    name = "accepts-bool-ids"
    level = "interface"
    clause = "BPE-INPUT-IDS"
    also = ()
    witness = make_witness("decode", [True])
    why = (
        "A list of flags or a mask passed where ids belong decodes to control characters instead "
        "of failing. An id check has to exclude bool on purpose."
    )

    def check_ids(self, ids: object) -> list[int]:
        if not isinstance(ids, (list, tuple)):
            raise TypeError(f"ids must be a list of int, not {type(ids).__name__}")
        size = self.vocabulary_size()
        for position, token_id in enumerate(ids):
            if not isinstance(token_id, int):
                raise TypeError(f"id at position {position} must be an int, not {type(token_id).__name__}")
            if not 0 <= token_id < size:
                raise ValueError(f"id {token_id} at position {position} is not in the vocabulary 0-{size - 1}")
        return list(ids)


class NegativeIdsIndexFromEnd(ZooMember):
    """Checks only ``token_id < size`` and indexes a list of pieces, so -1 is the last id.

    Breaks BPE-INPUT-IDS: a negative id is not in the vocabulary. Seen in the wild: Python lists
    accept negative indexes, so a decoder built on ``pieces[token_id]`` with an upper-bound check
    returns a real piece for every id down to -size.
    """

    name = "negative-ids-index-from-end"
    level = "interface"
    clause = "BPE-INPUT-IDS"
    also = ("BPE-DECODE-STRICT",)
    witness = make_witness("decode", [-161])
    why = (
        "With no rules there are 258 ids, and pieces[-161] is pieces[97]: 'a'. A corrupted or "
        "sign-flipped id decodes to plausible text instead of an error. Both ends of the range "
        "need checking."
    )

    def check_ids(self, ids: object) -> list[int]:
        if not isinstance(ids, (list, tuple)):
            raise TypeError(f"ids must be a list of int, not {type(ids).__name__}")
        size = self.vocabulary_size()
        for position, token_id in enumerate(ids):
            if not is_int(token_id):
                raise TypeError(f"id at position {position} must be an int, not {type(token_id).__name__}")
            if token_id >= size:
                raise ValueError(f"id {token_id} at position {position} is not in the vocabulary 0-{size - 1}")
        return list(ids)

    def decode_bytes(self, ids: list[int]) -> bytes:
        in_id_order = list(self.pieces().values())
        return b"".join(in_id_order[token_id] for token_id in ids)


# ---- rules --------------------------------------------------------------------------------


class LoadAcceptsForwardReferences(ZooMember):
    """Lets a rule refer to any id of the final vocabulary, later rules and itself included.

    Breaks BPE-RULE-REF: a rule may refer only to bytes or earlier rule ids. Seen in the wild: the
    class of mistake of validating a merges file against the finished vocabulary ("is this token
    known?") instead of against the ids defined before the rule.
    """

    name = "load-accepts-forward-references"
    level = "interface"
    clause = "BPE-RULE-REF"
    also = ("BPE-INPUT-RULES", "BPE-SER-LOAD")
    witness = make_witness("load", [(97, 259), (97, 98)])
    why = (
        "Rule 0 = (a, 259) refers to rule 1, which does not exist yet when rule 0 is applied, and "
        "whose piece is needed to define rule 0's. Such a file has no meaning in rank order; the "
        "loader must say which rule refers forward."
    )

    def highest_reference(self, rank: int, rule_count: int) -> int:  # noqa: ARG002 - overrides the base's step
        return self.new_id(rule_count) - 1


class LoadAcceptsBoundaryIds(ZooMember):
    """Lets rules refer to the boundary ids 256 and 257.

    Breaks BPE-RULE-REF: boundary ids are never merged. Seen in the wild: loaders that only check
    "id below the rule's own id" (256 < 258 passes), and vocabularies where special tokens are
    ordinary entries that merges may use.
    """

    name = "load-accepts-boundary-ids"
    level = "interface"
    clause = "BPE-RULE-REF"
    also = ("BPE-ALPHA-BOUNDARY", "BPE-INPUT-RULES")
    witness = make_witness("load", [(256, 97)])
    why = (
        "256 is below 258, so a plain 'earlier id' check lets (256, a) through. But a boundary id "
        "never occurs inside a text's sequence, so the rule can never apply, and its piece would "
        "be just 'a', a duplicate of a byte. Such a file is corrupt and should be refused."
    )

    def check_rule_part(self, rank: int, part: object, rule_count: int) -> int:
        if is_int(part) and part in BOUNDARY_IDS:
            return part
        return super().check_rule_part(rank, part, rule_count)


class LoadCoercesIds(ZooMember):
    """Converts every rule part with ``int()``, so 97.0, "97" and True are accepted.

    Breaks BPE-INPUT-RULES: rule parts must be ints. Seen in the wild: ``int(x)`` as a "cleaning"
    step while reading JSON or text merge files; it also truncates 97.9 to 97.
    """

    name = "load-coerces-ids"
    level = "interface"
    clause = "BPE-INPUT-RULES"
    also = ("BPE-SER-LOAD",)
    witness = make_witness("load", [(97.0, 98.0)])
    why = (
        "Coercion turns malformed input into plausible input: a float from a lossy JSON writer, a "
        "string from a text file or a stray bool all become ids, and 97.9 quietly becomes 97. The "
        "loader should refuse them and say which rule holds what."
    )

    def check_rule_part(self, rank: int, part: object, rule_count: int) -> int:
        return super().check_rule_part(rank, int(part), rule_count)  # type: ignore[call-overload]


MEMBERS = [
    AcceptsBoolMaxMerges,
    ClampsNegativeMaxMerges,
    IgnoresZeroMaxMerges,
    AcceptsSingleStringCorpus,
    SurrogatePassEncode,
    EncodeTreatsFalsyAsEmpty,
    AcceptsBoolIds,
    NegativeIdsIndexFromEnd,
    LoadAcceptsForwardReferences,
    LoadAcceptsBoundaryIds,
    LoadCoercesIds,
]
