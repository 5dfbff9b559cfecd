"""Headless Chromium for the tests of the pages the harness writes (``trace --html``, ``matrix --html``).

The pages are self-contained files, so Chromium opens them from disk: no server, no network. Two
things are asked of it: the DOM after the page's scripts ran (``--dump-dom``), and a screenshot.
A page that lets the reader move through states (rounds, filters) takes the state from its URL
fragment too, so one fragment per state is rendered and checked.

Tests that need Chromium use the ``requires_chromium`` mark: they skip, saying why, where Debian's
``chromium`` is not installed (``.ci/run`` and ``tox -e html`` install it when they run as root).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

__all__ = ["CHROMIUM_FLAGS", "chromium_path", "render_dom", "requires_chromium", "screenshot"]

# Without the background-networking flags Chromium keeps trying hosts this closed network refuses;
# --no-sandbox because CI runs as root.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    # Lets the page's scripts and timers finish before the DOM is dumped or the picture taken.
    "--virtual-time-budget=5000",
)
_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_TIMEOUT = 120


def chromium_path() -> str | None:
    """The Chromium executable: ``$CHROMIUM`` if set, else the first browser on ``PATH``, else None."""
    configured = os.environ.get("CHROMIUM")
    if configured:
        return shutil.which(configured)
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


requires_chromium = pytest.mark.skipif(
    chromium_path() is None,
    reason="headless Chromium is not installed (Debian package 'chromium'; `tox -e html` installs it)",
)


def _run(page: Path, fragment: str, extra: list[str]) -> subprocess.CompletedProcess[str]:
    executable = chromium_path()
    if executable is None:
        pytest.skip("headless Chromium is not installed (Debian package 'chromium')")
    url = Path(page).resolve().as_uri() + (f"#{fragment}" if fragment else "")
    with tempfile.TemporaryDirectory(prefix="bpe-chromium-") as profile:
        command = [executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, url]
        return subprocess.run(command, capture_output=True, text=True, timeout=_TIMEOUT, check=False)


def render_dom(page: Path, fragment: str = "") -> str:
    """The page's DOM as HTML after its scripts ran, opened at ``#fragment`` when one is given."""
    done = _run(page, fragment, ["--dump-dom"])
    if done.returncode != 0 or "<html" not in done.stdout.lower():
        raise AssertionError(f"Chromium could not render {page} (exit {done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def screenshot(page: Path, output: Path, fragment: str = "", size: tuple[int, int] = (1280, 900)) -> Path:
    """Save a PNG of the page as Chromium draws it and return its path; fails if nothing was written."""
    done = _run(page, fragment, [f"--screenshot={output}", f"--window-size={size[0]},{size[1]}"])
    if done.returncode != 0 or not output.exists() or output.stat().st_size == 0:
        raise AssertionError(f"Chromium took no screenshot of {page} (exit {done.returncode}): {done.stderr[-2000:]}")
    return output
