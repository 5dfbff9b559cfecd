"""The ``bpe-conformance`` command line; subcommands live in :mod:`bpe_conformance.cli.commands`.

Each module there exposes ``register(subparsers)``, which adds its parser and sets
``handler=handle``; ``handle(args)`` returns the exit code. Exit codes: 0 success, 1 the
implementation failed a check, 2 a usage or harness problem, 128 + the signal when interrupted
(130 SIGINT, 143 SIGTERM, 129 SIGHUP).

>>> main(["--version"])  # doctest: +ELLIPSIS
bpe-conformance ...
0
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import os
import pkgutil
import signal
import sys
from typing import TYPE_CHECKING

from bpe_conformance.adapters.signals import handled_signals
from bpe_conformance.cli import commands
from bpe_conformance.cli.arguments import OneLineErrorParser
from bpe_conformance.errors import HarnessError
from bpe_conformance.running.suite import HARNESS_NAME, harness_version
from bpe_conformance.settings import keep_storage_out_of_cwd

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "build_parser",
    "command_modules",
    "entry",
    "main",
]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
# What a shell reports for a process that SIGPIPE ended (Python ignores the signal and raises instead).
EXIT_BROKEN_PIPE = 128 + 13


def command_modules() -> list[tuple[str, ModuleType | BaseException]]:
    """Every module of :mod:`bpe_conformance.cli.commands` by name, or the error importing it raised."""
    found: list[tuple[str, ModuleType | BaseException]] = []
    for module_info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda info: info.name):
        if module_info.name.startswith("_"):
            continue
        try:
            found.append((module_info.name, importlib.import_module(f"{commands.__name__}.{module_info.name}")))
        except Exception as error:  # noqa: BLE001 - one broken subcommand must not take the others down
            found.append((module_info.name, error))
    return found


def _unavailable(name: str, error: BaseException) -> object:
    def handle(args: argparse.Namespace) -> int:  # noqa: ARG001 - every command handler takes the arguments
        raise HarnessError(f"the {name} command is unavailable: {type(error).__name__}: {error}")

    return handle


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per command module."""
    parser = OneLineErrorParser(
        prog=HARNESS_NAME,
        description="Byte-level BPE conformance: run the checks against an implementation, and explore the spec.",
        epilog="Exit codes: 0 success, 1 a check failed, 2 usage or harness error, 130/143/129 interrupted "
        "by SIGINT/SIGTERM/SIGHUP.",
    )
    parser.add_argument("--version", action="version", version=f"{HARNESS_NAME} {harness_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in command_modules():
        if isinstance(module, BaseException):
            # No option prefix: whatever follows the name is accepted, so the user learns why it is unavailable.
            broken = subparsers.add_parser(
                name, help=f"(unavailable: {type(module).__name__})", add_help=False, prefix_chars="\0"
            )
            broken.add_argument("rest", nargs=argparse.REMAINDER)
            broken.set_defaults(handler=_unavailable(name, module))
        elif callable(getattr(module, "register", None)):
            module.register(subparsers)
    return parser


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    return code if isinstance(code, int) else EXIT_USAGE


def _error(message: str) -> None:
    # One line, and printable whatever an implementation put in it (a lone surrogate, say).
    line = f"{HARNESS_NAME}: error: {message}".encode("utf-8", "backslashreplace").decode("utf-8")
    print(line, file=sys.stderr)


def _silence_stdout() -> None:
    # Python flushes stdout again at exit; pointed at /dev/null, that flush cannot fail a second time.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


# Taken at import, before any implementation is loaded (one in process could replace os._exit).
_EXIT = os._exit


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), run the chosen command and return its exit code."""
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exit_request:  # argparse's own errors (exit 2), --help and --version (exit 0)
            return _exit_status(exit_request.code)
        keep_storage_out_of_cwd()
        with handled_signals():
            code = int(args.handler(args))
        sys.stdout.flush()  # here, not at exit: a closed pipe is then caught below, not printed by Python
        return code
    except BrokenPipeError:  # `bpe-conformance identify ... | head -5`: the reader left; so do we, quietly
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except HarnessError as error:
        _error(str(error))
        return EXIT_USAGE
    except KeyboardInterrupt as interrupt:  # SIGINT, SIGTERM or SIGHUP; everything started is stopped
        signum = getattr(interrupt, "signum", signal.SIGINT)
        _error("interrupted" if signum == signal.SIGINT else f"interrupted by {signal.Signals(signum).name}")
        return 128 + signum


def entry() -> None:
    """The ``bpe-conformance`` command: :func:`main`, then ``os._exit`` with its code once everything is flushed.

    Ending with ``os._exit``: a non-daemon thread an in-process implementation left running cannot hang
    the harness after its verdict, and nothing run at interpreter exit can change the exit code. The
    exit handlers (the temporary hypothesis directory's removal) run first.
    """
    code = main()
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    _EXIT(code)
