"""``bpe-conformance matrix``: every installed implementation through the suite, written to ``docs/matrix.md``.

Runs the reference, the strict Node.js fixture and every third-party adapter whose library is
installed, each under ``strict`` and under its declared profile, with one fixed seed. Prints a line
per implementation as it goes. Exit 0 once the matrix is written (failures are its content, not an
error); 2 when the output path is unusable.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from conformance.files import writable_path
from conformance.matrix.render import render_matrix
from conformance.matrix.run import run_matrix

__all__ = ["DEFAULT_OUTPUT", "handle", "register"]

DEFAULT_OUTPUT = "docs/matrix.md"


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``matrix`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "matrix",
        help="run every installed implementation under strict and its declared profile; write docs/matrix.md",
        description=__doc__.replace("``", "") if __doc__ else None,
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="hypothesis seed for every run (default 0)")
    parser.add_argument(
        "--output", default=DEFAULT_OUTPUT, metavar="PATH", help=f"where to write (default {DEFAULT_OUTPUT})"
    )
    parser.set_defaults(handler=handle)
    return parser


def handle(args: argparse.Namespace) -> int:
    """Run the matrix with the ``dev`` effort and write it."""
    output = writable_path(args.output, "--output")
    results, missing = run_matrix(args.seed, "dev", say=lambda line: print(line, file=sys.stderr, flush=True))
    output.write_text(render_matrix(results, missing, args.seed, "dev"), encoding="utf-8")
    print(f"wrote {output}: {len(results)} implementations, {len(missing)} not installed")
    return 0
