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
declared profile: strict (confirmed)
identified as: strict
...
0
"""

from __future__ import annotations

import argparse
import builtins
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.adapters import COMMAND_PREFIX, ISOLATIONS, load_implementation, split_spec
from conformance.adapters.subprocess import DEFAULT_TIMEOUT
from conformance.commands._arguments import add_timeout_argument
from conformance.errors import HarnessError, ImplementationRaised
from conformance.files import writable_path
from conformance.identify import IdentifyReport, format_report, identify
from conformance.subject import Subject

__all__ = [
    "EXIT_IDENTIFIED",
    "EXIT_UNIDENTIFIED",
    "EXIT_USAGE",
    "SubjectContract",
    "contract_factory",
    "handle",
    "identify_spec",
    "register",
]

EXIT_IDENTIFIED = 0
EXIT_UNIDENTIFIED = 1
EXIT_USAGE = 2


def _exception_type(kind: str) -> type[Exception]:
    """The built-in exception named ``kind``, or a new Exception subclass of that name (``PanicException``)."""
    found = getattr(builtins, kind, None)
    if isinstance(found, type) and issubclass(found, Exception):
        return found
    return type(kind, (Exception,), {})


class SubjectContract:
    """A :class:`Subject` back in the plug-in contract: errors are re-raised as exceptions of their named type.

    >>> from conformance.adapters import load_implementation
    >>> contract = SubjectContract(load_implementation("reference", isolation="inprocess"))
    >>> contract.train(["abab", "acac"], 32), contract.profile
    ([(97, 98), (97, 99)], 'strict')
    >>> contract.decode([228])
    Traceback (most recent call last):
    ...
    ValueError: ids decode to invalid UTF-8 at byte offset 0 (unexpected end of data): e4
    """

    def __init__(self, subject: Subject) -> None:
        self._subject = subject
        self.name = subject.info.name
        self.version = subject.info.version
        self.profile = subject.info.profile
        self.capabilities = frozenset(subject.info.capabilities)

    def _call(self, method: Callable[..., Any], *args: Any) -> Any:
        try:
            return method(*args)
        except ImplementationRaised as raised:
            raise _exception_type(raised.kind)(raised.message) from None

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return self._call(self._subject.train, documents, max_merges)

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        self._call(self._subject.load, rules)
        return [(int(first), int(second)) for first, second in rules]

    def encode(self, text: str) -> list[int]:
        return self._call(self._subject.encode, text)

    def decode(self, ids: list[int]) -> str:
        return self._call(self._subject.decode, ids)


def contract_factory(subject: Subject) -> Callable[[], SubjectContract]:
    """A factory of fresh plug-in-contract objects: each call resets ``subject`` (a new instance or process)."""

    def fresh() -> SubjectContract:
        subject.reset()
        return SubjectContract(subject)

    return fresh


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
        help="the implementation: module:attr (e.g. reference:Tokenizer) or cmd:<command line>",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the full report as JSON to PATH")
    parser.add_argument(
        "--isolation",
        choices=ISOLATIONS,
        default="process",
        help="run a module:attr implementation in its own process (default) or in the harness's",
    )
    add_timeout_argument(parser)
    parser.set_defaults(handler=handle)
    return parser


def identify_spec(spec: str, isolation: str = "process", timeout: float = DEFAULT_TIMEOUT) -> IdentifyReport:
    """Identify the implementation ``module:attr`` or ``cmd:<command line>`` names; HarnessError if it cannot load.

    Every implementation is probed through its subject (a fresh model per probe), so a hang, an
    exit or a ``SystemExit`` in it is an observation, never the end of the command. A ``cmd:``
    program always runs in its own process; ``module:attr`` runs where ``isolation`` says.
    """
    if not spec.strip().startswith(COMMAND_PREFIX):
        split_spec(spec.strip())  # module:attr only (no shortcuts), as identify has always taken
    subject = load_implementation(spec, isolation=isolation, timeout=timeout)
    try:
        return identify(contract_factory(subject))
    finally:
        subject.close()


def _json_path(value: str | None) -> Path | None:
    # Checked before probing: a typo in the path must not cost the whole identification.
    return None if value is None else writable_path(value, "--json")


def handle(args: argparse.Namespace) -> int:
    """Run identification and print the report; optionally write it as JSON."""
    try:
        json_path = _json_path(args.json)
    except HarnessError as error:
        print(f"bpe-conformance identify: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        report = identify_spec(args.impl, args.isolation, args.timeout)
    except HarnessError as error:
        print(f"bpe-conformance identify: cannot load {args.impl!r}: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(format_report(report))
    if json_path is not None:
        document = json.dumps(report.to_dict(), indent=2, ensure_ascii=True, default=repr)
        try:
            json_path.write_text(document + "\n", encoding="utf-8")
        except OSError as error:
            reason = error.strerror or error
            print(f"bpe-conformance identify: cannot write {str(json_path)!r}: {reason}", file=sys.stderr)
            return EXIT_USAGE
    return EXIT_IDENTIFIED if report.identified else EXIT_UNIDENTIFIED
