"""``bpe-conformance vectors generate|check``: rewrite the known-answer vectors, or prove they are current.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bpe-conformance")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["vectors", "check"])
>>> args.vectors_action, args.handler is handle
('check', True)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.errors import HarnessError
from conformance.vectors.generate import (
    VECTORS_DIR,
    check_up_to_date,
    read_vector_files,
    validate_vectors,
    write_vectors,
)

__all__ = ["handle", "register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``vectors`` command and its ``generate`` and ``check`` actions."""
    parser = subparsers.add_parser(
        "vectors",
        help="regenerate or check the known-answer vectors",
        description="The vectors in specs/vectors/ are generated from the reference; check that they are current.",
    )
    actions = parser.add_subparsers(dest="vectors_action", required=True, metavar="{generate,check}")
    for name, summary in (
        ("generate", "rewrite the vector files from the reference"),
        ("check", "exit 1 unless the files validate against the schema and equal a fresh generation"),
    ):
        action = actions.add_parser(name, help=summary, description=summary)
        action.add_argument("--dir", type=Path, default=VECTORS_DIR, help="vector directory (default: %(default)s)")
    parser.set_defaults(handler=handle)


def _generate(directory: Path) -> int:
    if directory.exists() and not directory.is_dir():
        raise HarnessError(f"--dir {directory}: is not a directory")
    try:
        written = write_vectors(directory)
    except OSError as error:
        raise HarnessError(f"--dir {directory}: cannot write the vector files: {error.strerror or error}") from None
    for path in written:
        print(f"wrote {path}")
    return 0


def _check(directory: Path) -> int:
    if not directory.is_dir():
        raise HarnessError(f"--dir {directory}: is not a directory")
    try:
        problems = validate_vectors(read_vector_files(directory))
    except (OSError, ValueError) as error:  # a missing or unparsable file
        problems = [f"cannot read the vector files: {error}"]
    problems += check_up_to_date(directory)
    for problem in problems:
        print(problem)
    if problems:
        print("the vectors are not current; run `bpe-conformance vectors generate` and review the diff")
        return 1
    print(f"vectors in {directory} validate and are up to date")
    return 0


def handle(args: argparse.Namespace) -> int:
    """Run the chosen action; the exit code is 0 on success, 1 when ``check`` finds a difference."""
    if args.vectors_action == "generate":
        return _generate(args.dir)
    return _check(args.dir)
