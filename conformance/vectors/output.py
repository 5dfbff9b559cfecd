"""The vector files as text: rendered byte for byte, written for every profile, and checked to be current.

``bpe-conformance vectors generate`` writes what :func:`bpe_conformance.vectors.generate.generate_vectors`
computes, for strict in ``specs/vectors/`` and for every other profile in ``specs/vectors/<profile>/``;
``bpe-conformance vectors check`` proves the committed files are exactly that, byte for byte.

>>> print(render_file("invalid.json", []), end="")
{
  "description": "Rejected calls: the operation, its arguments, and the error family preferred (either family passes).",
  "format": "bpe-conformance.vectors",
  "kind": "invalid",
  "profile": "strict",
  "vectors": [],
  "version": 1
}
>>> check_up_to_date(profiles=["tiktoken"])
[]
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_conformance.reference.profiles import STRICT
from bpe_conformance.vectors.files import FILES, VECTOR_PROFILES, VECTORS_DIR, profile_directory, profile_files
from bpe_conformance.vectors.generate import generate_vectors

if TYPE_CHECKING:
    from collections.abc import Iterable

    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["FORMAT", "FORMAT_VERSION", "check_up_to_date", "render_file", "write_vectors"]

FORMAT = "bpe-conformance.vectors"
FORMAT_VERSION = 1
_FILE_DESCRIPTIONS = {
    "train": "Training runs: documents and max_merges in; rules, final sequences, digest and encodings out.",
    "load": "Valid rule lists adopted through load (some no training could make); encodings and decodings out.",
    "invalid": "Rejected calls: the operation, its arguments, and the error family preferred (either family passes).",
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


def render_file(name: str, vectors: list[JSONObject], profile: str = STRICT.name) -> str:
    """The exact text of one vector file of ``profile``."""
    kind = FILES[name]
    description = _FILE_DESCRIPTIONS[kind]
    if profile != STRICT.name:  # the digest exists in strict's numbering only
        description = description.replace("sequences, digest and encodings", "sequences and encodings")
    document = {
        "description": description,
        "format": FORMAT,
        "kind": kind,
        "profile": profile,
        "vectors": vectors,
        "version": FORMAT_VERSION,
    }
    text = _json(document) + "\n"
    if json.loads(text) != document:
        raise RuntimeError(f"{profile}/{name} does not read back as written")
    return text


def _chosen(profiles: Iterable[str] | None) -> list[str]:
    return list(VECTOR_PROFILES if profiles is None else profiles)


@functools.cache
def _generated(profile: str) -> dict[str, tuple[list[JSONObject], bytes]]:
    """Each file of ``profile``: its vectors and its exact bytes. Generation is a pure function of the code and the
    corpora, so one process computes it once (``vectors check`` after ``generate``, the tests)."""
    return {
        name: (vectors, render_file(name, vectors, profile).encode("utf-8"))
        for name, vectors in generate_vectors(profile).items()
    }


def write_vectors(directory: str | Path | None = None, profiles: Iterable[str] | None = None) -> list[Path]:
    """Regenerate the files of ``profiles`` (default: every profile) under the vectors folder ``directory``."""
    written = []
    for profile in _chosen(profiles):
        target = profile_directory(profile, directory)
        target.mkdir(parents=True, exist_ok=True)
        for name, (_, text) in _generated(profile).items():
            (target / name).write_bytes(text)
            written.append(target / name)
    return written


def _difference(stored: bytes, vectors: list[JSONObject]) -> str:
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


def _label(profile: str, name: str) -> str:
    return name if profile == STRICT.name else f"{profile}/{name}"


def _strays(root: Path, profiles: list[str]) -> list[str]:
    """Files and folders under ``root`` that belong to no profile's vectors."""
    found = [f"{path.name}: not a vector file" for path in sorted(root.glob("*.json")) if path.name not in FILES]
    for folder in sorted(path for path in root.iterdir() if path.is_dir() and not path.name.startswith(("_", "."))):
        if folder.name not in VECTOR_PROFILES:
            found.append(f"{folder.name}/: not the folder of a profile; expected one of {list(VECTOR_PROFILES)[1:]}")
        elif folder.name in profiles:
            expected = profile_files(folder.name)
            found += [
                f"{folder.name}/{path.name}: not a vector file"
                for path in sorted(folder.glob("*.json"))
                if path.name not in expected
            ]
    return found


def check_up_to_date(directory: str | Path | None = None, profiles: Iterable[str] | None = None) -> list[str]:
    """How the files under ``directory`` differ from a fresh generation, byte for byte; empty when identical."""
    chosen = _chosen(profiles)
    differences = []
    for profile in chosen:
        source = profile_directory(profile, directory)
        for name, (vectors, text) in _generated(profile).items():
            path = source / name
            if not path.is_file():
                differences.append(f"{_label(profile, name)}: missing")
            elif path.read_bytes() != text:
                differences.append(f"{_label(profile, name)}: {_difference(path.read_bytes(), vectors)}")
    root = Path(directory or VECTORS_DIR)
    return differences + (_strays(root, chosen) if root.is_dir() else [])
