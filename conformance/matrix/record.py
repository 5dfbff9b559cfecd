"""``docs/matrix.json``: the matrix as one JSON document, the source of the Markdown and HTML pages.

The document (schema ``specs/schema/matrix.schema.json``) keys implementations by their row label
and checks by name, and holds every cell's outcome under the declared profile and under strict,
what the run said, and for a failure its counterexample and reproduce command. It is kept in the
repository so a later run can be compared with it cell by cell (:mod:`bpe_conformance.matrix.diff`).

>>> from bpe_conformance.matrix.run import MatrixRow, RowResult
>>> row = RowResult(MatrixRow("demo", "pkg.mod:Tok"), "demo", "1.0", "strict", "strict")
>>> row.cells = {check.name: "pass" for check in catalogue()}
>>> document = matrix_document([row], [], seed=0, effort="dev")
>>> validate_matrix(document), document["implementations"][0]["cells"]["tie-break"]["cell"]
([], 'pass')
>>> json.loads(dumps_matrix(document)) == document
True
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import hypothesis
from jsonschema import Draft202012Validator

from bpe_conformance.errors import HarnessError
from bpe_conformance.files import loads_bounded, read_text_file
from bpe_conformance.matrix.production import ProductionRowResult, production_command, production_section
from bpe_conformance.matrix.run import Failure, RowResult, failure_command, reproduce_command
from bpe_conformance.running.suite import catalogue, harness_version
from bpe_conformance.spec.resources import spec_file

if TYPE_CHECKING:
    import os

    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.results.outcomes import CheckResult

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_TEXT_CHARS",
    "SCHEMA_PATH",
    "content_problems",
    "dumps_matrix",
    "generating_command",
    "matrix_document",
    "read_matrix",
    "validate_matrix",
]

FORMAT = "bpe-conformance.matrix"
FORMAT_VERSION = 1
SCHEMA_PATH = spec_file("schema", "matrix.schema.json")
# An implementation's message or answer can be megabytes long; the document keeps the start of each text.
MAX_TEXT_CHARS = 2000
_SURROGATE = re.compile("[\ud800-\udfff]")


def _capped(value: Any) -> Any:
    """``value`` as plain JSON, every text cut at :data:`MAX_TEXT_CHARS` (saying how much was cut)."""
    if isinstance(value, str):
        extra = len(value) - MAX_TEXT_CHARS
        return value if extra <= 0 else f"{value[:MAX_TEXT_CHARS]}... ({extra} characters cut)"
    if isinstance(value, dict):
        return {str(key): _capped(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_capped(item) for item in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return _capped(repr(value))


def _checks() -> list[dict[str, str]]:
    return [
        {"name": check.name, "clause": check.clause, "level": check.level, "summary": check.summary}
        for check in catalogue()
    ]


def _outcomes(cell: str, failure: Failure | None) -> tuple[str, str]:
    """The two runs' outcomes when only the cell is known (a row built without its results)."""
    failed = failure.outcome if failure is not None else "fail"
    return {"pass": ("pass", "pass"), "dialect": ("pass", "fail"), "skip": ("skip", "skip")}.get(cell, (failed, failed))


def _strict_record(row: RowResult, check: dict[str, str], strict: CheckResult | None, seed: int) -> JSONObject:
    rerun = Failure(row.row.label, row.row.spec, "strict", check["name"], check["clause"], "fail", "", None)
    record: JSONObject = {
        "clause": strict.clause if strict is not None else check["clause"],
        "message": _capped(strict.message) if strict is not None else "",
        "reproduce": failure_command(rerun, seed),
    }
    if strict is not None and strict.counterexample:
        record["counterexample"] = _capped(strict.counterexample)
    return record


def _cell(row: RowResult, check: dict[str, str], seed: int) -> JSONObject:
    name, cell = check["name"], row.cells[check["name"]]
    failure = next((item for item in row.failures if item.check == name), None)
    declared = row.results.get("declared", {}).get(name)
    strict = row.results.get("strict", {}).get(name)
    outcome, strict_outcome = _outcomes(cell, failure)
    record: JSONObject = {
        "cell": cell,
        "outcome": declared.outcome.value if declared is not None else outcome,
        "strict_outcome": strict.outcome.value if strict is not None else strict_outcome,
        "clause": declared.clause if declared is not None else (failure.clause if failure else check["clause"]),
        "message": _capped(declared.message if declared is not None else (failure.message if failure else "")),
    }
    example = declared.counterexample if declared is not None else (failure.counterexample if failure else None)
    if cell == "fail" and example:
        record["counterexample"] = _capped(example)
    if cell == "fail":
        shown = failure or Failure(row.row.label, row.row.spec, row.profile, name, record["clause"], "fail", "", None)
        record["reproduce"] = failure_command(shown, seed)
    if cell == "dialect":
        record["strict"] = _strict_record(row, check, strict, seed)
    return record


def _implementation(row: RowResult, checks: list[dict[str, str]], seed: int) -> JSONObject:
    return {
        "label": row.row.label,
        "spec": row.row.spec,
        "name": _capped(row.name),
        "version": _capped(row.version),
        "language": _capped(row.language),
        "profile": row.profile,
        "identified": row.identified,
        "cells": {check["name"]: _cell(row, check, seed) for check in checks if check["name"] in row.cells},
    }


def matrix_document(
    results: list[RowResult],
    missing: list[str],
    seed: int,
    effort: str,
    production: tuple[list[ProductionRowResult], list[str]] | None = None,
) -> JSONObject:
    """The matrix of ``results`` (and the rows whose library is ``missing``) as the JSON-ready document.

    ``production``, when given, is the production matrix's rows run and rows not run
    (:func:`bpe_conformance.matrix.production.run_production_matrix`): the document's ``production`` object.
    """
    checks = _checks()
    document = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "generated_by": {
            "command": generating_command(seed, production=bool(production)),
            "harness_version": harness_version(),
            "hypothesis_version": hypothesis.__version__,
        },
        "seed": seed,
        "effort": effort,
        "checks": checks,
        "implementations": [_implementation(row, checks, seed) for row in results],
        "not_installed": list(missing),
    }
    if production is not None:
        document["production"] = production_section(*production, seed, _capped)
    return document


def validate_matrix(document: Any) -> list[str]:
    """Schema errors of a matrix document, each ``/path: message``; empty when valid."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    errors = sorted(Draft202012Validator(schema).iter_errors(document), key=lambda error: list(map(str, error.path)))
    return [f"/{'/'.join(map(str, error.path))}: {error.message}" for error in errors]


def dumps_matrix(document: JSONObject) -> str:
    """The document as UTF-8-safe JSON text: readable non-ASCII, lone surrogates escaped (as ``\\udc80``)."""
    text = json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def read_matrix(path: str | os.PathLike[str], what: str = "--diff") -> JSONObject:
    """The matrix document in the file ``path``; a HarnessError naming ``what`` and the problem otherwise."""
    text = read_text_file(path, what)
    try:
        document = loads_bounded(text, f"{what} {str(path)!r}")
    except json.JSONDecodeError as error:
        raise HarnessError(f"{what} {str(path)!r} is not JSON: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise HarnessError(f'{what} {str(path)!r} is not a matrix document (no "format": "{FORMAT}")')
    if document.get("version") != FORMAT_VERSION:
        raise HarnessError(
            f"{what} {str(path)!r} has matrix format version {document.get('version')!r}; "
            f"this bpe-conformance reads version {FORMAT_VERSION}"
        )
    problems = validate_matrix(document)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise HarnessError(f"{what} {str(path)!r} does not match specs/schema/matrix.schema.json: {problems[0]}{more}")
    problems = content_problems(document)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise HarnessError(f"{what} {str(path)!r} is not a consistent matrix document: {problems[0]}{more}")
    _rebuild_commands(document)
    return document


def content_problems(document: JSONObject) -> list[str]:
    """What the schema cannot say about a (schema-valid) document: every row has one cell per check, no other.

    The renderers index every row's cells by every check: a crafted document missing one ended in a
    KeyError.
    """
    names = [check["name"] for check in document["checks"]]
    problems = [f"check {name!r} is listed twice" for name in sorted({n for n in names if names.count(n) > 1})]
    for row in document["implementations"]:
        cells = set(row["cells"])
        problems += [f"row {row['label']!r} has no cell for check {name!r}" for name in names if name not in cells]
        problems += [
            f"row {row['label']!r} has a cell for unknown check {name!r}" for name in sorted(cells - set(names))
        ]
    production = document.get("production")
    if production is not None:
        known = {check["name"] for check in production["checks"]}
        labels = [row["label"] for row in production["rows"]]
        problems += [
            f"production row {label!r} is listed twice" for label in sorted({x for x in labels if labels.count(x) > 1})
        ]
        for row in production["rows"]:
            problems += [
                f"production row {row['label']!r} has a cell for unknown check {name!r}"
                for name in sorted(set(row["cells"]) - known)
            ]
    return problems


def generating_command(seed: int, *, production: bool) -> str:
    """The command that makes a matrix document with this seed (and a production table, when it has one).

    >>> generating_command(0, production=True)
    'bpe-conformance matrix --seed 0 --production VOCABULARIES'
    """
    return f"bpe-conformance matrix --seed {int(seed)}" + (" --production VOCABULARIES" if production else "")


def _rebuild_commands(document: JSONObject) -> None:
    """Every cell's ``reproduce`` rebuilt from the document's fields, never taken from the file.

    A crafted document could otherwise show ``bpe-conformance run x; rm -rf ~`` as the command to copy;
    the command that generated it (shown by the page) is rebuilt from its seed the same way.
    """
    seed = document["seed"]
    if isinstance(document.get("generated_by"), dict):
        document["generated_by"]["command"] = generating_command(seed, production="production" in document)
    for row in document["implementations"]:
        for name, cell in row.get("cells", {}).items():
            if not isinstance(cell, dict):
                continue
            if "reproduce" in cell:
                cell["reproduce"] = reproduce_command(row["spec"], row["profile"], name, seed)
            strict = cell.get("strict")
            if isinstance(strict, dict) and "reproduce" in strict:
                strict["reproduce"] = reproduce_command(row["spec"], "strict", name, seed)
    for row in document.get("production", {}).get("rows", []):
        for name, cell in row["cells"].items():
            if "reproduce" in cell:
                cell["reproduce"] = production_command(row["spec"], row["vocabulary"]["name"], name, seed)
