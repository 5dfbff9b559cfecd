"""``bpe-conformance trace``: watch the reference train, round by round, and encode step by step.

Documents come from the command line (``trace abab acac --merges 32``), from a text file with
one document per line (``--file``; universal newlines, so use ``--json-file`` for documents that
contain line breaks), or from a JSON file holding a list of strings (``--json-file``). Each round
shows every document's sequence, the counts and why the pair won; the trace ends with the round that
stopped training. ``--encode TEXT`` then encodes with the trained rules, one rule at a time in rank
order (``--wrong-order`` adds the same rules applied last first), or with a tokenizer file's rules
(``--rules FILE``) instead of training. ``--html PATH`` writes the same as one self-contained page.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bpe-conformance")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["trace", "abab", "--encode", "ab", "--encode", "ba", "--wrong-order"])
>>> args.documents, args.encode, args.wrong_order, args.max_docs
(['abab'], ['ab', 'ba'], True, 8)
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from bpe_conformance.cli.arguments import whole_number_at_least
from bpe_conformance.errors import HarnessError
from bpe_conformance.files import loads_bounded, read_text_file, writable_path, write_report
from bpe_conformance.reference import (
    digest,
    loads,
    reversed_ranks,
    trace_encoding,
    trace_training,
)
from bpe_conformance.reference.encoding_trace import EncodingTrace
from bpe_conformance.reports.common import plural
from bpe_conformance.reports.terminal import make_console
from bpe_conformance.teaching.encoding_view import encoding_lines
from bpe_conformance.teaching.lines import BLANK, HEADING, Line, print_lines
from bpe_conformance.teaching.page import render_page
from bpe_conformance.teaching.training_view import DEFAULT_MAX_DOCS, footnote_lines, training_lines

if TYPE_CHECKING:
    from pathlib import Path

    from bpe_conformance.reference.trace import TrainingTrace

__all__ = ["DEFAULT_MERGES", "DEFAULT_TOP", "MIN_WIDTH", "handle", "read_documents", "register"]

DEFAULT_MERGES = 32
DEFAULT_TOP = 5
MIN_WIDTH = 40


def register(subparsers: Any) -> None:
    """Add the ``trace`` parser."""
    parser = subparsers.add_parser(
        "trace",
        help="show the reference's training round by round, and encoding step by step",
        description=__doc__.split("\n\n>>>")[0].replace("``", "") if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("documents", nargs="*", metavar="DOCUMENT", help="training documents")
    sources = parser.add_mutually_exclusive_group()
    sources.add_argument("--file", metavar="PATH", help="read documents from a UTF-8 text file, one per line")
    sources.add_argument("--json-file", metavar="PATH", help="read documents from a JSON list of strings")
    sources.add_argument("--rules", metavar="FILE", help="encode with this tokenizer file's rules instead of training")
    parser.add_argument(
        "--merges",
        type=whole_number_at_least(0),
        default=DEFAULT_MERGES,
        metavar="N",
        help=f"max_merges (default {DEFAULT_MERGES})",
    )
    parser.add_argument(
        "--top",
        type=whole_number_at_least(0),
        default=DEFAULT_TOP,
        metavar="K",
        help=f"show each round's K highest pair counts; 0 hides them (default {DEFAULT_TOP})",
    )
    parser.add_argument(
        "--encode",
        action="append",
        metavar="TEXT",
        help="then encode TEXT step by step and decode it back (repeatable)",
    )
    parser.add_argument(
        "--wrong-order",
        action="store_true",
        help="with --encode: also apply the rules last first, to show what rank order changes",
    )
    parser.add_argument(
        "--max-docs",
        type=whole_number_at_least(0),
        default=DEFAULT_MAX_DOCS,
        metavar="N",
        help=f"show the sequences of the first N documents (default {DEFAULT_MAX_DOCS})",
    )
    parser.add_argument(
        "--width",
        type=whole_number_at_least(MIN_WIDTH),
        metavar="COLUMNS",
        help="fit the output to COLUMNS (default: the terminal's width, 100 in a pipe)",
    )
    parser.add_argument("--html", metavar="PATH", help="also write the walk-through as one self-contained HTML page")
    parser.set_defaults(handler=handle)


def _json_documents(path: str) -> list[str]:
    try:
        documents = loads_bounded(read_text_file(path, "--json-file"), f"--json-file {path!r}")
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
        text = read_text_file(args.file, "--file")
        return text.removesuffix("\n").split("\n") if text else []
    if args.json_file is not None:
        return _json_documents(args.json_file)
    return list(args.documents)


def _rules_file(path: str) -> list[tuple[int, int]]:
    try:
        return loads(read_text_file(path, "--rules"))
    except ValueError as error:
        raise HarnessError(f"--rules {path!r} is not a tokenizer file: {error}") from None


def _check_combinations(args: argparse.Namespace) -> None:
    if args.rules is not None and args.documents:
        raise HarnessError("give either training documents or --rules FILE, not both")
    if args.rules is not None and not args.encode:
        raise HarnessError("--rules needs at least one --encode TEXT: a tokenizer file is only encoded with")
    if args.wrong_order and not args.encode:
        raise HarnessError("--wrong-order needs at least one --encode TEXT")


Encodings = list[tuple[EncodingTrace, EncodingTrace | None]]


def _encodings(args: argparse.Namespace, rules: list[tuple[int, int]]) -> Encodings:
    encodings: Encodings = []
    for text in args.encode or []:
        try:
            right = trace_encoding(text, rules)
            wrong = trace_encoding(text, rules, order=reversed_ranks(len(rules))) if args.wrong_order else None
        except (TypeError, ValueError) as error:
            raise HarnessError(f"cannot encode --encode {text!r}: {error}") from None
        encodings.append((right, wrong))
    return encodings


def _write_page(path: Path, page: str) -> None:
    write_report(path, page, "--html")


def _inputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The files this trace reads, which no output may overwrite."""
    given = [("--file", args.file), ("--json-file", args.json_file), ("--rules", args.rules)]
    return [(option, path) for option, path in given if path is not None]


def handle(args: argparse.Namespace) -> int:
    """Train the reference (or read --rules), show every round and why training stopped, then each encoding."""
    _check_combinations(args)
    html_path = writable_path(args.html, "--html", _inputs(args)) if args.html is not None else None
    console = make_console(width=args.width)
    width = console.width
    trace: TrainingTrace | None = None
    if args.rules is not None:
        documents: list[str] = []
        rules = _rules_file(args.rules)
        lines = [Line(f"tokenizer {args.rules}: {plural(len(rules), 'rule')}, {digest(rules)}", HEADING)]
    else:
        documents = read_documents(args)
        try:
            trace = trace_training(documents, args.merges, top=args.top, kept_documents=args.max_docs)
        except (TypeError, ValueError) as error:
            raise HarnessError(f"cannot train on these documents: {error}") from None
        rules = [step.pair for step in trace.rounds]
        lines = training_lines(documents, trace, width=width, show_counts=args.top > 0)
    encodings = _encodings(args, rules)
    for right, wrong in encodings:
        lines += [BLANK, *encoding_lines(right, rules, wrong=wrong, width=width)]
    lines += footnote_lines(lines, width)
    print_lines(console, lines)
    if html_path is not None:
        title = f"BPE encoding with the rules of {args.rules}" if trace is None else None
        _write_page(html_path, render_page(documents, trace, encodings, rules=rules, title=title))
        console.print(f"wrote {html_path}", markup=False, highlight=False)
    return 0
