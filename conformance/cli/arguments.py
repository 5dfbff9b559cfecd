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
from collections.abc import Callable
from typing import Any, NoReturn

from bpe_conformance.adapters.subprocess import DEFAULT_TIMEOUT

__all__ = ["OneLineErrorParser", "add_timeout_argument", "positive_seconds", "whole_number_at_least"]


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
