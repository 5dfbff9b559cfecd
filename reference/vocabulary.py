"""Released vocabularies: byte pieces with ranks, read from the three formats they ship in, and validated.

A vocabulary maps each piece (a byte string) to its rank, which is also its id. Every one of the 256
single bytes has a rank (so any text can be encoded), ranks run without a gap from 0, and every longer
piece is the join of two pieces of lower rank (so byte-pair merging can build it). The readers accept
a tiktoken rank file (``.tiktoken``: base64 piece, space, rank per line), a Hugging Face
``tokenizer.json`` with a BPE model over GPT-2's byte-level symbols, and GPT-2's ``encoder.json`` +
``vocab.bpe``. Whatever breaks one of these facts is a :class:`VocabularyError` naming the file and line.

>>> vocabulary = read_tiktoken_text("YQ== 0\\nYg== 1\\n", "tiny.tiktoken", require_all_bytes=False)
>>> vocabulary.size, vocabulary.rank_of[b"a"]
(2, 0)
>>> read_tiktoken_text("YQ== 0\\nYQ== 1\\n", "dup.tiktoken", require_all_bytes=False)
Traceback (most recent call last):
...
bpe_conformance.reference.vocabulary.VocabularyError: dup.tiktoken line 2: piece b'a' already has rank 0
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_conformance.reference.alphabet import BYTE_COUNT
from bpe_conformance.reference.dialects import byte_level_symbol

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = [
    "Vocabulary",
    "VocabularyError",
    "byte_of_symbol",
    "read_gpt2_files",
    "read_hf_tokenizer_json",
    "read_tiktoken_file",
    "read_tiktoken_text",
    "read_vocabulary",
    "symbols_to_bytes",
    "tiktoken_text",
    "vocabulary_from_pieces",
]

_BYTE_OF_SYMBOL = {byte_level_symbol(value): value for value in range(BYTE_COUNT)}


class VocabularyError(ValueError):
    """A vocabulary file that cannot be used: the message names the file, the line and what was wrong."""


@dataclass(frozen=True)
class Vocabulary:
    """Pieces by rank (the rank is the id), the special tokens beside them, and where they were read from.

    ``sha256`` is the digest of the file's bytes (of both files, concatenated, for GPT-2's pair), so a
    report names exactly the vocabulary it judged by.
    """

    pieces: tuple[bytes, ...]
    special_tokens: Mapping[str, int] = field(default_factory=dict)
    source: str = "(built in memory)"
    sha256: str = ""
    rank_of: Mapping[bytes, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rank_of", {piece: rank for rank, piece in enumerate(self.pieces)})

    @property
    def size(self) -> int:
        """How many pieces have a rank (special tokens not counted)."""
        return len(self.pieces)

    def piece_of(self, token_id: int) -> bytes | None:
        """The bytes ``token_id`` decodes to: a piece, a special token's text, or None when unknown."""
        if 0 <= token_id < len(self.pieces):
            return self.pieces[token_id]
        for text, special_id in self.special_tokens.items():
            if special_id == token_id:
                return text.encode()
        return None


def _fail(source: str, line: int | None, message: str) -> VocabularyError:
    where = f"{source} line {line}" if line is not None else source
    return VocabularyError(f"{where}: {message}")


def vocabulary_from_pieces(
    ranked: Iterable[tuple[bytes, int, int | None]],
    source: str,
    *,
    special_tokens: Mapping[str, int] | None = None,
    sha256: str = "",
    require_all_bytes: bool = True,
) -> Vocabulary:
    """A validated vocabulary from ``(piece, rank, line)`` triples (``line`` names where each was read).

    Checked, in this order: no piece twice, no rank twice, ranks 0 to n-1 without a gap, every single
    byte present (unless ``require_all_bytes`` is False, for tiny examples), every longer piece the join
    of two pieces of lower rank, and special tokens that take no rank of a piece.
    """
    rank_of: dict[bytes, int] = {}
    line_of_rank: dict[int, int | None] = {}
    for piece, rank, line in ranked:
        if not piece:
            raise _fail(source, line, "an empty piece")
        if piece in rank_of:
            raise _fail(source, line, f"piece {piece!r} already has rank {rank_of[piece]}")
        if rank in line_of_rank:
            raise _fail(source, line, f"rank {rank} is given to two pieces")
        rank_of[piece] = rank
        line_of_rank[rank] = line
    pieces: list[bytes] = [b""] * len(rank_of)
    for piece, rank in rank_of.items():
        if not 0 <= rank < len(rank_of):
            missing = min(set(range(len(rank_of))) - set(line_of_rank))
            raise _fail(source, line_of_rank[rank], f"ranks have a gap: rank {missing} is missing (found rank {rank})")
        pieces[rank] = piece
    if require_all_bytes:
        absent = [value for value in range(BYTE_COUNT) if bytes([value]) not in rank_of]
        if absent:
            raise _fail(source, None, f"byte 0x{absent[0]:02x} has no rank ({len(absent)} single bytes missing)")
    for rank, piece in enumerate(pieces):
        if len(piece) > 1 and not _built_by_lower_pair(piece, rank, rank_of):
            raise _fail(
                source, line_of_rank[rank], f"piece {piece!r} (rank {rank}) is no join of two lower-rank pieces"
            )
    specials = dict(special_tokens or {})
    for text, special_id in specials.items():
        if 0 <= special_id < len(pieces):
            raise _fail(
                source, None, f"special token {text!r} has id {special_id}, the rank of piece {pieces[special_id]!r}"
            )
    return Vocabulary(tuple(pieces), specials, source, sha256)


def _built_by_lower_pair(piece: bytes, rank: int, rank_of: Mapping[bytes, int]) -> bool:
    never = rank  # a part must rank strictly below the piece it builds
    return any(
        rank_of.get(piece[:cut], never) < rank and rank_of.get(piece[cut:], never) < rank
        for cut in range(1, len(piece))
    )


def read_tiktoken_text(
    text: str,
    source: str,
    *,
    sha256: str = "",
    special_tokens: Mapping[str, int] | None = None,
    require_all_bytes: bool = True,
) -> Vocabulary:
    """A vocabulary from a tiktoken rank file's text: one ``base64-piece rank`` per line."""
    ranked = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2:
            raise _fail(source, number, f"expected 'base64-piece rank', got {line[:60]!r}")
        try:
            piece = base64.b64decode(fields[0], validate=True)
        except (binascii.Error, ValueError):
            raise _fail(source, number, f"{fields[0][:40]!r} is not base64") from None
        if not fields[1].isdigit():
            raise _fail(source, number, f"rank {fields[1][:20]!r} is not a non-negative integer")
        ranked.append((piece, int(fields[1]), number))
    return vocabulary_from_pieces(
        ranked, source, special_tokens=special_tokens, sha256=sha256, require_all_bytes=require_all_bytes
    )


def tiktoken_text(vocabulary: Vocabulary) -> str:
    """The rank file of ``vocabulary`` (what :func:`read_tiktoken_text` reads back)."""
    return "".join(f"{base64.b64encode(piece).decode()} {rank}\n" for rank, piece in enumerate(vocabulary.pieces))


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise VocabularyError(f"{path}: cannot read ({error.strerror or error})") from None


def _decoded(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise VocabularyError(f"{source}: not UTF-8 text (byte offset {error.start})") from None


def read_tiktoken_file(path: Path, special_tokens: Mapping[str, int] | None = None) -> Vocabulary:
    """A tiktoken ``.tiktoken`` rank file, validated."""
    data = _read_bytes(path)
    return read_tiktoken_text(
        _decoded(data, str(path)), str(path), sha256=hashlib.sha256(data).hexdigest(), special_tokens=special_tokens
    )


def byte_of_symbol(symbol: str, source: str, line: int | None) -> int:
    """The byte GPT-2's byte-level alphabet writes as ``symbol`` (``Ġ`` is the space)."""
    if symbol not in _BYTE_OF_SYMBOL:
        raise _fail(source, line, f"{symbol!r} (U+{ord(symbol):04X}) is no byte-level symbol")
    return _BYTE_OF_SYMBOL[symbol]


def symbols_to_bytes(token: str, source: str, line: int | None) -> bytes:
    """A token written in byte-level symbols, as the bytes it stands for.

    >>> symbols_to_bytes("Ġhello", "x", 1)
    b' hello'
    """
    return bytes(byte_of_symbol(symbol, source, line) for symbol in token)


def _parse_json(data: bytes, source: str) -> Any:
    try:
        return json.loads(_decoded(data, source))
    except json.JSONDecodeError as error:
        raise VocabularyError(f"{source} line {error.lineno}: not JSON ({error.msg})") from None


def _line_of(text: str, needle: str) -> int | None:
    position = text.find(needle)
    return None if position < 0 else text.count("\n", 0, position) + 1


def _token_line(text: str, token: str) -> int | None:
    """The line of ``token``'s JSON string in ``text``, written raw (as HF writes its files) or with ``\\u`` escapes."""
    raw = _line_of(text, json.dumps(token, ensure_ascii=False))
    return raw if raw is not None else _line_of(text, json.dumps(token))


def _token_bytes(token: str, source: str, text: str) -> bytes:
    # The line is looked up only for a bad token: finding each of 100 000 tokens would take minutes.
    if all(symbol in _BYTE_OF_SYMBOL for symbol in token):
        return bytes(_BYTE_OF_SYMBOL[symbol] for symbol in token)
    return symbols_to_bytes(token, source, _token_line(text, token))


def read_hf_tokenizer_json(path: Path) -> Vocabulary:
    """A Hugging Face ``tokenizer.json`` whose model is BPE over byte-level symbols; added tokens are specials."""
    data = _read_bytes(path)
    source = str(path)
    document = _parse_json(data, source)
    model = document.get("model") if isinstance(document, dict) else None
    if not isinstance(model, dict) or model.get("type") != "BPE" or not isinstance(model.get("vocab"), dict):
        raise VocabularyError(f"{source}: no BPE model with a 'vocab' object under 'model'")
    text = data.decode("utf-8")
    specials: dict[str, int] = {}
    for added in document.get("added_tokens") or []:
        if isinstance(added, dict) and isinstance(added.get("content"), str) and isinstance(added.get("id"), int):
            specials[added["content"]] = added["id"]
    special_ids = set(specials.values())
    ranked = []
    for token, token_id in model["vocab"].items():
        if token_id in special_ids:
            continue
        if not isinstance(token_id, int) or isinstance(token_id, bool):
            raise _fail(source, _token_line(text, token), f"the id of {token!r} is not an integer")
        ranked.append((_token_bytes(token, source, text), token_id, None))
    return vocabulary_from_pieces(ranked, source, special_tokens=specials, sha256=hashlib.sha256(data).hexdigest())


def read_gpt2_files(encoder_path: Path, merges_path: Path) -> Vocabulary:
    """GPT-2's release: ``encoder.json`` (symbol token -> id) and ``vocab.bpe`` (merges, in rank order).

    The merges must make exactly the encoder's pieces: bytes ranked in the encoder's order, merge ``r``
    made at rank ``256 + r``. Entries of the encoder past the merges (``<|endoftext|>``) are specials.
    """
    encoder_data, merges_data = _read_bytes(encoder_path), _read_bytes(merges_path)
    encoder = _parse_json(encoder_data, str(encoder_path))
    if not isinstance(encoder, dict):
        raise VocabularyError(f"{encoder_path}: expected a JSON object of token -> id")
    merge_lines = _decoded(merges_data, str(merges_path)).splitlines()
    merges: list[tuple[int, bytes]] = []
    for number, line in enumerate(merge_lines, start=1):
        if not line.strip() or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise _fail(
                str(merges_path), number, f"expected two symbol tokens separated by one space, got {line[:60]!r}"
            )
        joined = symbols_to_bytes(parts[0], str(merges_path), number) + symbols_to_bytes(
            parts[1], str(merges_path), number
        )
        merges.append((number, joined))
    built = len(merges) + BYTE_COUNT
    specials = {
        token: token_id for token, token_id in encoder.items() if isinstance(token_id, int) and token_id >= built
    }
    ranked = []
    encoder_text = encoder_data.decode("utf-8")
    for token, token_id in encoder.items():
        if token in specials:
            continue
        if not isinstance(token_id, int) or isinstance(token_id, bool):
            raise _fail(str(encoder_path), _token_line(encoder_text, token), f"the id of {token!r} is not an integer")
        ranked.append((_token_bytes(token, str(encoder_path), encoder_text), token_id, None))
    digest = hashlib.sha256(encoder_data + merges_data).hexdigest()
    vocabulary = vocabulary_from_pieces(ranked, f"{encoder_path},{merges_path}", special_tokens=specials, sha256=digest)
    for rank, (number, joined) in enumerate(merges, start=BYTE_COUNT):
        if vocabulary.rank_of.get(joined) != rank:
            raise _fail(
                str(merges_path),
                number,
                f"merge makes {joined!r} at rank {rank}, but the encoder gives it {vocabulary.rank_of.get(joined)}",
            )
    if vocabulary.size != built:
        raise VocabularyError(
            f"{encoder_path}: {vocabulary.size} pieces, but 256 bytes and {len(merges)} merges make {built}"
        )
    return vocabulary


def read_vocabulary(spec: str) -> Vocabulary:
    """``--vocabulary``: a ``.tiktoken`` file, a ``tokenizer.json``, or ``ENCODER.json,VOCAB.bpe``."""
    if "," in spec:
        encoder, merges = spec.split(",", 1)
        return read_gpt2_files(Path(encoder), Path(merges))
    path = Path(spec)
    if path.suffix == ".json":
        return read_hf_tokenizer_json(path)
    return read_tiktoken_file(path)
