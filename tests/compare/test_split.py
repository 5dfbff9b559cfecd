"""``compare --split``: both sides behind a production split pattern, the reference with the word-count engine.

The implementations are ``tests/support/split_trainers.py``'s, run in their own process (the handshake
carries the declared split). A correct trainer agrees; a trainer that forgets chunk frequencies, or
that ignores the split, diverges at the round computed here without ``compare``; a ``--split`` the
implementation does not declare, or ``--shrink`` behind a split, is a one-line usage error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_conformance.adapters import load_implementation
from bpe_conformance.adapters.protocol import ProtocolError, implementation_info
from bpe_conformance.compare.comparison import SPLIT_DIAGNOSIS_SKIPPED, held_back
from bpe_conformance.compare.state import first_difference
from bpe_conformance.errors import HarnessError
from bpe_conformance.reference.chunk_training import train_chunks_literal
from bpe_conformance.reference.pretokenization import CL100K
from bpe_conformance.reference.profiles import RUSTBPE
from tests.support.compare_runs import run_compare
from tests.support.split_trainers import (
    FrequencyBlindTrainer,
    LiteralChunkTrainer,
    NumberSplitTrainer,
    SplitIgnoringTrainer,
)
from tests.support.stdlib_corpus import write_corpus, write_jsonl

MERGES = 40
Corpus = tuple[Path, list[str]]


def _spec(implementation: type) -> str:
    return f"{implementation.__module__}:{implementation.__qualname__}"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Twelve small standard-library files as a .jsonl file (the tenth is held back to encode)."""
    directory = tmp_path_factory.mktemp("split-corpus")
    texts = write_corpus(directory / "files", 16_000, documents=12)
    path = directory / "corpus.jsonl"
    write_jsonl(path, texts)
    return path, texts


def _training(texts: list[str]) -> list[str]:
    return [text for index, text in enumerate(texts) if not held_back(index, len(texts))]


def test_the_handshake_carries_the_declared_split() -> None:
    subject = load_implementation(_spec(LiteralChunkTrainer))
    try:
        assert subject.info.split == "cl100k"
    finally:
        subject.close()
    reference = load_implementation("reference", isolation="inprocess")
    assert reference.info.split is None


def test_a_split_declared_badly_is_refused_in_process_and_over_the_protocol() -> None:
    with pytest.raises(HarnessError, match="declares a split must be a string, not int"):
        load_implementation(_spec(NumberSplitTrainer), isolation="inprocess")
    handshake = {"name": "x", "version": "1", "language": "c", "capabilities": ["train"], "profile": "rustbpe"}
    assert implementation_info({**handshake, "protocol": 1, "split": "cl100k"}).split == "cl100k"
    assert implementation_info({**handshake, "protocol": 1}).split is None
    with pytest.raises(ProtocolError, match="split"):
        implementation_info({**handshake, "protocol": 1, "split": 5})
    with pytest.raises(ProtocolError, match="lone surrogate"):
        implementation_info({**handshake, "protocol": 1, "split": "cl" + chr(0xD800)})


@pytest.mark.parametrize("option", [["--split", "cl100k"], []], ids=["given", "declared"])
def test_a_correct_chunk_trainer_agrees_behind_its_split(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus, option: list[str]
) -> None:
    path, _ = corpus
    impl = _spec(LiteralChunkTrainer)
    run = run_compare(capsys, tmp_path, "--impl", impl, "--corpus", str(path), "--merges", str(MERGES), *option)
    assert run.code == 0, run.out + run.err
    assert run.report is not None
    split = run.report["split"]
    assert split["name"] == "cl100k"
    assert split["reference_engine"] == "word-count"
    assert split["first_divergent_round"] is None
    assert split["diagnosis"] is None
    assert run.report["training"]["reference_rules"] == MERGES == run.report["merges_compared"]
    assert run.report["encode"]["texts"] == 1
    assert run.report["encode"]["agree"]
    flat = " ".join(run.out.split())
    assert "split: cl100k (tiktoken 0.14.0" in flat
    assert (
        f"AGREED: {MERGES} rules and 1 encoded texts identical (implementation literal-chunk-trainer, profile "
        "rustbpe, split cl100k," in flat
    )


@pytest.mark.parametrize("broken", [FrequencyBlindTrainer, SplitIgnoringTrainer], ids=lambda cls: cls.name)
def test_a_broken_trainer_diverges_at_the_round_computed_without_compare(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus, broken: type[LiteralChunkTrainer]
) -> None:
    path, texts = corpus
    documents = _training(texts)
    expected = train_chunks_literal(documents, MERGES, RUSTBPE, CL100K)
    actual = broken().train(documents, MERGES)
    rank = first_difference(expected, actual)
    assert rank is not None  # the corpus exposes the bug at all
    impl = _spec(broken)
    run = run_compare(
        capsys, tmp_path, "--impl", impl, "--corpus", str(path), "--merges", str(MERGES), "--split", "cl100k"
    )
    assert run.code == 1
    assert run.report is not None
    split = run.report["split"]
    assert split["first_divergent_round"] == rank
    assert split["expected"]["pair"] == list(expected[rank])
    assert split["actual"]["pair"] == list(actual[rank])
    assert split["diagnosis"] == SPLIT_DIAGNOSIS_SKIPPED
    assert run.report["first_divergence"] is None
    flat = " ".join(run.out.split())
    assert f"first divergence at round {rank}" in flat
    assert SPLIT_DIAGNOSIS_SKIPPED in flat
    assert f"DIVERGED: training diverges at round {rank} of {MERGES};" in flat
    assert broken.name in flat


@pytest.mark.parametrize(
    ("impl", "arguments", "message"),
    [
        (
            _spec(LiteralChunkTrainer),
            ["--split", "gpt2"],
            "--split gpt2: literal-chunk-trainer declares split 'cl100k'",
        ),
        ("reference", ["--split", "cl100k"], "--split cl100k: reference declares no split"),
        (_spec(LiteralChunkTrainer), ["--split", "cl100k", "--shrink"], "--shrink: skipped behind a split pattern"),
        (_spec(LiteralChunkTrainer), ["--shrink"], "--shrink: skipped behind a split pattern"),
        (_spec(LiteralChunkTrainer), ["--split", "p50k"], "invalid choice: 'p50k'"),
    ],
    ids=["other-split", "no-split", "shrink", "shrink-declared", "unknown"],
)
def test_a_split_that_cannot_be_compared_is_a_one_line_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Corpus, impl: str, arguments: list[str], message: str
) -> None:
    path, _ = corpus
    run = run_compare(capsys, tmp_path, "--impl", impl, "--corpus", str(path), "--merges", "5", *arguments)
    assert run.code == 2
    assert run.report is None
    assert message in run.err
    assert "Traceback" not in run.err
    assert len(run.err.strip().splitlines()) <= 3  # argparse adds its usage lines; ours is one line
