"""Argument types shared by the subcommands (a module starting with ``_`` is no subcommand).

>>> positive_seconds("2.5")
2.5
>>> positive_seconds("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: timeout must be a positive, finite number of seconds, got '0'
"""

from __future__ import annotations

import argparse

from conformance.adapters.subprocess import DEFAULT_TIMEOUT

__all__ = ["add_timeout_argument", "non_negative", "positive_seconds"]


def non_negative(text: str) -> int:
    """A count such as ``--merges``: a whole number, 0 or more.

    >>> non_negative("32")
    32
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be non-negative, got {value}")
    return value


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
