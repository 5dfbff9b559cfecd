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
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from bpe_conformance.adapters.subprocess import DEFAULT_TIMEOUT

__all__ = ["add_timeout_argument", "positive_seconds", "whole_number_at_least"]


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
