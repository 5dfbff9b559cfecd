"""README.md's examples, as data: check them, or refresh the transcripts from what the commands print.

Three kinds of fenced block are examples:

* ```` ```text ```` blocks whose first line is ``$ <command>``: a transcript. The command is run from
  the repository root, as a user runs it in a pipe (no ``$CI``, no ``$COLUMNS``, no hypothesis
  profile), and what it prints must be the rest of the block byte for byte, timings aside.
* ```` ```sh ```` blocks: one command per line (``#`` starts a comment). ``bpe-conformance`` lines must
  parse; those without a placeholder package (``yourpkg``, ``mypkg``) are run and must exit 0.
* ```` ```python ```` blocks holding ``>>>`` lines: doctests.

``python tools/readme.py --update`` rewrites every transcript with the command's current output (after
a change to the report's wording, or a new hypothesis: constraints.txt pins the one the transcripts were
made with); ``python tools/readme.py`` only checks, exit 1 on a difference. tests/test_readme.py runs
the same checks in the default test run.

>>> block = "```text\\n$ bpe-conformance run --seed 1\\nPASSED in 1.2 s\\n```"
>>> [(t.command, t.output) for t in transcripts(block)]
[('bpe-conformance run --seed 1', 'PASSED in 1.2 s\\n')]
>>> normalised("FAILED: 1 fail in 1.2 s; tie-break 0.97 s")
'FAILED: 1 fail in <t> s; tie-break <t> s'
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "README",
    "Transcript",
    "commands",
    "doctest_blocks",
    "normalised",
    "refreshed",
    "run_command",
    "transcripts",
]

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PLACEHOLDERS = ("yourpkg", "mypkg")
_FENCE = re.compile(r"^```(?P<language>\w*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
_TIMING = re.compile(r"\b\d+\.\d+ s\b")
# What a user's shell does not have but CI or a developer's might: each changes what the harness prints.
_UNSET = ("CI", "COLUMNS", "LINES", "BPE_HYPOTHESIS_PROFILE", "HYPOTHESIS_STORAGE_DIRECTORY")


@dataclass(frozen=True)
class Transcript:
    """A ``$ command`` block: where its output sits in the README, the command, and the output shown."""

    start: int
    end: int
    command: str
    output: str


def transcripts(text: str) -> list[Transcript]:
    """Every ```` ```text ```` block that starts with ``$ ``, in order."""
    found = []
    for match in _FENCE.finditer(text):
        body = match.group("body")
        if match.group("language") != "text" or not body.startswith("$ "):
            continue
        first_line, _, output = body.partition("\n")
        start = match.start("body") + len(first_line) + 1
        found.append(Transcript(start, match.end("body"), first_line[2:], output))
    return found


def commands(text: str) -> list[str]:
    """Every command of the ```` ```sh ```` blocks, comments and blank lines dropped."""
    found = []
    for match in _FENCE.finditer(text):
        if match.group("language") != "sh":
            continue
        for line in match.group("body").splitlines():
            command = line.split(" #", 1)[0].strip()
            if command and not command.startswith("#"):
                found.append(command)
    return found


def doctest_blocks(text: str) -> list[str]:
    """The ```` ```python ```` blocks holding ``>>>`` examples."""
    bodies = [match.group("body") for match in _FENCE.finditer(text) if match.group("language") == "python"]
    return [body for body in bodies if ">>>" in body]


def normalised(output: str) -> str:
    """``output`` with every duration (``1.2 s``) replaced: the only part of a run that may differ."""
    return _TIMING.sub("<t> s", output)


def run_command(command: str) -> str:
    """What ``command`` (``bpe-conformance ...``) prints on stdout, run from the repository root, piped."""
    words = shlex.split(command)
    if words[0] != "bpe-conformance":
        raise ValueError(f"a transcript must run bpe-conformance, not {words[0]!r}")
    environment = {key: value for key, value in os.environ.items() if key not in _UNSET}
    completed = subprocess.run(
        [sys.executable, "-m", "conformance", *words[1:]],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600,
    )
    return completed.stdout


def refreshed(text: str) -> str:
    """``text`` with every transcript's output replaced by what its command prints now."""
    for transcript in reversed(transcripts(text)):
        text = text[: transcript.start] + run_command(transcript.command) + text[transcript.end :]
    return text


def main(argv: list[str] | None = None) -> int:
    """Check the README's transcripts (exit 1 on a difference), or rewrite them with ``--update``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--update", action="store_true", help="rewrite the transcripts in README.md")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    fresh = refreshed(text)
    if args.update:
        README.write_text(fresh, encoding="utf-8")
        return 0
    if normalised(fresh) == normalised(text):
        return 0
    diff = difflib.unified_diff(text.splitlines(True), fresh.splitlines(True), "README.md", "what the commands print")
    sys.stdout.writelines(diff)
    return 1


if __name__ == "__main__":
    sys.exit(main())
