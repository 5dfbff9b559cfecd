"""``bpe-conformance matrix``: one run writes the Markdown, the page and the JSON; --from renders; --diff compares.

The implementations are not run here (``run_matrix`` is replaced by the fabricated matrix); the real run
is docs/matrix.*, checked by test_record.py and test_page.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from bpe_conformance.cli.commands import matrix as matrix_command
from bpe_conformance.cli.main import main
from bpe_conformance.matrix.page import render_page
from bpe_conformance.matrix.record import dumps_matrix, read_matrix
from bpe_conformance.matrix.render import render_markdown
from tests.matrix.fabricated import fabricated_document, fabricated_rows

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def fabricated_run(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """``run_matrix`` answering the fabricated rows, with the seed it was given recorded."""
    seeds: list[int] = []

    def run_matrix(seed: int, effort: str, say: Any, limits: Any) -> tuple[list[Any], list[str]]:
        seeds.append(seed)
        say("fabricated: running")
        return fabricated_rows(), ["ghost: skipped, ghostlib is not installed"]

    monkeypatch.setattr(matrix_command, "run_matrix", run_matrix)
    return seeds


def _paths(tmp_path: Path) -> list[str]:
    return ["--output", str(tmp_path / "m.md"), "--html", str(tmp_path / "m.html"), "--json", str(tmp_path / "m.json")]


def test_one_run_writes_the_three_files_from_one_document(
    fabricated_run: list[int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["matrix", "--seed", "3", *_paths(tmp_path)]) == 0
    assert fabricated_run == [3]
    document = read_matrix(tmp_path / "m.json")
    assert document == fabricated_document()
    assert (tmp_path / "m.md").read_text(encoding="utf-8") == render_markdown(document)
    assert (tmp_path / "m.html").read_text(encoding="utf-8") == render_page(document)
    output = capsys.readouterr()
    assert "3 implementations, 1 not installed" in output.out
    assert "fabricated: running" in output.err


def test_from_renders_a_document_without_running(
    fabricated_run: list[int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "source.json"
    source.write_text(dumps_matrix(fabricated_document(tie_cell="fail")), encoding="utf-8")
    assert main(["matrix", "--from", str(source), *_paths(tmp_path)]) == 0
    assert fabricated_run == []
    assert (tmp_path / "m.json").read_text(encoding="utf-8") == source.read_text(encoding="utf-8")
    assert "tie-break" in (tmp_path / "m.md").read_text(encoding="utf-8").split("## Failures")[1]


def test_diff_prints_the_cells_that_changed_since_an_older_document(
    fabricated_run: list[int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.json"
    old.write_text(dumps_matrix(fabricated_document(dialect_version="1.9", tie_cell="fail")), encoding="utf-8")
    assert main(["matrix", "--diff", str(old), *_paths(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "dialect-two 1.9 -> 2.0.1: 1 cell changed" in out
    assert "tie-break [BPE-TRAIN-TIE, algorithm] fail -> dialect" in out
    assert out.rstrip().endswith("1 cell changed; 0 implementations added, 0 removed")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--diff", "{tmp}/absent.json"], "cannot read --diff"),
        (["--from", "{tmp}/bad.json"], "--from '{tmp}/bad.json' is not JSON"),
        (["--html", "{tmp}/no/such/dir/m.html"], "--html {tmp}/no/such/dir/m.html: directory"),
    ],
)
def test_an_unusable_path_or_document_exits_2_in_one_line_before_running(
    fabricated_run: list[int], tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    argv = ["matrix", *_paths(tmp_path), *(argument.format(tmp=tmp_path) for argument in arguments)]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert message.format(tmp=tmp_path) in error
    assert "Traceback" not in error
    assert fabricated_run == []
    assert not (tmp_path / "m.md").exists()
