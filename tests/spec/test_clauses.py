"""Tests of the clause registry (conformance/spec/clauses.py) and the ``explain`` subcommand."""

from __future__ import annotations

import argparse
import io
from typing import TYPE_CHECKING

import pytest
from rich.console import Console

from bpe_conformance.cli.commands import explain
from bpe_conformance.spec.clauses import (
    CLAUSE_ID_PATTERN,
    SPEC_PATH,
    find_clause_ids,
    get_clause,
    is_defined,
    load_clauses,
    load_document,
    parse_document,
    suggest_clause_ids,
)
from bpe_conformance.teaching import clause_view
from tests import ROOT

if TYPE_CHECKING:
    from pathlib import Path

MINI_SPEC = """# Mini

Intro text.

```pycon
>>> 1 + 1
2
```

## Area

### BPE-RULE-ID — Rule r creates id 258 + r

Rule r MUST create id 258 + r.

```text
a fenced block that is not an example
```

**Why it matters.** Ids index
embedding rows.

```pycon
>>> 258 + 0
258
```

A closing remark.

### BPE-ROUNDTRIP — Round trip

Text MUST survive.

## Dialects

Not a clause.
"""


def test_spec_path_is_the_repository_document() -> None:
    assert ROOT / "specs" / "bpe.md" == SPEC_PATH
    assert SPEC_PATH.is_file()


def test_load_clauses_in_document_order_and_cached() -> None:
    clauses = load_clauses()
    assert list(clauses)[:2] == ["BPE-ALPHA-BYTES", "BPE-ALPHA-BOUNDARY"]
    assert list(clauses)[-1] == "BPE-INPUT-RULES"
    assert load_document() is load_document()
    clauses.clear()  # callers get a copy; the cache is untouched
    assert "BPE-TRAIN-TIE" in load_clauses()


def test_parse_document_splits_a_clause_into_its_parts() -> None:
    document = parse_document(MINI_SPEC)
    assert list(document.clauses) == ["BPE-RULE-ID", "BPE-ROUNDTRIP"]
    clause = document.clauses["BPE-RULE-ID"]
    assert clause.title == "Rule r creates id 258 + r"
    assert clause.line == 12
    assert clause.text == (
        "Rule r MUST create id 258 + r.\n\n```text\na fenced block that is not an example\n```\n\nA closing remark."
    )
    assert clause.why == "Ids index embedding rows."
    assert [(example.section, example.line, example.source) for example in clause.examples] == [
        ("BPE-RULE-ID", 24, ">>> 258 + 0\n258\n")
    ]
    assert document.clauses["BPE-ROUNDTRIP"].why == ""
    assert document.clauses["BPE-ROUNDTRIP"].examples == ()
    assert [(example.section, example.line) for example in document.examples] == [("Mini", 6), ("BPE-RULE-ID", 24)]


@pytest.mark.parametrize(
    ("markdown", "fragments"),
    [
        ("### BPE-RULE-ID - Title\n", ("line 1", "'### <clause id> — <title>'")),
        ("### BPE-RULE-ID\n", ("line 1", "clause heading")),
        ("\n### bpe-rule-id — Title\n", ("line 2", "'bpe-rule-id' is not a clause id")),
        ("### BPE-RULE-ID — A\n\n### BPE-RULE-ID — B\n", ("BPE-RULE-ID is defined twice", "lines 1 and 3")),
        ("### BPE-RULE-ID — A\n\n```pycon\n>>> 1\n", ("line 3", "never closed")),
        ("### BPE-RULE-ID — A\n\n**Why it matters.** One.\n\n**Why it matters.** Two.\n", ("2 '**Why it matters.**'",)),
    ],
)
def test_parse_document_rejects_structural_mistakes(markdown: str, fragments: tuple[str, ...]) -> None:
    with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
        parse_document(markdown)
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_load_document_from_another_path(tmp_path: Path) -> None:
    spec = tmp_path / "mini.md"
    spec.write_text(MINI_SPEC, encoding="utf-8")
    assert list(load_clauses(spec)) == ["BPE-RULE-ID", "BPE-ROUNDTRIP"]
    with pytest.raises(FileNotFoundError, match=r"missing\.md is missing"):
        load_document(tmp_path / "missing.md")


@pytest.mark.parametrize("spelling", ["BPE-TRAIN-TIE", "bpe-train-tie", "  Bpe-Train-Tie\n"])
def test_get_clause_is_case_insensitive(spelling: str) -> None:
    clause = get_clause(spelling)
    assert clause.id == "BPE-TRAIN-TIE"
    assert clause.title == "Ties go to the smallest pair, compared as integers"
    assert "(99, 102)" in clause.examples[0].source


def test_get_clause_unknown_id_suggests_close_matches() -> None:
    with pytest.raises(ValueError, match=r"unknown clause id 'bpe-merge-scna'; did you mean BPE-MERGE-SCAN\?"):
        get_clause("bpe-merge-scna")
    with pytest.raises(ValueError, match=r"unknown clause id 'quux'; run `bpe-conformance explain --list`"):
        get_clause("quux")
    with pytest.raises(TypeError, match="clause id must be a str, not int"):
        get_clause(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("wanted", "suggested"),
    [
        ("bpe-merge-scna", ["BPE-MERGE-SCAN"]),
        ("bpe-ser-digst", ["BPE-SER-DIGEST"]),
        ("roundtrips", ["BPE-ROUNDTRIP"]),
        ("tie", ["BPE-TRAIN-TIE"]),
        ("ser", ["BPE-SER-JSON", "BPE-SER-DIGEST", "BPE-SER-LOAD"]),
        ("nothing-like-it", []),
    ],
)
def test_suggest_clause_ids(wanted: str, suggested: list[str]) -> None:
    assert suggest_clause_ids(wanted) == suggested


def test_clause_id_pattern_and_references() -> None:
    for clause_id in load_clauses():
        assert CLAUSE_ID_PATTERN.fullmatch(clause_id), clause_id
    text = "(BPE-ROUNDTRIP), BPE-TRAIN-TIE; BPE-ALPHA-* and `BPE-SER-LOAD`. bpe-rule-id xBPE-RULE-ID"
    assert find_clause_ids(text) == ["BPE-ROUNDTRIP", "BPE-TRAIN-TIE", "BPE-ALPHA-*", "BPE-SER-LOAD"]
    assert is_defined("BPE-ALPHA-*")
    assert is_defined("BPE-ROUNDTRIP")
    assert not is_defined("BPE-" + "NOPE-*")
    assert not is_defined("BPE-TRAIN-TIE" + "S")


# explain


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bpe-conformance")
    explain.register(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(list(argv))


def test_register_adds_the_explain_parser() -> None:
    args = parse("explain", "BPE-TRAIN-TIE")
    assert (args.command, args.clauses, args.list, args.handler) == (
        "explain",
        ["BPE-TRAIN-TIE"],
        False,
        explain.handle,
    )
    assert parse("explain", "--list").list
    assert parse("explain", "BPE-TRAIN-*", "bpe-rule-id").clauses == ["BPE-TRAIN-*", "bpe-rule-id"]


def test_explain_prints_plain_text_when_not_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # the default width (pytest-xdist's workers have COLUMNS=80)
    assert explain.handle(parse("explain", "bpe-rule-ref")) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith("BPE-RULE-REF — A rule refers only to bytes and earlier rules\n")
    assert "Each part of rule r MUST be an int" in out
    assert "\nWhy it matters. Every id must stand for a definite byte string" in out
    assert "Example 1 (specs/bpe.md line " in out
    # Examples come out whole (never wrapped), prose is wrapped at 100 columns, no escape codes.
    assert "\nValueError: rule 0 (id 258) refers to id 258, which is itself or a later rule; a rule may refer" in out
    example_lines = {line for block in get_clause("BPE-RULE-REF").examples for line in block.source.splitlines()}
    assert all(len(line) <= 100 for line in out.splitlines() if line not in example_lines)
    assert "\x1b[" not in out
    assert out == clause_view.plain_clause(get_clause("BPE-RULE-REF"), clause_view.clause_links("BPE-RULE-REF"), 100)


def test_explain_shows_commentary_after_the_example_it_follows(capsys: pytest.CaptureFixture[str]) -> None:
    """specs/bpe.md writes the note on `bd 8e` after the example that prints it; explain keeps that order."""
    assert explain.handle(parse("explain", "BPE-RULE-PIECE")) == 0
    out = capsys.readouterr().out
    assert out.index("Why it matters.") < out.index("Example 1") < out.index("The first piece, `bd 8e`")


def test_explain_wraps_why_it_matters_to_the_width(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert explain.handle(parse("explain", "BPE-TRAIN-TIE")) == 0
    out = capsys.readouterr().out
    why = out[out.index("Why it matters.") :].split("\n\n")[0].splitlines()
    assert len(why) > 2
    assert all(len(line) <= 60 for line in why)
    assert " ".join(why).startswith("Why it matters. Ties are common")


def test_explain_accepts_globs_in_document_order(capsys: pytest.CaptureFixture[str]) -> None:
    """An area named with `-*` (as specs/bpe.md says areas may be) prints every clause of it, in document order,
    each once even when two patterns name it."""
    assert explain.handle(parse("explain", "BPE-TRAIN-*", "bpe-train-tie", "BPE-ALPHA-BYTES")) == 0
    out = capsys.readouterr().out
    headings = [line.split(" — ")[0] for line in out.splitlines() if line.startswith("BPE-") and " — " in line]
    expected = [clause_id for clause_id in load_clauses() if clause_id.split("-")[1] == "TRAIN"]
    assert headings == ["BPE-ALPHA-BYTES", *expected]


def test_explain_names_the_checks_vectors_and_zoo_members_of_a_clause(capsys: pytest.CaptureFixture[str]) -> None:
    """clause -> checks -> vectors -> zoo on one screen."""
    assert explain.handle(parse("explain", "BPE-TRAIN-TIE")) == 0
    out = capsys.readouterr().out
    links = out[out.index("Enforced by") :]
    assert "tie-break (algorithm)" in links
    assert "specs/vectors/training.json" in links
    for member in ("ties-to-largest-pair", "ties-by-first-occurrence", "ties-by-string-key"):
        assert member in " ".join(links.split())
    assert len(out.splitlines()) <= 50


def test_clause_links_follow_the_registries() -> None:
    from bpe_conformance.checks import ALL_CHECKS
    from bpe_conformance.zoo import ZOO

    links = clause_view.clause_links("BPE-MERGE-SCAN")
    assert {check.name for check in links.checks} == {c.name for c in ALL_CHECKS if c.clause == "BPE-MERGE-SCAN"}
    assert {member.name for member in links.members} == {m.name for m in ZOO if m.clause == "BPE-MERGE-SCAN"}
    assert all("BPE-MERGE-SCAN" in vector["clauses"] for found in links.vectors.values() for vector in found)
    assert clause_view.clause_links("BPE-PROP-DETERMINISM").vectors == {}


def test_explain_styles_a_terminal() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=120, record=True)
    assert explain.handle(parse("explain", "BPE-MERGE-SCAN"), console=console) == 0
    text = console.export_text()
    assert "BPE-MERGE-SCAN — Replacement scans left to right and never overlaps" in text
    assert "Why it matters." in text
    assert "replace_pair([97, 97, 97], (97, 97), 258)" in text
    assert text.index("replace_pair([97, 97, 97]") < text.index("contains (97, 97) three times")
    assert "overlapping-replacement" in text
    assert "Enforced by" in text
    assert "\x1b[" in console.file.getvalue()  # type: ignore[attr-defined]


def test_explain_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert explain.handle(parse("explain", "--list")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(load_clauses())
    assert "BPE-TRAIN-TIE         Ties go to the smallest pair, compared as integers" in lines


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("explain", "bpe-train-ties"), "explain: unknown clause id 'bpe-train-ties'; did you mean BPE-TRAIN-TIE"),
        (("explain", "xyz"), "explain: unknown clause id 'xyz'; run `bpe-conformance explain --list`"),
        (("explain", "bpe-trn-*"), "explain: no clause id matches 'bpe-trn-*'; did you mean BPE-TRAIN-*?"),
        (("explain", "BPE-TRAIN-TIE", "nope-*"), "explain: no clause id matches 'nope-*'"),
        (("explain",), "explain: give a clause id such as BPE-TRAIN-TIE, a glob such as 'BPE-TRAIN-*', or --list"),
        (("explain", "BPE-TRAIN-TIE", "--list"), "explain: give either clause ids or --list, not both"),
    ],
)
def test_explain_usage_errors(argv: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert explain.handle(parse(*argv)) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1
