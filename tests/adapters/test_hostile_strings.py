"""Untrusted strings are inert: what an implementation declares is escaped in every report it reaches.

The handshake's ``language`` was printed raw: a ``cmd:`` implementation put terminal escapes on the
screen and a heading and a ``<script>`` into the Markdown report (name, version and messages were
escaped already).
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from bpe_conformance.cli import main as cli
from tests import ROOT
from tests.adapters.test_hostile import ENV, HOSTILE

if TYPE_CHECKING:
    from pathlib import Path

SCRIPT = HOSTILE / "hostile_language.py"


def test_a_hostile_language_is_inert_in_the_terminal_markdown_junit_and_json(tmp_path: Path) -> None:
    reports = {option: tmp_path / f"report.{option}" for option in ("json", "junit", "markdown")}
    words = [word for option, path in reports.items() for word in (f"--{option}", str(path))]
    command = [sys.executable, "-m", "bpe_conformance", "run", "--impl", f"cmd:{sys.executable} {SCRIPT}"]
    ran = subprocess.run(
        [*command, "--check", "rule-ids", *words], env=ENV, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    for output in (ran.stdout, ran.stderr):
        assert "\x1b" not in output
        assert "\x07" not in output
    assert "\\x1b[2J" in ran.stdout  # shown, escaped
    markdown = reports["markdown"].read_text(encoding="utf-8")
    assert "<script>" not in markdown
    assert "&lt;script&gt;" in markdown
    assert "\n# Heading" not in markdown
    assert "\x1b" not in markdown
    language = json.loads(reports["json"].read_text(encoding="ascii"))["implementation"]["language"]
    assert language.startswith("c\x1b[2J")  # JSON keeps the value itself, escaped by the encoding
    ET.parse(reports["junit"])  # well-formed XML whatever the implementation declared


def test_a_matrix_documents_reproduce_command_is_rebuilt_from_its_fields(tmp_path: Path) -> None:
    document = json.loads((ROOT / "docs" / "matrix.json").read_text(encoding="utf-8"))
    row, cell = next(
        (row, cell)
        for row in document["implementations"]
        for cell in row["cells"].values()
        if cell["cell"] in ("fail", "dialect")
    )
    row["spec"] = "x; rm -rf ~"
    crafted = "bpe-conformance run x; rm -rf ~"
    if "reproduce" in cell:
        cell["reproduce"] = crafted
    if "strict" in cell:
        cell["strict"]["reproduce"] = crafted
    source = tmp_path / "crafted.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    outputs = {name: tmp_path / f"out.{name}" for name in ("output", "html", "json")}
    words = [word for option, path in outputs.items() for word in (f"--{option}", str(path))]
    assert cli.main(["matrix", "--from", str(source), *words]) == 0
    for path in outputs.values():
        text = path.read_text(encoding="utf-8")
        assert crafted not in text
        assert "--impl x; rm -rf ~" not in text  # the command shows the spec shell-quoted, or not at all
    assert "bpe-conformance run --impl 'x; rm -rf ~' --profile" in outputs["output"].read_text(encoding="utf-8")
