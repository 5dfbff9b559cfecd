"""The specification is a test: its examples run, its clauses are complete, and every id used is defined."""

from __future__ import annotations

import doctest
import io
import re
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.spec.clauses import SPEC_PATH, WHY_PREFIX, Example, find_clause_ids, is_defined, load_document

if TYPE_CHECKING:
    from pathlib import Path

REPO = SPEC_PATH.parents[1]
SCANNED_DIRECTORIES = ("reference", "conformance", "tests", "specs")
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache"}

# The stable clause ids of the strict profile: the document must define exactly these.
CLAUSE_IDS = (
    "BPE-ALPHA-BYTES",
    "BPE-ALPHA-BOUNDARY",
    "BPE-RULE-ID",
    "BPE-RULE-REF",
    "BPE-RULE-PIECE",
    "BPE-VOCAB-SIZE",
    "BPE-TRAIN-INPUT",
    "BPE-TRAIN-COUNT",
    "BPE-TRAIN-DOCS",
    "BPE-TRAIN-GREEDY",
    "BPE-TRAIN-TIE",
    "BPE-TRAIN-RECOUNT",
    "BPE-TRAIN-STOP",
    "BPE-TRAIN-PIECE",
    "BPE-TRAIN-MAXMERGES",
    "BPE-MERGE-SCAN",
    "BPE-MERGE-NOREMATCH",
    "BPE-ENCODE-ORDER",
    "BPE-ENCODE-RAW",
    "BPE-ENCODE-LOWEST",
    "BPE-ENCODE-BOUNDARY",
    "BPE-ENCODE-PURE",
    "BPE-DECODE-CONCAT",
    "BPE-DECODE-STRICT",
    "BPE-DECODE-BYTES",
    "BPE-ROUNDTRIP",
    "BPE-PROP-UNIQUE",
    "BPE-PROP-PREFIX",
    "BPE-PROP-PERMUTE",
    "BPE-PROP-DETERMINISM",
    "BPE-SER-JSON",
    "BPE-SER-DIGEST",
    "BPE-SER-LOAD",
    "BPE-INPUT-DOCS",
    "BPE-INPUT-TEXT",
    "BPE-INPUT-IDS",
    "BPE-INPUT-RULES",
    "BPE-VOCAB-RANKS",
    "BPE-PRETOK-SPLIT",
    "BPE-PRETOK-RANK",
    "BPE-SPECIAL-ORDINARY",
    "BPE-SPECIAL-DECODE",
)

# Worked examples the specification promises, as (clause, text that must appear in one of its examples).
WORKED_EXAMPLES = (
    ("BPE-TRAIN-INPUT", "[[258, 258], [259, 259]]"),
    ("BPE-RULE-ID", "[(258, (97, 98)), (259, (97, 99))]"),
    ("BPE-VOCAB-SIZE", "260"),
    ("BPE-ENCODE-ORDER", "[258, 259]"),
    ("BPE-ENCODE-BOUNDARY", "[256, 258, 259, 257]"),
    ("BPE-TRAIN-STOP", 'trace_training(["aaab", "aab"], 32)'),
    ("BPE-TRAIN-STOP", "0  (97, 97)             3  258"),
    ("BPE-MERGE-SCAN", "[258, 97]"),
    ("BPE-MERGE-SCAN", "'aaaa'"),
    ("BPE-ENCODE-ORDER", "('abc', 'abc')"),
    ("BPE-TRAIN-RECOUNT", "[(90, 60), (60, 30)]"),
    # The correction of seed chapter 004, whose bytes for 低 are those of 扎.
    ("BPE-TRAIN-RECOUNT", "('e4 bd 8e', 'e6 89 8e')"),
    ("BPE-TRAIN-TIE", "(99, 102)"),
    ("BPE-TRAIN-TIE", "[(189, 142)]"),
    ("BPE-RULE-PIECE", "'bd 8e'"),
    ("BPE-SER-DIGEST", "sha256:85789aa814fdf4eeeec3e57a85220753faa1b44cee4d9e96c61a87a08eeec945"),
)

DIALECTS = ("minbpe", "Hugging Face tokenizers", "subword-nmt", "SentencePiece", "tiktoken")


def spec_text() -> str:
    return SPEC_PATH.read_text(encoding="utf-8")


def run_example(example: Example) -> tuple[int, str]:
    """Run one pycon block as a doctest; the number of statements tried and the failure report, if any."""
    test = doctest.DocTestParser().get_doctest(
        example.source, globs={}, name=example.section, filename=str(SPEC_PATH), lineno=example.line - 1
    )
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS, verbose=False)
    failed, attempted = runner.run(test, out=report.write, clear_globs=True)
    return attempted, report.getvalue() if failed else ""


EXAMPLES = load_document().examples


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{example.section}@{example.line}" for example in EXAMPLES])
def test_example_runs(example: Example) -> None:
    """Every pycon block of specs/bpe.md runs against the reference and prints what the document says."""
    attempted, report = run_example(example)
    assert attempted > 0, f"the example of {example.section} at specs/bpe.md:{example.line} has no statements"
    assert not report, f"the example of {example.section} at specs/bpe.md:{example.line} failed:\n{report}"


def test_a_wrong_example_is_reported_with_its_clause() -> None:
    """The doctest runner used above does fail, and names the clause and line, when output differs."""
    wrong = Example("BPE-RULE-ID", 42, ">>> from bpe_conformance.reference import rule_id\n>>> rule_id(0)\n256\n")
    attempted, report = run_example(wrong)
    assert attempted == 2
    assert "BPE-RULE-ID" in report
    assert "line 43" in report
    assert "Expected:\n    256\nGot:\n    258" in report


@pytest.mark.parametrize("clause_id", CLAUSE_IDS)
def test_clause_has_exactly_one_heading(clause_id: str) -> None:
    headings = re.findall(rf"^### {re.escape(clause_id)} — \S.*$", spec_text(), flags=re.MULTILINE)
    assert len(headings) == 1, f"{clause_id} needs exactly one '### {clause_id} — <title>' heading, found {headings}"


def test_document_defines_exactly_the_stable_clause_ids() -> None:
    defined = list(load_document().clauses)
    assert sorted(defined) == sorted(CLAUSE_IDS)
    assert len(set(CLAUSE_IDS)) == len(CLAUSE_IDS)


@pytest.mark.parametrize("clause_id", CLAUSE_IDS)
def test_clause_is_complete(clause_id: str) -> None:
    """Normative MUST language, a why paragraph and at least one example that uses the reference."""
    clause = load_document().clauses[clause_id]
    assert clause.title, f"{clause_id} has no title"
    assert "MUST" in clause.text, f"{clause_id} has no normative MUST/MUST NOT sentence"
    assert clause.why, f"{clause_id} has no paragraph starting {WHY_PREFIX!r}"
    assert clause.examples, f"{clause_id} has no ```pycon example"
    assert all(">>> from bpe_conformance.reference import " in example.source for example in clause.examples), (
        f"every example of {clause_id} must run the reference (`>>> from bpe_conformance.reference import ...`)"
    )


@pytest.mark.parametrize(("clause_id", "snippet"), WORKED_EXAMPLES)
def test_worked_example_is_in_its_clause(clause_id: str, snippet: str) -> None:
    examples = "".join(example.source for example in load_document().clauses[clause_id].examples)
    assert snippet in examples, f"{clause_id} lost its worked example showing {snippet!r}"


def test_dialects_and_conformance_sections() -> None:
    text = spec_text()
    dialects = text.split("\n## Dialects\n", 1)[1].split("\n## ", 1)[0]
    for name in DIALECTS:
        assert name in dialects, f"the Dialects section does not name {name}"
    assert text.rstrip().split("\n## ")[-1].startswith("Conformance\n"), "the document must end with Conformance"


def scanned_files() -> list[Path]:
    files = []
    for directory in SCANNED_DIRECTORIES:
        for path in sorted((REPO / directory).rglob("*")):
            if path.is_file() and not SKIPPED_PARTS.intersection(path.relative_to(REPO).parts):
                files.append(path)
    return files


def undefined_references(path: Path, root: Path = REPO) -> list[str]:
    """``file:line: id`` for every clause id (or ``-*`` family) in ``path`` that bpe.md does not define."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []  # binary files hold no clause ids
    return [
        f"{path.relative_to(root)}:{number}: {reference}"
        for number, line in enumerate(text.splitlines(), start=1)
        for reference in find_clause_ids(line)
        if not is_defined(reference)
    ]


def test_every_clause_id_used_in_the_repository_is_defined() -> None:
    """A check, test or vector that names an undefined clause enforces nothing anyone can look up."""
    files = scanned_files()
    assert SPEC_PATH in files
    undefined = [problem for path in files for problem in undefined_references(path)]
    assert not undefined, "clause ids used but not defined in specs/bpe.md:\n" + "\n".join(undefined)


def test_the_scan_reports_an_undefined_id(tmp_path: Path) -> None:
    """The repository scan is not vacuous: a made-up id is reported with its file and line."""
    made_up = "BPE-TRAIN-TIE" + "S"  # spelled in two parts so this file passes the scan itself
    sample = tmp_path / "sample.py"
    sample.write_text(f'"""Checks BPE-TRAIN-TIE and BPE-ALPHA-*.\n\nAlso {made_up}."""\n', encoding="utf-8")
    assert undefined_references(sample, tmp_path) == [f"sample.py:3: {made_up}"]
