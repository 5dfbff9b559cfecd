"""The known-answer vectors: schema, byte-for-byte regeneration, replay, and that replay can fail.

Mostly strict's files; tests/vectors/test_profile_vectors.py holds what is particular to the other profiles.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import re
import subprocess
import sys
import unicodedata
from typing import TYPE_CHECKING, Any

import pytest
from jsonschema import Draft202012Validator

from bpe_conformance.cli.commands import vectors as vectors_command
from bpe_conformance.inputs.corpora import training as corpora
from bpe_conformance.reference import (
    LiteralTokenizer,
    Tokenizer,
    check_documents,
    check_max_merges,
    check_rules,
    count_pairs,
    encode,
    replace_pair,
    rule_id,
    trace_training,
    train,
)
from bpe_conformance.vectors.generate import (
    CLAUSE_IDS,
    FILES,
    NOT_IN_VECTORS,
    VECTOR_PROFILES,
    VECTORS_DIR,
    Mismatch,
    covered_clauses,
    format_mismatch,
    load_schema,
    load_vectors,
    profile_directory,
    profile_files,
    read_vector_files,
    replay_vector,
    validate_vectors,
    vector_id,
    vector_inputs,
)
from bpe_conformance.vectors.output import write_vectors
from tests import ROOT

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

SPEC = ROOT / "specs" / "bpe.md"


@pytest.fixture(scope="module")
def files() -> dict[str, list[dict[str, Any]]]:
    return load_vectors(validate=False)


@pytest.fixture(scope="module")
def training(files: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return files["training.json"]


# The tests that regenerate every profile's files in this process share one worker: generation is cached per
# process (bpe_conformance.vectors.output._generated), so the check command reuses what regeneration computed.
GENERATION = pytest.mark.xdist_group("vectors-generation")


def _failures(found: list[Mismatch]) -> list[Mismatch]:
    return [item for item in found if not item.skipped]


# --- the files ---------------------------------------------------------------------------------------------------


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(load_schema())


@pytest.mark.parametrize("profile", VECTOR_PROFILES)
def test_every_vector_file_of_every_profile_validates_against_the_schema(profile: str) -> None:
    assert validate_vectors(read_vector_files(profile=profile), profile) == []


@pytest.mark.parametrize(
    ("name", "path", "value"),
    [
        ("training.json", ["vectors", 0, "rules", 0], [97, 98, 99]),
        ("training.json", ["vectors", 0, "digest"], "sha256:xyz"),
        ("training.json", ["vectors", 0, "clauses", 0], "BPE-" + "NOT-A-CLAUSE"),
        ("load.json", ["vectors", 0, "byte_decodings", 0, "hex"], "E4"),
        ("invalid.json", ["vectors", 0, "error"], "KeyError"),
        ("invalid.json", ["vectors", 0, "arguments"], {"text": "abc"}),
        ("training.json", ["kind"], "load"),
        ("training.json", ["vectors", 1, "id"], "train-0000000000000000"),
    ],
)
def test_validation_rejects_a_broken_file(name: str, path: list[Any], value: Any) -> None:
    document = json.loads((VECTORS_DIR / name).read_text(encoding="utf-8"))
    document["vectors"] = document["vectors"][:2]  # the first two are enough and keep this fast
    assert validate_vectors({name: document}) == []
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert [problem for problem in validate_vectors({name: document}) if not problem.startswith(f"{name}: ")] == []
    assert validate_vectors({name: document}) != []


@GENERATION
def test_regeneration_is_byte_for_byte_identical_for_every_profile(tmp_path: Path) -> None:
    written = write_vectors(tmp_path)
    expected = [
        profile_directory(profile, tmp_path) / name for profile in VECTOR_PROFILES for name in profile_files(profile)
    ]
    assert sorted(written) == sorted(expected)
    for path in written:
        committed = VECTORS_DIR / path.relative_to(tmp_path)
        assert path.read_bytes() == committed.read_bytes(), committed


def test_generation_does_not_depend_on_the_process_or_hash_seed() -> None:
    """BPE-PROP-DETERMINISM, for generation itself: another process with another hash seed writes the same bytes,
    for every profile."""
    script = "from bpe_conformance.vectors.output import check_up_to_date; print(check_up_to_date())"
    environment = {**os.environ, "PYTHONHASHSEED": "12345"}
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=environment, check=True
    )
    assert completed.stdout.strip() == "[]"


def test_vector_files_stay_small() -> None:
    """Strict's files under 1.5 MB, each other profile's under 1 MB (they hold no document_ids or digests)."""
    assert sum((VECTORS_DIR / name).stat().st_size for name in FILES) < 1_500_000
    for profile in VECTOR_PROFILES[1:]:
        directory = profile_directory(profile)
        assert sum((directory / name).stat().st_size for name in profile_files(profile)) < 1_000_000, profile


# --- ids, counts and coverage ------------------------------------------------------------------------------------


def test_ids_are_unique_derived_from_inputs_and_prefixed_by_kind(files: dict[str, list[dict[str, Any]]]) -> None:
    ids = [vector["id"] for vectors in files.values() for vector in vectors]
    assert len(ids) == len(set(ids))
    for name, vectors in files.items():
        kind = FILES[name]
        for vector in vectors:
            assert vector["id"] == vector_id(kind, vector_inputs(kind, vector))
            assert vector["id"].startswith(f"{kind}-")


def test_ids_ignore_descriptions_and_expected_values(training: list[dict[str, Any]]) -> None:
    vector = copy.deepcopy(training[0])
    vector.update(description="reworded", clauses=["BPE-TRAIN-TIE"], rules=[], digest="sha256:" + "0" * 64)
    assert vector_id("train", vector_inputs("train", vector)) == training[0]["id"]
    vector["max_merges"] += 1
    assert vector_id("train", vector_inputs("train", vector)) != training[0]["id"]


def test_there_are_at_least_200_generated_cases(files: dict[str, list[dict[str, Any]]]) -> None:
    assert len(corpora.generated_training_cases()) >= 200
    assert len(files["training.json"]) - len(corpora.worked_example_cases()) >= 200
    assert sum(len(vectors) for vectors in files.values()) >= 300


def test_every_clause_a_vector_can_express_is_named_by_one(files: dict[str, list[dict[str, Any]]]) -> None:
    spec_clauses = re.findall(r"^### (BPE-[A-Z0-9-]+) ", SPEC.read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert sorted(CLAUSE_IDS) == sorted(spec_clauses)
    assert set(CLAUSE_IDS) > NOT_IN_VECTORS
    assert covered_clauses(files) == set(CLAUSE_IDS) - NOT_IN_VECTORS


def test_the_worked_examples_are_there(files: dict[str, list[dict[str, Any]]]) -> None:
    by_input = {(tuple(vector["documents"]), vector["max_merges"]): vector for vector in files["training.json"]}
    first = by_input[(("abab", "acac"), 32)]
    assert (first["rules"], first["sequences"]) == ([[97, 98], [97, 99]], [[258, 258], [259, 259]])
    assert {"text": "abac", "ids": [258, 259], "document_ids": [256, 258, 259, 257]} in first["encodings"]
    repeated = by_input[(("aaab", "aab"), 32)]
    assert (repeated["rules"], repeated["rule_counts"]) == ([[97, 97]], [3])
    cjk = by_input[(("低" * 30,), 2)]
    assert cjk["rules"] == [[189, 142], [228, 258]]
    assert [len(sequence) for sequence in cjk["sequences"]] == [30]
    assert by_input[(("aaa",), 1)]["sequences"] == [[258, 97]]
    run = next(vector for vector in files["load.json"] if vector["rules"] == [[97, 97]])
    assert {"text": "aaa", "ids": [258, 97], "document_ids": [256, 258, 97, 257]} in run["encodings"]


def _tie_candidates(vector: dict[str, Any]) -> list[list[tuple[int, int]]]:
    return [step.tie_candidates for step in trace_training(vector["documents"], vector["max_merges"]).rounds]


def test_the_corpus_has_every_adversarial_feature(training: list[dict[str, Any]]) -> None:
    """Each feature the vectors must cover is recomputed from the vectors themselves, not taken from descriptions."""
    documents = [vector["documents"] for vector in training]
    everything = [text for docs in documents for text in docs] + [e["text"] for v in training for e in v["encodings"]]
    ties = [candidates for vector in training for candidates in _tie_candidates(vector)]
    runs = [len(match.group()) for text in everything for match in re.finditer(r"(.)\1{2,}", text)]
    features = {
        "tie decided differently by strings": any(
            sorted(candidates) != sorted(candidates, key=lambda pair: f"{pair[0]},{pair[1]}") for candidates in ties
        ),
        "tie between (rule, byte) and (byte, rule)": any(
            any((b, a) in candidates for a, b in candidates if a >= 258 > b) for candidates in ties
        ),
        "odd and even runs": {length % 2 for length in runs} == {0, 1},
        "CJK": any(re.search("[\u4e00-\u9fff]", text) for text in everything),
        "Cyrillic": any(re.search("[\u0400-\u04ff]", text) for text in everything),
        "emoji ZWJ sequence": any("\u200d" in text for text in everything),
        "combining mark": any("\u0301" in text for text in everything),
        "NFC and NFD of one text": any(
            unicodedata.normalize("NFD", text) != text and unicodedata.normalize("NFD", text) in everything
            for text in everything
        ),
        "CRLF, NUL and tab": all(any(mark in text for text in everything) for mark in ("\r\n", "\x00", "\t")),
        "no documents, empty and one-character documents": [] in documents
        and any("" in docs for docs in documents)
        and any(len(text) == 1 for docs in documents for text in docs),
        "pairs only across boundaries": any(
            len(docs) > 1 and train(docs, 1) != train(["".join(docs)], 1) and train(docs, 1) == [] for docs in documents
        ),
        "early stop": any(len(vector["rules"]) < vector["max_merges"] for vector in training),
        "max_merges 0 and 1": {0, 1} <= {vector["max_merges"] for vector in training if vector["documents"]},
        "long documents": any(sum(len(text.encode()) for text in docs) > 4000 for docs in documents),
        "many small documents": any(len(docs) >= 40 for docs in documents),
        "duplicate documents": any(len(set(docs)) < len(docs) for docs in documents),
    }
    assert [name for name, present in features.items() if not present] == []


# --- replay --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("factory", [Tokenizer, LiteralTokenizer])
def test_the_reference_replays_every_vector(factory: Callable[[], Any], files: dict[str, list[dict[str, Any]]]) -> None:
    found = [item for vectors in files.values() for vector in vectors for item in replay_vector(factory, vector)]
    assert [format_mismatch(item) for item in found] == []


def _smallest_tie(counts: dict[tuple[int, int], int]) -> tuple[int, int]:
    return min(counts, key=lambda pair: (-counts[pair], pair))


def _trainer(
    select: Callable[[dict[tuple[int, int], int]], tuple[int, int]] = _smallest_tie,
    count: Callable[..., Any] = count_pairs,
    join: bool = False,
    recount: bool = True,
    least: int = 2,
) -> Callable[[list[str], int], list[tuple[int, int]]]:
    """A training loop with one deliberate deviation from the spec."""

    def train_wrongly(documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        sequences = [list(data) for data in check_documents(documents)]
        sequences = [[token for sequence in sequences for token in sequence]] if join else sequences
        counts: dict[tuple[int, int], int] = {}
        rules: list[tuple[int, int]] = []
        for rank in range(check_max_merges(max_merges)):
            counts = count(sequences) if recount or rank == 0 else {p: c for p, c in counts.items() if p not in rules}
            pair = select(counts) if counts else None
            if pair is None or counts[pair] < least:
                break
            rules.append(pair)
            sequences = [replace_pair(sequence, pair, rule_id(rank)) for sequence in sequences]
        return rules

    return train_wrongly


def _count_without_overlaps(sequences: list[list[int]]) -> dict[tuple[int, int], int]:
    counts: dict[tuple[int, int], int] = {}
    for sequence in sequences:
        last_start: dict[tuple[int, int], int] = {}
        for position, pair in enumerate(itertools.pairwise(sequence)):
            if last_start.get(pair, -2) < position - 1:
                counts[pair], last_start[pair] = counts.get(pair, 0) + 1, position
    return counts


def _by_string(counts: dict[tuple[int, int], int]) -> tuple[int, int]:
    return min(counts, key=lambda pair: (-counts[pair], f"{pair[0]},{pair[1]}"))


def _largest_tie(counts: dict[tuple[int, int], int]) -> tuple[int, int]:
    return max(counts, key=lambda pair: (counts[pair], pair))


def _wrong(name: str, **methods: Any) -> type:
    return type(
        name,
        (Tokenizer,),
        {key: staticmethod(value) if key.startswith("_") else value for key, value in methods.items()},
    )


def _split_on_spaces(text: str, rules: list[tuple[int, int]]) -> list[int]:
    return [token for chunk in re.findall(r"\s+|\S+", text) for token in encode(chunk, rules)]


def _lenient_decode(self: Tokenizer, ids: list[int]) -> str:
    return self.decode_bytes(ids).decode("utf-8", errors="replace")


def _adopt_rule_by_rule(self: Tokenizer, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
    for end in range(len(rules) + 1):
        self._adopt(check_rules(rules[:end]))
    return self.rules


def _forgetful_encode(self: Tokenizer, text: str) -> list[int]:
    ids = encode(text, self._rules)
    self._adopt(self._rules[:-1])
    return ids


def _reverse_order(text: str, rules: list[tuple[int, int]]) -> list[int]:
    sequence = list(text.encode("utf-8"))
    for rank in reversed(range(len(rules))):
        sequence = replace_pair(sequence, rules[rank], rule_id(rank))
    return sequence


# (wrong tokenizer, file, a clause its vectors must catch it by, an operation that must disagree)
WRONG = [
    (_wrong("LargestTie", _train=_trainer(_largest_tie)), "training.json", "BPE-TRAIN-TIE", "train"),
    (_wrong("StringTie", _train=_trainer(_by_string)), "training.json", "BPE-TRAIN-TIE", "train"),
    (_wrong("NoOverlaps", _train=_trainer(count=_count_without_overlaps)), "training.json", "BPE-TRAIN-COUNT", "train"),
    (_wrong("Concatenates", _train=_trainer(join=True)), "training.json", "BPE-TRAIN-DOCS", "train"),
    (_wrong("StaleCounts", _train=_trainer(recount=False)), "training.json", "BPE-TRAIN-RECOUNT", "train"),
    (_wrong("StopsAtThree", _train=_trainer(least=3)), "training.json", "BPE-TRAIN-STOP", "train"),
    (
        _wrong("DropsLastRule", _encode=lambda text, rules: encode(text, rules[:-1])),
        "load.json",
        "BPE-ENCODE-ORDER",
        "encode",
    ),
    (_wrong("ReverseOrder", _encode=_reverse_order), "load.json", "BPE-ENCODE-ORDER", "encode"),
    (_wrong("PreTokenizes", _encode=_split_on_spaces), "training.json", "BPE-ENCODE-RAW", "encode"),
    (_wrong("Lenient", decode=_lenient_decode), "invalid.json", "BPE-DECODE-STRICT", "decode"),
    (
        _wrong("BoolMerges", _train=lambda docs, merges: train(docs, int(merges))),
        "invalid.json",
        "BPE-TRAIN-MAXMERGES",
        "train",
    ),
    (_wrong("PartialLoad", load=_adopt_rule_by_rule), "invalid.json", "BPE-INPUT-RULES", "encode after rejected load"),
    (_wrong("Forgetful", encode=_forgetful_encode), "training.json", "BPE-ENCODE-PURE", "encode"),
]


@pytest.mark.parametrize(("factory", "name", "clause", "operation"), WRONG, ids=[entry[0].__name__ for entry in WRONG])
def test_replay_catches_a_wrong_tokenizer(
    factory: type, name: str, clause: str, operation: str, files: dict[str, list[dict[str, Any]]]
) -> None:
    chosen = [vector for vector in files[name] if clause in vector["clauses"]]
    found = _failures([item for vector in chosen for item in replay_vector(factory, vector)])
    assert operation in {item.operation for item in found}, f"no vector naming {clause} caught {factory.__name__}"


def test_a_mismatch_says_what_was_expected_and_what_came_back(training: list[dict[str, Any]]) -> None:
    vector = training[0]  # ["abab", "acac"]: (97, 98) and (97, 99) tie
    found = replay_vector(_wrong("LargestTie", _train=_trainer(_largest_tie)), vector)
    first = found[0]
    assert (first.vector_id, first.operation, first.skipped) == (vector["id"], "train", False)
    assert first.clauses == tuple(vector["clauses"])
    assert "BPE-TRAIN-TIE" in first.clauses
    assert first.input == {"documents": ["abab", "acac"], "max_merges": 32}
    assert (first.expected, first.actual) == ([[97, 98], [97, 99]], [[97, 99], [97, 98]])
    assert vector["id"] in format_mismatch(first)
    assert "got [[97, 99], [97, 98]]" in format_mismatch(first)


class Minimal:
    """Only the three required operations, and nothing optional."""

    def __init__(self) -> None:
        self._tokenizer = Tokenizer()

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return self._tokenizer.train(documents, max_merges)

    def encode(self, text: str) -> list[int]:
        return self._tokenizer.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self._tokenizer.decode(ids)


def test_what_an_implementation_lacks_is_skipped_not_failed(files: dict[str, list[dict[str, Any]]]) -> None:
    found = {name: [item for v in vectors for item in replay_vector(Minimal, v)] for name, vectors in files.items()}
    assert _failures([item for items in found.values() for item in items]) == []
    assert {item.operation for item in found["load.json"]} == {"load"}
    assert len(found["load.json"]) == len(files["load.json"])
    assert {item.operation for item in found["training.json"]} == {"vocab_size", "digest", "encode_document"}
    load_vectors_skipped = {item.vector_id for item in found["invalid.json"]}
    assert load_vectors_skipped == {vector["id"] for vector in files["invalid.json"] if vector["operation"] == "load"}


def test_an_exception_where_an_answer_belongs_is_a_mismatch(training: list[dict[str, Any]]) -> None:
    found = replay_vector(_wrong("Crashes", _encode=lambda text, rules: [][0]), training[0])
    assert found
    assert all(item.actual.startswith("raised IndexError") for item in found)


# --- the command ---------------------------------------------------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="bpe-conformance")
    vectors_command.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    code = args.handler(args)
    return code, capsys.readouterr().out


@GENERATION
def test_the_check_command_passes_on_the_committed_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "vectors", "check") == (
        0,
        f"vectors of {len(VECTOR_PROFILES)} profiles in {VECTORS_DIR} validate and are up to date\n",
    )


@GENERATION
def test_the_commands_regenerate_and_catch_drift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, output = _run(capsys, "vectors", "generate", "--dir", str(tmp_path), "--profile", "strict")
    assert code == 0
    assert output.count("wrote") == len(FILES)
    stored = json.loads((tmp_path / "training.json").read_text(encoding="utf-8"))
    stored["vectors"][0]["rules"] = [[97, 99], [97, 98]]
    (tmp_path / "training.json").write_text(json.dumps(stored), encoding="utf-8")
    (tmp_path / "load.json").unlink()
    (tmp_path / "extra.json").write_text("{}", encoding="utf-8")
    code, output = _run(capsys, "vectors", "check", "--dir", str(tmp_path), "--profile", "strict")
    assert code == 1
    assert f"training.json: 1 changed ({stored['vectors'][0]['id']})" in output
    assert "extra.json: not a vector file" in output
    assert "load.json: missing" in output


def test_an_algorithm_bug_is_no_interface_deviation_of_the_invalid_vectors(
    files: dict[str, list[dict[str, Any]]],
) -> None:
    """BPE-INPUT-*: a rejected call leaves the model unchanged — judged against the implementation's own answer.

    An encoder that ignores every rule is wrong at the algorithm level (the load vectors say so), but
    it answers the same before and after each rejected call, so no invalid-input vector blames it.
    """
    byte_only = _wrong("ByteOnly", _encode=lambda text, rules: list(text.encode()))
    found = _failures([item for vector in files["invalid.json"] for item in replay_vector(byte_only, vector)])
    assert not [item for item in found if item.operation.startswith("encode after rejected")]
    assert _failures([item for vector in files["load.json"] for item in replay_vector(byte_only, vector)])


def test_a_set_up_that_trains_other_rules_or_fails_is_no_interface_deviation(
    files: dict[str, list[dict[str, Any]]],
) -> None:
    """BPE-INPUT-*: the set-up is a valid call; its failures belong to the algorithm level, so they never fail an
    invalid vector. Other trained rules are used as they are; a refused set-up skips the vector."""

    class LargestTieWithoutLoad(Minimal):
        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            return self._tokenizer.load(_trainer(_largest_tie)(documents, max_merges))

    class RefusesTheSetUp(Minimal):
        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            if isinstance(max_merges, int) and not isinstance(max_merges, bool) and max_merges >= 0:
                raise RuntimeError("no")
            return super().train(documents, max_merges)

    invalid = files["invalid.json"]
    assert _failures([item for vector in invalid for item in replay_vector(LargestTieWithoutLoad, vector)]) == []
    refused = [item for vector in invalid for item in replay_vector(RefusesTheSetUp, vector)]
    assert _failures(refused) == []
    assert {item.vector_id for item in refused if item.operation == "setup: train"} == {v["id"] for v in invalid}
    assert _failures(replay_vector(LargestTieWithoutLoad, files["training.json"][0]))  # the algorithm level's
