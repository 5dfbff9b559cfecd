"""``bpe-conformance handshake --impl cmd:...``: a protocol smoke test for an implementation in another language.

Starts the program, shows the handshake exactly as it went over the wire (``>`` what the harness sent,
``<`` what the program answered), what the harness understood of it, then one small request and its
response for each declared capability (``train``, ``load``, ``encode``, ``decode``). Nothing is judged
here beyond the protocol (specs/protocol.md): an error answer is a well-formed answer; whether the
answers are right is what ``bpe-conformance run`` is for. A protocol error (a crash, a timeout, a line
that is not a response, an answer of the wrong shape) is spelled out with the tail of the program's
stderr. Exit status: 0 every exchange followed the protocol; 1 a call broke it; 2 a usage error, or the
handshake itself failed (as ``run`` stops on it).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bpe-conformance")
>>> register(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["handshake", "--impl", "cmd:node bpe.mjs"])
>>> args.handler is handle, args.impl, args.timeout
(True, 'cmd:node bpe.mjs', 10.0)
"""

from __future__ import annotations

import shlex
import shutil
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters import COMMAND_PREFIX
from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.cli.arguments import add_limit_arguments, add_timeout_argument, limits_from
from bpe_conformance.errors import CallAborted, HarnessError, ImplementationRaised, MalformedResult
from bpe_conformance.reports.common import cut

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

__all__ = ["EXIT_PROTOCOL_ERROR", "SAMPLE_CALLS", "TranscribedSubject", "handle", "register"]

EXIT_PROTOCOL_ERROR = 1
# A wire line is shown up to this many characters (a reply may be megabytes).
_LINE_CHARS = 400

# One small call per capability, in the order a new implementation usually grows them: what it is, and how.
SAMPLE_CALLS: tuple[tuple[str, str, Callable[[ProcessSubject], Any]], ...] = (
    ("train", 'train(["abab", "acac"], 2)', lambda subject: subject.train(["abab", "acac"], 2)),
    ("load", "load([(97, 98)])", lambda subject: subject.load([(97, 98)])),
    ("encode", 'encode("abab")', lambda subject: subject.encode("abab")),
    ("decode", "decode([97, 98])", lambda subject: subject.decode([97, 98])),
)


class TranscribedSubject(ProcessSubject):
    """A :class:`ProcessSubject` that keeps every line it sent and received, the handshake's included."""

    def __init__(self, argv: list[str], transcript: list[tuple[str, bytes]], **options: Any) -> None:
        self.transcript = transcript  # before the handshake, which the constructor performs
        super().__init__(argv, **options)

    def _send(self, running: Any, operation: str, data: bytes, deadline: float, seconds: float) -> None:
        self.transcript.append((">", data))
        super()._send(running, operation, data, deadline, seconds)

    def _await_line(self, running: Any, operation: str, deadline: float, seconds: float) -> bytes:
        line = super()._await_line(running, operation, deadline, seconds)
        self.transcript.append(("<", line))
        return line


def register(subparsers: Any) -> None:
    """Add the ``handshake`` parser."""
    parser = subparsers.add_parser(
        "handshake",
        help="start a cmd: implementation, show its handshake and one request/response per capability",
        description=__doc__.split("\n\n>>>")[0].replace("``", "") if __doc__ else None,
    )
    parser.add_argument("--impl", required=True, metavar="cmd:COMMAND", help="the program, as run --impl takes it")
    add_timeout_argument(parser)
    add_limit_arguments(parser)
    parser.set_defaults(handler=handle)


def _argv(spec: str) -> list[str]:
    if not spec.strip():
        raise HarnessError("--impl is empty (an unset variable?)")
    if not spec.startswith(COMMAND_PREFIX):
        raise HarnessError(f"--impl {spec!r}: handshake speaks the protocol to cmd:<command line> implementations only")
    try:
        argv = shlex.split(spec[len(COMMAND_PREFIX) :])
    except ValueError as error:
        raise HarnessError(f"--impl {spec!r}: cannot split the command line: {error}") from None
    if not argv:
        raise HarnessError(f"--impl {spec!r}: the command line is empty")
    if shutil.which(argv[0]) is None:
        raise HarnessError(f"--impl {spec!r}: executable {argv[0]!r} not found (or not executable)")
    return argv


def _print_wire(transcript: list[tuple[str, bytes]], shown: int) -> int:
    """Print the lines of ``transcript`` from ``shown`` on; the count printed so far."""
    for direction, data in transcript[shown:]:
        text = data.decode("utf-8", "backslashreplace").rstrip("\n")
        print(f"  {direction} {cut(text, _LINE_CHARS)}")
    return len(transcript)


def handle(args: argparse.Namespace) -> int:
    """Start the program, show the handshake and one exchange per capability; see the module's exit statuses."""
    argv = _argv(args.impl)
    transcript: list[tuple[str, bytes]] = []
    print(f"handshake with {args.impl}")
    try:
        subject = TranscribedSubject(argv, transcript, timeout=args.timeout, label=args.impl, limits=limits_from(args))
    except HarnessError:
        _print_wire(transcript, 0)
        raise  # the reason, with the stderr tail: one error, exit 2, as `run` would stop
    shown = _print_wire(transcript, 0)
    info = subject.info
    print(f"  understood: {info.name} {info.version}, {info.language}, profile {info.profile}")
    print(f"  capabilities: {', '.join(sorted(info.capabilities)) or 'none'}")
    try:
        for capability, call, perform in SAMPLE_CALLS:
            if capability not in info.capabilities:
                print(f"{call}: not declared, not sent")
                continue
            print(f"{call}:")
            try:
                returned = perform(subject)
                shown = _print_wire(transcript, shown)
                print(f"  understood: {'no result (adopted)' if returned is None else repr(returned)}")
            except ImplementationRaised as raised:  # an error answer is a well-formed answer
                shown = _print_wire(transcript, shown)
                print(f"  understood: an error answer, {raised.kind}: {raised.message}")
            except MalformedResult as malformed:
                shown = _print_wire(transcript, shown)
                print(f"  protocol error: {malformed}")
                return EXIT_PROTOCOL_ERROR
            except CallAborted as aborted:
                shown = _print_wire(transcript, shown)
                print(f"  protocol error ({aborted.outcome}): {aborted.detail}")
                return EXIT_PROTOCOL_ERROR
    finally:
        subject.close()
    judge = f"bpe-conformance run --impl {shlex.quote(args.impl)}"
    print(f"every exchange followed the protocol; `{judge}` judges the answers")
    return 0
