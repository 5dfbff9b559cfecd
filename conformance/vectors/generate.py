"""Known-answer vectors: generated from the reference, written byte for byte, and checked to be current.

``specs/vectors/`` holds three files, described field by field in ``specs/schema/vectors.schema.json``:
``training.json`` (documents in; rules, sequences, digest and encodings of held-out texts out),
``load.json`` (a valid rule list adopted through ``load``, then encodings and decodings) and
``invalid.json`` (a rejected call and the error family preferred for it). ``bpe-conformance vectors check``
proves the files are exactly what :func:`generate_vectors` produces. Reading and validating the files
is :mod:`conformance.vectors.files`, replaying them :mod:`conformance.vectors.replay`; every name in
``__all__`` is importable from here.

>>> from reference import Tokenizer
>>> files = load_vectors()
>>> sorted(files)
['invalid.json', 'load.json', 'training.json']
>>> vector = files["training.json"][0]
>>> vector["documents"], vector["rules"], vector["encodings"][0]["ids"]
(['abab', 'acac'], [[97, 98], [97, 99]], [258, 259])
>>> replay_vector(Tokenizer, vector)
[]
>>> print(render_file("invalid.json", []), end="")
{
  "description": "Rejected calls: the operation, its arguments, and the error family preferred (either family passes).",
  "format": "bpe-conformance.vectors",
  "kind": "invalid",
  "profile": "strict",
  "vectors": [],
  "version": 1
}
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conformance.inputs.corpora import training as corpora
from conformance.inputs.predicates import character_class
from conformance.vectors.files import (
    CLAUSE_IDS,
    FILES,
    NOT_IN_VECTORS,
    SCHEMA_PATH,
    VECTORS_DIR,
    covered_clauses,
    load_schema,
    load_vectors,
    read_vector_files,
    validate_vectors,
    vector_id,
    vector_inputs,
)
from conformance.vectors.replay import Mismatch, call_operation, format_mismatch, replay_all, replay_vector
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

FORMAT = "bpe-conformance.vectors"
FORMAT_VERSION = 1
_FILE_DESCRIPTIONS = {
    "train": "Training runs: documents and max_merges in; rules, final sequences, digest and encodings out.",
    "load": "Valid rule lists adopted through load (some no training could make); encodings and decodings out.",
    "invalid": "Rejected calls: the operation, its arguments, and the error family preferred (either family passes).",
}


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise RuntimeError(f"the reference disagrees with itself while generating vectors: {message}")


def _encoding(text: str, rules: list[tuple[int, int]]) -> dict[str, Any]:
    ids = encode(text, rules)
    _require(ids == encode_lowest_rank_first(text, rules) and decode(ids, rules) == text, f"encoding {text!r}")
    return {"document_ids": encode_document(text, rules), "ids": ids, "text": text}


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
    if any(len({character_class(byte) for byte in pieces[token]}) > 1 for token in ids):  # a pre-tokenizer splits these
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
        "level": "algorithm",
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
        "level": "algorithm",
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
        call_operation(tokenizer, case.operation, case.arguments)
        raised = "nothing"
    except (TypeError, ValueError) as error:
        raised = type(error).__name__
    _require(raised == case.error and tokenizer.rules == rules, f"{case.description}: raised {raised}")
    vector = {
        "arguments": copy.deepcopy(case.arguments),
        "clauses": sorted(set(case.clauses)),
        "level": "interface",
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
