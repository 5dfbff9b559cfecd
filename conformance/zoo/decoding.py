"""Zoo members whose one bug is in decoding: pieces, boundary ids, and turning bytes into text.

>>> DecodesEachTokenAlone().decode([228, 189, 142])  # the spec gives '低'
'\ufffd\ufffd\ufffd'
>>> ReplacesInvalidUtf8().decode([228, 189])  # the spec raises ValueError
'\ufffd'
"""

from __future__ import annotations

from bpe_conformance.zoo.base import BEGIN_ID, BOUNDARY_IDS, BYTE_COUNT, END_ID, FIRST_RULE_ID, Rules, ZooMember
from bpe_conformance.zoo.witness import make_witness

__all__ = [
    "MEMBERS",
    "BoundaryIdsAsText",
    "CleansUpTokenizationSpaces",
    "DecodesEachTokenAlone",
    "DecodesLatin1",
    "JoinsPiecesWithSpaces",
    "PiecesWithoutBoundarySlots",
    "RejectsBoundaryIds",
    "ReplacesInvalidUtf8",
    "SkipsUnknownIds",
    "VocabSizedByRequest",
]


# ---- bytes into text ----------------------------------------------------------------------


class DecodesEachTokenAlone(ZooMember):
    """Decodes every token's piece to text on its own, with replacement characters, and joins the text.

    Breaks BPE-DECODE-CONCAT: pieces are joined as bytes first, because a piece may hold part of a
    character. Seen in the wild: exo pull request #1691 and speech-swift pull request #41 fixed
    per-token decoding that turned split characters into U+FFFD or mojibake;
    huggingface/tokenizers issue #1628 notes that single tokens are often not valid text.
    """

    name = "decodes-each-token-alone"
    clause = "BPE-DECODE-CONCAT"
    also = ("BPE-ROUNDTRIP", "BPE-DECODE-STRICT")
    witness = make_witness("decode", [228, 189, 142])
    why = (
        "'低' is three bytes, e4 bd 8e, and with byte-level rules each can be its own token. None "
        "of them is valid UTF-8 alone, so decoding per token gives three replacement characters "
        "where joining the bytes first gives the character. Text exists only at the end."
    )

    def decode(self, ids: list[int]) -> str:
        pieces = self.pieces()
        return "".join(pieces[token_id].decode("utf-8", errors="replace") for token_id in self.check_ids(ids))


class ReplacesInvalidUtf8(ZooMember):
    """Decodes the joined bytes with ``errors="replace"`` instead of raising on invalid UTF-8.

    Breaks BPE-DECODE-STRICT: invalid UTF-8 is a ValueError, never U+FFFD. Seen in the wild:
    minbpe, tiktoken's ``_educational`` and GPT-2's ``encoder.py`` all decode with
    ``errors="replace"``; tensorflow/swift-models pull request #571 switched a throwing decoder to
    return U+FFFD. A lenient dialect, but it hides truncated output.
    """

    name = "replaces-invalid-utf8"
    level = "interface"
    clause = "BPE-DECODE-STRICT"
    also = ("BPE-DECODE-BYTES",)
    witness = make_witness("decode", [228, 189])
    why = (
        "Two of the three bytes of '低' are not text. A strict decoder says so, with the byte offset; "
        "a lenient one returns U+FFFD and the caller never learns that the ids stopped mid-character. "
        "Partial sequences have a bytes-level decode for that purpose."
    )

    def bytes_to_text(self, data: bytes) -> str:
        return data.decode("utf-8", errors="replace")


class DecodesLatin1(ZooMember):
    """Decodes the joined bytes as Latin-1, which never fails, instead of UTF-8.

    Breaks BPE-ROUNDTRIP: every non-ASCII text comes back as mojibake, and invalid UTF-8 is never
    reported (BPE-DECODE-STRICT). Seen in the wild: "decode as latin-1 so it cannot raise" is a
    well-known escape from UnicodeDecodeError; byte-to-code-point tables in the style of GPT-2's
    ``bytes_to_unicode`` make the same confusion easy.
    """

    name = "decodes-latin1"
    clause = "BPE-ROUNDTRIP"
    also = ("BPE-DECODE-STRICT", "BPE-DECODE-CONCAT")
    witness = make_witness("decode", [195, 169])
    why = (
        "Latin-1 maps every byte to a character, so it can decode anything, and that is the problem: "
        "the two bytes of 'é' come back as 'Ã©', and bytes that are not text at all are accepted. "
        "ASCII-only tests pass, which is why this survives."
    )

    def bytes_to_text(self, data: bytes) -> str:
        return data.decode("latin-1")


class JoinsPiecesWithSpaces(ZooMember):
    """Joins the pieces with a space between tokens.

    Breaks BPE-DECODE-CONCAT: pieces are concatenated as they are. Seen in the wild: word-level and
    WordPiece decoders join tokens with spaces; used on a byte-level vocabulary it invents spaces.
    """

    name = "joins-pieces-with-spaces"
    clause = "BPE-DECODE-CONCAT"
    also = ("BPE-ROUNDTRIP",)
    witness = make_witness("decode", [97, 98])
    why = (
        "In byte-level BPE a space is part of the pieces ('a', ' b'), never something between them. "
        "Joining with spaces turns [a, b] into 'a b', and any id sequence that splits a character "
        "gets a space inside it, which is not even valid UTF-8."
    )

    def decode_bytes(self, ids: list[int]) -> bytes:
        pieces = self.pieces()
        return b" ".join(pieces[token_id] for token_id in ids)


class CleansUpTokenizationSpaces(ZooMember):
    """Removes spaces before punctuation after decoding (" ." becomes ".").

    Breaks BPE-ROUNDTRIP: decode must return the bytes' text unchanged. Seen in the wild: the
    ``clean_up_tokenization_spaces`` step of Hugging Face ``transformers``; huggingface/tokenizers
    issue #1543 shows 'hello !' decoding to 'hello!', and swift-transformers pull request #391
    skips the step for BPE models because it is destructive there.
    """

    name = "cleans-up-tokenization-spaces"
    clause = "BPE-ROUNDTRIP"
    also = ("BPE-DECODE-CONCAT",)
    witness = make_witness("decode", [97, 32, 46])
    why = (
        "A cosmetic rule for word-level tokenizers, which put a space before every punctuation mark, "
        "applied to a tokenizer whose spaces are real: 'a .' decodes to 'a.'. A text that had the "
        "space can no longer round trip."
    )

    _CLEANUPS = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 's", "'s"))

    def decode(self, ids: list[int]) -> str:
        text = super().decode(ids)
        for before, after in self._CLEANUPS:
            text = text.replace(before, after)
        return text


# ---- which ids have pieces ----------------------------------------------------------------


class SkipsUnknownIds(ZooMember):
    """Drops ids that are not in the vocabulary instead of rejecting them.

    Breaks BPE-DECODE-STRICT: an unknown id is a ValueError naming it. Seen in the wild: looking
    pieces up with ``dict.get(token_id, b"")`` is the usual way this happens; decoders that skip
    what they do not know hide out-of-range model outputs.
    """

    name = "skips-unknown-ids"
    level = "interface"
    clause = "BPE-DECODE-STRICT"
    also = ("BPE-INPUT-IDS",)
    witness = make_witness("decode", [97, 300])
    why = (
        "Id 300 does not exist in a tokenizer with no rules. Skipping it returns 'a' as if the input "
        "had been fine, so a mismatch between model and tokenizer sizes shows up as quietly missing "
        "text instead of an error at the first bad id."
    )

    def check_ids(self, ids: object) -> list[int]:
        if isinstance(ids, (list, tuple)):
            size = self.vocabulary_size()
            ids = [token_id for token_id in ids if not isinstance(token_id, int) or 0 <= token_id < size]
        return super().check_ids(ids)


class RejectsBoundaryIds(ZooMember):
    """Rejects the boundary ids 256 and 257 in decode instead of decoding them to nothing.

    Breaks BPE-ALPHA-BOUNDARY: boundary ids are in the vocabulary and carry no bytes, so
    decode([256, ..., 257]) is the document's text. Seen in the wild: piece tables built from
    bytes and merges only, with special tokens left out, raise on them (often as a KeyError).
    """

    name = "rejects-boundary-ids"
    clause = "BPE-ALPHA-BOUNDARY"
    also = ("BPE-DECODE-CONCAT", "BPE-ENCODE-BOUNDARY")
    witness = make_witness("decode", [BEGIN_ID, 97, END_ID])
    why = (
        "A document encodes to [256, ..., 257], so decoding it must work and give the text: the "
        "boundaries stand for no bytes at all. Rejecting them breaks the round trip of every "
        "whole document."
    )

    def check_ids(self, ids: object) -> list[int]:
        checked = super().check_ids(ids)
        for position, token_id in enumerate(checked):
            if token_id in BOUNDARY_IDS:
                raise ValueError(f"id {token_id} at position {position} is a boundary id and has no text")
        return checked


class BoundaryIdsAsText(ZooMember):
    """Decodes the boundary ids to marker text ('<|begin|>', '<|end|>') instead of nothing.

    Breaks BPE-ALPHA-BOUNDARY: boundary ids carry no bytes. Seen in the wild: tiktoken and Hugging
    Face decode special tokens to their names (``skip_special_tokens`` defaults to False), a
    reasonable dialect that is not this one.
    """

    name = "boundary-ids-as-text"
    clause = "BPE-ALPHA-BOUNDARY"
    also = ("BPE-DECODE-CONCAT", "BPE-ROUNDTRIP")
    witness = make_witness("decode", [BEGIN_ID, 97, END_ID])
    why = (
        "If the boundaries decode to markers, decoding an encoded document returns text that was "
        "never in it, and encoding that text again gives ordinary bytes, not boundary ids. Markers "
        "belong to a display layer, not to decode."
    )

    def build_pieces(self, rules: Rules) -> dict[int, bytes]:
        pieces = super().build_pieces(rules)
        pieces[BEGIN_ID], pieces[END_ID] = b"<|begin|>", b"<|end|>"
        return pieces


class PiecesWithoutBoundarySlots(ZooMember):
    """Stores rule r's piece at 256 + r in the piece table, as if the boundaries came last.

    Breaks BPE-RULE-PIECE: id 258 + r must decode to rule r's piece. Seen in the wild: vocabularies
    built as "256 bytes, then the merges, then special tokens appended" (minbpe registers special
    tokens after its merges); moving the specials in front without shifting the table is the bug.
    """

    name = "pieces-without-boundary-slots"
    clause = "BPE-RULE-PIECE"
    also = ("BPE-DECODE-CONCAT", "BPE-ALPHA-BOUNDARY", "BPE-ROUNDTRIP")
    witness = make_witness("decode", [258], setup=[("load", [[(97, 98), (99, 100), (101, 102)]])])
    why = (
        "Encoding numbers rule r as 258 + r; this decoder looks its pieces up two places later. So "
        "id 258 decodes to the third rule's 'ef' instead of 'ab', and the boundary ids decode to "
        "the first two rules. Every id is off by two, which tests on bytes alone never notice."
    )

    def build_pieces(self, rules: Rules) -> dict[int, bytes]:
        pieces = {value: bytes([value]) for value in range(BYTE_COUNT)}
        for rank, (first, second) in enumerate(rules):
            pieces[BYTE_COUNT + rank] = pieces[first] + pieces[second]
        for boundary in BOUNDARY_IDS:
            pieces.setdefault(boundary, b"")
        return pieces


class VocabSizedByRequest(ZooMember):
    """Sizes the vocabulary by the requested max_merges, so unused ids decode to nothing.

    Breaks BPE-VOCAB-SIZE: the vocabulary is 258 + the number of rules made, not requested. Seen in
    the wild: source chapter 000 makes this distinction explicitly; preallocating embedding rows or
    a piece table for the requested size is the common form of the mistake.
    """

    name = "vocab-sized-by-request"
    clause = "BPE-VOCAB-SIZE"
    also = ("BPE-DECODE-STRICT", "BPE-INPUT-IDS")
    witness = make_witness("decode", [259], setup=[("train", [["abab"], 32])])
    why = (
        "'abab' yields one rule although 32 were allowed, so the vocabulary ends at id 258. A "
        "tokenizer that reserved 32 slots accepts id 259 and decodes it to an empty string, where "
        "the spec reports an unknown id."
    )

    def __init__(self) -> None:
        super().__init__()
        self.requested_merges = 0

    def train(self, documents: list[str], max_merges: int) -> Rules:
        rules = super().train(documents, max_merges)
        self.requested_merges = max_merges
        self._pieces = None
        return rules

    def vocabulary_size(self) -> int:
        return FIRST_RULE_ID + max(len(self.rules), self.requested_merges)

    def build_pieces(self, rules: Rules) -> dict[int, bytes]:
        pieces = super().build_pieces(rules)
        # The unused slots are made at once, as an embedding matrix sized by the request would be: a budget
        # past 2**31 then fails fast (MemoryError under the proof's bound) instead of filling slot by slot.
        pieces.update(dict.fromkeys(range(FIRST_RULE_ID + len(rules), self.vocabulary_size()), b""))
        return pieces


MEMBERS = [
    DecodesEachTokenAlone,
    ReplacesInvalidUtf8,
    DecodesLatin1,
    JoinsPiecesWithSpaces,
    CleansUpTokenizationSpaces,
    SkipsUnknownIds,
    RejectsBoundaryIds,
    BoundaryIdsAsText,
    PiecesWithoutBoundarySlots,
    VocabSizedByRequest,
]
