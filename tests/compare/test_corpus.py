"""Reading a corpus: files, directories and ``.jsonl`` files exactly as written, and one-line errors for the rest.

Every bad input is a usage error of ``compare`` (exit 2) on one line that names the file (and the line
of a ``.jsonl`` file), found before the implementation is started.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.cli.main import main
from bpe_conformance.compare.corpus import read_documents, write_jsonl
from bpe_conformance.errors import HarnessError

if TYPE_CHECKING:
    from collections.abc import Callable

# A module that does not exist: a corpus error must be reported before the implementation is even loaded.
NOWHERE = "tests.support.no_such_module:Nothing"


def _texts(*paths: Path) -> list[str]:
    return [document.text for document in read_documents([str(path) for path in paths])]


def test_a_file_is_one_document_read_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "one.txt"
    path.write_bytes("\ufeffline one\r\nline two\n".encode())
    assert _texts(path) == ["\ufeffline one\r\nline two\n"]  # BOM and CRLF kept: nothing is "fixed"


def test_a_directory_is_every_regular_file_below_it_in_sorted_path_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.txt").write_text("bz")
    (tmp_path / "b" / "a.txt").write_text("ba")
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "c.jsonl").write_text(json.dumps({"text": "c1"}) + "\n" + json.dumps({"text": "c2", "id": 7}))
    os.mkfifo(tmp_path / "fifo")  # not a regular file: no document (and never opened, so nothing blocks)
    documents = list(read_documents([str(tmp_path)]))
    assert [document.text for document in documents] == ["a", "ba", "bz", "c1", "c2"]
    names = [Path(document.origin).name for document in documents]
    assert names == ["a.txt", "a.txt", "z.txt", "c.jsonl:1", "c.jsonl:2"]


def test_jsonl_lines_may_end_in_crlf_and_the_last_newline_is_optional(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(b'{"text": "a\\nb"}\r\n{"text": "\\u00e9"}')
    assert _texts(path) == ["a\nb", "é"]


def test_documents_are_read_as_they_are_asked_for(tmp_path: Path) -> None:
    """Streamed: a bad file later in the corpus is found only when reading reaches it."""
    (tmp_path / "a.txt").write_text("first")
    (tmp_path / "b.txt").write_bytes(b"\xff")
    documents = read_documents([str(tmp_path)])
    assert next(documents).text == "first"
    with pytest.raises(HarnessError, match=r"b\.txt"):
        next(documents)


def test_write_jsonl_reads_back_the_same_documents(tmp_path: Path) -> None:
    texts = ["", "a\nb\r\n", "é 高 \U0001f600", '{"text": "x"}', "\x00\t"]
    path = tmp_path / "round-trip.jsonl"
    write_jsonl(texts, path)
    assert _texts(path) == texts


def _usage_error(capsys: pytest.CaptureFixture[str], *arguments: str) -> str:
    capsys.readouterr()
    code = main(["compare", "--impl", NOWHERE, "--merges", "8", *arguments])
    captured = capsys.readouterr()
    assert code == 2, captured
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("bpe-conformance: error: "), captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""
    return lines[0]


def _jsonl(tmp_path: Path, content: bytes) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    ("content", "line", "said"),
    [
        (b'{"text": "ok"}\nnot json\n', 2, "not JSON"),
        (b'["text"]\n', 1, "a JSON list, not an object"),
        (b'{"body": "x"}\n', 1, 'no "text" field'),
        (b'{"text": 5}\n', 1, '"text" is a JSON int, not a string'),
        (b'{"text": "a\\ud800b"}\n', 1, "lone surrogate (U+D800 at character 1)"),
        (b'{"text": "a"}\n\n{"text": "b"}\n', 2, "the line is empty"),
        (b'{"text": "\xff"}\n', 1, "not UTF-8"),
    ],
    ids=["not-json", "not-an-object", "no-text", "text-not-a-string", "lone-surrogate", "blank-line", "not-utf8"],
)
def test_a_bad_jsonl_line_is_named_with_its_file_and_number(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, line: int, said: str
) -> None:
    path = _jsonl(tmp_path, content)
    message = _usage_error(capsys, "--corpus", str(path))
    assert f"{str(path)!r} line {line}: " in message
    assert said in message


def test_an_undecodable_file_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "good.txt").write_text("fine")
    (tmp_path / "bad.bin").write_bytes(b"ab\xffcd")
    message = _usage_error(capsys, "--corpus", str(tmp_path))
    assert str(tmp_path / "bad.bin") in message
    assert "not UTF-8 text" in message
    assert "at byte 2" in message


@pytest.mark.parametrize("option", ["--corpus", "--encode"])
def test_a_missing_path_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str) -> None:
    missing = tmp_path / "nowhere"
    extra = [] if option == "--corpus" else ["--corpus", str(_jsonl(tmp_path, b'{"text": "ab"}'))]
    message = _usage_error(capsys, *extra, option, str(missing))
    assert f"{option} {str(missing)!r}" in message
    assert "No such file or directory" in message


def test_a_path_that_is_neither_a_file_nor_a_directory_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "is not a regular file or a directory" in _usage_error(capsys, "--corpus", str(fifo))


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda path: path.mkdir(), "holds no regular file"),
        (lambda path: path.with_suffix(".jsonl").write_bytes(b""), "holds no document"),
        (lambda path: path.with_suffix(".jsonl").write_bytes(b'{"text": ""}\n{"text": ""}\n'), "hold no text"),
        (lambda path: path.write_bytes(b""), "hold no text"),
    ],
    ids=["empty-directory", "empty-jsonl", "empty-documents", "empty-file"],
)
def test_an_empty_corpus_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, make: Callable[[Path], object], said: str
) -> None:
    path = tmp_path / "corpus"
    make(path)
    target = path if path.exists() else path.with_suffix(".jsonl")
    message = _usage_error(capsys, "--corpus", str(target))
    assert said in message
    assert str(target) in message


def test_a_bad_encode_text_is_found_before_training(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    corpus = _jsonl(tmp_path, b'{"text": "abab"}\n')
    bad = tmp_path / "texts"
    bad.mkdir()
    (bad / "a.txt").write_text("fine")
    (bad / "b.txt").write_bytes(b"\xfe")
    message = _usage_error(capsys, "--corpus", str(corpus), "--encode", str(bad))
    assert f"--encode {str(bad / 'b.txt')!r} is not UTF-8 text" in message


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--profile", "gpt-9"], "--profile: unknown profile 'gpt-9'"),
        (["--profile", "strict+documents=joined"], "documents 'joined' is not one of: separate, concatenated"),
        (["--json", "/nonexistent/report.json"], "--json /nonexistent/report.json: directory '/nonexistent'"),
        (["--shrink", "/nonexistent/s.jsonl"], "--shrink /nonexistent/s.jsonl: directory '/nonexistent'"),
    ],
)
def test_other_usage_errors_are_one_line_before_anything_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, arguments: list[str], said: str
) -> None:
    corpus = _jsonl(tmp_path, b'{"text": "abab"}\n')
    assert said in _usage_error(capsys, "--corpus", str(corpus), *arguments)


def test_an_encode_only_profile_and_a_missing_train_capability_are_usage_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = str(_jsonl(tmp_path, b'{"text": "abab"}\n'))
    capsys.readouterr()
    assert main(["compare", "--impl", "reference", "--corpus", corpus, "--merges", "2", "--profile", "tiktoken"]) == 2
    assert "encode-only" in capsys.readouterr().err
    encode_only = "tests.support.held_dialects:EncodeOnly"
    assert main(["compare", "--impl", encode_only, "--corpus", corpus, "--merges", "2"]) == 2
    assert "does not declare the train capability" in capsys.readouterr().err
