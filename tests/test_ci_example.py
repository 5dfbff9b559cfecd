"""docs/ci.md's tox.ini, unchanged, run by tox in a sample project with bpe-conformance from the built wheel.

Slow (tox creates a venv and installs the wheel and its dependencies; pip may download what its cache
lacks): ``.ci/run`` runs it explicitly, as ``python -m pytest -m slow tests/test_ci_example.py``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

import jsonschema
import pytest

from tests import ROOT
from tests.support.user_project import SKIP_REASON, build_distributions, write_user_project

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.slow

DOC = ROOT / "docs" / "ci.md"
_BLOCK = re.compile(r"^```ini\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def documented_tox_ini() -> str:
    """The one ``ini`` block of docs/ci.md."""
    blocks: list[str] = _BLOCK.findall(DOC.read_text(encoding="utf-8"))
    (block,) = blocks
    return block


def documented_local_setting(wheel: Path) -> list[str]:
    """The words docs/ci.md adds to ``tox -e py`` for a built wheel, with its placeholder path replaced."""
    (line,) = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.endswith("# a built wheel")]
    words = line.split("#")[0].split()
    assert words[:3] == ["tox", "-e", "py"], line
    return [word.replace("/path/to/bpe_conformance-0.1.0-py3-none-any.whl", str(wheel)) for word in words[3:]]


def test_the_documented_local_setting_names_a_wheel_and_a_checkout() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "-x testenv.deps=/path/to/bpe_conformance-0.1.0-py3-none-any.whl" in text
    assert "-x testenv.deps=/path/to/bpe-conformance " in text


def test_the_documented_envlist_covers_this_python() -> None:
    assert f"py{sys.version_info.major}{sys.version_info.minor}" in documented_tox_ini()


def test_the_documented_tox_file_runs_the_suite_against_the_sample_project(tmp_path: Path) -> None:
    _, wheel = build_distributions(tmp_path / "dist")
    project = write_user_project(tmp_path / "project")
    (project / "tox.ini").write_text(documented_tox_ini(), encoding="utf-8")
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "HYPOTHESIS"))}
    environment.pop("VIRTUAL_ENV", None)
    env_name = f"py{sys.version_info.major}{sys.version_info.minor}"
    # The file as written, plus the one setting docs/ci.md documents until the package is published.
    completed = subprocess.run(
        [sys.executable, "-m", "tox", "-e", env_name, *documented_local_setting(wheel)],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-4000:]
    reports = project / ".tox" / env_name / "tmp"
    report = json.loads((reports / "conformance.json").read_text(encoding="utf-8"))
    schema = json.loads((ROOT / "specs" / "schema" / "report.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(report, schema)
    assert report["implementation"]["name"] == "mypkg"
    assert report["summary"]["succeeded"]
    cases = ET.parse(reports / "conformance.xml").getroot().iter("testcase")
    skipped = [case.find("skipped") for case in cases if case.get("name", "").startswith("tie-break")]
    assert skipped
    assert skipped[0] is not None
    assert SKIP_REASON in (skipped[0].get("message") or "")
    assert not (project / ".hypothesis").exists()
