"""Commands used as an installed wheel uses them: shortcuts, a closed pipe, and no default path into the package.

The commands that regenerate the repository's own files (``zoo gallery``, ``vectors generate``, ``matrix``)
default to the checkout's ``docs/`` and ``specs/vectors/`` only in a checkout (``checkout_root()``); here
``checkout_root`` answers None, as it does for an installed wheel, and each must then ask where to write.
The slow end-to-end proof from a real wheel is ``tests/test_wheel.py``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.cli.commands import matrix as matrix_command
from bpe_conformance.cli.commands import vectors as vectors_command
from bpe_conformance.cli.commands import zoo as zoo_command
from bpe_conformance.cli.main import EXIT_BROKEN_PIPE, main
from bpe_conformance.matrix.run import ROWS, missing_script, run_matrix
from bpe_conformance.spec.resources import checkout_root
from tests import ROOT

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def installed_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command sees no repository around the package, as from a wheel."""
    for module in (matrix_command, vectors_command, zoo_command):
        monkeypatch.setattr(module, "checkout_root", lambda: None)


def test_the_checkout_is_found_from_the_package() -> None:
    assert checkout_root() == ROOT.resolve()


@pytest.mark.parametrize("shortcut", ["reference", "reference-literal"])
def test_identify_takes_the_shortcuts_run_takes(shortcut: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["identify", "--impl", shortcut, "--isolation", "inprocess"]) == 0
    assert "identified as: strict" in capsys.readouterr().out


def test_identify_names_an_empty_impl(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["identify", "--impl", " "]) == 2
    err = capsys.readouterr().err
    assert "--impl is empty" in err
    assert "cannot load" not in err
    assert len(err.splitlines()) == 1


def test_a_closed_pipe_ends_the_command_without_a_traceback() -> None:
    reader, writer = os.pipe()
    os.close(reader)
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "bpe_conformance", "identify", "--impl", "reference", "--isolation", "inprocess"],
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(writer)
    assert completed.returncode == EXIT_BROKEN_PIPE
    assert "Traceback" not in completed.stderr
    assert "BrokenPipeError" not in completed.stderr


def test_zoo_gallery_needs_output_when_installed(installed_layout: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["zoo", "gallery"]) == 2
    err = capsys.readouterr().err
    assert "--output" in err
    assert len(err.splitlines()) == 1


def test_zoo_gallery_check_calls_a_missing_file_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Said before any proof runs: the answer does not need one.
    assert main(["zoo", "gallery", "--check", "--output", str(tmp_path / "absent.md")]) == 1
    out = capsys.readouterr().out
    assert "missing" in out
    assert "not current" not in out


def test_zoo_gallery_refuses_a_directory_that_does_not_exist_before_proving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["zoo", "gallery", "--output", str(tmp_path / "no" / "such" / "bug-zoo.md")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_vectors_generate_needs_dir_when_installed_and_check_reads_the_shipped_files(
    installed_layout: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vectors", "generate"]) == 2
    assert "--dir" in capsys.readouterr().err
    assert main(["vectors", "check", "--profile", "tiktoken"]) == 0
    assert "validate and are up to date" in capsys.readouterr().out


def test_matrix_writes_only_the_files_named_when_installed(
    installed_layout: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(matrix_command, "run_matrix", lambda seed, effort, say, limits: ([], []))
    assert main(["matrix"]) == 2
    assert "--output, --html or --json" in capsys.readouterr().err
    assert main(["matrix", "--json", str(tmp_path / "m.json")]) == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["m.json"]
    assert main(["matrix", "--from", str(tmp_path / "m.json"), "--diff", str(tmp_path / "m.json")]) == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["m.json"]


def test_matrix_defaults_to_the_checkouts_docs_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = argparse.Namespace(output=None, html=str(tmp_path / "x"), json=None, diff=None)
    destinations = matrix_command._destinations(args)
    assert destinations == {
        "output": str(ROOT.resolve() / "docs" / "matrix.md"),
        "html": str(tmp_path / "x"),
        "json": str(ROOT.resolve() / "docs" / "matrix.json"),
    }


def test_matrix_says_which_rows_need_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    node_rows = [row for row in ROWS if row.spec.startswith("cmd:node ")]
    assert {row.label for row in node_rows} >= {"node-fixture", "js-tiktoken", "gpt-tokenizer"}
    said: list[str] = []
    results, missing = run_matrix(0, rows=node_rows, say=said.append)
    assert results == []
    assert len(missing) == len(node_rows) == len(said)
    assert all("not in the working directory" in line for line in missing)
    monkeypatch.chdir(ROOT)
    assert missing_script(node_rows[0]) is None
