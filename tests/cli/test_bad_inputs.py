"""Bad input files and settings end in one line naming the fault (exit 2), never a traceback.

Nesting 100 000 deep ended in a RecursionError (``trace --json-file``, a ``compare`` ``.jsonl``,
``matrix --from``, ``vectors check``), a 5 000-digit number in a ValueError, a FIFO among the vector
files blocked, ``NaN`` reached the matrix renderer, and
``COLUMNS=0`` crashed ``run`` and silenced ``trace``, and a schema-valid matrix document missing a cell
crashed the renderer.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.cli import main as cli
from tests import ROOT

if TYPE_CHECKING:
    from pathlib import Path

DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE_JSON = {
    "deep": (DEEP, "nests arrays or objects more than 64 deep"),
    "moderately-deep": ("[" * 950 + "]" * 950, "nests arrays or objects more than 64 deep"),
    "long-number": ("[" + "9" * 5000 + "]", "a number has too many digits"),
    "nan": ('["a", NaN]', "NaN is not a JSON number"),
}


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1, captured.err
    return lines[0]


@pytest.mark.parametrize("case", sorted(HOSTILE_JSON))
def test_trace_json_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    content, fault = HOSTILE_JSON[case]
    path = tmp_path / "docs.json"
    path.write_text(content, encoding="utf-8")
    assert cli.main(["trace", "--json-file", str(path)]) == 2
    assert fault in _one_error_line(capsys)


@pytest.mark.parametrize("case", ["deep", "long-number"])
def test_compare_jsonl_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    content, fault = HOSTILE_JSON[case]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"text": "abab"}) + "\n" + content + "\n", encoding="utf-8")
    assert cli.main(["compare", "--impl", "reference", "--corpus", str(corpus), "--merges", "3"]) == 2
    line = _one_error_line(capsys)
    assert "line 2" in line
    assert fault in line


@pytest.mark.parametrize("option", ["--from", "--diff"])
@pytest.mark.parametrize("case", ["deep", "nan"])
def test_matrix_documents(tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, case: str) -> None:
    content, fault = HOSTILE_JSON[case]
    document = tmp_path / "m.json"
    document.write_text(content, encoding="utf-8")
    outputs = [word for name in ("output", "html", "json") for word in (f"--{name}", str(tmp_path / f"out.{name}"))]
    source = [] if option == "--from" else ["--from", str(document)]
    assert cli.main(["matrix", option, str(document), *source, *outputs]) == 2
    assert fault in _one_error_line(capsys)


@pytest.mark.parametrize("columns", ["0", "-3", "abc", "5"])
def test_an_unusable_columns_is_ignored(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, columns: str
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    assert cli.main(["run", "--impl", "reference", "--isolation", "inprocess", "--check", "rule-ids"]) == 0
    assert "PASSED" in capsys.readouterr().out
    assert cli.main(["trace", "ab"]) == 0
    assert "1 document, 2 bytes" in capsys.readouterr().out


@pytest.mark.parametrize("case", ["deep", "long-number", "fifo"])
def test_vectors_check(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    vectors = tmp_path / "vectors"
    vectors.mkdir()
    if case == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("needs FIFOs")
        os.mkfifo(vectors / "training.json")
        fault = "is not a regular file"
    else:
        content, fault = HOSTILE_JSON[case]
        (vectors / "training.json").write_text(content, encoding="utf-8")
    assert cli.main(["vectors", "check", "--dir", str(vectors), "--profile", "strict"]) == 2
    line = _one_error_line(capsys)
    assert "training.json" in line
    assert fault in line


@pytest.mark.parametrize(
    ("change", "fault"),
    [("drop-cell", "has no cell for check"), ("add-cell", "has a cell for unknown check")],
)
def test_a_schema_valid_but_inconsistent_matrix_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str, fault: str
) -> None:
    document = json.loads((ROOT / "docs" / "matrix.json").read_text(encoding="utf-8"))
    cells = document["implementations"][0]["cells"]
    if change == "drop-cell":
        del cells[next(iter(cells))]
    else:
        cells["no-such-check"] = dict(next(iter(cells.values())))
    source = tmp_path / "m.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    outputs = [word for name in ("output", "html", "json") for word in (f"--{name}", str(tmp_path / f"out.{name}"))]
    assert cli.main(["matrix", "--from", str(source), *outputs]) == 2
    assert fault in _one_error_line(capsys)
    assert not list(tmp_path.glob("out.*"))
