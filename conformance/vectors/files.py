"""The vector files: where they live, how a vector's id is derived, and reading and validating them.

``specs/vectors/`` holds the strict profile's files, one per kind of vector (:data:`FILES`), and
``specs/vectors/<profile>/`` the same files for every other profile of :mod:`bpe_conformance.reference.profiles`
(an encode-only profile has no ``training.json``), each described field by field in
``specs/schema/vectors.schema.json``. A vector's id is its kind and a hash of its inputs, so a file
edited by hand, or a vector copied under another id, no longer validates; ids are unique within
one profile's files (the same inputs under two profiles keep one id).

>>> files = load_vectors()
>>> sorted(files) == sorted(FILES)
True
>>> vector = files["load.json"][0]
>>> vector_kind(vector), vector["id"] == vector_id("load", vector_inputs("load", vector))
('load', True)
>>> sorted(load_vectors(profile="tiktoken"))  # encode-only: nothing to train
['invalid.json', 'load.json']
>>> profile_directory("minbpe").relative_to(VECTORS_DIR).as_posix()
'minbpe'
>>> validate_vectors({"extra.json": {}})
["extra.json: not a vector file name; expected one of ['invalid.json', 'load.json', 'training.json']"]
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator

from bpe_conformance.reference.profiles import PROFILES, STRICT, Profile, get_profile
from bpe_conformance.spec.resources import spec_file

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "CLAUSE_IDS",
    "FILES",
    "NOT_IN_VECTORS",
    "SCHEMA_PATH",
    "VECTORS_DIR",
    "VECTOR_PROFILES",
    "covered_clauses",
    "held_out_problems",
    "load_schema",
    "load_vectors",
    "profile_directory",
    "profile_files",
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
# Determinism needs two calls; BPE-TRAIN-PIECE bounds wrong answers, which no known answer shows. The
# production clauses judge an encoder bound to a released vocabulary (run --vocabulary): a vector would need the
# vocabulary beside it, and their checks (checks/production.py) compute the expected ids from the file given.
PRODUCTION_CLAUSES = frozenset(
    {"BPE-VOCAB-RANKS", "BPE-PRETOK-SPLIT", "BPE-PRETOK-RANK", "BPE-SPECIAL-ORDINARY", "BPE-SPECIAL-DECODE"}
)
NOT_IN_VECTORS = frozenset({"BPE-PROP-DETERMINISM", "BPE-TRAIN-PIECE"}) | PRODUCTION_CLAUSES
# Every profile has vectors; strict's are the top-level files, the others' live in a folder named after them.
VECTOR_PROFILES: tuple[str, ...] = tuple(PROFILES)


def profile_files(profile: Profile | str) -> dict[str, str]:
    """The vector files of ``profile``, file name to kind: an encode-only profile has no training vectors.

    >>> sorted(profile_files("strict")), sorted(profile_files("tiktoken"))
    (['invalid.json', 'load.json', 'training.json'], ['invalid.json', 'load.json'])
    """
    chosen = get_profile(profile) if isinstance(profile, str) else profile
    return {name: kind for name, kind in FILES.items() if kind != "train" or chosen.tie_break is not None}


def profile_directory(profile: str, root: str | Path | None = None) -> Path:
    """Where ``profile``'s files are under the vectors folder ``root``: the folder itself for strict."""
    base = Path(root or VECTORS_DIR)
    return base if profile == STRICT.name else base / profile


def vector_id(kind: str, inputs: Mapping[str, Any]) -> str:
    """``kind-`` and the first 16 hex digits of SHA-256 over the canonical JSON of the inputs."""
    canonical = json.dumps(inputs, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return f"{kind}-{hashlib.sha256(canonical.encode('ascii')).hexdigest()[:16]}"


def vector_inputs(kind: str, vector: Mapping[str, Any]) -> JSONObject:
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


def read_vector_files(directory: str | Path | None = None, profile: str = STRICT.name) -> JSONObject:
    """The parsed JSON of every vector file of ``profile``, by file name (``directory``: the vectors folder)."""
    source = profile_directory(profile, directory)
    return {name: json.loads((source / name).read_text(encoding="utf-8")) for name in profile_files(profile)}


def load_schema() -> JSONObject:
    """The JSON Schema (Draft 2020-12) of a vector file."""
    schema: JSONObject = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def held_out_problems(vector: Mapping[str, Any]) -> list[str]:
    """The encoded texts of a training vector that are also among its training documents (the schema forbids it).

    >>> held_out_problems({"id": "train-x", "documents": ["ab"], "encodings": [{"text": "ab"}, {"text": "b"}]})
    ["train-x: held-out text 'ab' is one of the training documents"]
    """
    if vector_kind(vector) != "train":
        return []
    documents = set(vector["documents"])
    return [
        f"{vector['id']}: held-out text {encoding['text']!r} is one of the training documents"
        for encoding in vector["encodings"]
        if encoding["text"] in documents
    ]


def validate_vectors(documents: Mapping[str, Any], profile: str = STRICT.name) -> list[str]:
    """Schema errors, wrong kinds or profile, duplicate ids, ids not derived from their inputs, and held-out
    texts that are training documents; empty when valid. ``documents`` are one profile's files by name."""
    validator = Draft202012Validator(load_schema())
    expected_files = profile_files(profile)
    problems, seen = [], set()
    for name, document in documents.items():
        if name not in expected_files:
            problems.append(f"{name}: not a vector file name; expected one of {sorted(expected_files)}")
            continue
        errors = sorted(validator.iter_errors(document), key=lambda error: [str(part) for part in error.path])
        problems += [f"{name}: /{'/'.join(map(str, error.path))}: {error.message}" for error in errors]
        if errors:
            continue
        if document["kind"] != expected_files[name]:
            problems.append(f"{name}: kind is {document['kind']!r}, expected {expected_files[name]!r}")
        if document["profile"] != profile:
            problems.append(f"{name}: profile is {document['profile']!r}, expected {profile!r}")
        for vector in document["vectors"]:
            expected_id = vector_id(vector_kind(vector), vector_inputs(vector_kind(vector), vector))
            if vector["id"] in seen or vector["id"] != expected_id:
                problems.append(f"{name}: {vector['id']} is duplicated or not derived from its inputs ({expected_id})")
            seen.add(vector["id"])
            problems += [f"{name}: {problem}" for problem in held_out_problems(vector)]
    return problems


def load_vectors(
    directory: str | Path | None = None, validate: bool = True, profile: str = STRICT.name
) -> dict[str, list[JSONObject]]:
    """The vectors of every file of ``profile``, by file name; a ValueError listing the problems if they do not
    validate. ``directory`` is the vectors folder (default ``specs/vectors``), not the profile's own."""
    documents = read_vector_files(directory, profile)
    problems = validate_vectors(documents, profile) if validate else []
    if problems:
        raise ValueError(f"vector files of profile {profile} do not validate:\n" + "\n".join(problems))
    return {name: document["vectors"] for name, document in documents.items()}


def covered_clauses(files: Mapping[str, list[JSONObject]]) -> set[str]:
    """Every clause id named by at least one vector."""
    return {clause for vectors in files.values() for vector in vectors for clause in vector["clauses"]}
