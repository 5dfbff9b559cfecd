"""Reports people read once (issue 28): each fact once, in the user's words, and nothing hidden or bloated.

A failing vector is named by its id, not by the whole vector; look-alike and invisible characters are shown
escaped, with their UTF-8 bytes; an advisory the validation checks and the invalid-input vectors both saw is
one line that names no class of the harness.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, NoReturn

from bpe_conformance.cli.main import main
from bpe_conformance.reference import Tokenizer
from bpe_conformance.reports.common import counterexample_lines

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

BUILTIN_ERRORS = "bpe_conformance.zoo.controls:BuiltinErrorsValidator"


class ExitsInTrain(Tokenizer):
    """Its process exits when asked to train, so a training vector ends in a crash, not in a comparison."""

    name = "exits-in-train"

    def train(self, documents: list[str], max_merges: int) -> NoReturn:
        os._exit(3)


def test_an_error_on_a_vector_names_the_vector_by_its_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.json"
    argv = ["run", "--impl", f"{__name__}:ExitsInTrain", "--check", "vectors-training"]
    assert main([*argv, "--json", str(report)]) == 1
    out = capsys.readouterr().out
    (result,) = json.loads(report.read_text(encoding="ascii"))["results"]
    assert result["outcome"] == "crash"
    vector = result["counterexample"]["inputs"]["vector"]
    assert vector.startswith("train-")
    assert result["counterexample"]["inputs"] == {"vector": vector}
    assert f'inputs: {{"vector": "{vector}"}}' in out
    assert "'documents'" not in out
    assert len(report.read_bytes()) < 4000


def test_look_alike_characters_are_escaped_with_their_bytes() -> None:
    lines = counterexample_lines({"inputs": {"text": "\ufeffe\u0301"}, "expected": [239], "actual": [101]})
    assert 'inputs, escaped: {"text": "\\ufeffe\\u0301"}' in lines
    assert 'utf-8 of "\\ufeffe\\u0301": ef bb bf 65 cc 81' in lines
    nfc_nfd = counterexample_lines({"expected": "\u00e9", "actual": "e\u0301"})
    assert 'expected, escaped: "\\u00e9"' in nfc_nfd
    assert 'actual, escaped: "e\\u0301"' in nfc_nfd


def test_plain_text_gets_no_escaped_lines() -> None:
    lines = counterexample_lines({"inputs": {"text": "héllo wörld 低\n"}, "expected": [1], "actual": [2]})
    assert len(lines) == 3
    assert not any("escaped" in line for line in lines)


def test_an_advisory_seen_by_two_checks_is_one_line_in_the_users_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    argv = ["run", "--impl", BUILTIN_ERRORS, "--check", "max-merges-validation", "--check", "vectors-invalid"]
    assert main([*argv, "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "ImplementationRaised" not in out
    assert "ImplementationRaised" not in report.read_text(encoding="ascii")
    advisories = out[out.index("Advisories (") : out.index("Clauses checked")]
    lines = [line for line in advisories.splitlines() if line.startswith("  [")]
    assert len(lines) == 1
    assert "[BPE-TRAIN-MAXMERGES] raised ValueError where TypeError is preferred" in lines[0]
    assert "max-merges-validation" in advisories
    assert "vectors-invalid" in advisories
