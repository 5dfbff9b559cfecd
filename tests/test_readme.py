"""README.md is executed: its transcripts are what the commands print, its commands run, its doctests pass.

tools/readme.py finds the examples; ``python tools/readme.py --update`` refreshes the transcripts.
"""

from __future__ import annotations

import configparser
import doctest
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from typing import TYPE_CHECKING

import hypothesis
import pytest

from bpe_conformance.spec.clauses import SPEC_PATH

if TYPE_CHECKING:  # loaded from its file below, as readme_tool
    from tools.readme import Transcript

ROOT = SPEC_PATH.parents[1]
_spec = importlib.util.spec_from_file_location("readme_tool", ROOT / "tools" / "readme.py")
assert _spec is not None
assert _spec.loader is not None
readme = importlib.util.module_from_spec(_spec)
sys.modules["readme_tool"] = readme
_spec.loader.exec_module(readme)

TEXT = readme.README.read_text(encoding="utf-8")
_RECORDED_WITH = re.compile(r"hypothesis (\d+\.\d+\.\d+)")
# Lines that set up a machine, are this very test run, or run the whole suite against the reference:
# .ci/run runs each of them as written.
_NOT_RUN_HERE = ("python3 -m venv", "python -m pytest")
_RUN_BY_CI = "bpe-conformance run"


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


@pytest.mark.parametrize("transcript", readme.transcripts(TEXT), ids=lambda t: _short(t.command))
def test_the_transcript_is_what_the_command_prints(transcript: Transcript) -> None:
    recorded = _RECORDED_WITH.search(transcript.output)
    if recorded and recorded.group(1) != hypothesis.__version__:
        pytest.skip(
            f"recorded with hypothesis {recorded.group(1)}, {hypothesis.__version__} is installed: "
            "install constraints.txt (tox does) or refresh with `python tools/readme.py --update`"
        )
    printed = readme.run_command(transcript.command)
    assert readme.normalised(printed) == readme.normalised(transcript.output), (
        "README.md is out of date; refresh it with `python tools/readme.py --update`"
    )


def test_there_is_a_failing_transcript() -> None:
    assert any("FAILED" in transcript.output for transcript in readme.transcripts(TEXT))


def _run_by_ci(command: str) -> bool:
    """True when a line of .ci/run starts with ``command``."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return any(line.startswith(command) for line in lines)


def _tox_environments() -> set[str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini", encoding="utf-8")
    listed = {name.strip() for name in parser["tox"]["envlist"].split(",")}
    sections = [section for section in parser.sections() if section.startswith("testenv:")]
    return listed | {section.removeprefix("testenv:") for section in sections}


def _run(words: list[str]) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key not in ("CI", "COLUMNS")}
    if words[0] == "bpe-conformance":
        words = [sys.executable, "-m", "conformance", *words[1:]]
    elif words[0] == "pytest":
        # In one process, as in the user's project the command is written for: run from this checkout, it would
        # otherwise take this project's -n auto (pyproject.toml's addopts) and load the plugin in xdist workers.
        words = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", *words[1:]]
    return subprocess.run(words, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("command", readme.commands(TEXT), ids=_short)
def test_the_command_works(command: str) -> None:
    if command.startswith(_NOT_RUN_HERE) or command == _RUN_BY_CI:
        assert _run_by_ci(command.split(" && ")[0]), f"neither this test nor .ci/run runs {command!r}"
        return
    words = shlex.split(command)
    if words[0] == "tox":
        assert set(words[words.index("-e") + 1].split(",")) <= _tox_environments()
        return
    assert words[0] in ("bpe-conformance", "pytest"), f"a README command this test does not know: {command}"
    completed = _run(words)
    placeholder = next((name for name in readme.PLACEHOLDERS if name in command), None)
    if placeholder is None:
        assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-2000:]
        return
    # A placeholder package cannot be imported; that must be the one thing wrong with the command.
    error = completed.stderr + completed.stdout
    assert completed.returncode in (2, 4), error[-2000:]  # the CLI's and pytest's usage-error exit codes
    assert placeholder in error, error[-2000:]
    assert "unrecognized arguments" not in error, error[-2000:]


@pytest.mark.parametrize("block", readme.doctest_blocks(TEXT), ids=lambda block: _short(block.splitlines()[0]))
def test_the_python_example_runs(block: str) -> None:
    test = doctest.DocTestParser().get_doctest(block, {}, "README.md", str(readme.README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test)
    assert result.attempted
    assert not result.failed


def test_a_changed_transcript_is_caught() -> None:
    (transcript,) = [t for t in readme.transcripts(TEXT) if "FAILED" in t.output][:1]
    changed = transcript.output.replace("seed 0", "seed 9", 1)
    assert changed != transcript.output
    assert readme.normalised(changed) != readme.normalised(transcript.output)
