"""``bpe-conformance bench``: the side-by-side performance benchmark of ``bench/``.

The benchmark lives in the repository's ``bench`` package, next to ``conformance``; when the
package is not importable (an installed CLI run from elsewhere) the checkout this module belongs
to is put on ``sys.path``.

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> register(parser.add_subparsers())
>>> arguments = parser.parse_args(["bench", "--quick", "--trainers", "fast"])
>>> arguments.handler is handle, arguments.quick, arguments.trainers
(True, True, 'fast')
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_conformance.errors import HarnessError

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["handle", "register"]

_CHECKOUT = Path(__file__).resolve().parents[3]


def _bench_module(name: str) -> ModuleType:
    try:
        return importlib.import_module(f"bench.{name}")
    except ModuleNotFoundError:
        if not (_CHECKOUT / "bench" / "run.py").is_file():
            raise
        sys.path.insert(0, str(_CHECKOUT))
        return importlib.import_module(f"bench.{name}")


def register(subparsers: Any) -> None:
    """Add the ``bench`` subcommand and its options."""
    parser = subparsers.add_parser(
        "bench",
        help="time the literal and fast engines against HF tokenizers, rustbpe and tiktoken",
        description="Benchmark training and encoding side by side; see docs/performance.md.",
    )
    try:
        bench_run = _bench_module("run")
    except ModuleNotFoundError:
        # An installed wheel has no bench/ (it measures the repository's engines against other libraries).
        parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        parser.set_defaults(handler=_needs_checkout)
        return
    bench_run.add_arguments(parser)
    parser.set_defaults(handler=handle)


def _needs_checkout(args: argparse.Namespace) -> int:  # noqa: ARG001 - every command handler takes the arguments
    raise HarnessError("bench needs a checkout of the repository: its bench/ package is not installed")


def handle(args: argparse.Namespace) -> int:
    """Run the benchmark with the parsed options; 0 when at least one engine ran."""
    try:
        value: int = _bench_module("run").execute(args)
        return value
    except ValueError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 2
