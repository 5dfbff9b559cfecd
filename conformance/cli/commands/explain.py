"""``bpe-conformance explain CLAUSE``: print a clause of ``specs/bpe.md``, why it matters, and its examples.

Output is styled on a terminal and plain text otherwise, so it can be piped or pasted into a report.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bpe-conformance")
>>> explain = register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["explain", "bpe-rule-id"])
>>> args.handler is handle, args.clause, args.list
(True, 'bpe-rule-id', False)
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.markdown import Markdown
from rich.rule import Rule
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from conformance.spec.clauses import Clause, get_clause, load_clauses

__all__ = ["EXIT_OK", "EXIT_USAGE", "handle", "plain_clause", "plain_listing", "register"]

EXIT_OK = 0
EXIT_USAGE = 2


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``explain`` subcommand to ``subparsers`` (from ``ArgumentParser.add_subparsers``)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "explain",
        help="print a clause of the strict specification with its rationale and worked examples",
        description="Print a clause of specs/bpe.md: its normative text, why it matters, and its examples.",
    )
    parser.add_argument("clause", metavar="CLAUSE", nargs="?", help="a clause id such as BPE-TRAIN-TIE (any case)")
    parser.add_argument("--list", action="store_true", help="list every clause id with its title")
    parser.set_defaults(handler=handle)
    return parser


def plain_clause(clause: Clause) -> str:
    """The clause as plain text: heading, normative text, rationale, then each example.

    >>> print(plain_clause(load_clauses()["BPE-VOCAB-SIZE"]).splitlines()[0])
    BPE-VOCAB-SIZE — Vocabulary size counts the rules actually made
    """
    parts = [f"{clause.id} — {clause.title}", clause.text, f"Why it matters. {clause.why}"]
    for number, example in enumerate(clause.examples, start=1):
        parts.append(f"Example {number} (specs/bpe.md line {example.line}):\n{example.source.rstrip()}")
    return "\n\n".join(parts) + "\n"


def plain_listing(clauses: list[Clause]) -> str:
    """One line per clause: the id, padded, then the title.

    >>> print(plain_listing(list(load_clauses().values())).splitlines()[0])
    BPE-ALPHA-BYTES       Ids 0–255 are the bytes
    """
    width = max((len(clause.id) for clause in clauses), default=0)
    return "".join(f"{clause.id:<{width}}  {clause.title}\n" for clause in clauses)


def _styled_clause(clause: Clause) -> RenderableType:
    parts: list[RenderableType] = [
        Rule(Text(f"{clause.id} — {clause.title}", style="bold"), align="left"),
        Markdown(clause.text),
        Text(""),
        Text.assemble(("Why it matters. ", "bold"), clause.why),
    ]
    for number, example in enumerate(clause.examples, start=1):
        parts.append(Text(f"\nExample {number} (specs/bpe.md line {example.line})", style="dim"))
        parts.append(Syntax(example.source.rstrip(), "pycon", word_wrap=True))
    return Group(*parts)


def _styled_listing(clauses: list[Clause]) -> RenderableType:
    table = Table(show_header=True, header_style="bold", box=None)
    table.add_column("clause", no_wrap=True)
    table.add_column("title")
    for clause in clauses:
        table.add_row(clause.id, clause.title)
    return table


def _show(console: Console, styled: RenderableType, plain: str) -> None:
    if console.is_terminal:
        console.print(styled)
    else:
        # Plain text is printed as-is: no markup, no highlighting, no re-wrapping at 80 columns.
        console.print(plain, end="", markup=False, highlight=False, soft_wrap=True, emoji=False)


def handle(args: argparse.Namespace, console: Console | None = None, errors: Console | None = None) -> int:
    """Print the clause named by ``args.clause`` (or every clause id with ``--list``); 2 on a bad id."""
    console = console or Console()
    errors = errors or Console(stderr=True)
    if args.list and args.clause is not None:
        errors.print("explain: give either a clause id or --list, not both", markup=False, highlight=False)
        return EXIT_USAGE
    if args.list:
        clauses = list(load_clauses().values())
        _show(console, _styled_listing(clauses), plain_listing(clauses))
        return EXIT_OK
    if args.clause is None:
        errors.print("explain: give a clause id such as BPE-TRAIN-TIE, or --list", markup=False, highlight=False)
        return EXIT_USAGE
    try:
        clause = get_clause(args.clause)
    except ValueError as error:
        errors.print(f"explain: {error}", markup=False, highlight=False, soft_wrap=True)
        return EXIT_USAGE
    _show(console, _styled_clause(clause), plain_clause(clause))
    return EXIT_OK
