"""Report destinations: checked before any work, written atomically, never over an input; ``--json -`` is stdout.

On a full disk the reports used to be rewritten in place (truncated to ~4 KB, or 0 bytes); a read-only
directory was found only after the whole run; ``compare --shrink`` over the corpus replaced it and
``trace --html`` over ``--file`` turned the documents into HTML; a FIFO as ``--json`` hung forever.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
from typing import TYPE_CHECKING

import pytest

from bpe_conformance import files
from bpe_conformance.adapters.signals import HarnessSignal, deferred_signals, handled_signals
from bpe_conformance.cli import main as cli
from bpe_conformance.errors import HarnessError

if TYPE_CHECKING:
    from pathlib import Path


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1, captured.err
    return lines[0]


def test_an_output_over_an_input_is_refused_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"text": "abab acac"}) + "\n", encoding="utf-8")
    before = corpus.read_bytes()
    words = ["compare", "--impl", "reference", "--corpus", str(corpus), "--merges", "4", "--shrink", str(corpus)]
    assert cli.main(words) == 2
    line = _one_error_line(capsys)
    assert "--shrink" in line
    assert "is also --corpus" in line
    assert corpus.read_bytes() == before


@pytest.mark.parametrize("spelled", ["same", "dot-slash"])
def test_trace_html_over_its_documents_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, spelled: str
) -> None:
    monkeypatch.chdir(tmp_path)
    documents = tmp_path / "d.txt"
    documents.write_text("abab\nacac\n", encoding="utf-8")
    html = "d.txt" if spelled == "same" else "./d.txt"
    assert cli.main(["trace", "--file", "d.txt", "--html", html]) == 2
    line = _one_error_line(capsys)
    assert "--html" in line
    assert "is also --file" in line
    assert documents.read_text(encoding="utf-8") == "abab\nacac\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_a_report_is_refused_instead_of_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "r.json"
    os.mkfifo(fifo)
    with pytest.raises(HarnessError, match="is not a regular file"):
        files.writable_path(fifo, "--json")


def test_a_device_as_a_report_is_refused() -> None:
    with pytest.raises(HarnessError, match="is not a regular file"):
        files.writable_path("/dev/null", "--json")


def test_a_directory_that_takes_no_new_file_is_found_before_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_only(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr("bpe_conformance.files.tempfile.mkstemp", read_only)
    with pytest.raises(HarnessError, match=r"cannot write in .*Read-only file system"):
        files.writable_path(tmp_path / "r.json", "--json")


def test_a_failed_write_leaves_the_earlier_report_whole_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = tmp_path / "r.json"
    report.write_text('{"earlier": true}\n', encoding="ascii")

    def disk_full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("bpe_conformance.files.os.fsync", disk_full)
    with pytest.raises(HarnessError, match=r"cannot write --json .*No space left on device"):
        files.write_report(report, '{"later": true}\n', "--json")
    assert report.read_text(encoding="ascii") == '{"earlier": true}\n'
    assert sorted(path.name for path in tmp_path.iterdir()) == ["r.json"]


def test_a_write_replaces_the_report_whole(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    report.write_text("x" * 10_000, encoding="ascii")
    files.write_report(report, "short\n", "--json")
    assert report.read_text(encoding="ascii") == "short\n"


def test_json_dash_writes_the_report_to_stdout_and_the_table_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    words = ["run", "--impl", "reference", "--isolation", "inprocess", "--check", "rule-ids", "--json", "-"]
    assert cli.main(words) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert [result["check"] for result in report["results"]] == ["rule-ids"]
    assert "rule-ids" in captured.err
    assert not (tmp_path / "-").exists()


def test_a_signal_while_the_reports_are_written_waits_for_them() -> None:
    written = []
    # PT012 waived: the statements after the kill are the ones the deferral must let finish before raising
    with handled_signals(), pytest.raises(HarnessSignal) as raised, deferred_signals():  # noqa: PT012
        os.kill(os.getpid(), signal.SIGTERM)
        written.append("every report")
        written.append("the verdict")
    assert written == ["every report", "the verdict"]
    assert raised.value.signum == signal.SIGTERM


def test_compare_and_identify_json_dash_write_only_json_to_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"text": "abab acac"}) + "\n", encoding="utf-8")
    words = ["compare", "--impl", "reference", "--corpus", str(corpus), "--merges", "3", "--json", "-", "--quiet"]
    assert cli.main(words) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["agree"] is True
    assert captured.err.strip()  # the verdict line, on stderr
    words = ["identify", "--impl", "bpe_conformance.reference:Tokenizer", "--isolation", "inprocess", "--json", "-"]
    assert cli.main(words) == 0
    captured = capsys.readouterr()
    assert isinstance(json.loads(captured.out), dict)
    assert "implementation" in captured.err
    assert not (tmp_path / "-").exists()


def test_an_atomically_written_report_gets_the_mode_of_any_new_file(tmp_path: Path) -> None:
    """The temporary file behind an atomic write is private (0600); the report gets what open() would give."""
    (tmp_path / "plain.json").write_bytes(b"{}")  # a new file under this process's umask
    files.write_atomically(tmp_path / "report.json", b"{}")
    mode = stat.S_IMODE((tmp_path / "report.json").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "plain.json").stat().st_mode)
