"""The public names, pinned in one place (issue 24): a change to them is a decision, never an accident.

``bpe_conformance`` is the facade a program embedding the harness imports; ``bpe_conformance.reference`` the
executable specification; ``bpe_conformance.running`` the run API every front end uses. Beside
``tests/test_layering.py``, which pins how the packages import each other.
"""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

import bpe_conformance
from bpe_conformance import reference, running
from bpe_conformance.adapters import subprocess as subprocess_adapter

if TYPE_CHECKING:
    from types import ModuleType

FACADE = {
    "CallAborted",
    "CallTimeout",
    "CheckResult",
    "DatabaseUnavailable",
    "HarnessError",
    "ImplementationCrashed",
    "ImplementationInfo",
    "ImplementationRaised",
    "MalformedResult",
    "Outcome",
    "RunConfig",
    "RunInterrupted",
    "RunObserver",
    "RunPlan",
    "Subject",
    "SuiteResult",
    "Violation",
    "load_implementation",
    "plugin",
    "strategies",
}
REFERENCE = {
    # the alphabet
    "BEGIN_ID",
    "BOUNDARY_IDS",
    "BYTE_COUNT",
    "END_ID",
    "FIRST_RULE_ID",
    "MIN_MERGE_COUNT",
    "rule_id",
    "rule_rank",
    "vocab_size",
    # the spec functions
    "build_pieces",
    "check_documents",
    "check_ids",
    "check_max_merges",
    "check_rules",
    "check_text",
    "count_pairs",
    "decode",
    "decode_bytes",
    "digest",
    "digest_input",
    "dumps",
    "encode",
    "encode_bytes",
    "encode_document",
    "encode_lowest_rank_first",
    "loads",
    "piece_hex",
    "piece_lengths",
    "replace_pair",
    "select_pair",
    "tied_pairs",
    "train",
    "train_sequences",
    "training_rounds",
    # the traces specs/bpe.md shows
    "format_trace",
    "reversed_ranks",
    "trace_encoding",
    "trace_training",
    # the plug-in contract and the dialects
    "LiteralTokenizer",
    "Tokenizer",
    "PROFILES",
    "Profile",
    "get_profile",
    # production configurations: split patterns, released vocabularies (specs/profiles.md)
    "CL100K",
    "GPT2",
    "O200K",
    "Vocabulary",
    "VocabularyError",
    "decode_production",
    "encode_chunk",
    "encode_production",
    "read_tiktoken_text",
    "split_text",
    "vocabulary_from_pieces",
}
RUNNING = {
    "HARNESS_NAME",
    "CallbackObserver",
    "OpenedRun",
    "RunConfig",
    "RunInterrupted",
    "RunObserver",
    "RunPlan",
    "SuiteResult",
}


# Named by module: a set's order (its str) changes with the hash seed, and pytest-xdist's workers, which
# collect separately, must agree on every test id.
@pytest.mark.parametrize(
    ("module", "names"),
    [
        pytest.param(module, names, id=module.__name__)
        for module, names in ((bpe_conformance, FACADE), (reference, REFERENCE), (running, RUNNING))
    ],
)
def test_the_public_names_are_pinned_and_all_resolve(module: ModuleType, names: set[str]) -> None:
    assert set(module.__all__) == names
    assert all(getattr(module, name) is not None for name in names)


def test_the_facade_lists_its_names_in_dir_and_refuses_others() -> None:
    assert set(dir(bpe_conformance)) >= FACADE
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = bpe_conformance.no_such_name
    assert bpe_conformance.strategies.__name__ == "bpe_conformance.inputs.strategies"
    assert bpe_conformance.RunPlan is running.RunPlan


def test_importing_the_reference_or_the_facade_loads_no_harness_dependency() -> None:
    heavy = ("hypothesis", "rich", "pytest", "bpe_conformance.running")
    probe = f"import sys, bpe_conformance.reference; print(sorted(set({heavy!r}) & set(sys.modules)))"
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert completed.stdout.strip() == "[]"


def test_the_subprocess_adapter_does_not_re_export_the_child_process_internals() -> None:
    assert set(subprocess_adapter.__all__) == {
        "DEFAULT_MAX_LINE_BYTES",
        "DEFAULT_STDERR_BYTES",
        "DEFAULT_TIMEOUT",
        "MIN_HANDSHAKE_TIMEOUT",
        "ProcessSubject",
    }
