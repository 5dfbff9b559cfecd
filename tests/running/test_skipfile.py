"""Skip files: parsing, resolution against the checks, and every mistake as a clear HarnessError."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import strategies as st

from bpe_conformance.checks.base import Check
from bpe_conformance.errors import HarnessError
from bpe_conformance.running.skipfile import SkipEntry, SkipPlan, load_skip_file, parse_skip_text, resolve_skips

if TYPE_CHECKING:
    from pathlib import Path


def _never_fails(subject: object, example: object) -> None:
    """These checks are never run here; only their names and clauses matter."""


CHECKS = [
    Check("train-tie", "BPE-TRAIN-TIE", "ties", _never_fails, strategy=st.none),
    Check("train-greedy", "BPE-TRAIN-GREEDY", "greedy", _never_fails, strategy=st.none, also=("BPE-TRAIN-TIE",)),
    Check(
        "decode-strict", "BPE-DECODE-STRICT", "strict decode", _never_fails, strategy=st.none, also=("BPE-ROUNDTRIP",)
    ),
]


def test_entries_comments_blank_lines_and_reasons() -> None:
    text = "# header comment\n\n  train-tie   # we break ties by first occurrence  \nBPE-DECODE-STRICT\n\t# indented\n"
    assert parse_skip_text(text, "skips.txt") == [
        SkipEntry("train-tie", "we break ties by first occurrence", "skips.txt", 3),
        SkipEntry("BPE-DECODE-STRICT", "", "skips.txt", 4),
    ]


def test_two_words_on_a_line_is_an_error_naming_file_and_line() -> None:
    with pytest.raises(HarnessError, match=r"skips\.txt line 2: expected one check name or clause id, got 2 words"):
        parse_skip_text("train-tie\ntrain-tie BPE-TRAIN-TIE # both\n", "skips.txt")


def test_check_name_skips_only_that_check_with_its_reason_and_place() -> None:
    plan = resolve_skips(parse_skip_text("decode-strict # replaces invalid UTF-8\n", "s.txt"), CHECKS)
    assert plan == SkipPlan(checks={"decode-strict": "replaces invalid UTF-8 (declared in s.txt line 1)"})


def test_clause_id_skips_checks_of_that_primary_clause_and_declares_the_deviation() -> None:
    plan = resolve_skips(parse_skip_text("BPE-TRAIN-TIE # largest pair wins\n", "s.txt"), CHECKS)
    reason = "largest pair wins (declared in s.txt line 1)"
    # train-greedy only reports BPE-TRAIN-TIE as a secondary clause: it still runs, its tie failures become skips.
    assert plan == SkipPlan(checks={"train-tie": reason}, clauses={"BPE-TRAIN-TIE": reason})


def test_clause_that_is_only_secondary_skips_no_check_before_it_runs() -> None:
    plan = resolve_skips(parse_skip_text("BPE-ROUNDTRIP\n", "s.txt"), CHECKS)
    assert plan == SkipPlan(checks={}, clauses={"BPE-ROUNDTRIP": "declared in s.txt line 1"})


def test_first_entry_for_a_check_gives_its_reason() -> None:
    plan = resolve_skips(parse_skip_text("train-tie # first\nBPE-TRAIN-TIE # second\n", "s.txt"), CHECKS)
    assert plan.checks == {"train-tie": "first (declared in s.txt line 1)"}
    assert plan.clauses == {"BPE-TRAIN-TIE": "second (declared in s.txt line 2)"}


def test_unknown_entry_is_an_error_with_a_suggestion() -> None:
    entries = parse_skip_text("# ok\ntrain-ties\n", "s.txt")
    with pytest.raises(HarnessError, match=r"s\.txt line 2: 'train-ties' is neither.*did you mean train-tie"):
        resolve_skips(entries, CHECKS)


def test_names_are_case_sensitive() -> None:
    with pytest.raises(HarnessError, match="'bpe-train-tie' is neither"):
        resolve_skips(parse_skip_text("bpe-train-tie\n", "s.txt"), CHECKS)


def test_load_skip_file_reads_utf8(tmp_path: Path) -> None:
    path = tmp_path / "skips.txt"
    path.write_text("train-tie # ties à la minbpe\n", encoding="utf-8")
    assert load_skip_file(path, CHECKS).checks == {"train-tie": f"ties à la minbpe (declared in {path} line 1)"}


def test_missing_skip_file_is_a_harness_error(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match=r"cannot read skip file .*missing\.txt"):
        load_skip_file(tmp_path / "missing.txt", CHECKS)


def test_skip_file_that_is_not_utf8_is_a_harness_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"train-tie # caf\xe9\n")
    with pytest.raises(HarnessError, match="is not UTF-8 text"):
        load_skip_file(path, CHECKS)
