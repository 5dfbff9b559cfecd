"""Every ``fail`` cell of docs/matrix.md reproduces: that check, that seed, that profile, that clause.

One test per failure (the library is import-skipped when missing); the last test ties this list to
the committed matrix, so a regenerated matrix with a new or a vanished failure fails here until the
list (and docs/findings.md) is updated.
"""

from __future__ import annotations

import pytest

from conformance.adapters.thirdparty import ADAPTERS, LIBRARIES
from conformance.matrix.render import parse_failures
from conformance.results.outcomes import Outcome
from conformance.running.suite import RunConfig, open_subject, run_suite, select
from tests import ROOT

MATRIX = ROOT / "docs" / "matrix.md"
SEED = 0

# (implementation, check, clause, profile): the failure table of docs/matrix.md.
FAILURES = [
    ("hf-tokenizers", "encode-loaded-rules", "BPE-ENCODE-ORDER", "hf-tokenizers"),
    ("hf-tokenizers", "decode-strict", "BPE-INPUT-IDS", "hf-tokenizers"),
    ("hf-tokenizers", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "hf-tokenizers"),
    ("hf-tokenizers", "documents-validation", "BPE-INPUT-DOCS", "hf-tokenizers"),
    ("hf-tokenizers", "ids-validation", "BPE-INPUT-IDS", "hf-tokenizers"),
    ("hf-tokenizers", "vectors-load", "BPE-DECODE-CONCAT", "hf-tokenizers"),
    ("hf-tokenizers", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "hf-tokenizers"),
    ("tiktoken", "vectors-invalid", "BPE-DECODE-STRICT", "tiktoken"),
    ("rustbpe", "decode-strict", "BPE-INPUT-IDS", "rustbpe"),
    ("rustbpe", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "rustbpe"),
    ("rustbpe", "documents-validation", "BPE-INPUT-DOCS", "rustbpe"),
    ("rustbpe", "ids-validation", "BPE-INPUT-IDS", "rustbpe"),
    ("rustbpe", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "rustbpe"),
    ("bpeasy", "decode-strict", "BPE-DECODE-STRICT", "bpeasy"),
    ("bpeasy", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "bpeasy"),
    ("bpeasy", "documents-validation", "BPE-INPUT-DOCS", "bpeasy"),
    ("bpeasy", "ids-validation", "BPE-INPUT-IDS", "bpeasy"),
    ("bpeasy", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "bpeasy"),
    ("minbpe", "stop-rule", "BPE-TRAIN-STOP", "minbpe"),
    ("minbpe", "encode-loaded-rules", "BPE-ENCODE-ORDER", "minbpe"),
    ("minbpe", "decode-strict", "BPE-DECODE-STRICT", "minbpe"),
    ("minbpe", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("minbpe", "text-validation", "BPE-INPUT-TEXT", "minbpe"),
    ("minbpe", "ids-validation", "BPE-INPUT-IDS", "minbpe"),
    ("minbpe", "vectors-load", "BPE-ENCODE-ORDER", "minbpe"),
    ("minbpe", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("bpetokenizer", "rule-references", "BPE-RULE-REF", "minbpe"),
    ("bpetokenizer", "rule-ids", "BPE-RULE-ID", "minbpe"),
    ("bpetokenizer", "greedy-selection", "BPE-TRAIN-GREEDY", "minbpe"),
    ("bpetokenizer", "stop-rule", "BPE-TRAIN-STOP", "minbpe"),
    ("bpetokenizer", "training-sees-only-its-documents", "BPE-TRAIN-INPUT", "minbpe"),
    ("bpetokenizer", "encode-trained", "BPE-ENCODE-ORDER", "minbpe"),
    ("bpetokenizer", "encode-pure", "BPE-ENCODE-PURE", "minbpe"),
    ("bpetokenizer", "round-trip", "BPE-ROUNDTRIP", "minbpe"),
    ("bpetokenizer", "decode-concatenates", "BPE-DECODE-CONCAT", "minbpe"),
    ("bpetokenizer", "decode-bytes-level", "BPE-DECODE-BYTES", "minbpe"),
    ("bpetokenizer", "decode-strict", "BPE-DECODE-STRICT", "minbpe"),
    ("bpetokenizer", "vocab-size", "BPE-VOCAB-SIZE", "minbpe"),
    ("bpetokenizer", "determinism", "BPE-PROP-DETERMINISM", "minbpe"),
    ("bpetokenizer", "unique-pieces", "BPE-PROP-UNIQUE", "minbpe"),
    ("bpetokenizer", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("bpetokenizer", "text-validation", "BPE-INPUT-TEXT", "minbpe"),
    ("bpetokenizer", "ids-validation", "BPE-INPUT-IDS", "minbpe"),
    ("bpetokenizer", "failed-call-keeps-model", "BPE-INPUT-DOCS", "minbpe"),
    ("bpetokenizer", "vectors-training", "BPE-TRAIN-INPUT", "minbpe"),
    ("bpetokenizer", "vectors-invalid", "BPE-DECODE-STRICT", "minbpe"),
]
# A crash (the library killed its host process) counts as failing the check's own clause.
FAILING = (Outcome.FAIL, Outcome.CRASH, Outcome.ERROR)


@pytest.mark.parametrize(
    ("implementation", "check", "clause", "profile"), FAILURES, ids=lambda value: str(value)
)
def test_matrix_failure_reproduces(implementation, check, clause, profile) -> None:
    """What ``bpe-conformance run --impl <adapter> --profile <p> --check <check> --seed 0`` does."""
    pytest.importorskip(LIBRARIES[implementation])
    config = RunConfig(impl=ADAPTERS[implementation], seed=SEED, profile=profile, patterns=(check,))
    subject = open_subject(config.impl, config.isolation_used, config.timeout)
    try:
        (result,) = run_suite(config, subject, select([check])).results
    finally:
        subject.close()
    assert result.outcome in FAILING, (result.outcome, result.message)
    assert result.clause == clause, result.message


def test_the_committed_matrix_lists_exactly_these_failures() -> None:
    listed = parse_failures(MATRIX.read_text(encoding="utf-8"))
    assert listed == {(*failure[:3], failure[3], SEED) for failure in FAILURES}


def test_every_library_with_a_failure_acknowledges_it_in_its_skip_file() -> None:
    """tox's impl-<name> envs stay green only through these entries; each points at docs/findings.md."""
    for implementation in {failure[0] for failure in FAILURES}:
        skip_file = ROOT / "tests" / "adapters" / "thirdparty" / "skips" / f"{implementation}.txt"
        entries = [line for line in skip_file.read_text(encoding="utf-8").splitlines() if line.split("#")[0].strip()]
        names = {line.split("#")[0].strip() for line in entries}
        assert names == {check for name, check, _, _ in FAILURES if name == implementation}
        assert all("docs/findings.md" in line for line in entries)


def test_the_matrix_covers_at_least_six_implementations() -> None:
    header = next(line for line in MATRIX.read_text(encoding="utf-8").splitlines() if line.startswith("| check |"))
    assert len(header.strip("|").split("|")) - 2 >= 6
