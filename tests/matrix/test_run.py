"""The conformance matrix: cells, the rendered document, and the committed docs/matrix.md."""

from __future__ import annotations

import re

from bpe_conformance.checks.base import LEVELS
from bpe_conformance.dialects.identify import identify
from bpe_conformance.matrix.render import parse_failures, render_matrix
from bpe_conformance.matrix.run import (
    CELLS,
    ROWS,
    Failure,
    MatrixRow,
    RowResult,
    cell,
    failure_command,
    identified_text,
    run_matrix,
)
from bpe_conformance.reference.profiles import STRICT
from bpe_conformance.running.suite import catalogue
from tests import ROOT
from tests.dialects.test_identify import OverlappingMergeTokenizer
from tests.support.combined_dialects import FirstSeenMinOne

MATRIX = ROOT / "docs" / "matrix.md"


def test_cells_follow_both_runs() -> None:
    assert cell("pass", "pass") == "pass"
    assert cell("pass", "skip") == "pass"
    assert cell("pass", "fail") == cell("pass", "error") == "dialect"
    assert cell("fail", "pass") == cell("crash", "crash") == cell("error", "fail") == "fail"
    assert cell("skip", "fail") == "skip"


def test_failure_commands_quote_command_lines() -> None:
    failure = Failure("x", "pkg.mod:Cls", "minbpe", "tie-break", "BPE-TRAIN-TIE", "fail", "", None)
    expected = "bpe-conformance run --impl pkg.mod:Cls --profile minbpe --check tie-break --seed 7"
    assert failure_command(failure, 7) == expected


def _row_result(label: str, failing: str | None) -> RowResult:
    row = MatrixRow(label, f"pkg.{label}:Cls")
    result = RowResult(row, label, "1.0", "strict", "strict")
    result.cells = {check.name: "pass" for check in catalogue()}
    if failing is not None:
        result.cells[failing] = "fail"
        result.failures.append(
            Failure(
                label, row.spec, "strict", failing, "BPE-TRAIN-TIE", "fail", "ties\nbroken", {"inputs": {"t": "\udc80"}}
            )
        )
    return result


def test_rendered_failures_parse_back_and_lone_surrogates_survive() -> None:
    text = render_matrix([_row_result("one", "tie-break"), _row_result("two", None)], ["three: skipped"], 5, "dev")
    assert parse_failures(text) == {("one", "tie-break", "BPE-TRAIN-TIE", "strict", 5)}
    assert "\\udc80" in text
    assert "* three: skipped" in text
    assert "--check tie-break --seed 5" in text
    text.encode("utf-8")  # writable as UTF-8


def test_a_missing_library_is_a_line_not_an_error() -> None:
    lines: list[str] = []
    results, missing = run_matrix(0, rows=[MatrixRow("ghost", "ghost:Tok", "no_such_library_here")], say=lines.append)
    assert results == []
    assert missing == lines
    assert "ghost: skipped, no_such_library_here is not installed" in lines[0]


def test_the_reference_row_passes_everything() -> None:
    results, _ = run_matrix(0, rows=[ROWS[0]], say=lambda line: None)
    (reference,) = results
    # Every check passes but those strict itself makes inapplicable (pre-tokenization-split: no split).
    skipped = {check.name for check in catalogue() if check.inapplicable(STRICT) is not None}
    assert skipped == {"pre-tokenization-split"}
    assert {name for name, cell in reference.cells.items() if cell != "pass"} == skipped
    assert {reference.cells[name] for name in skipped} == {"skip"}
    assert reference.identified == "strict"


def test_rows_include_the_reference_the_node_fixture_and_every_adapter() -> None:
    labels = [row.label for row in ROWS]
    assert labels[:2] == ["reference", "node-fixture"]
    assert len(labels) >= 7


def test_the_committed_matrix_is_consistent() -> None:
    """Every `fail` cell has a row in the failure table (and a reproduce command), and nothing else does."""
    text = MATRIX.read_text(encoding="utf-8")
    table = [line for line in text.split("## Failures")[0].splitlines() if line.startswith("| ")]
    labels = [label.strip() for label in table[0].strip("|").split("|")][2:]
    failing = set()
    checks = {check.name: check for check in catalogue()}
    rows = [line for line in table[5:] if not line.startswith("| **")]
    tallies = [line for line in table[5:] if line.startswith("| **")]
    for line in rows:
        name, clause, *shown = [part.strip() for part in line.strip("|").split("|")]
        # A fail whose failure names another clause than the row's says which: "fail (BPE-TRAIN-TIE)".
        other = [re.fullmatch(r"fail \((BPE-[A-Z0-9-]+)\)", value) for value in shown]
        assert all(match.group(1) != clause for match in other if match is not None), line
        cells = ["fail" if match is not None else value for match, value in zip(other, shown, strict=True)]
        assert checks[name].clause == clause, line
        assert set(cells) <= set(CELLS), line
        failing |= {(label, name) for label, value in zip(labels, cells, strict=True) if value == "fail"}
    # The two levels apart: every algorithm check, then every interface check, each under its tally row.
    by_level = [name for level in LEVELS for name, check in checks.items() if check.level == level]
    assert [line.split("|")[1].strip() for line in rows] == by_level
    assert [line.split("|")[1].strip() for line in tallies] == [f"**{level} level**" for level in LEVELS]
    for level, line in zip(LEVELS, tallies, strict=True):
        counts = [part.strip().strip("*") for part in line.strip("|").split("|")][2:]
        assert counts == [
            f"{sum(1 for cell_label, name in failing if cell_label == label and checks[name].level == level)} fail"
            for label in labels
        ]
    listed = parse_failures(text)
    assert {(impl, check) for impl, check, *_ in listed} == failing
    for impl, check, _, profile, seed in listed:
        assert re.search(rf"--profile {profile} --check {check} --seed {seed}`", text), (impl, check)


def test_the_identified_cell_names_the_custom_profile_or_why_none_fits() -> None:
    """Issue 25: a library that combines documented choices is named by them; "none" says what fits no value."""
    assert identified_text(identify(FirstSeenMinOne)) == "strict+tie_break=first-seen+min_count=1"
    counting_bug = identified_text(identify(OverlappingMergeTokenizer))
    assert counting_bug.startswith("none (")
    assert "answers no parameter explains" in counting_bug
