"""``bpe-conformance identify --impl SPEC``: which dialect profile explains an implementation.

Prints the verdict, how many probes each profile explains, and the counterexample against the
closest profile when none explains everything. Exit status: 0 identified, 1 no profile fits,
2 usage error (the implementation could not be loaded).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bpe-conformance")
>>> identify_parser = register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["identify", "--impl", "reference:Tokenizer"])
>>> args.handler is handle, args.impl, args.json
(True, 'reference:Tokenizer', None)
>>> handle(args)  # doctest: +ELLIPSIS
implementation: reference (capabilities: train, load, encode, decode)
identified as: strict
...
0
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.identify import format_report, identify

__all__ = ["EXIT_IDENTIFIED", "EXIT_UNIDENTIFIED", "EXIT_USAGE", "handle", "register"]

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
    parser.add_argument("--impl", required=True, metavar="SPEC", help="the implementation, as module:attr")
    parser.add_argument("--json", metavar="PATH", help="also write the full report as JSON to PATH")
    parser.set_defaults(handler=handle)
    return parser


def _load_factory(spec: str) -> Callable[[], Any]:
    # Stand-in until conformance.adapters.load_implementation (module:attr and cmd:...) is wired here.
    module_name, separator, attribute = spec.partition(":")
    if not separator or not module_name or not attribute:
        raise ValueError(f"--impl must look like module:attr, got {spec!r}")
    target: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"--impl {spec!r} names a {type(target).__name__}, not a class or factory")
    return target


def handle(args: argparse.Namespace) -> int:
    """Run identification and print the report; optionally write it as JSON."""
    try:
        factory = _load_factory(args.impl)
    except (ImportError, AttributeError, ValueError, TypeError) as error:
        print(f"bpe-conformance identify: cannot load {args.impl!r}: {error}", file=sys.stderr)
        return EXIT_USAGE
    report = identify(factory)
    print(format_report(report))
    if args.json:
        document = json.dumps(report.to_dict(), indent=2, ensure_ascii=False, default=repr)
        Path(args.json).write_text(document + "\n", encoding="utf-8")
    return EXIT_IDENTIFIED if report.identified else EXIT_UNIDENTIFIED
