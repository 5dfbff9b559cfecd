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

__all__ = ["positive_seconds"]


def positive_seconds(text: str) -> float:
    """A ``--timeout`` value: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"timeout must be a positive, finite number of seconds, got {text!r}")
    return value
