"""A clause as ``explain`` shows it: its parts in document order, prose wrapped, then what stands behind it.

Behind every clause stand the checks that enforce it, the known-answer vectors that exercise it and
the zoo members that break it (:func:`clause_links`); one screen shows all four, so the way from the
text to its proof is a glance, not three searches.

>>> from bpe_conformance.spec.clauses import get_clause
>>> links = clause_links("BPE-TRAIN-TIE")
>>> [check.name for check in links.checks], "ties-to-largest-pair" in [member.name for member in links.members]
(['tie-break'], True)
>>> text = plain_clause(get_clause("BPE-RULE-PIECE"), links=clause_links("BPE-RULE-PIECE"), width=72)
>>> text.index("Example 1") < text.index("The first piece, `bd 8e`")  # commentary after its example
True
"""

from __future__ import annotations

import functools
import re
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.rule import Rule
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.checks.production import PRODUCTION_CHECKS
from bpe_conformance.vectors.files import load_vectors
from bpe_conformance.zoo import ZOO

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bpe_conformance.checks.base import Check
    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.spec.clauses import Clause
    from bpe_conformance.zoo.base import ZooMember

__all__ = [
    "MAX_NAMED",
    "ClauseLinks",
    "clause_links",
    "links_lines",
    "plain_clause",
    "plain_listing",
    "styled_clause",
    "styled_listing",
    "wrap_prose",
]

MAX_NAMED = 6
_LIST_ITEM = re.compile(r"^(\s*)([*-]|\d+\.)\s+")
_LABEL = "  {:<9}"


@dataclass(frozen=True)
class ClauseLinks:
    """What stands behind one clause: checks (its own, and others that may report it), vectors by file,
    zoo members (that break it, and that also show under it)."""

    checks: tuple[Check, ...]
    reporting_checks: tuple[Check, ...]
    vectors: dict[str, list[JSONObject]]
    members: tuple[type[ZooMember], ...]
    also_members: tuple[type[ZooMember], ...]


# The default suite's checks, and those only run --vocabulary runs (production configuration).
_EVERY_CHECK = (*ALL_CHECKS, *PRODUCTION_CHECKS)


@functools.cache
def _vectors() -> dict[str, list[JSONObject]]:
    return load_vectors(validate=False)


def clause_links(clause_id: str) -> ClauseLinks:
    """The checks, vectors and zoo members that name ``clause_id``."""
    vectors = {name: [vector for vector in file if clause_id in vector["clauses"]] for name, file in _vectors().items()}
    return ClauseLinks(
        checks=tuple(check for check in _EVERY_CHECK if check.clause == clause_id),
        reporting_checks=tuple(check for check in _EVERY_CHECK if clause_id in check.also),
        vectors={name: found for name, found in vectors.items() if found},
        members=tuple(member for member in ZOO if member.clause == clause_id),
        also_members=tuple(member for member in ZOO if clause_id in member.also),
    )


def _named(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_NAMED])
    return shown + (f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else "")


def _links_entries(links: ClauseLinks) -> list[tuple[str, str]]:
    checks = "; ".join(f"{check.name} ({check.level})" for check in links.checks) or "none of its own"
    if links.reporting_checks:
        checks += f"; also reported by {_named([check.name for check in links.reporting_checks])}"
    total = sum(len(found) for found in links.vectors.values())
    if total:
        first = next(iter(links.vectors.values()))[0]
        files = ", ".join(f"{len(found)} in specs/vectors/{name}" for name, found in links.vectors.items())
        vectors = f"{total}: {files}; e.g. {first['id']} ({first['description']})"
    else:
        vectors = "none (a fixed answer cannot show it)"
    if links.members:
        zoo = f"members that break it: {_named([member.name for member in links.members])}"
    else:
        zoo = "no member breaks it first"
    if links.also_members:
        zoo += f"; that also show under it: {_named([member.name for member in links.also_members])}"
    if links.members:
        zoo += (
            f". Their counterexamples: docs/bug-zoo.md; to see one found: bpe-conformance run --impl "
            f"bpe_conformance.zoo:{links.members[0].__name__}"
        )
    return [("checks", checks), ("vectors", vectors), ("zoo", zoo)]


def links_lines(links: ClauseLinks, width: int) -> list[str]:
    """Checks, vectors and zoo members as labelled, wrapped lines."""
    lines = ["Enforced by"]
    for label, text in _links_entries(links):
        first = _LABEL.format(label)
        lines += textwrap.wrap(
            text,
            max(width, 40),
            initial_indent=first,
            subsequent_indent=" " * len(first),
            break_long_words=False,
            break_on_hyphens=False,
        )
    return lines


def wrap_prose(paragraph: str, width: int) -> str:
    """A Markdown paragraph re-wrapped to ``width``: list items keep a hanging indent, code blocks and
    tables are left as written."""
    if paragraph.startswith("```") or paragraph.lstrip().startswith("|"):
        return paragraph
    items: list[list[str]] = []
    for line in paragraph.split("\n"):
        if _LIST_ITEM.match(line) or not items:
            items.append([line])
        else:
            items[-1].append(line)
    wrapped = []
    for item in items:
        marker = _LIST_ITEM.match(item[0])
        lead = marker.group() if marker else ""
        body = " ".join(" ".join(item)[len(lead) :].split())
        wrapped += textwrap.wrap(
            body,
            max(width, 40),
            initial_indent=lead,
            subsequent_indent=" " * len(lead),
            break_long_words=False,
            break_on_hyphens=False,
        )
    return "\n".join(wrapped)


def plain_clause(clause: Clause, links: ClauseLinks | None = None, width: int = 100) -> str:
    """The clause as plain text, in document order: heading, paragraphs and examples as they come, the why
    paragraph where it stands; prose wrapped to ``width``, code as written; then ``links``."""
    parts = [f"{clause.id} — {clause.title}"]
    number = 0
    for block in clause.blocks:
        if block.kind == "example" and block.example is not None:
            number += 1
            parts.append(f"Example {number} (specs/bpe.md line {block.example.line}):\n{block.text.rstrip()}")
        elif block.kind == "why":
            parts.append(wrap_prose(f"Why it matters. {block.text}", width))
        else:
            parts.append(wrap_prose(block.text, width))
    if links is not None:
        parts.append("\n".join(links_lines(links, width)))
    return "\n\n".join(parts) + "\n"


def styled_clause(clause: Clause, links: ClauseLinks | None = None) -> RenderableType:
    """The clause for a terminal: the same parts in the same order, wrapped by the terminal, code highlighted."""
    parts: list[RenderableType] = [Rule(Text(f"{clause.id} — {clause.title}", style="bold"), align="left")]
    number = 0
    for block in clause.blocks:
        if block.kind == "example" and block.example is not None:
            number += 1
            parts.append(Text(f"\nExample {number} (specs/bpe.md line {block.example.line})", style="dim"))
            parts.append(Syntax(block.text.rstrip(), "pycon", word_wrap=True))
        elif block.kind == "why":
            parts += [Text(""), Text.assemble(("Why it matters. ", "bold"), block.text)]
        else:
            parts += [Text(""), Markdown(block.text)]
    if links is not None:
        parts.append(Text(""))
        parts.append(Text("Enforced by", style="bold"))
        table = Table(show_header=False, box=None, padding=(0, 1, 0, 2))
        table.add_column("what", style="bold", no_wrap=True)
        table.add_column("which")
        for label, text in _links_entries(links):
            table.add_row(label, text)
        parts.append(table)
    return Group(*parts)


def plain_listing(clauses: Sequence[Clause]) -> str:
    """One line per clause: the id, padded, then the title."""
    width = max((len(clause.id) for clause in clauses), default=0)
    return "".join(f"{clause.id:<{width}}  {clause.title}\n" for clause in clauses)


def styled_listing(clauses: Sequence[Clause]) -> RenderableType:
    """The same listing as a table."""
    table = Table(show_header=True, header_style="bold", box=None)
    table.add_column("clause", no_wrap=True)
    table.add_column("title")
    for clause in clauses:
        table.add_row(clause.id, clause.title)
    return table
