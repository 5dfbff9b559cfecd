"""rustbpe trains behind a split pattern exactly as the reference's chunk training under profile ``rustbpe``.

Also its adapters in production configuration (``rustbpe_pretokenized``): behind cl100k's pattern given
explicitly it passes ``compare --split cl100k``; with its own default pattern it does too, except on a
text ending in a line break followed by more whitespace, where rustbpe's default lacks cl100k's
``\\s++$`` (reproduced by hand below, outside the harness).

``train_from_iterator(..., pattern=P)`` with each production pattern, against
:func:`bpe_conformance.reference.chunk_training.train_chunks_literal` with the same pattern: the merges are
counted inside chunks only, ties go to the smallest pair, pairs seen once are merged.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
import regex
from hypothesis import assume, given
from hypothesis import strategies as st

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, rules_from_ranks
from bpe_conformance.cli.main import main
from bpe_conformance.inputs.split_texts import split_texts
from bpe_conformance.reference.chunk_training import train_chunks_literal
from bpe_conformance.reference.pretokenization import (
    CL100K,
    RUSTBPE_DEFAULT,
    SPLIT_PROFILES,
    SplitProfile,
    split_text,
)
from bpe_conformance.reference.profiles import RUSTBPE
from tests.support.compare_runs import run_compare
from tests.support.stdlib_corpus import write_corpus, write_jsonl

rustbpe = pytest.importorskip("rustbpe", reason="rustbpe is not installed (tox -e impl-rustbpe installs it)")
from bpe_conformance.adapters.thirdparty.rustbpe_pretokenized import RustbpePretokenized  # noqa: E402

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize("split", list(SPLIT_PROFILES.values()), ids=list(SPLIT_PROFILES))
@given(
    documents=st.lists(split_texts(max_fragments=6, max_run=40), min_size=1, max_size=3),
    max_merges=st.integers(1, 30),
)
def test_rustbpe_with_a_pattern_trains_as_the_chunk_reference(
    split: SplitProfile, documents: list[str], max_merges: int
) -> None:
    tokenizer = rustbpe.Tokenizer()
    tokenizer.train_from_iterator(iter(documents), FIRST_RULE_ID + max_merges, pattern=split.pattern)
    trained = rules_from_ranks(dict(tokenizer.get_mergeable_ranks()))
    assert trained == train_chunks_literal(documents, max_merges, RUSTBPE, split)


# --- the adapters in production configuration: compare --split cl100k ---

PRETOKENIZED = "bpe_conformance.adapters.thirdparty.rustbpe_pretokenized"


@pytest.fixture(scope="module")
def stdlib_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve small standard-library files as a .jsonl corpus (the tenth held back to encode)."""
    directory = tmp_path_factory.mktemp("rustbpe-split")
    texts = write_corpus(directory / "files", 24_000, documents=12)
    path = directory / "corpus.jsonl"
    write_jsonl(path, texts)
    return path


@pytest.mark.parametrize("adapter", ["RustbpeCl100k", "RustbpePretokenized"])
def test_rustbpe_behind_cl100k_passes_compare_on_real_source(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stdlib_corpus: Path, adapter: str
) -> None:
    arguments = ["--impl", f"{PRETOKENIZED}:{adapter}", "--corpus", str(stdlib_corpus), "--merges", "300"]
    run = run_compare(capsys, tmp_path, *arguments, "--split", "cl100k")
    assert run.code == 0, run.out
    assert run.report is not None
    assert run.report["split"]["name"] == "cl100k"
    assert run.report["merges_compared"] == 300
    assert run.report["encode"]["agree"]


def _ends_with_a_line_break_then_more_space(text: str) -> bool:
    tail = text[len(text.rstrip()) :]
    return any(char in "\r\n" for char in tail) and tail[-1] not in "\r\n"


def test_rustbpe_default_pattern_is_not_cl100k_at_the_end_of_a_text() -> None:
    """rustbpe 0.1.0's default pattern lacks cl100k's ``\\s++$``: ``"a\\n "`` ends in chunks "\\n", " ".

    By hand, outside the harness: cl100k keeps ``"\\n "`` whole, so the chunk reference merges (10, 32)
    and rustbpe, which never sees the pair inside a chunk, makes no rule at all.
    """
    tokenizer = rustbpe.Tokenizer()
    tokenizer.train_from_iterator(iter(["a\n "]), FIRST_RULE_ID + 1)
    assert regex.findall(tokenizer.get_pattern(), "a\n ") == ["a", "\n", " "]
    assert split_text("a\n ", CL100K) == ["a", "\n "]
    assert rules_from_ranks(dict(tokenizer.get_mergeable_ranks())) == []
    assert train_chunks_literal(["a\n "], 1, RUSTBPE, CL100K) == [(10, 32)]


def test_compare_finds_rustbpe_default_pattern_apart_from_cl100k(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "tails.jsonl"
    texts = ["x = 1\n    \n", "if a:\n\tb\n\t", "end\n ", "a b\n  "]
    write_jsonl(path, texts)
    arguments = ["--corpus", str(path), "--encode", str(path), "--merges", "20", "--split", "cl100k"]
    assert run_compare(capsys, tmp_path, "--impl", f"{PRETOKENIZED}:RustbpeCl100k", *arguments).code == 0
    run = run_compare(capsys, tmp_path, "--impl", f"{PRETOKENIZED}:RustbpePretokenized", *arguments)
    assert run.code == 1
    assert run.report is not None
    assert run.report["split"]["first_divergent_round"] is not None or run.report["encode"]["differing"]


@given(
    documents=st.lists(split_texts(max_fragments=6, max_run=40), min_size=1, max_size=3),
    max_merges=st.integers(1, 30),
)
def test_rustbpe_default_pattern_trains_as_cl100k_on_texts_without_such_an_end(
    documents: list[str], max_merges: int
) -> None:
    assume(not any(_ends_with_a_line_break_then_more_space(document) for document in documents))
    trained = RustbpePretokenized().train(documents, max_merges)
    assert trained == train_chunks_literal(documents, max_merges, RUSTBPE, CL100K)


# --- the adapters judged by run under a profile with a split ---


def test_rustbpes_default_pattern_is_the_rustbpe_split() -> None:
    tokenizer = rustbpe.Tokenizer()
    tokenizer.train_from_iterator(iter(["a b"]), FIRST_RULE_ID)
    assert tokenizer.get_pattern() == RUSTBPE_DEFAULT.pattern


@pytest.mark.parametrize(
    ("adapter", "profile"),
    [("RustbpeCl100k", "rustbpe+split=cl100k"), ("RustbpePretokenized", "rustbpe+split=rustbpe")],
)
def test_run_passes_rustbpe_behind_its_own_split_in_every_algorithm_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, adapter: str, profile: str
) -> None:
    report = tmp_path / "report.json"
    arguments = ["run", "--impl", f"{PRETOKENIZED}:{adapter}", "--profile", profile, "--level", "algorithm"]
    code = main([*arguments, "--isolation", "inprocess", "--quiet", "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    assert {result["check"]: result["outcome"] for result in results}["pre-tokenization-split"] == "pass"


def test_run_rejects_rustbpes_default_pattern_under_cl100k_by_the_split_clause(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    arguments = ["run", "--impl", f"{PRETOKENIZED}:RustbpePretokenized", "--profile", "rustbpe+split=cl100k"]
    code = main([*arguments, "--check", "pre-tokenization-split", "--isolation", "inprocess", "--json", str(report)])
    capsys.readouterr()
    assert code == 1
    (result,) = json.loads(report.read_text(encoding="utf-8"))["results"]
    assert result["clause"] == "BPE-PRETOK-SPLIT"
    # A text ending in a line break and a space: one chunk under cl100k (\s++$), two under rustbpe's default.
    chunks = result["counterexample"]["inputs"]["chunks"]
    assert any(chunk.endswith(" ") and "\n" in chunk for document in chunks for chunk in document), chunks
