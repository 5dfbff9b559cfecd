"""``bpe-conformance vectors generate|check``: rewrite the known-answer vectors, or prove they are current.

Strict's files are ``specs/vectors/*.json``, every other profile's ``specs/vectors/<profile>/*.json``;
both actions cover every profile unless ``--profile`` names some. ``check`` reads the vectors shipped with the
package by default; ``generate`` writes them there only in a repository checkout, and needs ``--dir`` when the
package is installed from a wheel (nothing is ever written inside the installed package).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bpe-conformance")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["vectors", "check", "--profile", "minbpe"])
>>> args.vectors_action, args.profile, args.handler is handle
('check', ['minbpe'], True)
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_conformance.errors import HarnessError
from bpe_conformance.files import loads_bounded, read_text_file
from bpe_conformance.spec.resources import checkout_root
from bpe_conformance.vectors.files import (
    VECTOR_PROFILES,
    VECTORS_DIR,
    profile_directory,
    profile_files,
    read_vector_files,
    validate_vectors,
)
from bpe_conformance.vectors.output import check_up_to_date, write_vectors

if TYPE_CHECKING:
    import argparse

__all__ = ["handle", "register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``vectors`` command and its ``generate`` and ``check`` actions."""
    parser = subparsers.add_parser(
        "vectors",
        help="regenerate or check the known-answer vectors of every profile",
        description="The vectors in specs/vectors/ (strict) and specs/vectors/<profile>/ are generated from the "
        "reference; check that they are current.",
    )
    actions = parser.add_subparsers(dest="vectors_action", required=True, metavar="{generate,check}")
    for name, summary in (
        ("generate", "rewrite the vector files from the reference"),
        ("check", "exit 1 unless the files validate against the schema and equal a fresh generation"),
    ):
        action = actions.add_parser(name, help=summary, description=summary)
        default = "the repository's specs/vectors; required when installed" if name == "generate" else VECTORS_DIR
        action.add_argument("--dir", type=Path, help=f"vector directory (default: {default})")
        action.add_argument(
            "--profile",
            action="append",
            choices=VECTOR_PROFILES,
            metavar="NAME",
            help=f"only this profile (repeatable; default: all of {', '.join(VECTOR_PROFILES)})",
        )
    parser.set_defaults(handler=handle)


def _generate(directory: Path, profiles: list[str]) -> int:
    if directory.exists() and not directory.is_dir():
        raise HarnessError(f"--dir {directory}: is not a directory")
    try:
        written = write_vectors(directory, profiles)
    except OSError as error:
        raise HarnessError(f"--dir {directory}: cannot write the vector files: {error.strerror or error}") from None
    for path in written:
        print(f"wrote {path}")
    return 0


def _readable_bounded(directory: Path, profiles: list[str]) -> None:
    """Each vector file present is a regular file of bounded size, nesting and numbers: else one line, exit 2.

    Before anything reads them: a FIFO would block, ``/dev/zero`` never end, deep nesting overflow.
    """
    for profile in profiles:
        for name in profile_files(profile):
            path = profile_directory(profile, directory) / name
            if os.path.lexists(path):
                with contextlib.suppress(json.JSONDecodeError):  # malformed: the check below reports it
                    loads_bounded(read_text_file(path, "vector file"), f"vector file {str(path)!r}")


def _check(directory: Path, profiles: list[str]) -> int:
    if not directory.is_dir():
        raise HarnessError(f"--dir {directory}: is not a directory")
    _readable_bounded(directory, profiles)
    problems = []
    for profile in profiles:
        try:
            found = validate_vectors(read_vector_files(directory, profile), profile)
        except (OSError, ValueError) as error:  # a missing or unparsable file
            found = [f"cannot read the vector files: {error}"]
        problems += [problem if profile == "strict" else f"{profile}/{problem}" for problem in found]
    problems += check_up_to_date(directory, profiles)
    for problem in problems:
        print(problem)
    if problems:
        print("the vectors are not current; run `bpe-conformance vectors generate` and review the diff")
        return 1
    print(f"vectors of {len(profiles)} profiles in {directory} validate and are up to date")
    return 0


def handle(args: argparse.Namespace) -> int:
    """Run the chosen action; the exit code is 0 on success, 1 when ``check`` finds a difference."""
    profiles = list(dict.fromkeys(args.profile or VECTOR_PROFILES))
    if args.vectors_action == "generate":
        return _generate(_generated_directory(args.dir), profiles)
    return _check(args.dir or VECTORS_DIR, profiles)


def _generated_directory(given: Path | None) -> Path:
    if given is not None:
        return given
    if checkout_root() is None:
        raise HarnessError("vectors generate: give --dir DIR (installed, the package's own files stay as shipped)")
    return VECTORS_DIR
