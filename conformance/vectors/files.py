"""The vector files: where they live, how a vector's id is derived, and reading and validating them.

``specs/vectors/`` holds one file per kind of vector (:data:`FILES`), each described field by field in
``specs/schema/vectors.schema.json``. A vector's id is its kind and a hash of its inputs, so a file
edited by hand, or a vector copied under another id, no longer validates.

>>> files = load_vectors()
>>> sorted(files) == sorted(FILES)
True
>>> vector = files["load.json"][0]
>>> vector_kind(vector), vector["id"] == vector_id("load", vector_inputs("load", vector))
('load', True)
>>> validate_vectors({"extra.json": {}})
["extra.json: not a vector file name; expected one of ['invalid.json', 'load.json', 'training.json']"]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from conformance.spec.resources import spec_file

__all__ = [
    "CLAUSE_IDS",
    "FILES",
    "NOT_IN_VECTORS",
    "SCHEMA_PATH",
    "VECTORS_DIR",
    "covered_clauses",
    "load_schema",
    "load_vectors",
    "read_vector_files",
    "validate_vectors",
    "vector_id",
    "vector_inputs",
    "vector_kind",
]

VECTORS_DIR = spec_file("vectors")
SCHEMA_PATH = spec_file("schema", "vectors.schema.json")
FILES = {"training.json": "train", "load.json": "load", "invalid.json": "invalid"}
# The schema's enumeration is the one list of clause ids this module knows.
CLAUSE_IDS: tuple[str, ...] = tuple(json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))["$defs"]["clause"]["enum"])
# A fixed answer cannot show that a second run (another process, another hash seed) gives it again.
# Determinism needs two calls; BPE-TRAIN-PIECE bounds wrong answers, which no known answer shows.
NOT_IN_VECTORS = frozenset({"BPE-PROP-DETERMINISM", "BPE-TRAIN-PIECE"})


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


def vector_kind(vector: Mapping[str, Any]) -> str:
    """``train``, ``load`` or ``invalid``: the prefix of the vector's id."""
    return str(vector["id"]).split("-", 1)[0]


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
            expected_id = vector_id(vector_kind(vector), vector_inputs(vector_kind(vector), vector))
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


def covered_clauses(files: Mapping[str, list[dict[str, Any]]]) -> set[str]:
    """Every clause id named by at least one vector."""
    return {clause for vectors in files.values() for vector in vectors for clause in vector["clauses"]}
