"""Known-answer vectors: generated from the reference, stored as JSON, validated and replayed.

``specs/vectors/`` holds three files, described field by field in ``specs/schema/vectors.schema.json``:
``training.json`` (documents in; rules, sequences, digest and encodings of held-out texts out),
``load.json`` (a valid rule list adopted through ``load``, then encodings and decodings) and
``invalid.json`` (a rejected call and the error kind it must raise). ``bpe-conformance vectors check``
proves the files are exactly what :func:`generate_vectors` produces.

>>> from reference import Tokenizer
>>> files = load_vectors()
>>> sorted(files)
['invalid.json', 'load.json', 'training.json']
>>> vector = files["training.json"][0]
>>> vector["documents"], vector["rules"], vector["encodings"][0]["ids"]
(['abab', 'acac'], [[97, 98], [97, 99]], [258, 259])
>>> replay_vector(Tokenizer, vector)
[]
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from conformance import corpora
from reference import (
    Tokenizer,
    build_pieces,
    check_rules,
    decode,
    decode_bytes,
    digest,
    dumps,
    encode,
    encode_document,
    encode_lowest_rank_first,
    replace_pair,
    rule_id,
    tied_pairs,
    training_rounds,
    vocab_size,
)

__all__ = [
    "CLAUSE_IDS",
    "FILES",
    "NOT_IN_VECTORS",
    "SCHEMA_PATH",
    "VECTORS_DIR",
    "Mismatch",
    "check_up_to_date",
    "covered_clauses",
    "format_mismatch",
    "generate_vectors",
    "load_schema",
    "load_vectors",
    "read_vector_files",
    "render_file",
    "replay_all",
    "replay_vector",
    "validate_vectors",
    "vector_id",
    "vector_inputs",
    "write_vectors",
]

_ROOT = Path(__file__).resolve().parent.parent
VECTORS_DIR = _ROOT / "specs" / "vectors"
SCHEMA_PATH = _ROOT / "specs" / "schema" / "vectors.schema.json"
FORMAT = "bpe-conformance.vectors"
FORMAT_VERSION = 1
FILES = {"training.json": "train", "load.json": "load", "invalid.json": "invalid"}
_FILE_DESCRIPTIONS = {
    "train": "Training runs: documents and max_merges in; rules, final sequences, digest and encodings out.",
    "load": "Valid rule lists adopted through load (some no training could make); encodings and decodings out.",
    "invalid": "Rejected calls: the operation, its arguments, and the error kind it must raise.",
}
# The schema's enumeration is the one list of clause ids this module knows.
CLAUSE_IDS: tuple[str, ...] = tuple(json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))["$defs"]["clause"]["enum"])
# A fixed answer cannot show that a second run (another process, another hash seed) gives it again.
NOT_IN_VECTORS = frozenset({"BPE-PROP-DETERMINISM"})


@dataclass(frozen=True)
class Mismatch:
    """One disagreement with a vector (or, when ``skipped``, a check the object could not take part in)."""

    vector_id: str
    clauses: tuple[str, ...]
    operation: str
    input: Any
    expected: Any
    actual: Any
    skipped: bool = False


def vector_id(kind: str, inputs: Mapping[str, Any]) -> str:
    """``kind-`` and the first 16 hex digits of SHA-256 over the canonical JSON of the inputs."""
    canonical = json.dumps(inputs, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return f"{kind}-{hashlib.sha256(canonical.encode('ascii')).hexdigest()[:16]}"


def vector_inputs(kind: str, vector: Mapping[str, Any]) -> dict[str, Any]:
    """What a vector gives the implementation, never what it expects back: the id is derived from this."""
    if kind == "train":
        texts = [encoding["text"] for encoding in vector["encodings"]]
        return {"documents": vector["documents"], "max_merges": vector["max_merges"], "texts": texts}
    if kind == "load":
        return {
            "byte_decodings": [item["ids"] for item in vector["byte_decodings"]],
            "decodings": [item["ids"] for item in vector["decodings"]],
            "rules": vector["rules"],
            "texts": [encoding["text"] for encoding in vector["encodings"]],
        }
    setup = vector["setup"]
    return {
        "arguments": vector["arguments"],
        "operation": vector["operation"],
        "probe": vector["probe"]["text"],
        "setup": {"documents": setup["documents"], "max_merges": setup["max_merges"]},
    }


def _kind(vector: Mapping[str, Any]) -> str:
    return str(vector["id"]).split("-", 1)[0]


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise RuntimeError(f"the reference disagrees with itself while generating vectors: {message}")


def _encoding(text: str, rules: list[tuple[int, int]]) -> dict[str, Any]:
    ids = encode(text, rules)
    _require(ids == encode_lowest_rank_first(text, rules) and decode(ids, rules) == text, f"encoding {text!r}")
    return {"document_ids": encode_document(text, rules), "ids": ids, "text": text}


def _byte_kind(byte: int) -> str:
    if byte >= 128 or chr(byte).isalnum():
        return "word"
    return "space" if chr(byte).isspace() else "punctuation"


def _rules_fired(text: str, rules: list[tuple[int, int]]) -> int:
    sequence, fired = list(text.encode("utf-8")), 0
    for rank, pair in enumerate(rules):
        merged = replace_pair(sequence, pair, rule_id(rank))
        fired, sequence = fired + (merged != sequence), merged
    return fired


def _encoding_clauses(encodings: list[dict[str, Any]], rules: list[tuple[int, int]]) -> set[str]:
    """Clauses the encodings exercise, read off the ids rather than declared."""
    clauses = {"BPE-ENCODE-BOUNDARY", "BPE-ALPHA-BOUNDARY", "BPE-DECODE-CONCAT", "BPE-ROUNDTRIP"}
    pieces = build_pieces(rules)
    ids = [token for encoding in encodings for token in encoding["ids"]]
    if any(token < 256 for token in ids):
        clauses.add("BPE-ALPHA-BYTES")
    if any(len({_byte_kind(byte) for byte in pieces[token]}) > 1 for token in ids):  # a pre-tokenizer splits these
        clauses.add("BPE-ENCODE-RAW")
    if any(_rules_fired(encoding["text"], rules) >= 2 for encoding in encodings):
        clauses.update({"BPE-ENCODE-ORDER", "BPE-ENCODE-LOWEST"})
    return clauses


def _rule_clauses(rules: list[tuple[int, int]]) -> set[str]:
    clauses = {"BPE-VOCAB-SIZE", "BPE-SER-DIGEST"} | ({"BPE-RULE-ID"} if rules else set())
    if any(part >= 258 for rule in rules for part in rule):
        clauses.update({"BPE-RULE-REF", "BPE-RULE-PIECE"})
    for piece in build_pieces(rules)[258:]:
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            clauses.add("BPE-RULE-PIECE")
    return clauses


def _has_other_split(rules: list[tuple[int, int]]) -> bool:
    """True when some rule's piece could also be built from two other pieces: a duplicate a buggy trainer makes."""
    pieces = build_pieces(rules)
    known = set(pieces)
    for first, second in rules:
        piece = pieces[first] + pieces[second]
        splits = {(piece[:cut], piece[cut:]) for cut in range(1, len(piece))}
        if any(left in known and right in known for left, right in splits - {(pieces[first], pieces[second])}):
            return True
    return False


def _training_clauses(case: corpora.TrainingCase, rounds: list[Any]) -> set[str]:
    clauses = {"BPE-TRAIN-INPUT", "BPE-TRAIN-STOP", "BPE-ENCODE-PURE"}
    clauses |= {"BPE-TRAIN-DOCS"} if len(case.documents) > 1 else set()
    clauses |= {"BPE-TRAIN-MAXMERGES"} if len(rounds) == case.max_merges else set()
    clauses |= {"BPE-TRAIN-RECOUNT"} if len(rounds) > 1 else set()
    clauses |= {"BPE-PROP-UNIQUE"} if _has_other_split([step.pair for step in rounds]) else set()
    for step in rounds:
        replacements = sum(map(len, step.sequences_before)) - sum(map(len, step.sequences_after))
        clauses |= {"BPE-TRAIN-GREEDY"} if len(set(step.counts.values())) > 1 else set()
        clauses |= {"BPE-TRAIN-TIE"} if len(tied_pairs(step.counts)) > 1 else set()
        clauses |= {"BPE-TRAIN-COUNT", "BPE-MERGE-SCAN", "BPE-MERGE-NOREMATCH"} if step.count > replacements else set()
    return clauses


def _training_vector(case: corpora.TrainingCase) -> dict[str, Any]:
    rounds = list(training_rounds(list(case.documents), case.max_merges))
    rules = [step.pair for step in rounds]
    sequences = rounds[-1].sequences_after if rounds else [list(text.encode("utf-8")) for text in case.documents]
    _require(
        all(encode(text, rules) == seq for text, seq in zip(case.documents, sequences, strict=True)), case.description
    )
    encodings = [_encoding(text, rules) for text in case.texts]
    clauses = set(case.clauses) | _training_clauses(case, rounds) | _rule_clauses(rules)
    vector = {
        "clauses": sorted(clauses | _encoding_clauses(encodings, rules)),
        "description": case.description,
        "digest": digest(rules),
        "documents": list(case.documents),
        "encodings": encodings,
        "max_merges": case.max_merges,
        "rule_counts": [step.count for step in rounds],
        "rules": [list(pair) for pair in rules],
        "sequences": sequences,
        "vocab_size": vocab_size(rules),
    }
    return {"id": vector_id("train", vector_inputs("train", vector)), **vector}


def _decodings(encodings: list[dict[str, Any]], rules: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """Non-canonical id lists that still decode: raw bytes, boundaries in the middle, every rule in order."""
    first: dict[str, Any] = next((encoding for encoding in encodings if encoding["text"]), {"text": "", "ids": []})
    candidates = [
        list(first["text"].encode("utf-8")),
        [256, *first["ids"], 257, 256, 257],
        [256, 257],
        list(range(258, 258 + len(rules))),
    ]
    decodings = []
    for ids in candidates:
        try:
            decodings.append({"ids": ids, "text": decode(ids, rules)})
        except ValueError:  # not valid UTF-8 on its own: byte_decodings covers it
            continue
    return [item for index, item in enumerate(decodings) if item not in decodings[:index]]


def _load_vector(case: corpora.LoadCase) -> dict[str, Any]:
    rules = check_rules(list(case.rules))
    encodings = [_encoding(text, rules) for text in case.texts]
    partial_character = list("低".encode())[:2]
    byte_ids = [[token] for token in range(258, min(258 + len(rules), 264))] + [partial_character]
    clauses = {"BPE-INPUT-RULES", "BPE-SER-JSON", "BPE-SER-LOAD", "BPE-DECODE-BYTES", *case.clauses}
    vector = {
        "byte_decodings": [{"hex": decode_bytes(ids, rules).hex(), "ids": ids} for ids in byte_ids],
        "clauses": sorted(clauses | _rule_clauses(rules) | _encoding_clauses(encodings, rules)),
        "decodings": _decodings(encodings, rules),
        "description": case.description,
        "digest": digest(rules),
        "encodings": encodings,
        "rules": [list(pair) for pair in rules],
        "serialized": dumps(rules),
        "vocab_size": vocab_size(rules),
    }
    return {"id": vector_id("load", vector_inputs("load", vector)), **vector}


def _invalid_vector(case: corpora.InvalidCase) -> dict[str, Any]:
    documents, max_merges = case.setup
    tokenizer = Tokenizer()
    rules = tokenizer.train(list(documents), max_merges)
    try:
        _invoke(tokenizer, case.operation, case.arguments)
        raised = "nothing"
    except (TypeError, ValueError) as error:
        raised = type(error).__name__
    _require(raised == case.error and tokenizer.rules == rules, f"{case.description}: raised {raised}")
    vector = {
        "arguments": copy.deepcopy(case.arguments),
        "clauses": sorted(set(case.clauses)),
        "description": case.description,
        "error": case.error,
        "operation": case.operation,
        "probe": {"ids": encode(case.probe, rules), "text": case.probe},
        "setup": {"documents": list(documents), "max_merges": max_merges, "rules": [list(pair) for pair in rules]},
    }
    return {"id": vector_id("invalid", vector_inputs("invalid", vector)), **vector}


def _first_of_each_id(vectors: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    unique: dict[str, dict[str, Any]] = {}
    for vector in vectors:
        unique.setdefault(vector["id"], vector)
    return list(unique.values())


def generate_vectors() -> dict[str, list[dict[str, Any]]]:
    """Every vector, per file name, computed from the reference; cases with equal inputs appear once."""
    training = corpora.worked_example_cases() + corpora.generated_training_cases()
    return {
        "training.json": _first_of_each_id(_training_vector(case) for case in training),
        "load.json": _first_of_each_id(_load_vector(case) for case in corpora.load_cases()),
        "invalid.json": _first_of_each_id(_invalid_vector(case) for case in corpora.invalid_cases()),
    }


# Escaped in the files so reviewers can see them: surrogates (required), combining marks, invisible formatting.
_ESCAPED = re.compile("[\ud800-\udfff\u00ad\u0300-\u036f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufe00-\ufe0f\ufeff]")


def _scalar(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return _ESCAPED.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _json(value: Any, depth: int = 0) -> str:
    """Sorted keys, two-space indent, lists of plain values on one line."""
    newline = "\n" + "  " * (depth + 1)
    if isinstance(value, dict) and value:
        items = [f"{_scalar(key)}: {_json(value[key], depth + 1)}" for key in sorted(value)]
        return "{" + newline + ("," + newline).join(items) + "\n" + "  " * depth + "}"
    if isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
        items = [_json(item, depth + 1) for item in value]
        return "[" + newline + ("," + newline).join(items) + "\n" + "  " * depth + "]"
    return _scalar(value)


def render_file(name: str, vectors: list[dict[str, Any]]) -> str:
    """The exact text of one vector file."""
    kind = FILES[name]
    document = {
        "description": _FILE_DESCRIPTIONS[kind],
        "format": FORMAT,
        "kind": kind,
        "profile": "strict",
        "vectors": vectors,
        "version": FORMAT_VERSION,
    }
    text = _json(document) + "\n"
    _require(json.loads(text) == document, f"{name} does not read back as written")
    return text


def write_vectors(directory: str | Path | None = None) -> list[Path]:
    """Regenerate every vector file in ``directory`` (default ``specs/vectors``)."""
    target = Path(directory or VECTORS_DIR)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, vectors in generate_vectors().items():
        (target / name).write_bytes(render_file(name, vectors).encode("utf-8"))
        written.append(target / name)
    return written


def read_vector_files(directory: str | Path | None = None) -> dict[str, Any]:
    """The parsed JSON of every vector file, by file name."""
    source = Path(directory or VECTORS_DIR)
    return {name: json.loads((source / name).read_text(encoding="utf-8")) for name in FILES}


def load_schema() -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of a vector file."""
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def validate_vectors(documents: Mapping[str, Any]) -> list[str]:
    """Schema errors, wrong kinds, duplicate ids and ids not derived from their inputs; empty when valid."""
    validator = Draft202012Validator(load_schema())
    problems, seen = [], set()
    for name, document in documents.items():
        if name not in FILES:
            problems.append(f"{name}: not a vector file name; expected one of {sorted(FILES)}")
            continue
        errors = sorted(validator.iter_errors(document), key=lambda error: [str(part) for part in error.path])
        problems += [f"{name}: /{'/'.join(map(str, error.path))}: {error.message}" for error in errors]
        if errors:
            continue
        if document["kind"] != FILES[name]:
            problems.append(f"{name}: kind is {document['kind']!r}, expected {FILES[name]!r}")
        for vector in document["vectors"]:
            expected_id = vector_id(_kind(vector), vector_inputs(_kind(vector), vector))
            if vector["id"] in seen or vector["id"] != expected_id:
                problems.append(f"{name}: {vector['id']} is duplicated or not derived from its inputs ({expected_id})")
            seen.add(vector["id"])
    return problems


def load_vectors(directory: str | Path | None = None, validate: bool = True) -> dict[str, list[dict[str, Any]]]:
    """The vectors of every file, by file name; a ValueError listing the problems if they do not validate."""
    documents = read_vector_files(directory)
    problems = validate_vectors(documents) if validate else []
    if problems:
        raise ValueError("vector files do not validate:\n" + "\n".join(problems))
    return {name: document["vectors"] for name, document in documents.items()}


def _difference(stored: bytes, vectors: list[dict[str, Any]]) -> str:
    try:
        stored_by_id = {vector["id"]: vector for vector in json.loads(stored)["vectors"]}
    except (ValueError, KeyError, TypeError):
        return "not a readable vector file"
    expected_by_id = {vector["id"]: vector for vector in vectors}
    groups = {
        "missing": sorted(expected_by_id.keys() - stored_by_id.keys()),
        "unexpected": sorted(stored_by_id.keys() - expected_by_id.keys()),
        "changed": sorted(
            key for key in expected_by_id.keys() & stored_by_id.keys() if expected_by_id[key] != stored_by_id[key]
        ),
    }
    parts = [
        f"{len(ids)} {label} ({', '.join(ids[:5])}{', ...' if len(ids) > 5 else ''})"
        for label, ids in groups.items()
        if ids
    ]
    return "; ".join(parts) or "same vectors, different bytes (header, order or formatting)"


def check_up_to_date(directory: str | Path | None = None) -> list[str]:
    """How the files in ``directory`` differ from a fresh generation, byte for byte; empty when identical."""
    source = Path(directory or VECTORS_DIR)
    differences = []
    for name, vectors in generate_vectors().items():
        path = source / name
        if not path.is_file():
            differences.append(f"{name}: missing")
        elif path.read_bytes() != render_file(name, vectors).encode("utf-8"):
            differences.append(f"{name}: {_difference(path.read_bytes(), vectors)}")
    differences += [
        f"{path.name}: not a vector file" for path in sorted(source.glob("*.json")) if path.name not in FILES
    ]
    return differences


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr)


def _plain(value: Any) -> Any:
    return [_plain(item) for item in value] if isinstance(value, (list, tuple)) else value


def _raised(error: BaseException) -> str:
    return f"raised {type(error).__name__}: {error}"


@dataclass
class _Replay:
    """The vector being replayed and what was found so far."""

    vector: Mapping[str, Any]
    found: list[Mismatch] = field(default_factory=list)


def _record(replay: _Replay, operation: str, given: Any, expected: Any, actual: Any, skipped: bool = False) -> None:
    vector = replay.vector
    replay.found.append(Mismatch(vector["id"], tuple(vector["clauses"]), operation, given, expected, actual, skipped))


def _expect(replay: _Replay, operation: str, given: Any, expected: Any, call: Callable[..., Any], *args: Any) -> bool:
    """Record a mismatch unless ``call(*args)`` returns ``expected``; False when it raised."""
    try:
        actual = _plain(call(*args))
    except Exception as error:  # whatever the implementation raises is its answer
        _record(replay, operation, given, expected, _raised(error))
        return False
    if _canonical(actual) != _canonical(expected):
        _record(replay, operation, given, expected, actual)
    return True


def _attempt(replay: _Replay, operation: str, given: Any, call: Callable[..., Any], *args: Any) -> bool:
    try:
        call(*args)
    except Exception as error:  # a valid input must be accepted
        _record(replay, operation, given, "no error", _raised(error))
        return False
    return True


def _optional(replay: _Replay, instance: Any, name: str) -> Any:
    """The method or attribute ``name``, or None after recording (once per vector) that it was skipped."""
    if hasattr(instance, name):
        return getattr(instance, name)
    if not any(item.skipped and item.operation == name for item in replay.found):
        _record(replay, name, {}, f"an implementation with {name}", "absent", skipped=True)
    return None


def _value(instance: Any, name: str) -> Any:
    value = getattr(instance, name)
    return value() if callable(value) else value


def _hex(decode_to_bytes: Callable[[list[int]], bytes], ids: list[int]) -> str:
    return bytes(decode_to_bytes(list(ids))).hex()


def _expect_model(replay: _Replay, instance: Any) -> None:
    for name in ("vocab_size", "digest"):
        if _optional(replay, instance, name) is not None:
            _expect(replay, name, {}, replay.vector[name], _value, instance, name)


def _expect_encodings(replay: _Replay, instance: Any, operation: str = "encode") -> None:
    encode_whole = _optional(replay, instance, "encode_document")
    for encoding in replay.vector["encodings"]:
        text, ids, document_ids = encoding["text"], encoding["ids"], encoding["document_ids"]
        _expect(replay, operation, {"text": text}, ids, instance.encode, text)
        if encode_whole is not None:
            _expect(replay, "encode_document", {"text": text}, document_ids, encode_whole, text)
        for given in (ids, document_ids):
            _expect(replay, "decode", {"ids": given}, text, instance.decode, list(given))


def _replay_training(factory: Callable[[], Any], replay: _Replay) -> None:
    instance, vector = factory(), replay.vector
    given = {"documents": vector["documents"], "max_merges": vector["max_merges"]}
    if not _expect(
        replay, "train", given, vector["rules"], instance.train, list(vector["documents"]), vector["max_merges"]
    ):
        return
    _expect_model(replay, instance)
    _expect_encodings(replay, instance)
    # After the held-out texts: encoding must not have changed the model, and training ends where encode does.
    for document, sequence in zip(vector["documents"], vector["sequences"], strict=True):
        _expect(replay, "encode", {"text": document}, sequence, instance.encode, document)


def _replay_load(factory: Callable[[], Any], replay: _Replay) -> None:
    instance, vector = factory(), replay.vector
    load = _optional(replay, instance, "load")
    if load is None or not _attempt(
        replay, "load", {"rules": vector["rules"]}, load, list(map(tuple, vector["rules"]))
    ):
        return
    _expect_model(replay, instance)
    if _optional(replay, instance, "dumps") is not None:
        _expect(replay, "dumps", {}, vector["serialized"], instance.dumps)
    _expect_encodings(replay, instance)
    for item in vector["decodings"]:
        _expect(replay, "decode", {"ids": item["ids"]}, item["text"], instance.decode, list(item["ids"]))
    decode_to_bytes = _optional(replay, instance, "decode_bytes")
    for item in vector["byte_decodings"] if decode_to_bytes is not None else []:
        _expect(replay, "decode_bytes", {"ids": item["ids"]}, item["hex"], _hex, decode_to_bytes, item["ids"])
    fresh = factory()  # the canonical file alone must carry the model
    if _optional(replay, fresh, "loads") is not None and _attempt(
        replay, "loads", {"text": vector["serialized"]}, fresh.loads, vector["serialized"]
    ):
        _expect_encodings(replay, fresh, "encode after loads")


def _invoke(instance: Any, operation: str, arguments: Mapping[str, Any]) -> Any:
    given = copy.deepcopy(dict(arguments))
    if operation == "train":
        return instance.train(given["documents"], given["max_merges"])
    if operation == "encode":
        return instance.encode(given["text"])
    if operation == "decode":
        return instance.decode(given["ids"])
    if operation == "load":  # JSON has no tuples; a well-formed rule is passed as the contract's tuple
        rules = given["rules"]
        return instance.load(
            [tuple(rule) if isinstance(rule, list) else rule for rule in rules] if isinstance(rules, list) else rules
        )
    raise ValueError(f"unknown vector operation {operation!r}")


def _is_kind(error: BaseException, kind: str) -> bool:
    """A subclass counts (UnicodeEncodeError is a ValueError); so does a harness error carrying ``kind``."""
    return any(cls.__name__ == kind for cls in type(error).__mro__) or getattr(error, "kind", None) == kind


def _set_up(replay: _Replay, instance: Any) -> bool:
    """Adopt the setup rules: through load when there is one, else by training (which must give the same rules)."""
    setup = replay.vector["setup"]
    if hasattr(instance, "load"):
        return _attempt(
            replay, "setup: load", {"rules": setup["rules"]}, instance.load, list(map(tuple, setup["rules"]))
        )
    given = {"documents": setup["documents"], "max_merges": setup["max_merges"]}
    return _expect(
        replay, "setup: train", given, setup["rules"], instance.train, list(setup["documents"]), setup["max_merges"]
    )


def _replay_invalid(factory: Callable[[], Any], replay: _Replay) -> None:
    instance, vector = factory(), replay.vector
    operation, arguments, error_kind = vector["operation"], vector["arguments"], vector["error"]
    if not _set_up(replay, instance) or (operation == "load" and _optional(replay, instance, "load") is None):
        return
    try:
        returned = _invoke(instance, operation, arguments)
    except Exception as error:  # the rejection under test
        if not _is_kind(error, error_kind):
            _record(replay, operation, arguments, error_kind, _raised(error))
        elif not str(error).strip():
            _record(replay, operation, arguments, "a message naming what was wrong", "no message")
    else:
        _record(replay, operation, arguments, error_kind, f"returned {_plain(returned)!r}")
    probe = vector["probe"]
    _expect(
        replay,
        f"encode after rejected {operation}",
        {"text": probe["text"]},
        probe["ids"],
        instance.encode,
        probe["text"],
    )


_REPLAYERS = {"train": _replay_training, "load": _replay_load, "invalid": _replay_invalid}


def replay_vector(factory: Callable[[], Any], vector: Mapping[str, Any]) -> list[Mismatch]:
    """Run one vector against ``factory()`` (a fresh object with the plug-in contract); [] when it agrees."""
    replay = _Replay(vector)
    _REPLAYERS[_kind(vector)](factory, replay)
    return replay.found


def replay_all(factory: Callable[[], Any], files: Mapping[str, list[dict[str, Any]]] | None = None) -> list[Mismatch]:
    """Every vector of every file (default: the committed ones), mismatches and skips in file order."""
    chosen = load_vectors() if files is None else files
    return [item for name in sorted(chosen) for vector in chosen[name] for item in replay_vector(factory, vector)]


def covered_clauses(files: Mapping[str, list[dict[str, Any]]]) -> set[str]:
    """Every clause id named by at least one vector."""
    return {clause for vectors in files.values() for vector in vectors for clause in vector["clauses"]}


def _short(value: Any, limit: int = 80) -> str:
    text = _canonical(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def format_mismatch(item: Mismatch) -> str:
    """One line: vector, clauses, operation and input, then expected against actual."""
    head = f"{item.vector_id} [{', '.join(item.clauses)}] {item.operation} {_short(item.input)}"
    if item.skipped:
        return f"{head}: skipped ({item.expected} needed)"
    return f"{head}: expected {_short(item.expected)}, got {_short(item.actual)}"
