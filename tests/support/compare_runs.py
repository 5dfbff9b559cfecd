"""Running ``bpe-conformance compare`` from a test: its exit code, its JSON report (validated), what it printed.

Also the first divergence computed without ``compare``: the literal reference and an implementation,
both trained in the test's own process, first differ at :func:`independent_divergence`; and three
implementations with one failure each.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonschema

from bpe_conformance.cli.main import main
from bpe_conformance.compare.report import SCHEMA_PATH
from bpe_conformance.reference import Tokenizer, encode
from tests.support.tie_variants import LargestTies

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "CompareRun",
    "LargestTiesWithoutLoad",
    "RaisesInTrain",
    "SkipsLastRule",
    "independent_divergence",
    "rerun",
    "run_compare",
    "signature",
]

Pair = tuple[int, int]


@dataclass(frozen=True)
class CompareRun:
    code: int
    report: dict[str, Any] | None
    out: str
    err: str


def run_compare(capsys: Any, tmp_path: Path, *arguments: str) -> CompareRun:
    """``bpe-conformance compare ARGUMENTS --json <tmp>``; the report is checked against its schema."""
    report_path = tmp_path / f"report-{len(list(tmp_path.glob('report-*.json')))}.json"
    capsys.readouterr()
    code = main(["compare", *arguments, "--json", str(report_path)])
    captured = capsys.readouterr()
    report = None
    if report_path.exists():
        report = json.loads(report_path.read_text(encoding="ascii"))
        jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    return CompareRun(code, report, captured.out, captured.err)


def rerun(capsys: Any, tmp_path: Path, command: str) -> CompareRun:
    """Run a printed ``bpe-conformance compare ...`` command."""
    words = shlex.split(command)
    assert words[:2] == ["bpe-conformance", "compare"], command
    return run_compare(capsys, tmp_path, *words[2:])


def signature(divergence: dict[str, Any] | None) -> tuple[int, Pair | None, Pair | None] | None:
    """``(round, expected pair, actual pair)`` of a report's ``first_divergence``."""
    if divergence is None:
        return None

    def pair(side: dict[str, Any] | None) -> Pair | None:
        return None if side is None else (side["pair"][0], side["pair"][1])

    return divergence["round"], pair(divergence["expected"]), pair(divergence["actual"])


def independent_divergence(expected: list[Pair], actual: list[Pair]) -> tuple[int, Pair | None, Pair | None] | None:
    """The first round where two rule lists differ, and each one's rule there (None: it has none)."""
    for rank, (wanted, made) in enumerate(zip(expected, actual)):  # noqa: B905 - unequal lengths handled below
        if wanted != made:
            return rank, wanted, made
    if len(expected) == len(actual):
        return None
    rank = min(len(expected), len(actual))
    return rank, (expected[rank] if rank < len(expected) else None), (actual[rank] if rank < len(actual) else None)


# --- implementations the compare tests run ---


class RaisesInTrain(Tokenizer):
    """Raises on every train call: the ``error`` outcome."""

    name = "raises-in-train"

    def train(self, documents: list[str], max_merges: int) -> list[Pair]:
        raise RuntimeError("ran out of scratch space")


class SkipsLastRule(Tokenizer):
    """Trains correctly, but its encoder never applies the last rule."""

    name = "skips-last-rule"

    def encode(self, text: str) -> list[int]:
        return encode(text, self.rules[:-1])


# LargestTies is a class made by type() at run time, a variable to mypy.
class LargestTiesWithoutLoad(LargestTies):  # type: ignore[valid-type, misc]
    """Ties to the largest pair, and no ``load``: its own rules are all it can encode with."""

    name = "largest-ties-without-load"
    capabilities = frozenset({"train", "encode", "decode"})
