"""Every ``fail`` cell of docs/matrix.md reproduces: that check, that seed, that profile, that clause.

One test per failure (the library is import-skipped when missing); the last test ties this list to
the committed matrix, so a regenerated matrix with a new or a vanished failure fails here until the
list (and docs/findings.md) is updated.
"""

from __future__ import annotations

import pytest

from bpe_conformance.adapters.thirdparty import ADAPTERS, LIBRARIES, NPM_ADAPTERS, npm_installed
from bpe_conformance.matrix.render import parse_failures
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.suite import RunConfig, open_subject, run_suite, select
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
    ("minbpe", "encode-loaded-rules", "BPE-ENCODE-LOWEST", "minbpe"),
    ("minbpe", "decode-strict", "BPE-DECODE-STRICT", "minbpe"),
    ("minbpe", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("minbpe", "text-validation", "BPE-INPUT-TEXT", "minbpe"),
    ("minbpe", "ids-validation", "BPE-INPUT-IDS", "minbpe"),
    ("minbpe", "vectors-load", "BPE-ENCODE-LOWEST", "minbpe"),
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
    ("bpetokenizer", "determinism-across-processes", "BPE-PROP-DETERMINISM", "minbpe"),
    ("bpetokenizer", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("bpetokenizer", "documents-validation", "BPE-INPUT-DOCS", "minbpe"),
    ("bpetokenizer", "text-validation", "BPE-INPUT-TEXT", "minbpe"),
    ("bpetokenizer", "ids-validation", "BPE-INPUT-IDS", "minbpe"),
    ("bpetokenizer", "failed-call-keeps-model", "BPE-INPUT-DOCS", "minbpe"),
    ("bpetokenizer", "vectors-training", "BPE-TRAIN-INPUT", "minbpe"),
    ("bpetokenizer", "vectors-invalid", "BPE-DECODE-STRICT", "minbpe"),
    ("flashbpe", "merge-scan", "BPE-MERGE-SCAN", "flashbpe"),
    ("flashbpe", "encode-trained", "BPE-ENCODE-ORDER", "flashbpe"),
    ("flashbpe", "decode-strict", "BPE-INPUT-IDS", "flashbpe"),
    ("flashbpe", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "flashbpe"),
    ("flashbpe", "documents-validation", "BPE-INPUT-DOCS", "flashbpe"),
    ("flashbpe", "ids-validation", "BPE-INPUT-IDS", "flashbpe"),
    ("flashbpe", "vectors-training", "BPE-MERGE-SCAN", "flashbpe"),
    ("flashbpe", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "flashbpe"),
    ("fast-bpe-rs", "overlapping-counts", "BPE-TRAIN-GREEDY", "rustbpe"),
    ("fast-bpe-rs", "tie-break", "BPE-TRAIN-GREEDY", "rustbpe"),
    ("fast-bpe-rs", "recount-each-round", "BPE-TRAIN-GREEDY", "rustbpe"),
    ("fast-bpe-rs", "documents-as-given", "BPE-TRAIN-TIE", "rustbpe"),
    ("fast-bpe-rs", "merge-scan", "BPE-ENCODE-ORDER", "rustbpe"),
    ("fast-bpe-rs", "encode-trained", "BPE-ENCODE-ORDER", "rustbpe"),
    ("fast-bpe-rs", "decode-strict", "BPE-DECODE-STRICT", "rustbpe"),
    ("fast-bpe-rs", "vocab-size", "BPE-VOCAB-SIZE", "rustbpe"),
    ("fast-bpe-rs", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "rustbpe"),
    ("fast-bpe-rs", "ids-validation", "BPE-INPUT-IDS", "rustbpe"),
    ("fast-bpe-rs", "vectors-training", "BPE-TRAIN-GREEDY", "rustbpe"),
    ("fast-bpe-rs", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "rustbpe"),
    ("smoltoken", "rule-references", "BPE-RULE-REF", "bpeasy"),
    ("smoltoken", "rule-ids", "BPE-RULE-ID", "bpeasy"),
    ("smoltoken", "greedy-selection", "BPE-TRAIN-GREEDY", "bpeasy"),
    ("smoltoken", "tie-break", "BPE-TRAIN-TIE", "bpeasy"),
    ("smoltoken", "no-cross-document-pairs", "BPE-TRAIN-TIE", "bpeasy"),
    ("smoltoken", "overlapping-counts", "BPE-TRAIN-STOP", "bpeasy"),
    ("smoltoken", "recount-each-round", "BPE-TRAIN-TIE", "bpeasy"),
    ("smoltoken", "documents-as-given", "BPE-TRAIN-TIE", "bpeasy"),
    ("smoltoken", "merge-scan", "BPE-TRAIN-STOP", "bpeasy"),
    ("smoltoken", "stop-rule", "BPE-TRAIN-STOP", "bpeasy"),
    ("smoltoken", "encode-trained", "BPE-ENCODE-ORDER", "bpeasy"),
    ("smoltoken", "encode-loaded-rules", "BPE-ENCODE-ORDER", "bpeasy"),
    ("smoltoken", "no-pre-tokenization", "BPE-TRAIN-STOP", "bpeasy"),
    ("smoltoken", "encode-pure", "BPE-ENCODE-PURE", "bpeasy"),
    ("smoltoken", "round-trip", "BPE-ROUNDTRIP", "bpeasy"),
    ("smoltoken", "decode-concatenates", "BPE-DECODE-CONCAT", "bpeasy"),
    ("smoltoken", "decode-strict", "BPE-DECODE-STRICT", "bpeasy"),
    ("smoltoken", "vocab-size", "BPE-VOCAB-SIZE", "bpeasy"),
    ("smoltoken", "determinism", "BPE-PROP-DETERMINISM", "bpeasy"),
    ("smoltoken", "document-order", "BPE-PROP-PERMUTE", "bpeasy"),
    ("smoltoken", "unique-pieces", "BPE-PROP-UNIQUE", "bpeasy"),
    ("smoltoken", "determinism-across-processes", "BPE-PROP-DETERMINISM", "bpeasy"),
    ("smoltoken", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "bpeasy"),
    ("smoltoken", "documents-validation", "BPE-INPUT-DOCS", "bpeasy"),
    ("smoltoken", "ids-validation", "BPE-INPUT-IDS", "bpeasy"),
    ("smoltoken", "failed-call-keeps-model", "BPE-INPUT-DOCS", "bpeasy"),
    ("smoltoken", "vectors-training", "BPE-TRAIN-TIE", "bpeasy"),
    ("smoltoken", "vectors-load", "BPE-ENCODE-ORDER", "bpeasy"),
    ("smoltoken", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "bpeasy"),
    ("tinybpe", "rule-ids", "BPE-RULE-ID", "tinybpe"),
    ("tinybpe", "training-sees-only-its-documents", "BPE-TRAIN-INPUT", "tinybpe"),
    ("tinybpe", "encode-trained", "BPE-ENCODE-ORDER", "tinybpe"),
    ("tinybpe", "encode-loaded-rules", "BPE-ENCODE-ORDER", "tinybpe"),
    ("tinybpe", "encode-pure", "BPE-ENCODE-PURE", "tinybpe"),
    ("tinybpe", "round-trip", "BPE-ROUNDTRIP", "tinybpe"),
    ("tinybpe", "decode-concatenates", "BPE-DECODE-CONCAT", "tinybpe"),
    ("tinybpe", "decode-bytes-level", "BPE-DECODE-BYTES", "tinybpe"),
    ("tinybpe", "decode-strict", "BPE-DECODE-STRICT", "tinybpe"),
    ("tinybpe", "vocab-size", "BPE-VOCAB-SIZE", "tinybpe"),
    ("tinybpe", "determinism", "BPE-PROP-DETERMINISM", "tinybpe"),
    ("tinybpe", "determinism-across-processes", "BPE-PROP-DETERMINISM", "tinybpe"),
    ("tinybpe", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "tinybpe"),
    ("tinybpe", "documents-validation", "BPE-INPUT-DOCS", "tinybpe"),
    ("tinybpe", "ids-validation", "BPE-INPUT-IDS", "tinybpe"),
    ("tinybpe", "rules-validation", "BPE-RULE-REF", "tinybpe"),
    ("tinybpe", "failed-call-keeps-model", "BPE-INPUT-DOCS", "tinybpe"),
    ("tinybpe", "vectors-training", "BPE-ENCODE-ORDER", "tinybpe"),
    ("tinybpe", "vectors-load", "BPE-INPUT-RULES", "tinybpe"),
    ("tinybpe", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "tinybpe"),
    ("cminbpe", "encode-loaded-rules", "BPE-ENCODE-LOWEST", "minbpe"),
    ("cminbpe", "decode-strict", "BPE-INPUT-IDS", "minbpe"),
    ("cminbpe", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("cminbpe", "documents-validation", "BPE-INPUT-DOCS", "minbpe"),
    ("cminbpe", "ids-validation", "BPE-INPUT-IDS", "minbpe"),
    ("cminbpe", "rules-validation", "BPE-RULE-REF", "minbpe"),
    ("cminbpe", "vectors-load", "BPE-ENCODE-LOWEST", "minbpe"),
    ("cminbpe", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("cminbpe-c", "rule-references", "BPE-RULE-REF", "minbpe"),
    ("cminbpe-c", "rule-ids", "BPE-RULE-ID", "minbpe"),
    ("cminbpe-c", "greedy-selection", "BPE-TRAIN-TIE", "minbpe"),
    ("cminbpe-c", "tie-break", "BPE-TRAIN-TIE", "minbpe"),
    ("cminbpe-c", "overlapping-counts", "BPE-TRAIN-TIE", "minbpe"),
    ("cminbpe-c", "recount-each-round", "BPE-TRAIN-TIE", "minbpe"),
    ("cminbpe-c", "documents-as-given", "BPE-TRAIN-TIE", "minbpe"),
    ("cminbpe-c", "merge-scan", "BPE-TRAIN-TIE", "minbpe"),
    ("cminbpe-c", "no-pre-tokenization", "BPE-TRAIN-TIE", "minbpe"),
    ("cminbpe-c", "stop-rule", "BPE-TRAIN-TIE", "minbpe"),
    ("cminbpe-c", "encode-trained", "BPE-ENCODE-ORDER", "minbpe"),
    ("cminbpe-c", "encode-loaded-rules", "BPE-ENCODE-LOWEST", "minbpe"),
    ("cminbpe-c", "encode-pure", "BPE-ENCODE-PURE", "minbpe"),
    ("cminbpe-c", "round-trip", "BPE-ROUNDTRIP", "minbpe"),
    ("cminbpe-c", "decode-concatenates", "BPE-DECODE-CONCAT", "minbpe"),
    ("cminbpe-c", "decode-bytes-level", "BPE-DECODE-BYTES", "minbpe"),
    ("cminbpe-c", "decode-strict", "BPE-INPUT-IDS", "minbpe"),
    ("cminbpe-c", "vocab-size", "BPE-VOCAB-SIZE", "minbpe"),
    ("cminbpe-c", "determinism", "BPE-PROP-DETERMINISM", "minbpe"),
    ("cminbpe-c", "unique-pieces", "BPE-PROP-UNIQUE", "minbpe"),
    ("cminbpe-c", "determinism-across-processes", "BPE-PROP-DETERMINISM", "minbpe"),
    ("cminbpe-c", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("cminbpe-c", "documents-validation", "BPE-INPUT-DOCS", "minbpe"),
    ("cminbpe-c", "ids-validation", "BPE-INPUT-IDS", "minbpe"),
    ("cminbpe-c", "rules-validation", "BPE-RULE-REF", "minbpe"),
    ("cminbpe-c", "failed-call-keeps-model", "BPE-INPUT-DOCS", "minbpe"),
    ("cminbpe-c", "vectors-training", "BPE-TRAIN-TIE", "minbpe"),
    ("cminbpe-c", "vectors-load", "BPE-ENCODE-LOWEST", "minbpe"),
    ("cminbpe-c", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("turbobpe", "overlapping-counts", "BPE-TRAIN-TIE", "minbpe"),
    ("turbobpe", "greedy-selection", "BPE-TRAIN-TIE", "minbpe"),
    ("turbobpe", "tie-break", "BPE-TRAIN-TIE", "minbpe"),
    ("turbobpe", "recount-each-round", "BPE-TRAIN-TIE", "minbpe"),
    ("turbobpe", "stop-rule", "BPE-TRAIN-TIE", "minbpe"),
    ("turbobpe", "documents-as-given", "BPE-TRAIN-TIE", "minbpe"),
    ("turbobpe", "merge-scan", "BPE-TRAIN-TIE", "minbpe"),
    ("turbobpe", "no-pre-tokenization", "BPE-TRAIN-TIE", "minbpe"),
    ("turbobpe", "encode-loaded-rules", "BPE-ENCODE-LOWEST", "minbpe"),
    ("turbobpe", "decode-strict", "BPE-INPUT-IDS", "minbpe"),
    ("turbobpe", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("turbobpe", "documents-validation", "BPE-INPUT-DOCS", "minbpe"),
    ("turbobpe", "ids-validation", "BPE-INPUT-IDS", "minbpe"),
    ("turbobpe", "rules-validation", "BPE-RULE-REF", "minbpe"),
    ("turbobpe", "vectors-training", "BPE-TRAIN-TIE", "minbpe"),
    ("turbobpe", "vectors-load", "BPE-ENCODE-LOWEST", "minbpe"),
    ("turbobpe", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("smolbpe", "rule-references", "BPE-RULE-REF", "minbpe"),
    ("smolbpe", "rule-ids", "BPE-RULE-ID", "minbpe"),
    ("smolbpe", "overlapping-counts", "BPE-TRAIN-COUNT", "minbpe"),
    ("smolbpe", "greedy-selection", "BPE-TRAIN-GREEDY", "minbpe"),
    ("smolbpe", "tie-break", "BPE-TRAIN-TIE", "minbpe"),
    ("smolbpe", "recount-each-round", "BPE-TRAIN-RECOUNT", "minbpe"),
    ("smolbpe", "stop-rule", "BPE-TRAIN-STOP", "minbpe"),
    ("smolbpe", "documents-as-given", "BPE-TRAIN-INPUT", "minbpe"),
    ("smolbpe", "encode-trained", "BPE-ENCODE-ORDER", "minbpe"),
    ("smolbpe", "encode-loaded-rules", "BPE-ENCODE-LOWEST", "minbpe"),
    ("smolbpe", "encode-pure", "BPE-ENCODE-PURE", "minbpe"),
    ("smolbpe", "round-trip", "BPE-ROUNDTRIP", "minbpe"),
    ("smolbpe", "decode-concatenates", "BPE-DECODE-CONCAT", "minbpe"),
    ("smolbpe", "decode-bytes-level", "BPE-DECODE-BYTES", "minbpe"),
    ("smolbpe", "decode-strict", "BPE-DECODE-STRICT", "minbpe"),
    ("smolbpe", "vocab-size", "BPE-VOCAB-SIZE", "minbpe"),
    ("smolbpe", "determinism", "BPE-PROP-DETERMINISM", "minbpe"),
    ("smolbpe", "prefix", "BPE-PROP-PREFIX", "minbpe"),
    ("smolbpe", "unique-pieces", "BPE-PROP-UNIQUE", "minbpe"),
    ("smolbpe", "determinism-across-processes", "BPE-PROP-DETERMINISM", "minbpe"),
    ("smolbpe", "max-merges-validation", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("smolbpe", "documents-validation", "BPE-INPUT-DOCS", "minbpe"),
    ("smolbpe", "text-validation", "BPE-INPUT-TEXT", "minbpe"),
    ("smolbpe", "ids-validation", "BPE-INPUT-IDS", "minbpe"),
    ("smolbpe", "failed-call-keeps-model", "BPE-INPUT-DOCS", "minbpe"),
    ("smolbpe", "vectors-training", "BPE-TRAIN-INPUT", "minbpe"),
    ("smolbpe", "vectors-load", "BPE-DECODE-CONCAT", "minbpe"),
    ("smolbpe", "vectors-invalid", "BPE-TRAIN-MAXMERGES", "minbpe"),
    ("riptoken", "vectors-invalid", "BPE-DECODE-STRICT", "tiktoken"),
    ("kitoken", "vectors-invalid", "BPE-DECODE-STRICT", "tiktoken"),
    ("js-tiktoken", "vectors-invalid", "BPE-DECODE-STRICT", "tiktoken"),
    ("tiktoken-wasm", "vectors-invalid", "BPE-INPUT-TEXT", "tiktoken"),
    ("gpt-tokenizer", "vectors-load", "BPE-DECODE-CONCAT", "tiktoken"),
    ("gpt-tokenizer", "vectors-invalid", "BPE-DECODE-STRICT", "tiktoken"),
]


def _installed_spec(implementation: str) -> str:
    """The ``--impl`` spec of a library of the matrix; the test is skipped where the library is absent."""
    if implementation in NPM_ADAPTERS:
        spec, package = NPM_ADAPTERS[implementation]
        if not npm_installed(package):
            pytest.skip(f"{package} is not installed (tox -e impl-{implementation})")
        return spec
    pytest.importorskip(LIBRARIES[implementation])
    return ADAPTERS[implementation]


# A crash (the library killed its host process) counts as failing the check's own clause.
FAILING = (Outcome.FAIL, Outcome.CRASH, Outcome.ERROR)


@pytest.mark.parametrize(("implementation", "check", "clause", "profile"), FAILURES, ids=lambda value: str(value))
def test_matrix_failure_reproduces(implementation: str, check: str, clause: str, profile: str) -> None:
    """What ``bpe-conformance run --impl <adapter> --profile <p> --check <check> --seed 0`` does."""
    config = RunConfig(impl=_installed_spec(implementation), seed=SEED, profile=profile, patterns=(check,))
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


def test_the_matrix_covers_at_least_eighteen_real_implementations_two_of_them_from_npm() -> None:
    """Issue 18: the reference and the Node.js fixture are ours; every other column is a real library."""
    header = next(line for line in MATRIX.read_text(encoding="utf-8").splitlines() if line.startswith("| check |"))
    columns = [cell.strip() for cell in header.strip("|").split("|")][2:]
    real = [column for column in columns if column not in ("reference", "node-fixture")]
    assert len(real) >= 18, real
    assert set(real) <= set(ADAPTERS) | set(NPM_ADAPTERS)
    assert len(set(real) & set(NPM_ADAPTERS)) >= 2
