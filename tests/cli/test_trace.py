"""``bpe-conformance trace``: the per-document state of every round, the round that stopped, encoding step by step,
the walk-through page, and a one-line error with exit 2 for every bad option.

The tests assert the facts the output must show (sequences, counts, results, the reason for a contrast), not
the layout around them.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest
from rich.cells import cell_len

from bpe_conformance import files
from bpe_conformance.cli import main as cli
from bpe_conformance.reference import dumps, train

if TYPE_CHECKING:
    from pathlib import Path

ABAB_ACAC = ["abab", "acac"]


@pytest.fixture(autouse=True)
def _piped(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a pipe: no $COLUMNS, so the plain width (100) applies unless --width says otherwise."""
    monkeypatch.delenv("COLUMNS", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert cli.main(["trace", *argv]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def blocks(out: str) -> dict[str, str]:
    """The output's paragraphs by their first line's leading words (``round 0``, ``start``, ``encode 'abac'``)."""
    found = {}
    for block in out.split("\n\n"):
        first = block.splitlines()[0] if block.strip() else ""
        found[" ".join(first.split(":")[0].split()[:2])] = block
    return found


def doc_line(block: str, document: int) -> str:
    return next(line for line in block.splitlines() if re.match(rf"\s+doc {document}\s", line))


def error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert cli.main(["trace", *argv]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    lines = [line for line in captured.err.splitlines() if not line.startswith(("usage:", "  "))]
    assert len(lines) == 1, captured.err
    return lines[0]


def test_every_round_shows_each_documents_sequence(capsys: pytest.CaptureFixture[str]) -> None:
    """The seed chapter's worked example: [258, 258] and [97, 99, 97, 99] after round 0, then [259, 259]."""
    parts = blocks(run(capsys, *ABAB_ACAC, "--merges", "32"))
    assert "[97, 98, 97, 98]" in doc_line(parts["start"], 0)
    round_0 = parts["round 0"]
    assert "[258, 258]" in doc_line(round_0, 0)
    assert "'ab' 'ab'" in doc_line(round_0, 0)
    assert "[97, 99, 97, 99]" in doc_line(round_0, 1)
    assert "(97, 98)×2" in round_0
    assert "(97, 99)×2" in round_0
    assert "tie" in round_0
    assert "smallest pair" in round_0
    assert "length 8 -> 6" in round_0
    assert "[259, 259]" in doc_line(parts["round 1"], 1)


def test_the_stop_round_shows_its_counts_and_the_rule_that_stopped_it(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, *ABAB_ACAC, "--merges", "32")
    stop = blocks(out)["round 2"]
    assert "(258, 258)×1" in stop
    assert "(259, 259)×1" in stop
    assert "below 2" in stop
    assert "BPE-TRAIN-STOP" in stop
    assert "stopped: best count 1 < 2 after 2 rules" in out
    assert "rules made: 2 (vocabulary size 260)" in out


@pytest.mark.parametrize(
    ("documents", "reason"),
    [(["a", "b"], "stopped: no pair left after 0 rules"), (["aaab", "aab"], "stopped: best count 1 < 2 after 1 rule")],
)
def test_the_stop_reason_words_every_case(
    capsys: pytest.CaptureFixture[str], documents: list[str], reason: str
) -> None:
    out = run(capsys, *documents)
    assert reason in out.splitlines()
    assert "best count 0" not in out
    assert "1 rules" not in out


def test_aaa_shows_258_97_and_why_not_258_258(capsys: pytest.CaptureFixture[str]) -> None:
    """BPE-MERGE-SCAN: the round counts (97, 97) twice but replaces it once; consuming both windows would
    give [258, 258], which decodes to 'aaaa'."""
    round_0 = blocks(run(capsys, "aaa"))["round 0"]
    assert "[258, 97]" in doc_line(round_0, 0)
    why = " ".join(round_0[round_0.index("why") :].split())
    assert "[258, 258]" in why
    assert "'aaaa'" in why
    assert "'aaa'" in why
    assert "length 3 -> 2" in round_0
    assert "count, 2, is not the length reduction" in " ".join(round_0.split())


def test_the_count_is_not_the_length_reduction(capsys: pytest.CaptureFixture[str]) -> None:
    round_0 = " ".join(blocks(run(capsys, "aaab", "aab"))["round 0"].split())
    assert "(97, 97)×3" in round_0
    assert "replaced 2 times: length 7 -> 5" in round_0


def test_encode_shows_each_rule_the_ids_with_and_without_boundaries_and_the_decode(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """abac -> [258, 259] -> [256, 258, 259, 257] -> abac (BPE-ENCODE-ORDER, BPE-ENCODE-BOUNDARY, BPE-ROUNDTRIP)."""
    encode = blocks(run(capsys, *ABAB_ACAC, "--encode", "abac"))["encode 'abac'"]
    steps = [line for line in encode.splitlines() if line.lstrip().startswith("rule ")]
    assert "[258, 97, 99]" in steps[0]
    assert "[258, 259]" in steps[1]
    assert re.search(r"^\s+ids\s+\[258, 259\]$", encode, re.MULTILINE)
    assert re.search(r"^\s+document\s+\[256, 258, 259, 257\]", encode, re.MULTILINE)
    assert re.search(r"^\s+decode\s+'ab' \+ 'ac' = 'abac'", encode, re.MULTILINE)


def test_encode_is_repeatable(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, *ABAB_ACAC, "--encode", "abac", "--encode", "", "--encode", "xy")
    assert "encode 'abac'" in out
    assert "encode ''" in out
    assert "encode 'xy'" in out
    assert re.search(r"^\s+document\s+\[256, 257\]", out, re.MULTILINE)
    assert "2 rules of 2 replaced nothing" in out


def test_wrong_order_shows_another_encoding_that_decodes_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    """BPE-ENCODE-ORDER: rules ab then ab+c, applied backwards, give [258, 99] instead of [259]; both decode to
    'abc', and the view says why the second rule found nothing."""
    out = " ".join(run(capsys, "abc", "abc", "--encode", "abc", "--wrong-order").split())
    assert "ids [259]" in out
    assert "ids [258, 99]" in out
    assert "[258, 99], not the canonical [259]" in out
    assert "both decode to 'abc'" in out
    assert "rule 1 (258, 99) names 258, which no rule had made yet" in out


def test_wrong_order_says_so_when_the_order_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    out = " ".join(run(capsys, *ABAB_ACAC, "--encode", "abac", "--wrong-order").split())
    assert "the same ids, [258, 259]" in out
    assert "not the canonical" not in out


def test_rules_file_replaces_training(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_text(dumps(train(ABAB_ACAC, 32)), encoding="utf-8")
    out = run(capsys, "--rules", str(path), "--encode", "abac")
    assert out.startswith(f"tokenizer {path}: 2 rules, sha256:")
    assert "round 0" not in out
    assert re.search(r"^\s+ids\s+\[258, 259\]$", out, re.MULTILINE)


def test_partial_utf8_pieces_are_hex_with_a_marker_explained_once(capsys: pytest.CaptureFixture[str]) -> None:
    """BPE-RULE-PIECE: bd 8e is the end of 低; it is never shown as text, and a footnote says what the marker means."""
    out = run(capsys, "低" * 30, "--merges", "2", "--top", "0")
    parts = blocks(out)
    assert "<bd 8e>*" in parts["round 0"].splitlines()[0]
    assert "'低'" in parts["round 1"].splitlines()[0]
    assert "counts" not in parts["round 0"]  # --top 0 hides them
    assert "90 -> 60" in parts["round 0"]
    assert "60 -> 30" in parts["round 1"]
    assert "\ufffd" not in out
    assert out.count("not valid UTF-8 on its own") == 1
    assert "not valid UTF-8" not in run(capsys, *ABAB_ACAC)


def test_max_docs_summarizes_a_long_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "ab", "ab", "ab", "ab", "--max-docs", "2")
    round_0 = blocks(out)["round 0"]
    assert re.search(r"^\s+doc 1\s", round_0, re.MULTILINE)
    assert not re.search(r"^\s+doc 2\s", round_0, re.MULTILINE)
    assert "and 2 more documents (--max-docs)" in round_0
    assert "length 8 -> 4" in round_0  # all four documents were trained on


@pytest.mark.parametrize("width", [40, 64])
def test_width_fits_every_line(capsys: pytest.CaptureFixture[str], width: int) -> None:
    out = run(
        capsys, "低" * 30, "abcabcabc", "--merges", "4", "--encode", "低abc", "--wrong-order", "--width", str(width)
    )
    assert max(cell_len(line) for line in out.splitlines()) <= width
    assert "… 90 ids]" in out


def test_html_writes_one_self_contained_page(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    page = tmp_path / "trace.html"
    out = run(capsys, *ABAB_ACAC, "--encode", "abac", "--wrong-order", "--html", str(page))
    assert out.rstrip().endswith(f"wrote {page}")
    text = page.read_text(encoding="utf-8")
    ids = re.findall(r'<section class="state" data-state="([^"]+)"', text)
    assert ids == ["start", "round-0", "round-1", "stop", "encode-0"]
    assert not re.search(r"(?:src|href)=|https?:|@import|url\(", text)


def test_html_with_rules_shows_only_the_encodings(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rules, page = tmp_path / "tokenizer.json", tmp_path / "trace.html"
    rules.write_text(dumps(train(["abc", "abc"], 32)), encoding="utf-8")
    run(capsys, "--rules", str(rules), "--encode", "abc", "--html", str(page))
    assert re.findall(r'<section class="state" data-state="([^"]+)"', page.read_text(encoding="utf-8")) == ["encode-0"]


def test_documents_from_a_file_and_from_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines_file, json_file = tmp_path / "docs.txt", tmp_path / "docs.json"
    lines_file.write_text("aaab\naab\n", encoding="utf-8")
    json_file.write_text(json.dumps(["a\nb a\nb", "\ud83d\ude00"]), encoding="utf-8")
    out = run(capsys, "--file", str(lines_file))
    assert out.startswith("2 documents, 7 bytes")
    assert "(97, 97)×3" in out
    out = run(capsys, "--json-file", str(json_file))
    assert out.startswith("2 documents, 11 bytes")
    assert "'a\\nb'" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ab", "--encode", "a\ud800b"], "cannot encode --encode 'a\\ud800b'"),
        (["--rules", "missing.json", "--encode", "ab"], "cannot read --rules 'missing.json'"),
        (["ab", "--rules", "x.json", "--encode", "ab"], "give either training documents or --rules FILE, not both"),
        (["--rules", "x.json"], "--rules needs at least one --encode TEXT"),
        (["ab", "--wrong-order"], "--wrong-order needs at least one --encode TEXT"),
        (["ab", "--html", "no/such/dir/page.html"], "--html no/such/dir/page.html: directory 'no/such/dir'"),
        (["ab", "--html", "."], "--html .: is a directory"),
        (["ab", "--max-docs", "-1"], "argument --max-docs: must be non-negative, got -1"),
        (["ab", "--max-docs", "many"], "argument --max-docs: expected a whole number, got 'many'"),
        (["ab", "--width", "12"], "argument --width: must be at least 40, got 12"),
        (["ab", "--width", "wide"], "argument --width: expected a whole number, got 'wide'"),
        (["ab", "--merges", "-1"], "argument --merges: must be non-negative, got -1"),
        (["ab", "--file", "x.txt"], "give the documents either as arguments, or with --file, or with --json-file"),
        (["--rules", "x.json", "--file", "x.txt", "--encode", "a"], "not allowed with argument"),
        (["a\ud800b"], "document 0 contains a lone surrogate U+D800 at index 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.txt").write_text("ab\n", encoding="utf-8")
    assert message in error(capsys, *argv)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not a tokenizer file: "),
        (
            json.dumps(
                {
                    "format": "bpe-conformance.tokenizer",
                    "version": 1,
                    "profile": "strict",
                    "rules": [[97, 259]],
                    "vocab_size": 259,
                    "digest": "sha256:00",
                }
            ),
            "is not a tokenizer file: ",
        ),
        ('["ok"]', "is not a tokenizer file: "),
    ],
)
def test_a_bad_rules_file_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "rules.json"
    path.write_text(content, encoding="utf-8")
    assert f"--rules {str(path)!r} {message}" in error(capsys, "--rules", str(path), "--encode", "ab")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        ('{"a": 1}', "must hold a JSON list of strings, not dict"),
        ('["ok", 3]', "item 1 is int, not a string"),
    ],
)
def test_bad_json_documents_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "docs.json"
    path.write_text(content, encoding="utf-8")
    assert message in error(capsys, "--json-file", str(path))


def test_an_unwritable_html_path_is_one_line_after_the_trace(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(path: object, data: bytes) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files, "write_atomically", refuse)
    line = error(capsys, "ab", "--html", str(tmp_path / "page.html"))
    assert line == f"bpe-conformance: error: cannot write --html {str(tmp_path / 'page.html')!r}: Permission denied"
