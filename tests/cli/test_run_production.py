"""``bpe-conformance run --vocabulary``: the vocabulary in every report, chunks in a failure, one-line errors."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import jsonschema
import pytest

from bpe_conformance.cli import main as cli
from bpe_conformance.reference.pretokenization import CL100K, SPLIT_PROFILES, encode_production
from bpe_conformance.reference.production_encoders import REFERENCE_ENCODERS
from bpe_conformance.reference.vocabulary import tiktoken_text
from bpe_conformance.reports.json_report import SCHEMA_PATH
from tests.support.vocabularies import trained_vocabulary

if TYPE_CHECKING:
    from pathlib import Path

VOCABULARY = trained_vocabulary(merges=120, special_tokens=dict(CL100K.special_tokens))


@pytest.fixture
def rank_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.tiktoken"
    path.write_text(tiktoken_text(VOCABULARY))
    return path


def test_a_correct_port_passes_and_every_report_names_the_vocabulary(
    rank_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    argv = ["run", "--impl", "tests.support.broken_ports:CorrectPort", "--vocabulary", str(rank_file)]
    markdown, junit = tmp_path / "report.md", tmp_path / "report.xml"
    others = ["--markdown", str(markdown), "--junit", str(junit)]
    assert cli.main([*argv, "--json", str(report), *others, "--check", "production-encode"]) == 0
    out = capsys.readouterr().out
    digest = json.loads(report.read_text())["config"]["vocabulary"]["sha256"]
    assert len(digest) == 64
    assert f"{VOCABULARY.size} pieces" in out
    assert digest in out.replace("\n", "")
    assert digest in markdown.read_text()
    assert f"{VOCABULARY.size} pieces" in markdown.read_text()
    assert f'name="vocabulary_sha256" value="{digest}"' in junit.read_text()
    document = json.loads(report.read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))).validate(document)
    assert document["config"]["vocabulary"]["size"] == VOCABULARY.size
    assert document["implementation"]["profile"] == "cl100k"


def test_a_broken_port_fails_with_the_chunks_and_a_reproduce_line(
    rank_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--impl", "tests.support.broken_ports:DigitsUngrouped", "--vocabulary", str(rank_file)]
    assert cli.main([*argv, "--check", "production-encode"]) == 1
    out = capsys.readouterr().out
    assert "FAIL production-encode [BPE-PRETOK-SPLIT]" in out
    assert "chunks:" in out
    assert "actual_tokens:" in out
    assert "--vocabulary" in out.split("reproduce:", 1)[1]


def test_a_python_port_in_its_own_process_gets_the_vocabulary_over_the_protocol(
    rank_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    argv = ["run", "--impl", "tests.support.broken_ports:DigitsUngrouped", "--isolation", "process"]
    argv += ["--vocabulary", str(rank_file), "--check", "production-encode", "--json", str(report)]
    assert cli.main(argv) == 1
    out = capsys.readouterr().out
    assert "FAIL production-encode [BPE-PRETOK-SPLIT]" in out
    assert "chunks:" in out
    assert json.loads(report.read_text())["config"]["isolation"] == "process"


def test_an_implementation_in_its_own_process_that_takes_no_vocabulary_is_one_line(
    rank_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--impl", "bpe_conformance.reference:Tokenizer", "--profile", "cl100k", "--isolation", "process"]
    assert cli.main([*argv, "--vocabulary", str(rank_file)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "declares no capability load_vocabulary" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--profile", "minbpe"], "--vocabulary needs a production profile (gpt2, cl100k, o200k); --profile 'minbpe'"),
        (["--check", "tie-break"], "no production check matches tie-break"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    rank_file: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    argv = ["run", "--impl", "tests.support.broken_ports:CorrectPort", "--vocabulary", str(rank_file), *extra]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_a_broken_vocabulary_file_is_one_line_naming_the_file_and_line(
    rank_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = rank_file.read_text().splitlines()
    lines[300] = lines[299].split()[0] + " 300"  # the piece of rank 299 again
    rank_file.write_text("\n".join(lines) + "\n")
    argv = ["run", "--impl", "tests.support.broken_ports:CorrectPort", "--vocabulary", str(rank_file)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"{rank_file} line 301: piece" in err
    assert "already has rank 299" in err


def test_without_impl_the_bundled_reference_of_the_profile_runs(
    rank_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--vocabulary", str(rank_file), "--check", "production-encode", "--quiet"]
    assert cli.main(argv) == 2
    assert "name its profile with --profile (gpt2, cl100k, o200k)" in capsys.readouterr().err
    assert cli.main([*argv, "--profile", "cl100k"]) == 0
    assert "implementation reference-cl100k" in capsys.readouterr().out


def test_list_checks_lists_the_production_checks(rank_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--vocabulary", str(rank_file), "--list-checks"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert names == [
        "production-encode",
        "production-long-runs",
        "production-roundtrip",
        "production-decode",
        "production-unknown-id",
    ]


@pytest.mark.parametrize("profile", list(REFERENCE_ENCODERS))
def test_the_bundled_encoders_use_the_vocabulary_and_specials_they_loaded(profile: str) -> None:
    encoder = REFERENCE_ENCODERS[profile]()
    for call in (lambda: encoder.encode("hi"), lambda: encoder.decode([104])):
        with pytest.raises(ValueError, match=r"(?i)vocabulary"):  # a contract error, not one from deep inside
            call()
    encoder.load_vocabulary(dict(VOCABULARY.rank_of), dict(VOCABULARY.special_tokens))
    text = "I'LL say 12345678  and\r\n naïve <|endoftext|>"
    ids = encoder.encode(text)
    assert ids == encode_production(text, VOCABULARY, SPLIT_PROFILES[profile])
    special = VOCABULARY.special_tokens["<|endoftext|>"]
    assert encoder.decode([*ids, special]) == text + "<|endoftext|>"


def test_the_bundled_encoder_refuses_ranks_with_a_gap() -> None:
    ranks = {piece: rank for piece, rank in VOCABULARY.rank_of.items() if rank != 300}
    with pytest.raises(ValueError, match=r"(?i)rank"):
        REFERENCE_ENCODERS["cl100k"]().load_vocabulary(ranks, {})
