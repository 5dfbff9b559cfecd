"""``bpe-conformance matrix``: every installed implementation through the suite, written as docs/matrix.{md,html,json}.

Runs the reference, the strict Node.js fixture and every third-party adapter whose library is
installed, each under ``strict`` and under its declared profile, with one fixed seed, and prints a
line per implementation as it goes. Writes the Markdown table (``--output``), the browsable page
(``--html``) and the JSON document both are rendered from (``--json``), all three from one run.
``--from MATRIX.json`` renders a document already made instead of running; ``--diff OLD.json``
prints which cells changed since an older document (other library versions, rows, checks). In a
repository checkout the three files default to its docs/; installed from a wheel, only the files named
are written (at least one of --output, --html, --json, unless --diff alone is wanted). Exit 0 once
the matrix is written (failures are its content, not an error); 2 when a path or a document is unusable.

``--production DIR`` also runs the production matrix (issue 29): every real encoder of
bpe_conformance.matrix.production.PRODUCTION_ROWS that is installed, on the released rank files in DIR
(cl100k_base.tiktoken, o200k_base.tiktoken: tools/packaged_vocabulary.py writes them), judged by the
production checks; it is a second table in the same three files. With --from, the algorithm matrix is
taken from that document and only the production matrix is run. Without --production, the production
matrix of the document read (--from), or else of the --json file being replaced, is kept as it was.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_conformance.cli.arguments import add_limit_arguments, limits_from, whole_number_at_least
from bpe_conformance.errors import HarnessError
from bpe_conformance.files import writable_path, write_report
from bpe_conformance.matrix.diff import diff_matrices, format_diff
from bpe_conformance.matrix.page import render_page
from bpe_conformance.matrix.production import run_production_matrix
from bpe_conformance.matrix.record import dumps_matrix, matrix_document, read_matrix
from bpe_conformance.matrix.render import render_markdown
from bpe_conformance.matrix.run import run_matrix
from bpe_conformance.spec.resources import checkout_root

if TYPE_CHECKING:
    import argparse

    from bpe_conformance.reference.json_values import JSONObject

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
    parser.add_argument(
        "--seed",
        type=whole_number_at_least(0),
        default=0,
        metavar="N",
        help="hypothesis seed for every run (default 0)",
    )
    parser.add_argument(
        "--output", metavar="PATH", help=f"the Markdown table (default in a checkout: {DEFAULT_OUTPUT})"
    )
    parser.add_argument(
        "--html",
        metavar="PATH",
        help=f"the self-contained page: filters, a click per cell (default in a checkout: {DEFAULT_HTML})",
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        help=f"the document both are rendered from, kept for --diff (default in a checkout: {DEFAULT_JSON})",
    )
    parser.add_argument(
        "--from",
        dest="source",
        metavar="MATRIX.json",
        help="render this matrix document instead of running the implementations",
    )
    parser.add_argument("--diff", metavar="OLD.json", help="print the cells that changed since this matrix document")
    parser.add_argument(
        "--production",
        metavar="DIR",
        help="also run the production matrix: real encoders on the rank files in DIR (cl100k_base.tiktoken, ...)",
    )
    add_limit_arguments(parser)
    parser.set_defaults(handler=handle)
    return parser


def _destinations(args: argparse.Namespace) -> dict[str, str]:
    """The files to write, by option: those named, and in a checkout its docs/matrix.* for the others."""
    named = {option: getattr(args, option) for option in ("output", "html", "json") if getattr(args, option)}
    root = checkout_root()
    if root is not None:
        defaults = {"output": DEFAULT_OUTPUT, "html": DEFAULT_HTML, "json": DEFAULT_JSON}
        return {option: named.get(option) or str(root / default) for option, default in defaults.items()}
    if not named and not args.diff:
        raise HarnessError("matrix: say where to write with --output, --html or --json (installed, there is no docs/)")
    return named


def _production_folder(value: str | None) -> Path | None:
    """``--production DIR`` checked before anything runs: an existing folder."""
    if value is None:
        return None
    folder = Path(value)
    if not folder.is_dir():
        raise HarnessError(f"--production {value}: not a directory (tools/packaged_vocabulary.py DIR writes the files)")
    return folder


def _keep_production(document: JSONObject, json_path: Path | None) -> None:
    """The production matrix of the ``--json`` file about to be replaced, carried into ``document`` (never lost)."""
    if json_path is None or not json_path.is_file():
        return
    try:
        previous = read_matrix(json_path, "--json")
    except HarnessError:
        return  # not a matrix document this version reads: there is nothing to keep
    if "production" in previous:
        document["production"] = previous["production"]
        print(f"kept the production matrix of {json_path} (refresh it with --production DIR)", file=sys.stderr)


def handle(args: argparse.Namespace) -> int:
    """Run the matrix with the ``dev`` effort (or read ``--from``), write the three files, print ``--diff``."""
    inputs = [(option, path) for option, path in (("--from", args.source), ("--diff", args.diff)) if path]
    outputs = [(writable_path(path, f"--{option}", inputs), option) for option, path in _destinations(args).items()]
    old = read_matrix(args.diff, "--diff") if args.diff else None
    folder = _production_folder(args.production)
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    if args.source:
        document = read_matrix(args.source, "--from")
    else:
        results, missing = run_matrix(args.seed, "dev", say=say, limits=limits_from(args))
        document = matrix_document(results, missing, args.seed, "dev")
        _keep_production(document, dict((option, path) for path, option in outputs).get("json"))
    if folder is not None:
        production = run_production_matrix(folder, document["seed"], document["effort"], say=say)
        rebuilt = matrix_document([], [], document["seed"], document["effort"], production)
        document["production"] = rebuilt["production"]
        if "--production" not in document["generated_by"]["command"]:
            document["generated_by"]["command"] += " --production VOCABULARIES"
    renderers = {"output": render_markdown, "html": render_page, "json": dumps_matrix}
    for path, option in outputs:
        write_report(path, renderers[option](document), f"--{option}")
    rows, missing = document["implementations"], document["not_installed"]
    written = f"wrote {', '.join(str(path) for path, _ in outputs)}: " if outputs else ""
    print(f"{written}{len(rows)} implementations, {len(missing)} not installed")
    if old is not None:
        print(format_diff(diff_matrices(old, document)))
    return 0
