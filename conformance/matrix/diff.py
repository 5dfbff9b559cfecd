"""Which cells changed between two matrix documents: new library versions, new rows, new checks.

Implementations are matched by row label and checks by name. A cell that changed is reported with
both library versions, so "hf-tokenizers 0.23.3 -> 0.24.0: tie-break dialect -> fail" reads as what
the upgrade did; a version that changed with no cell changing is reported too.

>>> def doc(version, cell):
...     cells = {"tie-break": {"cell": cell}}
...     return {"checks": [{"name": "tie-break", "clause": "BPE-TRAIN-TIE", "level": "algorithm"}],
...             "implementations": [{"label": "hf", "version": version, "profile": "hf-tokenizers", "cells": cells}]}
>>> print(format_diff(diff_matrices(doc("0.23.3", "dialect"), doc("0.24.0", "fail"))))
hf 0.23.3 -> 0.24.0: 1 cell changed
  tie-break [BPE-TRAIN-TIE, algorithm] dialect -> fail
1 cell changed; 0 implementations added, 0 removed
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["CellChange", "MatrixDiff", "RowChange", "diff_matrices", "format_diff"]


@dataclass(frozen=True)
class CellChange:
    """One check whose cell differs: ``old`` or ``new`` is None where the check was not in that run."""

    check: str
    clause: str
    level: str
    old: str | None
    new: str | None


@dataclass
class RowChange:
    """An implementation in both runs whose version, declared profile or cells differ."""

    label: str
    old_version: str
    new_version: str
    old_profile: str
    new_profile: str
    cells: list[CellChange] = field(default_factory=list)


@dataclass
class MatrixDiff:
    """Everything that differs between an old and a new matrix document."""

    changed: list[RowChange] = field(default_factory=list)
    added: list[JSONObject] = field(default_factory=list)
    removed: list[JSONObject] = field(default_factory=list)

    @property
    def cell_count(self) -> int:
        """How many cells changed in the implementations both runs have."""
        return sum(len(row.cells) for row in self.changed)


def _cell(row: JSONObject, check: str) -> str | None:
    record = row["cells"].get(check)
    return None if record is None else str(record["cell"])


def _row_change(old: JSONObject, new: JSONObject, checks: list[dict[str, str]]) -> RowChange | None:
    cells = [
        CellChange(check["name"], check["clause"], check["level"], _cell(old, check["name"]), _cell(new, check["name"]))
        for check in checks
        if _cell(old, check["name"]) != _cell(new, check["name"])
    ]
    versions = (old["version"], new["version"], old["profile"], new["profile"])
    if not cells and versions[0] == versions[1] and versions[2] == versions[3]:
        return None
    return RowChange(old["label"], *versions, cells)


def _all_checks(old: JSONObject, new: JSONObject) -> list[dict[str, str]]:
    """The new run's checks in its order, then the checks only the old run had."""
    known = {check["name"] for check in new["checks"]}
    return [*new["checks"], *(check for check in old["checks"] if check["name"] not in known)]


def diff_matrices(old: JSONObject, new: JSONObject) -> MatrixDiff:
    """What changed from ``old`` to ``new`` (two matrix documents), row by row in the new run's order."""
    checks = _all_checks(old, new)
    old_rows = {row["label"]: row for row in old["implementations"]}
    new_labels = {row["label"] for row in new["implementations"]}
    diff = MatrixDiff()
    for row in new["implementations"]:
        if row["label"] not in old_rows:
            diff.added.append(row)
            continue
        change = _row_change(old_rows[row["label"]], row, checks)
        if change is not None:
            diff.changed.append(change)
    diff.removed = [row for row in old["implementations"] if row["label"] not in new_labels]
    return diff


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _tally(row: JSONObject) -> str:
    failing = sum(1 for record in row["cells"].values() if record["cell"] == "fail")
    return f"{_plural(failing, 'fail cell')} of {len(row['cells'])}"


def format_diff(diff: MatrixDiff) -> str:
    """The diff for people: one paragraph per implementation that changed, then a one-line summary."""
    lines = []
    for row in diff.changed:
        version = row.new_version if row.old_version == row.new_version else f"{row.old_version} -> {row.new_version}"
        profile = "" if row.old_profile == row.new_profile else f", profile {row.old_profile} -> {row.new_profile}"
        lines.append(f"{row.label} {version}{profile}: {_plural(len(row.cells), 'cell')} changed")
        for cell in row.cells:
            old, new = cell.old or "(not run)", cell.new or "(not run)"
            lines.append(f"  {cell.check} [{cell.clause}, {cell.level}] {old} -> {new}")
    lines += [f"added: {row['label']} {row['version']} ({_tally(row)})" for row in diff.added]
    lines += [f"removed: {row['label']} {row['version']}" for row in diff.removed]
    lines.append(
        f"{_plural(diff.cell_count, 'cell')} changed; "
        f"{_plural(len(diff.added), 'implementation')} added, {len(diff.removed)} removed"
    )
    return "\n".join(lines)
