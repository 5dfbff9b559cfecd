"""``bpe-conformance trace``: watch the reference train, round by round.

Documents come from the command line (``trace abab acac --merges 32``), from a text file with
one document per line (``--file``; universal newlines, so use ``--json-file`` for documents that
contain line breaks), or from a JSON file holding a list of strings (``--json-file``).

>>> piece_text(b"ab"), piece_text(b"\\xe4\\xbd")
("'ab'", '')
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.table import Table
from rich.text import Text

from conformance.cli.arguments import non_negative
from conformance.errors import HarnessError
from conformance.files import read_text_file
from conformance.reports.common import plural
from conformance.reports.terminal import make_console, print_wide
from reference import TrainingTrace, piece_hex, trace_training, vocab_size

__all__ = ["DEFAULT_MERGES", "DEFAULT_TOP", "handle", "piece_text", "read_documents", "register", "trace_table"]

DEFAULT_MERGES = 32
DEFAULT_TOP = 5
MAX_TIES_SHOWN = 8


def register(subparsers: Any) -> None:
    """Add the ``trace`` parser."""
    parser = subparsers.add_parser(
        "trace",
        help="show the reference's training round by round",
        description=__doc__.split("\n\n>>>")[0].replace("``", "") if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("documents", nargs="*", metavar="DOCUMENT", help="training documents")
    sources = parser.add_mutually_exclusive_group()
    sources.add_argument("--file", metavar="PATH", help="read documents from a UTF-8 text file, one per line")
    sources.add_argument("--json-file", metavar="PATH", help="read documents from a JSON list of strings")
    parser.add_argument(
        "--merges", type=non_negative, default=DEFAULT_MERGES, metavar="N",
        help=f"max_merges (default {DEFAULT_MERGES})",
    )
    parser.add_argument(
        "--top", type=non_negative, default=DEFAULT_TOP, metavar="K",
        help=f"show each round's K highest pair counts; 0 hides them (default {DEFAULT_TOP})",
    )
    parser.set_defaults(handler=handle)


def _read_text(path: str, what: str) -> str:
    return read_text_file(path, what)


def _json_documents(path: str) -> list[str]:
    try:
        documents = json.loads(_read_text(path, "--json-file"))
    except json.JSONDecodeError as error:
        raise HarnessError(f"--json-file {path!r} is not valid JSON: {error}") from None
    if not isinstance(documents, list):
        raise HarnessError(f"--json-file {path!r} must hold a JSON list of strings, not {type(documents).__name__}")
    for index, document in enumerate(documents):
        if not isinstance(document, str):
            raise HarnessError(f"--json-file {path!r}: item {index} is {type(document).__name__}, not a string")
    return documents


def read_documents(args: argparse.Namespace) -> list[str]:
    """The documents named by exactly one of: positional arguments, ``--file``, ``--json-file``."""
    given = [bool(args.documents), args.file is not None, args.json_file is not None]
    if sum(given) != 1:
        raise HarnessError("give the documents either as arguments, or with --file, or with --json-file")
    if args.file is not None:
        text = _read_text(args.file, "--file")
        return text.removesuffix("\n").split("\n") if text else []
    if args.json_file is not None:
        return _json_documents(args.json_file)
    return list(args.documents)


def piece_text(piece: bytes) -> str:
    """The piece as a Python string literal when it is whole UTF-8, else empty (its hex says it all)."""
    try:
        return repr(piece.decode("utf-8"))
    except UnicodeDecodeError:
        return ""


def _pairs(pairs: list[tuple[int, int]], limit: int) -> str:
    shown = " ".join(f"({first},{second})" for first, second in pairs[:limit])
    return shown + (f" +{len(pairs) - limit} more" if len(pairs) > limit else "")


def trace_table(trace: TrainingTrace, top: int) -> Table:
    """The trace as a rich table, one row per merge round."""
    table = Table(title="Training trace (reference, strict profile)", title_justify="left")
    table.add_column("rank", justify="right")
    table.add_column("pair", no_wrap=True)
    table.add_column("count", justify="right")
    table.add_column("new id", justify="right")
    table.add_column("piece (hex)")
    table.add_column("piece (text)")
    if top:
        table.add_column(f"top {top} counts")
    table.add_column("tie candidates")
    table.add_column("length", justify="right", no_wrap=True)
    for step in trace.rounds:
        ties = _pairs(step.tie_candidates, MAX_TIES_SHOWN) if len(step.tie_candidates) > 1 else ""
        first, second = step.pair
        row: list[str | Text] = [
            str(step.rank), f"({first}, {second})", str(step.count), str(step.new_id),
            piece_hex(step.piece), Text(piece_text(step.piece)),
        ]
        if top:
            row.append(" ".join(f"({a},{b})x{count}" for (a, b), count in step.top_counts))
        row += [ties, f"{step.length_before} -> {step.length_after}"]
        table.add_row(*row)
    return table


def handle(args: argparse.Namespace) -> int:
    """Train the reference on the documents and show every round, then why training stopped."""
    documents = read_documents(args)
    try:
        trace = trace_training(documents, args.merges, top=args.top)
    except (TypeError, ValueError) as error:
        raise HarnessError(f"cannot train on these documents: {error}") from None
    console = make_console()
    total = sum(len(document.encode("utf-8")) for document in documents)
    console.print(f"{plural(len(documents), 'document')}, {plural(total, 'byte')}, max_merges {args.merges}")
    print_wide(console, trace_table(trace, args.top))
    console.print(Text(f"stopped: {trace.stop_reason}"))
    rules = [step.pair for step in trace.rounds]
    console.print(f"rules made: {len(rules)} (vocabulary size {vocab_size(rules)})")
    return 0
