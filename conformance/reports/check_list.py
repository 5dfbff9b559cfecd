"""``run --list-checks``: the selected checks as aligned columns that never run into each other, or as JSON.

Each column is as wide as its longest entry; the summary comes last, so however long it is (or however
narrow the terminal), it wraps after the columns and never into them.

>>> from bpe_conformance.checks import ALL_CHECKS
>>> lines = check_list_lines(ALL_CHECKS[:2])
>>> lines[0].split()[:3]
['check', 'level', 'clause']
>>> len({line.index(" algorithm ") for line in lines[1:] if " algorithm " in line})
1
>>> check_list_records(ALL_CHECKS[:1])[0]["name"] == ALL_CHECKS[0].name
True
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bpe_conformance.checks.base import Check
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["check_list_json", "check_list_lines", "check_list_records"]

_HEADINGS = ("check", "level", "clause", "summary")
# A check that reports more clauses than this names how many (the vector checks report nearly all); JSON names each.
_ALSO_NAMED = 3


def check_list_records(checks: Sequence[Check]) -> list[JSONObject]:
    """One record per check: its name, level, clauses (the primary one first) and summary."""
    return [
        {"name": check.name, "level": check.level, "clauses": list(check.clauses), "summary": check.summary}
        for check in checks
    ]


def _summary(check: Check) -> str:
    others = [clause for clause in check.clauses if clause != check.clause]
    if not others:
        return check.summary
    also = ", ".join(others) if len(others) <= _ALSO_NAMED else f"{len(others)} other clauses"
    return f"{check.summary} (also {also})"


def check_list_lines(checks: Sequence[Check]) -> list[str]:
    """A heading and one line per check (its primary clause; the others after the summary), columns aligned."""
    rows = [_HEADINGS, *((check.name, check.level, check.clause, _summary(check)) for check in checks)]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    return ["  ".join([*(row[column].ljust(widths[column]) for column in range(3)), row[3]]) for row in rows]


def check_list_json(checks: Sequence[Check]) -> str:
    """The records as a JSON document (ASCII), ending in a newline."""
    return json.dumps({"checks": check_list_records(checks)}, indent=2, ensure_ascii=True) + "\n"
