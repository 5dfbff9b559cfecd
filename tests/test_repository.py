"""What the repository tracks: nothing its own .gitignore says is a local artefact.

A helper's `.venv` link to a tox environment was once committed as a file; on a clean checkout CI's
`python3 -m venv .venv` then refused to create its directory. Any tracked path that .gitignore ignores
(a virtualenv, a tox or mypy cache, a build directory, a report written at the top) is the same mistake.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests import ROOT


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an sdist, say): nothing is tracked")
    return subprocess.run([git, "-C", str(ROOT), *args], capture_output=True, text=True, check=False)


def test_no_tracked_file_is_one_that_gitignore_ignores() -> None:
    listed = _git("ls-files", "--cached", "--ignored", "--exclude-standard")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == []


def test_a_virtualenv_path_is_ignored_whatever_kind_of_file_it_is() -> None:
    # `.venv/` in .gitignore matches only a directory: the committed link was a file.
    checked = _git("check-ignore", "--no-index", ".venv")
    assert checked.returncode == 0, ".venv is not ignored when it is a file or a link"
