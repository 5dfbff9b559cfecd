"""``bpe-conformance matrix``: every installed implementation through the suite, written as docs/matrix.{md,html,json}.

Runs the reference, the strict Node.js fixture and every third-party adapter whose library is
installed, each under ``strict`` and under its declared profile, with one fixed seed, and prints a
line per implementation as it goes. Writes the Markdown table (``--output``), the browsable page
(``--html``) and the JSON document both are rendered from (``--json``), all three from one run.
``--from MATRIX.json`` renders a document already made instead of running; ``--diff OLD.json``
prints which cells changed since an older document (other library versions, rows, checks). Exit 0
once the matrix is written (failures are its content, not an error); 2 when a path or a document is
unusable.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bpe_conformance.files import writable_path, write_report
from bpe_conformance.matrix.diff import diff_matrices, format_diff
from bpe_conformance.matrix.page import render_page
from bpe_conformance.matrix.record import dumps_matrix, matrix_document, read_matrix
from bpe_conformance.matrix.render import render_markdown
from bpe_conformance.matrix.run import run_matrix

__all__ = ["DEFAULT_HTML", "DEFAULT_JSON", "DEFAULT_OUTPUT", "handle", "register"]

DEFAULT_OUTPUT = "docs/matrix.md"
DEFAULT_HTML = "docs/matrix.html"
DEFAULT_JSON = "docs/matrix.json"


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``matrix`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "matrix",
        help="run every installed implementation under strict and its declared profile; write docs/matrix.*",
        description=__doc__.replace("``", "") if __doc__ else None,
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="hypothesis seed for every run (default 0)")
    parser.add_argument(
        "--output", default=DEFAULT_OUTPUT, metavar="PATH", help=f"the Markdown table (default {DEFAULT_OUTPUT})"
    )
    parser.add_argument(
        "--html",
        default=DEFAULT_HTML,
        metavar="PATH",
        help=f"the self-contained page: filters, a click per cell (default {DEFAULT_HTML})",
    )
    parser.add_argument(
        "--json",
        default=DEFAULT_JSON,
        metavar="PATH",
        help=f"the document both are rendered from, kept for --diff (default {DEFAULT_JSON})",
    )
    parser.add_argument(
        "--from",
        dest="source",
        metavar="MATRIX.json",
        help="render this matrix document instead of running the implementations",
    )
    parser.add_argument("--diff", metavar="OLD.json", help="print the cells that changed since this matrix document")
    parser.set_defaults(handler=handle)
    return parser


def handle(args: argparse.Namespace) -> int:
    """Run the matrix with the ``dev`` effort (or read ``--from``), write the three files, print ``--diff``."""
    inputs = [(option, path) for option, path in (("--from", args.source), ("--diff", args.diff)) if path]
    outputs = [
        (writable_path(getattr(args, option), f"--{option}", inputs), option) for option in ("output", "html", "json")
    ]
    old = read_matrix(args.diff, "--diff") if args.diff else None
    if args.source:
        document = read_matrix(args.source, "--from")
    else:
        results, missing = run_matrix(args.seed, "dev", say=lambda line: print(line, file=sys.stderr, flush=True))
        document = matrix_document(results, missing, args.seed, "dev")
    renderers = {"output": render_markdown, "html": render_page, "json": dumps_matrix}
    for path, option in outputs:
        write_report(path, renderers[option](document), f"--{option}")
    rows, missing = document["implementations"], document["not_installed"]
    print(
        f"wrote {', '.join(str(path) for path, _ in outputs)}: {len(rows)} implementations, "
        f"{len(missing)} not installed"
    )
    if old is not None:
        print(format_diff(diff_matrices(old, document)))
    return 0
