"""Lines of a teaching view: text already fitted to the width, and a style that only a terminal shows.

Views build a list of :class:`Line`; :func:`print_lines` prints them styled on a terminal and as plain
text in a pipe, so the output can be read, pasted or checked the same way either way.

>>> import io
>>> from rich.console import Console
>>> console = Console(file=io.StringIO(), width=40)
>>> print_lines(console, [Line("round 0", HEADING), Line("  counts  (97, 98)×2")])
>>> console.file.getvalue()
'round 0\\n  counts  (97, 98)×2\\n'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from collections.abc import Iterable

    from rich.console import Console

__all__ = ["BLANK", "EMPHASIS", "HEADING", "NOTE", "Line", "print_lines"]

HEADING = "bold"
EMPHASIS = "bold cyan"
NOTE = "dim"


@dataclass(frozen=True)
class Line:
    """One line of output and its style (empty: none)."""

    text: str
    style: str = ""


BLANK = Line("")


def print_lines(console: Console, lines: Iterable[Line]) -> None:
    """Each line as it is: never re-wrapped (views fit their own lines), styled only on a terminal."""
    for line in lines:
        style = line.style if console.is_terminal else ""
        console.print(
            Text(line.text, style=style),
            overflow="ignore",
            crop=False,
            no_wrap=True,
            markup=False,
            highlight=False,
            emoji=False,
        )
