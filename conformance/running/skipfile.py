"""Skip files: what an implementation knowingly does not conform to, each with its reason.

The format is plain text, one entry per line::

    # Lines starting with '#' and blank lines are ignored.
    tie-break              # we break ties by first occurrence, like minbpe
    BPE-DECODE-STRICT      # our decode replaces invalid UTF-8 with U+FFFD

An entry is a check name or a clause id. A check name skips that check. A clause id declares a
deviation from that clause: the checks whose primary clause it is are skipped, and any other
check (a known-answer vector replay, say) that fails *on that clause* counts as skipped too, while
its failures on other clauses still fail the run. Whatever follows ``#`` is the reason, shown in
every report. A line holding more than one word, or an entry that names no check and no clause of
any check, is an error: a typo must never silently skip nothing.

>>> entries = parse_skip_text("train-tie   # ours differs\\n\\n# comment\\nBPE-DECODE-STRICT\\n", "skip.txt")
>>> [(entry.name, entry.reason, entry.line) for entry in entries]
[('train-tie', 'ours differs', 1), ('BPE-DECODE-STRICT', '', 4)]
>>> parse_skip_text("train tie\\n", "skip.txt")
Traceback (most recent call last):
...
bpe_conformance.errors.HarnessError: skip.txt line 1: expected one check name or clause id, got 2 words: 'train tie'
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bpe_conformance.errors import HarnessError
from bpe_conformance.files import read_text_file

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from bpe_conformance.checks.base import Check
    from bpe_conformance.results.outcomes import CheckResult

__all__ = [
    "MAX_SKIP_FILE_BYTES",
    "SkipEntry",
    "SkipPlan",
    "load_skip_file",
    "parse_skip_text",
    "read_skip_file",
    "resolve_skips",
    "skip_file_text",
]

# A skip file lists checks and clauses, a few dozen lines; anything far larger is not one.
MAX_SKIP_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class SkipEntry:
    """One line of a skip file: a check name or clause id, its reason, and where it was written."""

    name: str
    reason: str
    source: str
    line: int

    def describe(self) -> str:
        """The reason as reports show it, with the place it was declared."""
        place = f"declared in {self.source} line {self.line}"
        return f"{self.reason} ({place})" if self.reason else place


@dataclass(frozen=True)
class SkipPlan:
    """Checks skipped before they run (name → reason) and clauses declared as deviations (id → reason)."""

    checks: dict[str, str] = field(default_factory=dict)
    clauses: dict[str, str] = field(default_factory=dict)


def parse_skip_text(text: str, source: str) -> list[SkipEntry]:
    """Every entry of a skip file's ``text``; ``source`` names the file in error messages."""
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        content, _, comment = line.partition("#")
        words = content.split()
        if not words:
            continue
        if len(words) > 1:
            raise HarnessError(
                f"{source} line {number}: expected one check name or clause id, "
                f"got {len(words)} words: {content.strip()!r}"
            )
        entries.append(SkipEntry(words[0], comment.strip(), source, number))
    return entries


def _unknown_entry_message(entry: SkipEntry, known: Iterable[str]) -> str:
    message = (
        f"{entry.source} line {entry.line}: {entry.name!r} is neither a check name "
        "nor a clause id reported by any check"
    )
    close = difflib.get_close_matches(entry.name, list(known), n=3)
    if close:
        message += f"; did you mean {', '.join(close)}?"
    return message + " (list the checks with: bpe-conformance run --list-checks)"


def resolve_skips(entries: list[SkipEntry], checks: list[Check]) -> SkipPlan:
    """The :class:`SkipPlan` of ``entries``; an entry matching no check is a :class:`HarnessError`.

    ``checks`` is the whole catalogue, not only the selected checks, so one skip file serves every
    ``--check`` selection. When two entries cover the same check or clause, the first one's reason wins.
    """
    plan = SkipPlan()
    names = {check.name for check in checks}
    clauses = {clause for check in checks for clause in check.clauses}
    for entry in entries:
        if entry.name not in names | clauses:
            raise HarnessError(_unknown_entry_message(entry, names | clauses))
        if entry.name in names:
            plan.checks.setdefault(entry.name, entry.describe())
            continue
        plan.clauses.setdefault(entry.name, entry.describe())
        for check in checks:
            if check.clause == entry.name:
                plan.checks.setdefault(check.name, entry.describe())
    return plan


def read_skip_file(path: str | Path) -> str:
    """The text of the skip file at ``path`` (a regular UTF-8 file of at most ``MAX_SKIP_FILE_BYTES``).

    >>> read_skip_file("/dev/zero")
    Traceback (most recent call last):
    ...
    bpe_conformance.errors.HarnessError: skip file '/dev/zero' is not a regular file
    """
    return read_text_file(path, "skip file", MAX_SKIP_FILE_BYTES)


def load_skip_file(path: str | Path, checks: list[Check]) -> SkipPlan:
    """Read, parse and resolve the skip file at ``path`` (see the module docstring for the format)."""
    return resolve_skips(parse_skip_text(read_skip_file(path), str(path)), checks)


def skip_file_text(results: Iterable[CheckResult], harness: str) -> tuple[str, int]:
    """A skip file naming every check of ``results`` that did not succeed, and how many it names.

    Each entry's reason is the outcome, the clause and the first line of the message, so the file reads
    back through :func:`parse_skip_text` (the reason after ``#`` may hold anything but a line break).

    >>> from bpe_conformance.results.outcomes import Outcome
    >>> from bpe_conformance.results.outcomes import CheckResult
    >>> fail = CheckResult("tie-break", "BPE-TRAIN-TIE", (), "", Outcome.FAIL, "ties\\nmore", 9, 0.1)
    >>> text, count = skip_file_text([fail], "bpe-conformance 1")
    >>> count, [(entry.name, entry.reason) for entry in parse_skip_text(text, "s")]
    (1, [('tie-break', 'fail on BPE-TRAIN-TIE: ties')])
    """
    failed = [result for result in results if not result.outcome.counts_as_success]
    lines = [f"# Written by {harness} --write-skip-file: the checks this run did not pass.", ""]
    width = max((len(result.check) for result in failed), default=0)
    for result in failed:
        first_line = (result.message.splitlines() or [""])[0].strip()
        lines.append(f"{result.check:<{width}}  # {result.outcome.value} on {result.clause}: {first_line}")
    return "\n".join(lines) + "\n", len(failed)
