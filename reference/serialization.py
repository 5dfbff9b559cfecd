"""Canonical JSON form and digest of a tokenizer (BPE-SER-JSON, BPE-SER-DIGEST, BPE-SER-LOAD).

The digest is SHA-256 over an ASCII byte string any language can build: the header line
``bpe-conformance.tokenizer/1 strict`` and then one line ``"<a> <b>"`` per rule in rank order,
decimal without leading zeros, every line ending in ``\\n``.

>>> digest_input([(97, 98), (97, 99)])
b'bpe-conformance.tokenizer/1 strict\\n97 98\\n97 99\\n'
>>> digest([])
'sha256:79ba4ba61658c935ff24b1fad1905bd4aae01edc7f0ce40cf5910ff6ce164aa8'
>>> dumps([(97, 98)]).endswith('"rules":[[97,98]],"version":1,"vocab_size":259}\\n')
True
>>> loads(dumps([(97, 98)]))
[(97, 98)]
>>> loads(b"\\xef\\xbb\\xbf" + dumps([(97, 98)]).encode())
Traceback (most recent call last):
...
ValueError: tokenizer file starts with a byte order mark; it must be UTF-8 without one
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from bpe_conformance.reference.alphabet import vocab_size
from bpe_conformance.reference.pieces import check_piece_budget
from bpe_conformance.reference.validation import check_rules

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject, JSONValue

__all__ = ["FORMAT", "FORMAT_VERSION", "PROFILE", "digest", "digest_input", "dumps", "loads", "to_document"]

FORMAT = "bpe-conformance.tokenizer"
FORMAT_VERSION = 1
PROFILE = "strict"
_KEYS = {"digest", "format", "profile", "rules", "version", "vocab_size"}


def digest_input(rules: list[tuple[int, int]]) -> bytes:
    """The exact bytes the digest is computed over."""
    lines = [f"{FORMAT}/{FORMAT_VERSION} {PROFILE}"] + [f"{first} {second}" for first, second in rules]
    return "".join(line + "\n" for line in lines).encode("ascii")


def digest(rules: list[tuple[int, int]]) -> str:
    """``"sha256:"`` and the lowercase hex SHA-256 of :func:`digest_input`."""
    return "sha256:" + hashlib.sha256(digest_input(rules)).hexdigest()


def to_document(rules: list[tuple[int, int]]) -> dict[str, object]:
    """The JSON object describing a tokenizer with these rules."""
    checked = check_rules(rules)
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "profile": PROFILE,
        "rules": [[first, second] for first, second in checked],
        "vocab_size": vocab_size(checked),
        "digest": digest(checked),
    }


def dumps(rules: list[tuple[int, int]]) -> str:
    """Canonical JSON: sorted keys, no spaces, ASCII only, one trailing newline.

    The keys are sorted here, not by :func:`to_document`; ASCII only is ``json``'s default (and the
    document holds nothing else).
    """
    return json.dumps(to_document(rules), sort_keys=True, separators=(",", ":")) + "\n"


_BOM = "\ufeff"


def _unique_keys(pairs: list[tuple[str, JSONValue]]) -> JSONObject:
    document: JSONObject = {}
    for key, value in pairs:
        if key in document:
            raise ValueError(f"tokenizer file has duplicate key {key!r}")
        document[key] = value
    return document


def _as_text(text: str | bytes) -> str:
    """The file as str: bytes must be UTF-8; neither form may start with a byte order mark."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            problem = f"not UTF-8 ({error.reason} at byte {error.start})"
            raise ValueError(f"tokenizer file is not valid JSON: {problem}") from None
    if not isinstance(text, str):
        raise TypeError(f"a tokenizer file is str or bytes, not {type(text).__name__}")
    if text.startswith(_BOM):
        raise ValueError("tokenizer file starts with a byte order mark; it must be UTF-8 without one")
    return text


def _parse(text: str | bytes) -> Any:
    try:
        return json.loads(_as_text(text), object_pairs_hook=_unique_keys)
    except RecursionError:
        raise ValueError("tokenizer file nests arrays or objects too deeply to be a tokenizer") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"tokenizer file is not valid JSON: {error}") from None


def loads(text: str | bytes, *, max_piece_bytes: int | None = None) -> list[tuple[int, int]]:
    """Parse and validate a tokenizer written by :func:`dumps`; anything malformed is a ValueError/TypeError.

    str and bytes are read alike: UTF-8 (bytes are decoded strictly), no byte order mark, no key
    twice. Rules whose pieces would total more than ``max_piece_bytes`` (default
    :func:`bpe_conformance.reference.pieces.piece_budget`, proportional to the number of rules) are a ValueError.
    """
    document = _parse(text)
    if not isinstance(document, dict):
        raise ValueError(f"tokenizer file must hold a JSON object, not {type(document).__name__}")
    missing, unknown = _KEYS - document.keys(), document.keys() - _KEYS
    if missing or unknown:
        raise ValueError(f"tokenizer file keys are wrong: missing {sorted(missing)}, unknown {sorted(unknown)}")
    expected_header = {"format": FORMAT, "version": FORMAT_VERSION, "profile": PROFILE}
    for key, expected in expected_header.items():
        if document[key] != expected or type(document[key]) is not type(expected):
            raise ValueError(f"tokenizer file {key} must be {expected!r}, got {document[key]!r}")
    rules = check_rules(document["rules"])
    check_piece_budget(rules, max_piece_bytes)
    if type(document["vocab_size"]) is not int or document["vocab_size"] != vocab_size(rules):
        raise ValueError(
            f"tokenizer file vocab_size is {document['vocab_size']!r} but its rules give {vocab_size(rules)}"
        )
    if document["digest"] != digest(rules):
        raise ValueError(f"tokenizer file digest {document['digest']!r} does not match its rules ({digest(rules)})")
    return rules
