"""``bpe-conformance identify --impl SPEC``: which dialect profile explains an implementation.

Prints the verdict, how many probes each profile explains, and the counterexample against the
closest profile when none explains everything; then every parameter on its own, with the questions
that tell it, the closest named profile, the parameters that differ from it and the custom
``--profile`` string that judges the implementation by exactly those choices. Exit status: 0 a named
or a custom profile explains every answer, 1 no combination of documented values does (a parameter
fits no value, or a departure no parameter explains), 2 usage error (the implementation could not
be loaded).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bpe-conformance")
>>> identify_parser = register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["identify", "--impl", "bpe_conformance.reference:Tokenizer"])
>>> args.handler is handle, args.impl, args.json
(True, 'bpe_conformance.reference:Tokenizer', None)
>>> handle(args)  # doctest: +ELLIPSIS
implementation: reference (capabilities: train, load, encode, decode)
declared profile: strict (confirmed)
identified as: strict
...
0
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters import ISOLATIONS
from bpe_conformance.cli.arguments import add_limit_arguments, add_timeout_argument, limits_from
from bpe_conformance.dialects.identify import format_report, identify_spec
from bpe_conformance.errors import HarnessError
from bpe_conformance.files import STDOUT, writable_path, write_output
from bpe_conformance.reference.profile_spec import resolve_profile

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

__all__ = [
    "EXIT_IDENTIFIED",
    "EXIT_UNIDENTIFIED",
    "EXIT_USAGE",
    "handle",
    "register",
]

EXIT_IDENTIFIED = 0
EXIT_UNIDENTIFIED = 1
EXIT_USAGE = 2


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``identify`` subcommand to ``subparsers`` (from ``ArgumentParser.add_subparsers``)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "identify",
        help="find which dialect profile (strict, minbpe, hf-tokenizers, ...) explains an implementation",
        description="Probe an implementation with corpora that separate the dialect profiles of specs/profiles.md "
        "and report which profiles explain every observation.",
    )
    parser.add_argument(
        "--impl",
        required=True,
        metavar="SPEC",
        help="the implementation: module:attr (e.g. mypkg:Tok), cmd:<command line>, reference or reference-literal",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the full report as JSON to PATH (- for stdout)")
    parser.add_argument(
        "--isolation",
        choices=ISOLATIONS,
        default="process",
        help="run a module:attr implementation in its own process (default) or in the harness's",
    )
    parser.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="PROFILE",
        help="also judge by this profile (repeatable): a custom base+field=value+... such as "
        "strict+tie=first-seen+min_count=1, or a .toml/.json profile file",
    )
    add_timeout_argument(parser)
    add_limit_arguments(parser)
    parser.set_defaults(handler=handle)
    return parser


def _json_path(value: str | None) -> Path | None:
    # Checked before probing: a typo in the path must not cost the whole identification.
    return None if value is None else writable_path(value, "--json", stdout_allowed=True)


def handle(args: argparse.Namespace) -> int:
    """Run identification and print the report; optionally write it as JSON."""
    if not args.impl.strip():
        print("bpe-conformance identify: --impl is empty (an unset variable?)", file=sys.stderr)
        return EXIT_USAGE
    try:
        json_path = _json_path(args.json)
    except HarnessError as error:
        print(f"bpe-conformance identify: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        extra = [resolve_profile(value) for value in args.profile]
    except (ValueError, TypeError) as error:
        print(f"bpe-conformance identify: --profile: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        report = identify_spec(args.impl, args.isolation, args.timeout, limits_from(args), extra)
    except HarnessError as error:
        print(f"bpe-conformance identify: cannot load {args.impl!r}: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(
        format_report(report), file=sys.stderr if args.json == STDOUT else sys.stdout
    )  # --json -: stdout is the JSON's
    if json_path is not None:
        document = json.dumps(report.to_dict(), indent=2, ensure_ascii=True, default=repr)
        try:
            write_output(json_path, document + "\n")
        except OSError as error:
            reason = error.strerror or error
            print(f"bpe-conformance identify: cannot write {str(json_path)!r}: {reason}", file=sys.stderr)
            return EXIT_USAGE
    return EXIT_IDENTIFIED if report.judged_by_profile else EXIT_UNIDENTIFIED
