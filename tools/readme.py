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
the same checks in the default test run. ``--file docs/tutorial.md`` does the same for another page
(tests/test_tutorial.py checks the tutorial).

A transcript may leave out lines: a line holding only ``...`` stands for any number of lines of the
output, and the lines around it must appear in that order (see :func:`matches`). ``--update`` keeps
such a transcript while it still matches, and writes the whole output in its place once it does not.

>>> block = "```text\\n$ bpe-conformance run --seed 1\\nPASSED in 1.2 s\\n```"
>>> [(t.command, t.output) for t in transcripts(block)]
[('bpe-conformance run --seed 1', 'PASSED in 1.2 s\\n')]
>>> normalised("FAILED: 1 fail in 1.2 s; tie-break 0.97 s")
'FAILED: 1 fail in <t> s; tie-break <t> s'
>>> matches("...\\nFAIL x\\n...\\nFAILED: 1 fail\\n", "head\\nFAIL x\\n  a\\n  b\\nFAILED: 1 fail\\n")
True
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
    "matches",
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


ELISION = "..."


def _lines(text: str) -> list[str]:
    return normalised(text).rstrip("\n").split("\n") if text.strip() else []


def matches(shown: str, printed: str) -> bool:
    """True when ``printed`` is what a transcript ``shown`` says, timings aside.

    Without an elision line the two must be equal. With them, the lines between elisions must appear in
    ``printed`` in order, each run of them as consecutive lines; the first run starts the output unless an
    elision comes first, and the last one ends it unless an elision comes last.
    """
    wanted = _lines(shown)
    if ELISION not in [line.strip() for line in wanted]:
        return normalised(shown) == normalised(printed)
    got = _lines(printed)
    runs: list[list[str]] = [[]]
    for line in wanted:
        if line.strip() == ELISION:
            runs.append([])
        else:
            runs[-1].append(line)
    if runs[0] and got[: len(runs[0])] != runs[0]:
        return False
    if runs[-1] and got[len(got) - len(runs[-1]) :] != runs[-1]:
        return False
    position = len(runs[0])
    for run in runs[1:-1]:
        position = next(
            (start for start in range(position, len(got) - len(run) + 1) if got[start : start + len(run)] == run), -1
        )
        if position < 0:
            return False
        position += len(run)
    return position <= len(got) - len(runs[-1]) or len(runs) == 1


def run_command(command: str) -> str:
    """What ``command`` (``bpe-conformance ...``) prints on stdout, run from the repository root, piped."""
    words = shlex.split(command)
    if words[0] != "bpe-conformance":
        raise ValueError(f"a transcript must run bpe-conformance, not {words[0]!r}")
    environment = {key: value for key, value in os.environ.items() if key not in _UNSET}
    completed = subprocess.run(
        [sys.executable, "-m", "conformance", *words[1:]],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return completed.stdout


def _elided(output: str) -> bool:
    return ELISION in [line.strip() for line in output.splitlines()]


def refreshed(text: str) -> str:
    """``text`` with every transcript's output replaced by what its command prints now; a transcript that leaves
    lines out is kept as long as it still matches."""
    for transcript in reversed(transcripts(text)):
        printed = run_command(transcript.command)
        if _elided(transcript.output) and matches(transcript.output, printed):
            continue
        text = text[: transcript.start] + printed + text[transcript.end :]
    return text


def main(argv: list[str] | None = None) -> int:
    """Check the README's transcripts (exit 1 on a difference), or rewrite them with ``--update``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--update", action="store_true", help="rewrite the transcripts in the page")
    parser.add_argument("--file", type=Path, default=README, help="the page (default: README.md)")
    args = parser.parse_args(argv)
    text = args.file.read_text(encoding="utf-8")
    fresh = refreshed(text)
    if args.update:
        args.file.write_text(fresh, encoding="utf-8")
        return 0
    if normalised(fresh) == normalised(text):
        return 0
    diff = difflib.unified_diff(
        text.splitlines(True), fresh.splitlines(True), str(args.file), "what the commands print"
    )
    sys.stdout.writelines(diff)
    return 1


if __name__ == "__main__":
    sys.exit(main())
