"""Argument types shared by the subcommands (a module starting with ``_`` is no subcommand).

>>> positive_seconds("2.5")
2.5
>>> positive_seconds("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: timeout must be a positive, finite number of seconds, got '0'
>>> whole_number_at_least(1)("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be at least 1, got 0
>>> parser = OneLineErrorParser(prog="bpe-conformance")
>>> _ = parser.add_argument("--duration", type=positive_seconds)
>>> parser.parse_args(["--duration", "-5"])
Traceback (most recent call last):
...
SystemExit: 2
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from bpe_conformance.adapters.limits import (
    DEFAULT_MEMORY_LIMIT,
    ProcessLimits,
    format_size,
    memory_size,
    variable_name,
)
from bpe_conformance.adapters.subprocess import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "OneLineErrorParser",
    "add_limit_arguments",
    "add_timeout_argument",
    "limits_from",
    "memory_size",
    "positive_seconds",
    "variable_name",
    "whole_number_at_least",
]


def positive_seconds(text: str) -> float:
    """A ``--timeout`` value: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"timeout must be a positive, finite number of seconds, got {text!r}")
    return value


def add_timeout_argument(parser: argparse.ArgumentParser) -> None:
    """``--timeout SECONDS``, the limit per call to an implementation in its own process."""
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"limit per call to the implementation, process isolation only (default {DEFAULT_TIMEOUT:g})",
    )


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """``--memory-limit``, ``--clean-env``, ``--env`` and ``--temp-cwd``: limits for an implementation process."""
    group = parser.add_argument_group("limits for an implementation in its own process (specs/protocol.md)")
    group.add_argument(
        "--memory-limit",
        type=memory_size,
        default=DEFAULT_MEMORY_LIMIT,
        metavar="SIZE",
        help="most memory the implementation's process may allocate (RLIMIT_DATA), e.g. 512M or 4G; none or 0 "
        f"for no limit; running out is the outcome memory-limit, never a deviation "
        f"(default {format_size(DEFAULT_MEMORY_LIMIT).replace(' GiB', 'G')})",
    )
    group.add_argument(
        "--clean-env",
        action="store_true",
        help="give the implementation only PATH, HOME, LANG, LC_*, TMPDIR, TZ and the like, plus what the harness "
        "must pass and --env adds, instead of the whole environment",
    )
    group.add_argument(
        "--env",
        action="append",
        default=[],
        type=variable_name,
        metavar="NAME",
        help="with --clean-env, pass this variable too (repeatable)",
    )
    group.add_argument(
        "--temp-cwd",
        action="store_true",
        help="run the implementation in a new temporary directory, removed afterwards (a relative command path "
        "is resolved first; relative paths among its arguments are not)",
    )


def limits_from(args: argparse.Namespace) -> ProcessLimits:
    """The :class:`ProcessLimits` the parsed ``add_limit_arguments`` options ask for."""
    return ProcessLimits(
        memory_bytes=args.memory_limit,
        clean_env=args.clean_env,
        passed_env=tuple(dict.fromkeys(args.env)),
        temp_cwd=args.temp_cwd,
    )


def whole_number_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number no smaller than ``minimum`` (``--jobs``, ``--merges``, ...)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            bound = "non-negative" if minimum == 0 else f"at least {minimum}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    return parse


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line and a pointer to ``--help``, not the usage block.

    A value that starts with a minus and a digit (``--duration -5s``, ``--seed -1``) is taken as the option's
    value, so its own validation names what is wrong with it, rather than "expected one argument".
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # No option of this command line starts with a digit, so nothing starting "-<digit>" can be one.
        self._negative_number_matcher = re.compile(r"^-\d")

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)
