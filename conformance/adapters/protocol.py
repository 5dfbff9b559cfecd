"""Messages of the JSON-lines subprocess protocol (``specs/protocol.md``), version 1.

Building, writing, reading and validating one line at a time. Schemas come from
``specs/schema/protocol/`` and are loaded once, on first use, so a process that only *serves*
the protocol (``bpe_conformance.adapters.host``) never pays for importing jsonschema.

>>> encode_message(build_request(3, "encode", text="a\\ud800"))
b'{"id":3,"op":"encode","text":"a\\\\ud800"}\\n'
>>> decode_message(b'{"id":3,"ok":true,"result":[97]}\\n')
{'id': 3, 'ok': True, 'result': [97]}
>>> to_wire([b"ab", float("nan"), 2.0, (1, True, None)])
[{'$unrepresentable': 'bytes', 'repr': "b'ab'"}, {'$unrepresentable': 'float', 'repr': 'nan'}, 2.0, [1, True, None]]
>>> validate_response({"id": 3, "ok": False, "error": {"type": "ValueError"}})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
bpe_conformance.adapters.protocol.ProtocolError: response does not follow protocol 1: 'message' is a required ...
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters.subject import CAPABILITIES, ImplementationInfo, declaration_problem
from bpe_conformance.inputs.unrepresentable import marker
from bpe_conformance.results.implementation import ImplementationRecord
from bpe_conformance.spec.resources import spec_file

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "INPUT_ERROR_TYPES",
    "LOAD_VOCABULARY",
    "MAX_DECLARATION_CHARS",
    "MAX_DEPTH",
    "OPERATIONS",
    "PROTOCOL_VERSION",
    "SCHEMA_DIR",
    "ProtocolError",
    "VersionMismatch",
    "VocabularySupport",
    "build_error",
    "build_request",
    "build_result",
    "decode_message",
    "encode_message",
    "handshake_result",
    "has_split_pair",
    "implementation_info",
    "load_schema",
    "nesting_depth",
    "request_problem",
    "to_wire",
    "validate_request",
    "validate_response",
    "vocabulary_arguments",
    "vocabulary_from_wire",
    "vocabulary_support",
]

PROTOCOL_VERSION = 1
SCHEMA_DIR = spec_file("schema", "protocol")

# The arguments each operation carries, besides "id" and "op".
OPERATIONS: dict[str, tuple[str, ...]] = {
    "handshake": ("protocol",),
    "train": ("documents", "max_merges"),
    "load": ("rules",),
    "encode": ("text",),
    "decode": ("ids",),
    "reset": (),
    "stop": (),
    # Production configuration (section 3.4): the vocabulary an encoder is judged on. An optional
    # operation, declared as the capability "load_vocabulary": implementations without it still speak 1.
    "load_vocabulary": ("pieces", "special_tokens"),
}
LOAD_VOCABULARY = "load_vocabulary"
INPUT_ERROR_TYPES = ("ValueError", "TypeError")
# No message of protocol 1 nests deeper than 4 (a response holding a rule list); a few more are allowed.
MAX_DEPTH = 16
# Handshake strings (name, version, language, profile) name things; they are not documents.
MAX_DECLARATION_CHARS = 200
_SCHEMA_FILES = {name: f"{name}.schema.json" for name in ("request", "response", "handshake")}
_SHOWN_CHARS = 200
_SPLIT_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


@dataclass(frozen=True)
class VocabularySupport:
    """How an implementation gets a released vocabulary (``specs/protocol.md`` 3.4), from its handshake.

    ``loads``: it declared the capability ``load_vocabulary``; ``built_in``: the vocabulary it names in the
    handshake's ``vocabulary`` key (``"cl100k_base"``), or None. An implementation of the first protocol 1
    handshake has neither and is judged by the algorithm checks only.
    """

    loads: bool = False
    built_in: str | None = None


class ProtocolError(ValueError):
    """A line or message that breaks the protocol (not JSON, wrong shape, wrong id...)."""


class VersionMismatch(ProtocolError):
    """The two sides do not speak the same protocol version."""


def _shorten(text: str, limit: int = _SHOWN_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters in all)"


def _unrepresentable(value: object) -> dict[str, str]:
    return marker(value, _shorten(repr(value)))


def has_split_pair(text: str) -> bool:
    """True if a high surrogate code point is directly followed by a low one.

    Python can hold such a string, but in JSON that pair of escapes always means one character
    (U+1F600 for D83D DE00), so no JSON text can carry it.

    >>> high, low = chr(0xD83D), chr(0xDE00)
    >>> has_split_pair(high + low), has_split_pair(chr(0x1F600)), has_split_pair(low + high)
    (True, False, False)
    """
    return _SPLIT_PAIR.search(text) is not None


def to_wire(value: Any) -> Any:
    """``value`` as plain JSON data, kept as faithful as JSON allows.

    Tuples become arrays. What JSON cannot carry (bytes, NaN, sets, other objects, strings with a
    split surrogate pair) becomes an object ``{"$unrepresentable": type, "repr": ...}``: no
    argument of the contract is ever an object, so an implementation rejects it with TypeError,
    as the original is rejected (with TypeError or ValueError) in process.

    >>> to_wire({"k": (1, -0.5)}), to_wire({1: 2})
    ({'k': [1, -0.5]}, {'$unrepresentable': 'dict', 'repr': '{1: 2}'})
    """
    if isinstance(value, str):
        return _unrepresentable(value) if has_split_pair(value) else value
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _unrepresentable(value)
    if isinstance(value, (list, tuple)):
        return [to_wire(item) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: to_wire(item) for key, item in value.items()}
    return _unrepresentable(value)


def build_request(request_id: int, operation: str, **arguments: Any) -> JSONObject:
    """A request message; arguments are sent as-is (converted by :func:`to_wire`), never validated.

    >>> build_request(1, "train", documents=["ab"], max_merges=True)
    {'id': 1, 'op': 'train', 'documents': ['ab'], 'max_merges': True}
    >>> build_request(1, "train", documents=["ab"])
    Traceback (most recent call last):
    ...
    ValueError: a train request carries documents, max_merges; got documents
    """
    expected = OPERATIONS.get(operation)
    if expected is None:
        raise ValueError(f"unknown operation {operation!r}; protocol {PROTOCOL_VERSION} has {', '.join(OPERATIONS)}")
    if set(arguments) != set(expected):
        carried = ", ".join(expected) or "no arguments"
        raise ValueError(f"a {operation} request carries {carried}; got {', '.join(arguments) or 'none'}")
    return {"id": request_id, "op": operation, **{name: to_wire(arguments[name]) for name in expected}}


def build_result(request_id: int, result: Any) -> JSONObject:
    """A success response.

    >>> build_result(2, [(97, 98)])
    {'id': 2, 'ok': True, 'result': [[97, 98]]}
    """
    return {"id": request_id, "ok": True, "result": to_wire(result)}


def build_error(request_id: int | None, kind: str, message: str) -> JSONObject:
    """A structured error response; ``kind`` is e.g. ``"ValueError"`` or ``"NotImplemented"``.

    >>> build_error(None, "ProtocolError", "not JSON")
    {'id': None, 'ok': False, 'error': {'type': 'ProtocolError', 'message': 'not JSON'}}
    """
    return {"id": request_id, "ok": False, "error": {"type": str(kind) or "Internal", "message": str(message)}}


def encode_message(message: JSONObject) -> bytes:
    """One protocol line: compact JSON, ASCII only (lone surrogates as ``\\udXXX`` escapes), ``\\n``-terminated."""
    return json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode("ascii") + b"\n"


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def decode_message(line: bytes) -> Any:
    """The JSON value on one line; :class:`ProtocolError` for non-UTF-8, non-JSON or NaN/Infinity.

    >>> decode_message(b"ready!\\n")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bpe_conformance.adapters.protocol.ProtocolError: line is not JSON (Expecting value: ...): 'ready!\\n'
    """
    shown = _shorten(repr(line[: _SHOWN_CHARS * 2].decode("utf-8", errors="replace")))
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProtocolError(f"line is not UTF-8 ({error.reason} at byte {error.start}): {shown}") from None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ProtocolError(f"line nests arrays or objects deeper than {MAX_DEPTH} levels: {shown}") from None
    except ValueError as error:
        raise ProtocolError(f"line is not JSON ({error}): {shown}") from None
    if nesting_depth(value) > MAX_DEPTH:
        raise ProtocolError(f"line nests arrays or objects deeper than {MAX_DEPTH} levels: {shown}")
    return value


def nesting_depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (0 for a scalar); iterative, linear in its size.

    >>> nesting_depth(5), nesting_depth([[1], {"a": [2]}])
    (0, 3)
    """
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))
    return deepest


def request_problem(message: Any) -> str | None:
    """Why ``message`` is not a request of this protocol, or ``None``; cheap (no jsonschema), for servers.

    >>> request_problem({"id": 1, "op": "encode"})
    'an encode request needs text'
    >>> request_problem({"id": 1, "op": "encode", "text": 5}) is None
    True
    """
    if not isinstance(message, dict):
        return f"a request is a JSON object, not {type(message).__name__}"
    if not isinstance(message.get("id"), int) or isinstance(message.get("id"), bool):
        return "a request needs an integer id"
    operation = message.get("op")
    if operation not in OPERATIONS:
        return f"unknown op {operation!r}"
    missing = [name for name in OPERATIONS[operation] if name not in message]
    if missing:
        article = "an" if operation[0] in "aeiou" else "a"
        return f"{article} {operation} request needs {', '.join(missing)}"
    return None


def vocabulary_arguments(ranks: dict[bytes, int], special_tokens: dict[str, int]) -> JSONObject:
    """The arguments of a ``load_vocabulary`` request: every piece in rank order, base64, and the specials.

    The ranks must run from 0 without a gap (a validated vocabulary's do), so a piece's rank is its index.

    >>> vocabulary_arguments({b"a": 0, b"\\xff": 1}, {"<|endoftext|>": 2})
    {'pieces': ['YQ==', '/w=='], 'special_tokens': {'<|endoftext|>': 2}}
    """
    by_rank = sorted(ranks.items(), key=lambda item: item[1])
    if [rank for _, rank in by_rank] != list(range(len(by_rank))):
        raise ValueError("a vocabulary sent over the protocol has ranks 0, 1, 2, ... without a gap")
    pieces = [base64.b64encode(piece).decode("ascii") for piece, _ in by_rank]
    return {"pieces": pieces, "special_tokens": dict(special_tokens)}


def vocabulary_from_wire(pieces: Any, special_tokens: Any) -> tuple[dict[bytes, int], dict[str, int]]:
    """The ranks and specials a ``load_vocabulary`` request carries; TypeError or ValueError when malformed.

    >>> vocabulary_from_wire(["YQ==", "/w=="], {"<|endoftext|>": 2})
    ({b'a': 0, b'\\xff': 1}, {'<|endoftext|>': 2})
    >>> vocabulary_from_wire(["YQ", "YQ=="], {})
    Traceback (most recent call last):
    ...
    ValueError: piece 0 is not base64 ('YQ'): Incorrect padding
    """
    if not isinstance(pieces, list):
        raise TypeError(f"pieces must be a list of base64 strings, not {type(pieces).__name__}")
    if not isinstance(special_tokens, dict):
        raise TypeError(f"special_tokens must be an object of text to id, not {type(special_tokens).__name__}")
    ranks: dict[bytes, int] = {}
    for rank, text in enumerate(pieces):
        if not isinstance(text, str):
            raise TypeError(f"piece {rank} must be a base64 string, not {type(text).__name__}")
        try:
            piece = base64.b64decode(text.encode("ascii"), validate=True)
        except (UnicodeEncodeError, binascii.Error) as error:
            raise ValueError(f"piece {rank} is not base64 ({_shorten(text, 40)!r}): {error}") from None
        if piece in ranks:
            raise ValueError(f"piece {rank} ({piece!r}) is also piece {ranks[piece]}")
        ranks[piece] = rank
    for text, token_id in special_tokens.items():
        if not isinstance(token_id, int) or isinstance(token_id, bool):
            raise TypeError(f"special token {text!r} must have an integer id, not {type(token_id).__name__}")
    return ranks, dict(special_tokens)


def vocabulary_support(result: JSONObject) -> VocabularySupport:
    """What a valid handshake result says about vocabularies (``load_vocabulary``, ``vocabulary``).

    >>> vocabulary_support({"capabilities": ["encode", "load_vocabulary"], "vocabulary": "cl100k_base"})
    VocabularySupport(loads=True, built_in='cl100k_base')
    >>> vocabulary_support({"capabilities": ["encode"]})
    VocabularySupport(loads=False, built_in=None)
    """
    built_in = result.get("vocabulary")
    return VocabularySupport(
        loads=LOAD_VOCABULARY in result.get("capabilities", ()),
        built_in=built_in if isinstance(built_in, str) else None,
    )


def load_schema(name: str) -> JSONObject:
    """The parsed JSON Schema ``request``, ``response`` or ``handshake``."""
    record: JSONObject = json.loads((SCHEMA_DIR / _SCHEMA_FILES[name]).read_text(encoding="utf-8"))
    return record


@cache
def _validator(name: str) -> Any:
    import jsonschema  # deferred: servers never validate with schemas and should start fast

    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _schema_problem(name: str, message: Any) -> str | None:
    errors = list(_validator(name).iter_errors(message))
    if not errors:
        return None
    import jsonschema

    error = jsonschema.exceptions.best_match(errors)
    place = "/".join(str(part) for part in error.absolute_path)
    return f"{_shorten(error.message)}{f' (at {place})' if place else ''}"


def validate_request(message: Any) -> None:
    """Raise :class:`ProtocolError` unless ``message`` follows ``request.schema.json``.

    >>> validate_request({"id": 1, "op": "encode"})
    Traceback (most recent call last):
    ...
    bpe_conformance.adapters.protocol.ProtocolError: request does not follow protocol 1: 'text' is a required property
    """
    problem = _schema_problem("request", message)
    if problem:
        raise ProtocolError(f"request does not follow protocol {PROTOCOL_VERSION}: {problem}")


def validate_response(message: Any) -> None:
    """Raise :class:`ProtocolError` unless ``message`` follows ``response.schema.json``."""
    problem = _schema_problem("response", message)
    if problem is None and isinstance(message.get("id"), float):
        # JSON Schema counts 2.0 as an integer; the protocol's ids are written as integers.
        problem = f"id {message['id']!r} is not an integer (at id)"
    if problem:
        raise ProtocolError(f"response does not follow protocol {PROTOCOL_VERSION}: {problem}")


def handshake_result(info: ImplementationInfo) -> JSONObject:
    """What a server answers to a handshake for an implementation described by ``info``.

    >>> handshake_result(ImplementationInfo("demo"))["capabilities"]
    ['decode', 'encode', 'train']
    """
    split = {} if info.split is None else {"split": info.split}  # optional: most implementations split nothing
    return {**ImplementationRecord.from_info(info).declarations(), **split, "protocol": PROTOCOL_VERSION}


def _declarations_problem(result: JSONObject) -> str | None:
    for field in ("name", "version", "language", "profile", "split"):
        if field == "split" and result.get("split") is None:
            continue
        problem = declaration_problem(field, result[field], MAX_DECLARATION_CHARS)
        if problem:
            return problem
    if "vocabulary" in result:
        problem = declaration_problem("vocabulary", result["vocabulary"], MAX_DECLARATION_CHARS)
        if problem:
            return problem
    for position, capability in enumerate(result["capabilities"]):
        problem = declaration_problem(f"capabilities[{position}]", capability, MAX_DECLARATION_CHARS)
        if problem:
            return problem
    return None


def implementation_info(result: Any) -> ImplementationInfo:
    """The declarations in a handshake result; :class:`VersionMismatch` or :class:`ProtocolError` if unusable.

    The version is compared first, so an implementation of a later protocol gets a mismatch
    rather than a complaint about fields it does not know.

    >>> implementation_info({"name": "x", "version": "1", "language": "c", "capabilities": ["train"],
    ...                      "profile": "strict", "protocol": 2})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bpe_conformance.adapters.protocol.VersionMismatch: protocol version mismatch: the harness speaks 1, the ...
    """
    version = result.get("protocol") if isinstance(result, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version != PROTOCOL_VERSION:
        raise VersionMismatch(
            f"protocol version mismatch: the harness speaks {PROTOCOL_VERSION}, the implementation {version}"
        )
    problem = _schema_problem("handshake", result) or _declarations_problem(result)
    if problem:
        raise ProtocolError(f"handshake result does not follow protocol {PROTOCOL_VERSION}: {problem}")
    return ImplementationInfo(
        name=result["name"],
        version=result["version"],
        language=result["language"],
        capabilities=frozenset(result["capabilities"]) & CAPABILITIES,
        profile=result["profile"],
        split=result.get("split"),
    )
