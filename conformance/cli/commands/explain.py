"""``bpe-conformance explain CLAUSE...``: print clauses of ``specs/bpe.md`` and what stands behind them.

Each clause comes in document order (normative text, why it matters, examples and the commentary
around them), then the checks that enforce it, the vectors that exercise it and the zoo members that
break it. A clause may be named by a glob (``'BPE-TRAIN-*'``). Output is styled and wrapped by a
terminal; piped, it is plain text wrapped at the width (``$COLUMNS``, else 100), examples never wrapped.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bpe-conformance")
>>> explain = register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["explain", "bpe-rule-id", "BPE-TRAIN-*"])
>>> args.handler is handle, args.clauses, args.list
(True, ['bpe-rule-id', 'BPE-TRAIN-*'], False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console, RenderableType
from rich.rule import Rule

from bpe_conformance.reports.terminal import make_console
from bpe_conformance.spec.clauses import Clause, load_clauses, matching_clauses
from bpe_conformance.teaching.clause_view import (
    clause_links,
    plain_clause,
    plain_listing,
    styled_clause,
    styled_listing,
)

if TYPE_CHECKING:
    import argparse

__all__ = ["EXIT_OK", "EXIT_USAGE", "handle", "register", "selected_clauses"]

EXIT_OK = 0
EXIT_USAGE = 2


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``explain`` subcommand to ``subparsers`` (from ``ArgumentParser.add_subparsers``)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "explain",
        help="print clauses of the strict specification with their examples, checks, vectors and zoo members",
        description=__doc__.split("\n\n>>>")[0].replace("``", "") if __doc__ else None,
    )
    parser.add_argument(
        "clauses",
        metavar="CLAUSE",
        nargs="*",
        help="a clause id such as BPE-TRAIN-TIE (any case), or a glob such as 'BPE-TRAIN-*'",
    )
    parser.add_argument("--list", action="store_true", help="list every clause id with its title")
    parser.set_defaults(handler=handle)
    return parser


def selected_clauses(patterns: list[str]) -> list[Clause]:
    """The clauses the patterns name, each once, in document order; a ValueError names a pattern matching none."""
    wanted = {clause.id for pattern in patterns for clause in matching_clauses(pattern)}
    return [clause for clause_id, clause in load_clauses().items() if clause_id in wanted]


def _show(console: Console, styled: RenderableType, plain: str) -> None:
    if console.is_terminal:
        console.print(styled)
    else:
        # Plain text is printed as-is: the views wrapped it, and examples must stay whole.
        console.print(plain, end="", markup=False, highlight=False, soft_wrap=True, emoji=False)


def _usage(errors: Console, message: str) -> int:
    errors.print(f"explain: {message}", markup=False, highlight=False, soft_wrap=True)
    return EXIT_USAGE


def handle(args: argparse.Namespace, console: Console | None = None, errors: Console | None = None) -> int:
    """Print the clauses named by ``args.clauses`` (or every clause id with ``--list``); 2 on a bad name."""
    console = console or make_console()
    errors = errors or Console(stderr=True)
    if args.list and args.clauses:
        return _usage(errors, "give either clause ids or --list, not both")
    if args.list:
        clauses = list(load_clauses().values())
        _show(console, styled_listing(clauses), plain_listing(clauses))
        return EXIT_OK
    if not args.clauses:
        return _usage(errors, "give a clause id such as BPE-TRAIN-TIE, a glob such as 'BPE-TRAIN-*', or --list")
    try:
        clauses = selected_clauses(args.clauses)
    except (TypeError, ValueError) as error:
        return _usage(errors, str(error))
    for number, clause in enumerate(clauses):
        links = clause_links(clause.id)
        if number:
            _show(console, Rule(style="dim"), "\n")
        _show(console, styled_clause(clause, links), plain_clause(clause, links, console.width))
    return EXIT_OK
