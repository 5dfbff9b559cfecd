"""The advisory notes of a run as the terminal shows them: each fact once, in the implementation's words.

An advisory is a SHOULD not followed (the other error family for a bad input, say); it never changes an
outcome. The validation checks and the invalid-input vectors often see the same one: notes that state one
preference (clause, family raised, family preferred) become one line naming every check that saw it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from bpe_conformance.reports.common import shown_message

if TYPE_CHECKING:
    from bpe_conformance.results.outcomes import SuiteResult

__all__ = ["ADVISORIES_SHOWN", "advisory_lines"]

ADVISORIES_SHOWN = 5
_PREFERENCE = re.compile(
    r"^\[(?P<clause>[A-Z0-9-]+)\] (?P<what>.*?): raised (?P<kind>[\w.]+)(?:: .*)?; "
    r"the specification prefers (?P<preferred>[\w.]+) \(a SHOULD\)$",
    re.DOTALL,
)


def advisory_lines(suite: SuiteResult, shown: int = ADVISORIES_SHOWN) -> list[str]:
    """The advisory notes (a SHOULD not followed; never a failure), each fact once: a heading, then the notes.

    Notes that say one thing (the other error family for one clause) are one line, however many checks and
    vectors saw it; the first ``shown`` lines are printed, and how many more the other reports hold.

    >>> from bpe_conformance.results.outcomes import CheckResult, Outcome, SuiteResult
    >>> same = "raised ValueError; the specification prefers TypeError (a SHOULD)"
    >>> notes = (f"[BPE-TRAIN-MAXMERGES] max_merges True: {same}",)
    >>> vector = (f"[BPE-TRAIN-MAXMERGES] vector invalid-1 (max_merges True): {same}", "[X] something else")
    >>> results = [
    ...     CheckResult("c", "X", ("X",), "", Outcome.PASS, "", 1, 0.0, level="interface", advisories=notes),
    ...     CheckResult("v", "X", ("X",), "", Outcome.PASS, "", 1, 0.0, level="interface", advisories=vector),
    ... ]
    >>> for line in advisory_lines(SuiteResult({}, results, 0, "dev", 0.1, "1"), shown=1):
    ...     print(line)
    <BLANKLINE>
    Advisories (3): a SHOULD not followed, never a failure
      [BPE-TRAIN-MAXMERGES] raised ValueError where TypeError is preferred, 2 times (c 1, v 1), e.g. max_merges True
      ... 1 more in the JSON, Markdown and JUnit reports
    """
    notes = [(result.check, note) for result in suite.results for note in result.advisories]
    if not notes:
        return []
    # One entry per fact, in the order first seen: a preference (clause, raised, preferred), or a note as it is.
    entries: dict[object, list[tuple[str, str]]] = {}
    for check, note in notes:
        match = _PREFERENCE.match(note)
        key = (match["clause"], match["kind"], match["preferred"]) if match else (check, note)
        entries.setdefault(key if match else note + "\0" + check, []).append((check, match["what"] if match else note))
    lines = [_advisory_line(key, seen) for key, seen in entries.items()]
    if len(lines) > shown:
        lines = [*lines[:shown], f"  ... {len(lines) - shown} more in the JSON, Markdown and JUnit reports"]
    return ["", f"Advisories ({len(notes)}): a SHOULD not followed, never a failure", *lines]


def _advisory_line(key: object, seen: list[tuple[str, str]]) -> str:
    if not isinstance(key, tuple):  # a note of its own kind, shown as it was written
        check, note = seen[0]
        return f"  {check}: {shown_message(note)}"
    clause, kind, preferred = key
    where = ", ".join(f"{check} {count}" for check, count in Counter(check for check, _ in seen).items())
    times = "once" if len(seen) == 1 else f"{len(seen)} times"
    return shown_message(
        f"  [{clause}] raised {kind} where {preferred} is preferred, {times} ({where}), e.g. {seen[0][1]}"
    )
