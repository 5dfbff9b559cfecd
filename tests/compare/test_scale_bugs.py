"""``compare`` finds the bugs only a real corpus shows, at their exact first divergent round, and shrinks them.

The implementations (``tests/support/scale_bugs.py``) are right on every small corpus: a 16-bit pair
counter, counts left stale after merge 20, a count window of each document's first 4096 bytes. The
corpora are the standard library's source. Each test computes the first divergence on its own (the
literal reference and the buggy trainer, both in this process); ``compare`` runs the trainer in its own
process and must report that round and those two rules, then write a smaller corpus on which the command
it prints diverges the same way. Correct implementations agree on the same corpora.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bpe_conformance.reference import LiteralTokenizer, count_pairs
from tests.support import scale_bugs
from tests.support.compare_runs import CompareRun, independent_divergence, rerun, run_compare, signature
from tests.support.held_dialects import LargestPairStyle, MinbpeStyle
from tests.support.stdlib_corpus import write_corpus

# A corpus fixture: the corpus file and its documents.
Corpus = tuple[Path, list[str]]

SPACES = (32, 32)
WRAP = 1 << 16


@pytest.fixture(scope="module")
def sixteen_bit_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Two small standard-library files and a run of spaces: the pair of two spaces counted 65 537 times.

    A run is the cheap way to count one pair that often; the 16-bit counter sees 65 537 as 1.
    """
    directory = tmp_path_factory.mktemp("sixteen-bit")
    sources = write_corpus(directory, 3_000, documents=2)
    spaces = count_pairs([list(text.encode()) for text in sources]).get(SPACES, 0)
    run = " " * (WRAP + 1 - spaces + 1)  # a run of n spaces holds n - 1 windows
    (directory / "run.txt").write_text(run, encoding="utf-8")
    documents = [*sources, run]
    assert count_pairs([list(text.encode()) for text in documents])[SPACES] == WRAP + 1
    return directory, documents


@pytest.fixture(scope="module")
def source_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """About 10 KB of standard-library source, one file per document."""
    directory = tmp_path_factory.mktemp("source")
    return directory, write_corpus(directory, 10_000)


@pytest.fixture(scope="module")
def long_documents_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Two standard-library files longer than the buggy window of 4096 bytes."""
    directory = tmp_path_factory.mktemp("long")
    texts = write_corpus(directory, 24_000, documents=2, keep=lambda text: 5_000 < len(text.encode()) < 12_000)
    assert len(texts) == 2
    return directory, texts


def _spec(implementation: type) -> str:
    return f"{implementation.__module__}:{implementation.__qualname__}"


def _compare(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path, bug: type, merges: int, *extra: str
) -> CompareRun:
    return run_compare(
        capsys,
        tmp_path,
        "--impl",
        _spec(bug),
        "--corpus",
        str(corpus),
        "--encode",
        str(corpus),
        "--merges",
        str(merges),
        *extra,
    )


def _found(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    corpus: Path,
    documents: list[str],
    bug: type,
    merges: int,
    *extra: str,
) -> dict[str, Any]:
    """``compare`` on ``corpus`` names the independently computed first divergence: its round and both rules."""
    expected = independent_divergence(LiteralTokenizer().train(documents, merges), bug().train(documents, merges))
    assert expected is not None, "the corpus must show the bug"
    run = _compare(capsys, tmp_path, corpus, bug, merges, *extra)
    assert run.code == 1, run.out + run.err
    report = run.report
    assert report is not None
    assert not report["agree"]
    assert report["training"]["agree"] is False
    assert signature(report["first_divergence"]) == expected
    assert report["merges_compared"] == expected[0] + 1
    assert f"first divergence at round {expected[0]}" in run.out
    assert "DIVERGED:" in run.out
    # Encoding is compared with the reference's rules loaded, so it judges the encoder alone: the reference's.
    assert report["encode"]["rules"] == "reference"
    assert report["encode"]["agree"]
    return report


def _shrunk(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path, documents: list[str], bug: type, merges: int
) -> dict[str, Any]:
    """The shrunk corpus is smaller, and the command printed for it diverges exactly as the whole corpus does."""
    shrunk = tmp_path / "shrunk.jsonl"
    report = _found(capsys, tmp_path, corpus, documents, bug, merges, "--shrink", str(shrunk))
    expected = signature(report["first_divergence"])
    assert expected is not None
    shrink = report["shrink"]
    assert shrink is not None
    assert shrink["complete"]
    assert shrink["path"] == str(shrunk)
    assert shrink["bytes"] < report["corpus"]["training_bytes"]
    written = [json.loads(line)["text"] for line in shrunk.read_text(encoding="utf-8").splitlines()]
    assert len(written) == shrink["documents"] <= len(documents)
    assert sum(len(text.encode()) for text in written) == shrink["bytes"]
    assert shrink["merges"] == expected[0] + 1
    assert signature(shrink["first_divergence"]) == expected
    again = rerun(capsys, tmp_path, shrink["command"])
    assert again.code == 1
    assert again.report is not None
    assert signature(again.report["first_divergence"]) == expected
    assert again.report["corpus"]["training_documents"] == len(written)
    return report


def test_a_16_bit_pair_counter_is_found_at_its_round_and_shrunk(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sixteen_bit_corpus: Corpus
) -> None:
    """BPE-TRAIN-GREEDY: the pair of two spaces, counted 65 537 times, is the best pair; 16 bits see 1."""
    corpus, documents = sixteen_bit_corpus
    report = _shrunk(capsys, tmp_path, corpus, documents, scale_bugs.SixteenBitCounts, 8)
    divergence = report["first_divergence"]
    assert divergence["expected"] == {"pair": [32, 32], "count": WRAP + 1, "pieces": [" ", " "]}
    assert divergence["diagnosis"] == "pair not maximal"
    assert divergence["clause"] == "BPE-TRAIN-GREEDY"
    assert divergence["actual"]["count"] < divergence["expected"]["count"]
    assert divergence["candidates"][0] == divergence["expected"]
    assert divergence["examined"]
    assert not divergence["confirmed"]
    assert divergence["cause"] == "no known bug model explains these rules"
    assert report["shrink"]["bytes"] > WRAP  # the pair must still be counted 65 536 times or more


def test_counts_left_stale_after_merge_20_are_found_at_their_round_and_shrunk(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source_corpus: Corpus
) -> None:
    """BPE-TRAIN-RECOUNT: from merge 20 on, the windows a merge destroys keep their counts."""
    corpus, documents = source_corpus
    report = _shrunk(capsys, tmp_path, corpus, documents, scale_bugs.StaleAfterMerges, 40)
    divergence = report["first_divergence"]
    assert divergence["round"] > scale_bugs.STALE_AFTER
    # A stale count is too high: the pair chosen has fewer occurrences than the best one really has.
    assert divergence["actual"]["count"] < divergence["expected"]["count"]
    assert divergence["diagnosis"] == "pair not maximal"
    assert not divergence["confirmed"]


def test_a_count_window_of_the_first_bytes_is_found_at_its_round_and_shrunk(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, long_documents_corpus: Corpus
) -> None:
    """BPE-TRAIN-COUNT: windows past byte 4096 of a document are never counted."""
    corpus, documents = long_documents_corpus
    report = _shrunk(capsys, tmp_path, corpus, documents, scale_bugs.FirstBytesWindow, 20)
    assert report["shrink"]["bytes"] > scale_bugs.WINDOW_BYTES  # nothing shorter shows it
    assert not report["first_divergence"]["confirmed"]


@pytest.mark.parametrize(
    ("implementation", "profile", "merges"),
    [
        ("reference", None, 200),
        ("reference-literal", None, 40),
        (_spec(scale_bugs.IncrementalTrainer), None, 200),
        (_spec(LargestPairStyle), None, 40),
        (_spec(MinbpeStyle), None, 40),
        ("reference", "largest-pair", 0),
    ],
    ids=["reference", "reference-literal", "incremental", "largest-pair-style", "minbpe-style", "no-merges"],
)
def test_correct_implementations_agree_on_the_same_corpus(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    source_corpus: Corpus,
    implementation: str,
    profile: str | None,
    merges: int,
) -> None:
    """A correct implementation, held to the profile it declares, agrees: exit 0, every rule and id identical."""
    corpus, documents = source_corpus
    arguments = ["--impl", implementation, "--corpus", str(corpus), "--merges", str(merges)]
    run = run_compare(capsys, tmp_path, *arguments, *(["--profile", profile] if profile else []))
    assert run.code == 0, run.out + run.err
    report = run.report
    assert report is not None
    assert report["agree"]
    assert report["first_divergence"] is None
    assert report["training"]["agree"]
    assert report["merges_compared"] == report["training"]["reference_rules"]
    assert report["corpus"]["held_back"] == len(documents) // 10 or report["corpus"]["held_back"] == 1
    assert report["implementation"]["profile"] == (profile or report["implementation"]["declared_profile"])
    encode = report["encode"]
    assert encode["source"] == "held-back"
    assert encode["rules"] == "trained"
    assert encode["agree"]
    assert encode["texts"] == report["corpus"]["held_back"]
    assert encode["differing"] == 0
    assert "AGREED:" in run.out
    assert "DIVERGED" not in run.out


def test_the_scale_bugs_are_invisible_on_the_small_corpora_of_the_diagnosis() -> None:
    """Each bug trains exactly as the reference does on the diagnosis's follow-up corpora: only scale shows it."""
    from bpe_conformance.diagnosis.follow_ups import FOLLOW_UP_CORPORA, FOLLOW_UP_MERGES, TIE_FREE_CORPORA

    for corpus in (*FOLLOW_UP_CORPORA, *TIE_FREE_CORPORA):
        expected = LiteralTokenizer().train(list(corpus), FOLLOW_UP_MERGES)
        for bug in (scale_bugs.SixteenBitCounts, scale_bugs.StaleAfterMerges, scale_bugs.FirstBytesWindow):
            assert bug().train(list(corpus), FOLLOW_UP_MERGES) == expected, (bug.name, corpus)


@pytest.fixture(scope="module")
def megabyte_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """About a megabyte of standard-library source, nothing added: the corpus of docs/compare.md's examples."""
    directory = tmp_path_factory.mktemp("megabyte")
    return directory, write_corpus(directory, 1_000_000)


@pytest.mark.slow
@pytest.mark.parametrize(
    "bug",
    [scale_bugs.SixteenBitCounts, scale_bugs.StaleAfterMerges, scale_bugs.FirstBytesWindow],
    ids=lambda bug: bug.name,
)
def test_on_a_megabyte_of_real_source_each_bug_is_found_at_its_round(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, megabyte_corpus: Corpus, bug: type
) -> None:
    """No run added: on a megabyte of source the pair of two spaces is counted far past 65 536 by itself."""
    corpus, documents = megabyte_corpus
    _found(capsys, tmp_path, corpus, documents, bug, 30)
