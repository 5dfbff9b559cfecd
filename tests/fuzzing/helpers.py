"""Running ``bpe-conformance`` as a user does, in a child process, and finding what it left behind.

Every command runs with a marker of its own in its environment, which every worker and implementation
process inherits; :func:`leftovers` finds any process still carrying it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import jsonschema

from bpe_conformance.fuzzing.report import SCHEMA_PATH
from tests import ROOT

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["MARKER_VARIABLE", "Harness", "MakeHarness", "leftovers", "validate_summary", "wait_for"]

MARKER_VARIABLE = "BPE_FUZZ_TEST_MARKER"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
_VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def validate_summary(path: Path) -> dict[str, Any]:
    """The JSON summary at ``path``, checked against ``specs/schema/fuzz.schema.json``."""
    summary: dict[str, Any] = json.loads(path.read_text(encoding="ascii"))
    _VALIDATOR.validate(summary)
    return summary


def leftovers(marker: str) -> list[str]:
    """Command lines of live processes (zombies excluded) whose environment carries ``marker``."""
    found = []
    needle = f"{MARKER_VARIABLE}={marker}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if state != "Z":
            found.append(f"{entry.name} {command[:160]}")
    return found


def wait_for(predicate: Callable[[], object], seconds: float) -> bool:
    """Poll ``predicate`` until it holds or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return bool(predicate())


class MakeHarness(Protocol):
    """The ``make_harness`` fixture (tests/fuzzing/conftest.py): a name, or none for ``tmp_path`` itself."""

    def __call__(self, name: str = "") -> Harness: ...


class Harness:
    """``python -m bpe_conformance ...`` from ``directory`` with its own cache dir and marker.

    ``storage`` is hypothesis's storage for every command: shared by the tests of a session, so its Unicode
    tables are computed once, as they are once per machine for a user.
    """

    def __init__(self, directory: Path, storage: Path) -> None:
        self.directory = directory
        self.marker = uuid.uuid4().hex
        self.cache = directory / "cache"
        self.environment = {
            **{key: value for key, value in os.environ.items() if not key.startswith("HYPOTHESIS")},
            "PYTHONPATH": str(ROOT),
            "XDG_CACHE_HOME": str(self.cache),
            "COLUMNS": "200",
            "BPE_HYPOTHESIS_PROFILE": "dev",
            "HYPOTHESIS_STORAGE_DIRECTORY": str(storage),
            MARKER_VARIABLE: self.marker,
        }
        self.environment.pop("CI", None)

    def command(self, *words: str) -> list[str]:
        """The argv of ``bpe-conformance WORDS``."""
        return [sys.executable, "-m", "conformance", *words]

    def run(self, *words: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
        """Run ``bpe-conformance WORDS`` to its end."""
        return subprocess.run(
            self.command(*words),
            cwd=self.directory,
            env=self.environment,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def start(self, *words: str) -> subprocess.Popen[str]:
        """Start ``bpe-conformance WORDS`` without waiting."""
        return subprocess.Popen(
            self.command(*words),
            cwd=self.directory,
            env=self.environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def leftovers(self) -> list[str]:
        """Processes this harness started that are still alive (see :func:`leftovers`)."""
        return leftovers(self.marker)
