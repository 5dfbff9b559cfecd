"""The known-answer vectors of every profile: the schema's rules, replay by each profile's reference, and strength.

``specs/vectors/<profile>/`` holds what the literal reference answers under each dialect profile on strict's
corpora. These tests hold every profile's files to the schema's rules (a held-out text is never a training
document), replay them with the literal and the fast engines of the profile, and show that each profile's
vectors tell it apart from every other profile, so an implementation of one cannot pass another's.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from typing import TYPE_CHECKING, Any

import pytest

from bpe_conformance.dialects.probes import ProfileModel
from bpe_conformance.inputs.corpora.base import TrainingCase
from bpe_conformance.reference import train
from bpe_conformance.reference.dialects import renumbered
from bpe_conformance.reference.fast_profiles import fast_train_profile
from bpe_conformance.reference.profiles import PROFILES, STRICT, TIKTOKEN, Profile, get_profile
from bpe_conformance.vectors.files import (
    CLAUSE_IDS,
    NOT_IN_VECTORS,
    VECTOR_PROFILES,
    VECTORS_DIR,
    covered_clauses,
    held_out_problems,
    load_schema,
    load_vectors,
    profile_directory,
    profile_files,
    validate_vectors,
)
from bpe_conformance.vectors.generate import _training_vector, void_clauses
from bpe_conformance.vectors.replay import format_mismatch, replay_vector

if TYPE_CHECKING:
    from collections.abc import Callable

TRAINABLE = [name for name in VECTOR_PROFILES if get_profile(name).tie_break is not None]
DIALECTS = [name for name in VECTOR_PROFILES if name != STRICT.name]


@pytest.fixture(scope="module")
def every_profile() -> dict[str, dict[str, list[dict[str, Any]]]]:
    return {profile: load_vectors(profile=profile, validate=False) for profile in VECTOR_PROFILES}


def _failures(factory: Callable[[], Any], files: dict[str, list[dict[str, Any]]]) -> list[str]:
    return [
        format_mismatch(item)
        for vectors in files.values()
        for vector in vectors
        for item in replay_vector(factory, vector)
        if not item.skipped
    ]


# --- the files -------------------------------------------------------------------------------------------------


def test_every_profile_has_its_folder_and_an_encode_only_one_has_no_training_vectors() -> None:
    assert list(VECTOR_PROFILES) == list(PROFILES)
    for name in DIALECTS:
        directory = profile_directory(name)
        assert directory == VECTORS_DIR / name
        assert sorted(path.name for path in directory.glob("*.json")) == sorted(profile_files(name))
    assert "training.json" not in profile_files(TIKTOKEN)
    assert "training.json" in profile_files(STRICT)
    assert sorted(path.name for path in VECTORS_DIR.iterdir() if path.is_dir()) == sorted(DIALECTS)


@pytest.mark.parametrize("profile", VECTOR_PROFILES)
def test_a_held_out_text_is_never_a_training_document(profile: str, every_profile: dict[str, Any]) -> None:
    """The schema's rule for training vectors, for every vector of every profile."""
    training = every_profile[profile].get("training.json", [])
    assert [problem for vector in training for problem in held_out_problems(vector)] == []
    assert all(not {e["text"] for e in vector["encodings"]} & set(vector["documents"]) for vector in training)


def test_validation_reports_a_held_out_training_document_and_the_generator_refuses_one() -> None:
    document = json.loads((VECTORS_DIR / "minbpe" / "training.json").read_text(encoding="utf-8"))
    document["vectors"] = document["vectors"][:3]
    assert validate_vectors({"training.json": document}, "minbpe") == []
    vector = document["vectors"][1]
    vector["encodings"][0]["text"] = vector["documents"][0]
    problems = validate_vectors({"training.json": document}, "minbpe")
    assert any(f"held-out text {vector['documents'][0]!r} is one of the training documents" in p for p in problems)
    case = TrainingCase("a document held out", ("abab", "cd"), 4, ("ab", "cd"))
    with pytest.raises(RuntimeError, match="a held-out text is a training document"):
        _training_vector(case, get_profile("minbpe"))


def _header_and_first(profile: str, name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((profile_directory(profile) / name).read_text(encoding="utf-8"))
    document["vectors"] = document["vectors"][:2]
    return document


@pytest.mark.parametrize(
    ("profile", "name", "change", "wrong"),
    [
        ("minbpe", "training.json", lambda d: d["vectors"][0].update(digest="sha256:" + "0" * 64), "digest"),
        ("minbpe", "load.json", lambda d: d["vectors"][0].update(serialized="[]\n"), "serialized"),
        ("rustbpe", "load.json", lambda d: d["vectors"][0]["encodings"][0].update(document_ids=[256, 257]), "ids"),
        ("strict", "training.json", lambda d: d["vectors"][0].pop("digest"), "digest"),
        ("strict", "load.json", lambda d: d["vectors"][0].pop("serialized"), "serialized"),
        ("strict", "training.json", lambda d: d["vectors"][0]["encodings"][0].pop("document_ids"), "document_ids"),
        ("hf-tokenizers", "invalid.json", lambda d: d.update(profile="gpt-5"), "profile"),
    ],
)
def test_the_schema_ties_the_strict_only_fields_to_the_profile(
    profile: str, name: str, change: Callable[[dict[str, Any]], object], wrong: str
) -> None:
    """digest, serialized and document_ids exist in strict's numbering only: present there, absent elsewhere."""
    document = _header_and_first(profile, name)
    assert validate_vectors({name: document}, profile) == []
    change(document)
    assert validate_vectors({name: document}, profile) != [], wrong


def test_a_file_of_another_profile_is_refused() -> None:
    document = _header_and_first("largest-pair", "training.json")
    problems = validate_vectors({"training.json": document}, "string-key")
    assert problems == ["training.json: profile is 'largest-pair', expected 'string-key'"]
    assert validate_vectors({"training.json": {}}, "tiktoken")[0].startswith("training.json: not a vector file name")


def test_the_schema_names_every_profile_and_strict_numbering_is_the_boundary_profiles() -> None:
    schema = load_schema()
    assert schema["properties"]["profile"]["enum"] == list(PROFILES)
    (numbering,) = [part for part in schema["allOf"] if "profile" in part["if"]["properties"]]
    boundary = [profile.name for profile in PROFILES.values() if profile.boundary_ids]
    assert [numbering["if"]["properties"]["profile"]["const"]] == boundary


# --- what the vectors hold -------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", DIALECTS)
def test_a_dialect_has_stricts_inputs_with_its_own_answers(profile: str, every_profile: dict[str, Any]) -> None:
    """The same training inputs (so the same ids) and rejected calls it still rejects; answers from its reference."""
    chosen, strict = get_profile(profile), every_profile[STRICT.name]
    own = every_profile[profile]
    if chosen.tie_break is not None:
        assert [vector["id"] for vector in own["training.json"]] == [vector["id"] for vector in strict["training.json"]]
    assert len(own["load.json"]) == len(strict["load.json"])
    strict_invalid = {vector["id"] for vector in strict["invalid.json"]}
    assert {vector["id"] for vector in own["invalid.json"]} <= strict_invalid
    for vector in own.get("training.json", []):
        assert vector["vocab_size"] == chosen.first_rule_id + len(vector["rules"])
        assert vector["description"].startswith(f"under {profile}: {len(vector['rules'])} rule")
        strict_rules = renumbered(train(vector["documents"], vector["max_merges"]), chosen.first_rule_id)
        same = [tuple(rule) for rule in vector["rules"]] == strict_rules
        assert ("the same as strict's" in vector["description"]) == same
    for vector in own["load.json"] + own["invalid.json"]:
        assert vector["description"].startswith(f"under {profile}: ")
        numbers = re.findall(r"\b[0-9]+\b", vector["description"].partition("strict's case")[2])
        names_rule_ids = any(int(number) >= 256 for number in numbers)
        assert ("its ids count rules from 258, here from 256" in vector["description"]) == names_rule_ids


def test_the_dialects_answers_differ_from_stricts_where_their_parameters_do(every_profile: dict[str, Any]) -> None:
    """Each trainable dialect's training vectors answer differently from strict's (renumbered) somewhere."""
    strict = {vector["id"]: vector for vector in every_profile[STRICT.name]["training.json"]}
    for profile in TRAINABLE[1:]:
        first = get_profile(profile).first_rule_id
        differing = [
            vector["id"]
            for vector in every_profile[profile]["training.json"]
            if [tuple(r) for r in vector["rules"]] != renumbered(strict[vector["id"]]["rules"], first)
        ]
        assert differing, profile


def test_decodings_a_lenient_policy_accepts_are_known_answers_under_it(every_profile: dict[str, Any]) -> None:
    """Half a character decodes to U+FFFD under ``replace``; an unknown id is dropped under ``skip-unknown``."""
    for profile in VECTOR_PROFILES:
        chosen = get_profile(profile)
        texts = [item["text"] for vector in every_profile[profile]["load.json"] for item in vector["decodings"]]
        replaced = any("\ufffd" in text for text in texts)
        assert replaced == (chosen.decode_policy != "strict"), profile
        dropped = [
            item
            for vector in every_profile[profile]["load.json"]
            for item in vector["decodings"]
            if chosen.first_rule_id + len(vector["rules"]) in item["ids"][-1:]
        ]
        assert bool(dropped) == (chosen.decode_policy == "skip-unknown"), profile


def test_an_encode_only_profile_loads_stricts_rules_renumbered_and_is_never_asked_to_train(
    every_profile: dict[str, Any],
) -> None:
    strict = {vector["id"]: vector for vector in every_profile[STRICT.name]["invalid.json"]}
    invalid = every_profile[TIKTOKEN.name]["invalid.json"]
    assert invalid
    assert all(vector["operation"] != "train" for vector in invalid)
    for vector in invalid:
        expected = renumbered(strict[vector["id"]]["setup"]["rules"], TIKTOKEN.first_rule_id)
        assert [tuple(rule) for rule in vector["setup"]["rules"]] == expected


@pytest.mark.parametrize("profile", VECTOR_PROFILES)
def test_every_clause_a_profiles_vectors_can_express_is_named(profile: str, every_profile: dict[str, Any]) -> None:
    """A trainable profile's vectors name every clause but those no fixed answer shows and those it takes away;
    an encode-only profile's name no training clause."""
    chosen = get_profile(profile)
    covered = covered_clauses(every_profile[profile])
    assert not covered & void_clauses(chosen)
    if chosen.tie_break is not None:
        assert covered == set(CLAUSE_IDS) - NOT_IN_VECTORS - void_clauses(chosen)
    else:
        assert not {clause for clause in covered if clause.partition("-TRAIN-")[1]}
        assert {"BPE-ENCODE-ORDER", "BPE-DECODE-CONCAT", "BPE-INPUT-RULES", "BPE-INPUT-IDS"} <= covered


def test_void_clauses_follow_the_parameters_the_profiles_document() -> None:
    assert void_clauses(STRICT) == frozenset()
    minbpe = void_clauses(get_profile("minbpe"))
    assert {"BPE-TRAIN-DOCS", "BPE-PROP-PERMUTE", "BPE-ENCODE-BOUNDARY", "BPE-SER-DIGEST"} <= minbpe
    assert "BPE-PROP-PERMUTE" not in void_clauses(get_profile("rustbpe"))
    assert "BPE-DECODE-STRICT" in void_clauses(get_profile("hf-tokenizers"))
    assert "BPE-DECODE-STRICT" not in void_clauses(get_profile("bpeasy"))  # unknown ids still raise under replace
    split = dataclasses.replace(STRICT, name="split", pre_tokenization=r"\S+|\s+")
    assert void_clauses(split) == {"BPE-ENCODE-RAW"}


# --- replay ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", DIALECTS)
def test_the_reference_replays_every_vector_of_every_profile(profile: str, every_profile: dict[str, Any]) -> None:
    """The literal reference under the profile answers exactly what its files hold."""
    assert _failures(lambda: ProfileModel(get_profile(profile)), every_profile[profile]) == []


# Apart from the literal replay: a mutant of the fast engines is run against the tests that reach them, and the
# literal replay, which does not, took two thirds of this pair's time.
@pytest.mark.parametrize("profile", DIALECTS)
def test_the_profiles_corpus_trainer_trains_the_rules_of_every_training_vector(
    profile: str, every_profile: dict[str, Any]
) -> None:
    """The profile's trainer for corpora (:func:`bpe_conformance.reference.fast_profiles.fast_train_profile`)
    trains exactly the rules of the profile's training vectors."""
    chosen = get_profile(profile)
    vectors = every_profile[profile].get("training.json", [])
    assert vectors or chosen.tie_break is None, "a profile that trains has training vectors"
    for vector in vectors:
        rules = fast_train_profile(vector["documents"], vector["max_merges"], chosen)
        assert [list(rule) for rule in rules] == vector["rules"], vector["id"]


def _first_disagreement(vectors: dict[str, list[dict[str, Any]]], model: Profile) -> str | None:
    for name in ("invalid.json", "load.json", "training.json"):
        for vector in vectors.get(name, []):
            found = [item for item in replay_vector(lambda: ProfileModel(model), vector) if not item.skipped]
            if found:
                return format_mismatch(found[0])
    return None


_TRAINING_PARAMETERS = {"tie_break", "min_count", "documents", "document_separator"}


def _same_answers(first: Profile, second: Profile) -> bool:
    """The two profiles answer alike everything ``first``'s vectors ask (an encode-only profile asks no training)."""
    ignored = {"name", "description"} | (_TRAINING_PARAMETERS if first.tie_break is None else set())
    return all(
        getattr(first, field.name) == getattr(second, field.name)
        for field in dataclasses.fields(first)
        if field.name not in ignored
    )


@pytest.mark.parametrize("profile", VECTOR_PROFILES)
def test_a_profiles_vectors_tell_it_apart_from_every_other_profile(profile: str, every_profile: dict[str, Any]) -> None:
    """An implementation of any other profile fails some vector of this one: the vectors judge all of the profile."""
    chosen = get_profile(profile)
    for other in PROFILES.values():
        if other.name == profile or _same_answers(chosen, other):
            continue
        if other.tie_break is None and chosen.tie_break is not None:
            other = dataclasses.replace(other, tie_break=chosen.tie_break)  # its load and invalid vectors still part
        assert _first_disagreement(every_profile[profile], other) is not None, (profile, other.name)


def test_a_changed_answer_in_a_dialect_file_is_caught_by_replay(every_profile: dict[str, Any]) -> None:
    vector = copy.deepcopy(every_profile["subword-nmt"]["training.json"][0])
    vector["rules"] = vector["rules"][::-1]
    (found, *_) = [item for item in replay_vector(lambda: ProfileModel(get_profile("subword-nmt")), vector)]
    assert (found.operation, found.expected) == ("train", vector["rules"])
