"""docs/matrix.json: the document the pages are rendered from, its schema, reading it back, and the diff."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from jsonschema import Draft202012Validator

from bpe_conformance.errors import HarnessError
from bpe_conformance.matrix.diff import diff_matrices, format_diff
from bpe_conformance.matrix.page import render_page
from bpe_conformance.matrix.record import (
    MAX_TEXT_CHARS,
    SCHEMA_PATH,
    dumps_matrix,
    matrix_document,
    read_matrix,
    validate_matrix,
)
from bpe_conformance.matrix.render import render_markdown, render_matrix
from bpe_conformance.running.suite import catalogue
from tests import ROOT
from tests.matrix.fabricated import HOSTILE, TIE_DIVERGENCE, fabricated_document, fabricated_rows

if TYPE_CHECKING:
    from pathlib import Path

DOCS = ROOT / "docs"


def test_the_schema_is_valid_and_the_fabricated_document_follows_it() -> None:
    Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    assert validate_matrix(fabricated_document()) == []


def test_every_cell_keeps_both_runs_and_what_a_failure_needs_to_be_reproduced() -> None:
    document = fabricated_document()
    assert [check["name"] for check in document["checks"]] == [check.name for check in catalogue()]
    rows = {row["label"]: row for row in document["implementations"]}
    assert set(rows) == {"strict-one", "dialect-two", "encoder-three"}
    dialect = rows["dialect-two"]
    assert (dialect["version"], dialect["profile"]) == ("2.0.1", "largest-pair")
    tie = dialect["cells"]["tie-break"]
    assert (tie["cell"], tie["outcome"], tie["strict_outcome"]) == ("dialect", "pass", "fail")
    assert tie["strict"]["counterexample"]["divergence"]["diagnosis"] == "tie broken the other way"
    assert tie["strict"]["reproduce"].endswith("--profile strict --check tie-break --seed 3")
    crash = dialect["cells"]["decode-strict"]
    assert (crash["cell"], crash["outcome"]) == ("fail", "crash")
    assert crash["counterexample"] == {"inputs": {"ids": [97, -1]}}
    assert (
        crash["reproduce"] == "bpe-conformance run --impl pkg.dialect_two:Tok --profile largest-pair "
        "--check decode-strict --seed 3"
    )
    skipped = rows["encoder-three"]["cells"]["stop-rule"]
    assert (skipped["cell"], skipped["message"]) == ("skip", "capability not declared: train")
    assert "reproduce" not in skipped
    assert "strict" not in skipped
    assert document["not_installed"] == ["ghost: skipped, ghostlib is not installed"]


def test_a_row_built_without_its_results_still_makes_a_valid_document() -> None:
    """The Markdown renderer's callers may hold only cells and failures; the document fills in what it can."""
    row = fabricated_rows()[1]
    row.results = {}
    (implementation,) = matrix_document([row], [], 0, "dev")["implementations"]
    assert implementation["cells"]["decode-strict"]["outcome"] == "crash"
    assert implementation["cells"]["tie-break"]["strict"]["message"] == ""
    assert validate_matrix(matrix_document([row], [], 0, "dev")) == []


def test_long_texts_are_cut_and_lone_surrogates_survive_as_escapes() -> None:
    rows = fabricated_rows(tie_cell="fail")
    rows[1].results["declared"]["tie-break"] = (
        rows[1]
        .results["declared"]["tie-break"]
        .__class__(**{**rows[1].results["declared"]["tie-break"].__dict__, "message": "x" * (MAX_TEXT_CHARS + 7)})
    )
    document = matrix_document(rows, [], 0, "dev")
    message = document["implementations"][1]["cells"]["tie-break"]["message"]
    assert message.endswith("... (7 characters cut)")
    assert len(message) < MAX_TEXT_CHARS + 40
    text = dumps_matrix(fabricated_document(tie_cell="fail"))
    text.encode("utf-8")
    assert "\\udc80" in text
    assert json.loads(text) == fabricated_document(tie_cell="fail")


def test_the_markdown_is_rendered_from_the_document() -> None:
    rows = fabricated_rows(tie_cell="fail")
    assert render_matrix(rows, [], 3, "dev") == render_markdown(matrix_document(rows, [], 3, "dev"))


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("not json", "is not JSON"),
        ('{"format": "something-else"}', "is not a matrix document"),
        ('{"format": "bpe-conformance.matrix", "version": 9}', "has matrix format version 9"),
        ('{"format": "bpe-conformance.matrix", "version": 1}', "does not match specs/schema/matrix.schema.json"),
    ],
)
def test_reading_a_bad_document_is_one_line_naming_the_file(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "old.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(HarnessError) as caught:
        read_matrix(path, "--diff")
    message = str(caught.value)
    assert message.startswith(f"--diff {str(path)!r} ")
    assert problem in message
    assert "\n" not in message
    with pytest.raises(HarnessError, match="cannot read --from"):
        read_matrix(tmp_path / "missing.json", "--from")


def test_a_document_reads_back_as_written(tmp_path: Path) -> None:
    path = tmp_path / "matrix.json"
    path.write_text(dumps_matrix(fabricated_document()), encoding="utf-8")
    assert read_matrix(path) == fabricated_document()


# --- the committed files ------------------------------------------------------------------------------------------


def test_the_committed_matrix_files_are_one_document_rendered_three_ways() -> None:
    """docs/matrix.md and docs/matrix.html are exactly what docs/matrix.json renders to (one command wrote them)."""
    document = read_matrix(DOCS / "matrix.json", "docs/matrix.json")
    assert (DOCS / "matrix.json").read_text(encoding="utf-8") == dumps_matrix(document)
    assert (DOCS / "matrix.md").read_text(encoding="utf-8") == render_markdown(document)
    assert (DOCS / "matrix.html").read_text(encoding="utf-8") == render_page(document)
    assert [check["name"] for check in document["checks"]] == [check.name for check in catalogue()]


# --- the diff ------------------------------------------------------------------------------------------------------


def test_the_diff_names_each_changed_cell_with_both_versions() -> None:
    old, new = fabricated_document(), fabricated_document(dialect_version="2.1.0", tie_cell="fail")
    diff = diff_matrices(old, new)
    assert diff.cell_count == 1
    assert not diff.added
    assert not diff.removed
    (row,) = diff.changed
    assert (row.label, row.old_version, row.new_version) == ("dialect-two", "2.0.1", "2.1.0")
    (cell,) = row.cells
    assert (cell.check, cell.clause, cell.level, cell.old, cell.new) == (
        "tie-break",
        "BPE-TRAIN-TIE",
        "algorithm",
        "dialect",
        "fail",
    )
    text = format_diff(diff)
    assert "dialect-two 2.0.1 -> 2.1.0: 1 cell changed" in text
    assert "tie-break [BPE-TRAIN-TIE, algorithm] dialect -> fail" in text
    assert text.splitlines()[-1] == "1 cell changed; 0 implementations added, 0 removed"


def test_the_diff_reports_new_and_removed_rows_new_checks_and_version_only_changes() -> None:
    old, new = fabricated_document(), fabricated_document(dialect_version="2.0.2")
    new["implementations"][1]["cells"]["brand-new-check"] = {**new["implementations"][1]["cells"]["tie-break"]}
    new["checks"].append({"name": "brand-new-check", "clause": "BPE-TRAIN-TIE", "level": "algorithm", "summary": ""})
    added = json.loads(json.dumps(new["implementations"][0]))
    added.update(label="fresh-four", version="0.1")
    new["implementations"].append(added)
    removed = new["implementations"].pop(2)
    diff = diff_matrices(old, new)
    assert [row["label"] for row in diff.added] == ["fresh-four"]
    assert [row["label"] for row in diff.removed] == [removed["label"]]
    (row,) = diff.changed
    assert [(cell.check, cell.old, cell.new) for cell in row.cells] == [("brand-new-check", None, "dialect")]
    text = format_diff(diff)
    assert "brand-new-check [BPE-TRAIN-TIE, algorithm] (not run) -> dialect" in text
    assert f"added: fresh-four 0.1 (0 fail cells of {len(catalogue())})" in text
    assert f"removed: {removed['label']} {removed['version']}" in text
    version_only = diff_matrices(old, fabricated_document(dialect_version="9"))
    assert format_diff(version_only).splitlines()[0] == "dialect-two 2.0.1 -> 9: 0 cells changed"
    assert format_diff(diff_matrices(old, old)) == "0 cells changed; 0 implementations added, 0 removed"


def test_hostile_text_is_in_the_document_as_it_was_said() -> None:
    cell = fabricated_document(tie_cell="fail")["implementations"][1]["cells"]["tie-break"]
    assert HOSTILE in cell["message"]
    assert cell["counterexample"] == TIE_DIVERGENCE
