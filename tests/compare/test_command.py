"""``bpe-conformance compare`` as a user meets it: exit codes, the JSON report, the encode comparison, failures.

The implementation runs in its own process: a hang is a timeout, a crash a crash, a raised error an
error, each a named outcome with exit 1, and no process is left behind. A train call carrying megabytes
of documents goes through the JSON-lines protocol.
"""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema
import pytest
from rich.console import Console

from bpe_conformance.adapters import load_implementation
from bpe_conformance.compare import comparison as comparison_module
from bpe_conformance.compare import training as training_module
from bpe_conformance.compare.comparison import Request, compare, read_corpus
from bpe_conformance.compare.progress import LiveDisplay, Observer
from bpe_conformance.compare.report import SCHEMA_PATH
from bpe_conformance.reference.fast_profiles import fast_train_profile as original_fast_train_profile
from bpe_conformance.reference.profiles import STRICT, Profile
from tests import ROOT
from tests.adapters.test_hostile import ENV, HOSTILE, is_alive, nothing_left_behind  # noqa: F401 - autouse fixture
from tests.support.compare_runs import (
    LargestTiesWithoutLoad,
    RaisesInTrain,
    SkipsLastRule,
    run_compare,
)
from tests.support.stdlib_corpus import write_corpus, write_jsonl

if TYPE_CHECKING:
    from collections.abc import Callable


def _spec(implementation: type) -> str:
    return f"{implementation.__module__}:{implementation.__qualname__}"


def _flat(printed: str) -> str:
    """What was printed with its line wrapping undone."""
    return " ".join(printed.split())


# The corpus file and the documents in it.
Corpus = tuple[Path, list[str]]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Twelve small documents of standard-library source (so one is held back), as a .jsonl file."""
    directory = tmp_path_factory.mktemp("corpus")
    texts = write_corpus(directory / "files", 24_000, documents=12)
    path = directory / "corpus.jsonl"
    write_jsonl(path, texts)
    return path, texts


def test_quiet_prints_only_the_verdict(capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus) -> None:
    path, _ = corpus
    run = run_compare(capsys, tmp_path, "--impl", "reference", "--corpus", str(path), "--merges", "50", "--quiet")
    assert run.code == 0
    assert run.err == ""
    assert run.out.startswith("AGREED: 50 rules and 1 encoded texts identical (implementation reference")
    assert "corpus:" not in run.out
    assert "training" not in run.out


def test_a_tied_pair_chosen_differently_is_reported_with_counts_candidates_and_a_proven_cause(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus
) -> None:
    """BPE-TRAIN-TIE: expected and actual have the top count; the cause is named because follow-ups confirm it.

    Three documents, so the corpus is small enough for the bug models to be run on it.
    """
    _, texts = corpus
    path = tmp_path / "small.jsonl"
    write_jsonl(path, texts[:3])
    run = run_compare(
        capsys,
        tmp_path,
        "--impl",
        "tests.support.tie_variants:LargestTies",
        "--corpus",
        str(path),
        "--encode",
        str(path),
        "--merges",
        "60",
        "--profile",
        "strict",
    )
    assert run.code == 1
    assert run.report is not None
    divergence = run.report["first_divergence"]
    assert divergence["diagnosis"] == "tie broken the other way"
    assert divergence["clause"] == "BPE-TRAIN-TIE"
    assert divergence["expected"]["count"] == divergence["actual"]["count"] == divergence["candidates"][0]["count"]
    assert divergence["expected"]["pair"] < divergence["actual"]["pair"]
    assert divergence["examined"]
    assert divergence["confirmed"]
    assert "ties broken towards the largest pair" in divergence["cause"]
    # The encoder is judged alone, with the reference's rules loaded: the reference's own encoder agrees.
    assert run.report["encode"]["rules"] == "reference"
    assert run.report["encode"]["agree"]
    assert "diagnosis: tie broken the other way [BPE-TRAIN-TIE]" in _flat(run.out)
    assert "top candidates in the reference's state at that round:" in _flat(run.out)


def test_without_load_the_implementation_encodes_with_its_own_rules_and_the_report_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus
) -> None:
    path, _ = corpus
    run = run_compare(
        capsys, tmp_path, "--impl", _spec(LargestTiesWithoutLoad), "--corpus", str(path), "--merges", "60"
    )
    assert run.report is not None
    encode = run.report["encode"]
    assert run.code == 1
    assert encode["rules"] == "own"
    assert "which differ (the implementation cannot load): ids differ as a consequence" in _flat(run.out)


def test_an_encoder_bug_is_reported_at_its_first_differing_id_with_context(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus
) -> None:
    path, texts = corpus
    run = run_compare(
        capsys, tmp_path, "--impl", _spec(SkipsLastRule), "--corpus", str(path), "--encode", str(path), "--merges", "50"
    )
    report = run.report
    assert report is not None
    assert run.code == 1
    assert not report["agree"]
    assert report["training"]["agree"]
    assert report["first_divergence"] is None
    encode = report["encode"]
    assert encode["source"] == "encode"
    assert encode["rules"] == "trained"
    assert not encode["agree"]
    assert encode["texts"] == len(texts)
    assert 0 < encode["differing"] <= len(texts)
    difference = encode["first_difference"]
    position, start = difference["position"], difference["context_start"]
    expected, actual = difference["expected"], difference["actual"]
    assert expected[position - start] != actual[position - start]
    assert expected[: position - start] == actual[: position - start]
    assert 258 + 49 in expected  # the last rule's id, which the broken encoder never makes
    assert difference["origin"] == f"{path}:{difference['text'] + 1}"
    assert "encoding differs on" in run.out.split("\n\n")[-1]


def test_a_hang_is_a_timeout_and_nothing_is_left_behind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus
) -> None:
    path, _ = corpus
    run = run_compare(
        capsys,
        tmp_path,
        "--impl",
        f"cmd:{sys.executable} {HOSTILE / 'hang_in_train.py'}",
        "--corpus",
        str(path),
        "--merges",
        "10",
        "--timeout",
        "1",
    )
    assert run.code == 1
    assert run.report is not None
    failure = run.report["failure"]
    assert failure["outcome"] == "timeout"
    assert failure["operation"] == "train"
    assert "no answer within 1 s" in failure["message"]
    assert run.report["training"]["agree"] is None
    assert run.report["encode"] is None
    assert "FAILED: the implementation's train ended in timeout" in _flat(run.out)


def test_a_crash_is_a_crash(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"text": "this document says segfault"}) + "\n", encoding="utf-8")
    run = run_compare(
        capsys,
        tmp_path,
        "--impl",
        f"cmd:{sys.executable} {HOSTILE / 'segfault.py'}",
        "--corpus",
        str(path),
        "--merges",
        "10",
    )
    assert run.report is not None
    failure = run.report["failure"]
    assert run.code == 1
    assert failure["outcome"] == "crash"
    assert "SIGSEGV" in failure["message"]


def test_a_raised_error_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus) -> None:
    path, _ = corpus
    run = run_compare(capsys, tmp_path, "--impl", _spec(RaisesInTrain), "--corpus", str(path), "--merges", "10")
    assert run.report is not None
    failure = run.report["failure"]
    assert run.code == 1
    assert failure["outcome"] == "error"
    assert failure["message"] == "raised RuntimeError: ran out of scratch space"


def test_megabytes_of_documents_go_through_the_protocol(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """One train request of about 2 MB, answered by the reference in its own process."""
    directory = tmp_path / "big"
    texts = write_corpus(directory, 2_000_000)
    run = run_compare(capsys, tmp_path, "--impl", "reference", "--corpus", str(directory), "--merges", "20")
    assert run.code == 0, run.out + run.err
    assert run.report is not None
    assert run.report["corpus"]["bytes"] > 1_500_000
    assert run.report["corpus"]["documents"] == len(texts)
    assert run.report["implementation"]["isolation"] == "process"
    assert run.report["config"]["limits"]["memory_limit"] == 4 * 1024**3  # the default, recorded


def test_the_report_records_the_limits_an_implementation_process_ran_under(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus
) -> None:
    path, _ = corpus
    limited = ("--memory-limit", "1G", "--clean-env", "--env", "HOME", "--temp-cwd")
    run = run_compare(capsys, tmp_path, "--impl", "reference", "--corpus", str(path), "--merges", "5", *limited)
    assert run.code == 0, run.out + run.err
    assert run.report is not None
    limits = {"memory_limit": 1024**3, "clean_env": True, "env": ["HOME"], "temp_cwd": True}
    assert run.report["config"]["limits"] == limits
    in_process = run_compare(
        capsys, tmp_path, "--impl", "reference", "--corpus", str(path), "--merges", "5", "--isolation", "inprocess"
    )
    assert in_process.report is not None
    assert "limits" not in in_process.report["config"]


class Recording(Observer):
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def __getattribute__(self, name: str) -> Any:
        attribute = object.__getattribute__(self, name)
        if name.startswith("_") or name == "calls" or not callable(attribute):
            return attribute
        return lambda *arguments: object.__getattribute__(self, "calls").append((name, *arguments))


def _every_round(
    documents: list[str],
    max_merges: int,
    profile: Profile,
    *,
    engine: str = "auto",
    progress: Callable[[int], None] | None = None,
) -> list[tuple[int, int]]:
    """What the engines branch's trainer does: report every round (here by training one more round each time)."""
    rules: list[tuple[int, int]] = []
    for rounds in range(1, max_merges + 1):
        rules = original_fast_train_profile(documents, rounds, profile)
        if progress is not None:
            progress(len(rules))
        if len(rules) < rounds:
            break
    return rules


@pytest.mark.parametrize("every_round", [False, True], ids=["progress-from-the-engine", "progress-every-round"])
def test_the_observer_hears_every_stage(corpus: Corpus, monkeypatch: pytest.MonkeyPatch, every_round: bool) -> None:
    path, texts = corpus
    if every_round:
        monkeypatch.setattr(training_module, "fast_train_profile", _every_round)
    observer = Recording()
    subject = load_implementation("reference", isolation="inprocess")
    documents = read_corpus([str(path)], hold_back=True, observer=observer)
    result = compare(subject, Request("reference", (str(path),), None, 12, STRICT), documents, observer)
    assert result.agree
    names = [call[0] for call in observer.calls]
    assert names[0] == "reading"
    assert names.count("document_read") == len(texts)
    assert sum(call[1] for call in observer.calls if call[0] == "document_read") == documents.summary.bytes
    rounds = [call[1] for call in observer.calls if call[0] == "reference_rounds"]
    # fast_train_profile reports every round and once more at the end; the stand-in, every round only.
    assert rounds == ([*range(1, 13)] if every_round else [*range(1, 13), 12])
    assert names.count("implementation_trained") == 1
    assert names.count("text_encoded") == 1


def test_the_live_display_draws_every_stage_and_leaves_nothing_behind(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a terminal the display is transient: after it closes, only the report is printed."""
    path, _ = corpus
    monkeypatch.setattr(training_module, "fast_train_profile", _every_round)
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=100)
    display = LiveDisplay(console)
    subject = load_implementation("tests.support.tie_variants:LargestTies", isolation="inprocess")
    try:
        documents = read_corpus([str(path)], hold_back=True, observer=display)
        request = Request("x", (str(path),), None, 20, STRICT, shrink=str(path) + ".shrunk", shrink_seconds=1)
        result = compare(subject, request, documents, display)
    finally:
        display.close()
    assert result.divergence is not None
    drawn = stream.getvalue()
    for stage in (
        "reading the corpus",
        "reference: rules made",
        "implementation: training",
        "encoding with both",
        "shrinking: attempts",
    ):
        assert stage in drawn


def test_held_back_documents_are_every_tenth() -> None:
    assert [index for index in range(30) if comparison_module.held_back(index, 30)] == [9, 19, 29]
    assert [index for index in range(9) if comparison_module.held_back(index, 9)] == [8]
    assert not comparison_module.held_back(0, 1)


def test_a_signal_stops_the_comparison_and_the_implementation(tmp_path: Path, corpus: Corpus) -> None:
    """SIGTERM while the implementation hangs (in encode, after training): exit 143, its process killed."""
    path, _ = corpus
    pid_file = tmp_path / "pid"
    command = [
        sys.executable,
        "-m",
        "conformance",
        "compare",
        "--impl",
        f"cmd:{sys.executable} {HOSTILE / 'writes_pid_then_hangs.py'}",
        "--corpus",
        str(path),
        "--merges",
        "10",
    ]
    harness = subprocess.Popen(
        command,
        env={**ENV, "HOSTILE_PID_FILE": str(pid_file)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    implementation = int(pid_file.read_text())
    harness.send_signal(signal.SIGTERM)
    _, stderr = harness.communicate(timeout=30)
    assert harness.returncode == 128 + signal.SIGTERM, stderr
    assert not is_alive(implementation)
    assert stderr.decode().strip().splitlines() == ["bpe-conformance: error: interrupted by SIGTERM"]


def test_the_schema_refuses_a_report_that_breaks_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus
) -> None:
    """The schema can fail: a report without its verdict, or with an exit code compare never gives."""
    path, _ = corpus
    report = run_compare(capsys, tmp_path, "--impl", "reference", "--corpus", str(path), "--merges", "5").report
    assert report is not None
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    for broken in (
        {**report, "exit_code": 2},
        {key: value for key, value in report.items() if key != "agree"},
        {**report, "first_divergence": {"round": -1}},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)
