"""reference/profile_spec.py: custom profiles from base+field=value strings and small TOML/JSON files."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.reference.dialects import decode_profile, encode_profile, train_profile
from bpe_conformance.reference.fast_profiles import fast_train_profile, has_fast_engine
from bpe_conformance.reference.profile_spec import (
    MAX_FILE_BYTES,
    PARAMETERS,
    custom_profile,
    load_profile_file,
    parse_profile,
    resolve_profile,
)
from bpe_conformance.reference.profiles import (
    DECODE_POLICIES,
    DOCUMENT_MODES,
    ENCODE_ALGORITHMS,
    MINBPE,
    PROFILES,
    STRICT,
    SURROGATE_POLICIES,
    TIE_BREAKS,
    get_profile,
)

NEEDS_TOMLLIB = pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")


def test_a_base_with_overrides_changes_exactly_those_parameters() -> None:
    profile = parse_profile("strict+tie=first-seen+min_count=1")
    assert profile.name == "strict+tie_break=first-seen+min_count=1"
    changed = [field for field in PARAMETERS if getattr(profile, field) != getattr(STRICT, field)]
    assert changed == ["tie_break", "min_count"]
    assert (profile.tie_break, profile.min_count) == ("first-seen", 1)


def test_the_canonical_name_orders_fields_and_drops_values_equal_to_the_base() -> None:
    profile = parse_profile("minbpe+min_count=3+tie_break=first-seen+documents=separate")
    assert profile.name == "minbpe+min_count=3+documents=separate"
    assert parse_profile("strict+min_count=2") == STRICT


def test_numbering_follows_boundary_ids_either_way() -> None:
    assert parse_profile("strict+boundary_ids=false").first_rule_id == 256
    assert parse_profile("strict+first_rule_id=256").boundary_ids is False
    assert parse_profile("strict+first_rule_id=256").name == "strict+boundary_ids=false"
    assert parse_profile("rustbpe+boundary_ids=TRUE").first_rule_id == 258


def test_a_first_rule_id_of_258_turns_boundary_ids_on() -> None:
    profile = parse_profile("rustbpe+first_rule_id=258")
    assert (profile.boundary_ids, profile.first_rule_id) == (True, 258)
    assert profile.name == "rustbpe+boundary_ids=true"


def test_the_description_names_the_base_and_every_change() -> None:
    profile = parse_profile("strict+tie=first-seen+min_count=1+documents=concatenated")
    base, with_, changes = profile.description.partition(" with ")
    assert (base, with_) == ("strict", " with ")
    assert changes.split(", ") == ["tie_break=first-seen", "min_count=1", "documents=concatenated"]


def test_a_json_null_is_none_where_none_is_a_choice(tmp_path: Path) -> None:
    assert resolve_profile(_write(tmp_path, "a.json", '{"base": "strict", "tie": null}')).tie_break is None


def test_an_error_of_a_profile_made_without_a_spec_names_its_base() -> None:
    with pytest.raises(ValueError, match="min_count 0") as raised:
        custom_profile("minbpe", {"min_count": 0})
    assert repr("minbpe") in str(raised.value)


def test_texts_are_percent_encoded_in_the_name_and_plain_in_the_profile() -> None:
    profile = parse_profile("strict+documents=concatenated+document_separator=%0A%2B")
    assert profile.document_separator == "\n+"
    assert profile.name == "strict+documents=concatenated+document_separator=%0A%2B"
    split = parse_profile(r"strict+pre_tokenization=%20%3F%5CS%2B%7C%5Cs%2B")
    assert split.pre_tokenization == r" ?\S+|\s+"
    assert parse_profile(split.name) == split


def test_get_profile_resolves_custom_names_so_reports_round_trip() -> None:
    profile = parse_profile("minbpe+decode_policy=strict")
    assert get_profile(profile.name) == profile
    assert get_profile("minbpe") is MINBPE


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("strict+tie=last-seen", "tie_break 'last-seen' is not one of: smallest-ids, first-seen"),
        ("strict+ties=first-seen", "unknown parameter 'ties'; choose one of: tie (tie_break), tie_break, min_count"),
        ("strict+min_count=0", "min_count 0 is not an integer >= 1"),
        ("strict+min_count=two", "min_count 'two' is not an integer >= 1"),
        ("strict+first_rule_id=257", "first_rule_id 257 is not one of: 256, 258"),
        ("strict+first_rule_id=abc", "first_rule_id 'abc' is not 256 or 258"),
        ("strict+boundary_ids=maybe", "boundary_ids 'maybe' is not one of: true, false"),
        ("strict+boundary_ids=true+first_rule_id=256", "first_rule_id 256 contradicts boundary_ids=true (258)"),
        ("strict+documents=joined", "documents 'joined' is not one of: separate, concatenated"),
        ("strict+document_separator=%0A", "document_separator needs documents=concatenated"),
        ("strict+encode_algorithm=heap", "encode_algorithm 'heap' is not one of: rank-order, piece-rank"),
        ("strict+decode_policy=lenient", "decode_policy 'lenient' is not one of: strict, replace, skip-unknown"),
        ("strict+lone_surrogates=drop", "lone_surrogates 'drop' is not one of: error, replace"),
        ("strict+pre_tokenization=(", "pre_tokenization '(' is not a Python regular expression"),
        ("strict+pre_tokenization=(a)", "has a capturing group"),
        ("strict+pre_tokenization=a*", "matches the empty text"),
        ("strict+split=cl100k+pre_tokenization=%5CS%2B", "split=cl100k and pre_tokenization both split the text"),
        ("strict+tie=first-seen+tie_break=largest-ids", "tie_break is given twice"),
        ("strict+min_count", "'min_count' is not field=value"),
        ("strict+name=mine", "unknown parameter 'name'"),
        ("gpt-5+tie=first-seen", "unknown base profile 'gpt-5'; choose one of: strict, minbpe"),
        ("gpt-5", "unknown profile 'gpt-5'; choose one of: strict, minbpe"),
    ],
)
def test_a_bad_spec_is_one_line_naming_the_field_value_and_choices(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        resolve_profile(spec)
    text = str(raised.value)
    assert message in text
    assert repr(spec) in text  # the error names the spec it rejects
    assert "\n" not in text


@pytest.mark.parametrize("spec", [7, None, b"strict"])
def test_a_profile_that_is_not_a_string_names_the_type_it_was(spec: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(spec).__name__}$"):
        resolve_profile(spec)  # type: ignore[arg-type]


def test_encode_only_base_or_none_tie_is_allowed_and_cannot_train() -> None:
    profile = parse_profile("strict+tie=none")
    assert profile.tie_break is None
    with pytest.raises(ValueError, match="encode-only"):
        train_profile(["abab"], 1, profile)
    assert parse_profile("tiktoken+lone_surrogates=error").tie_break is None


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@NEEDS_TOMLLIB
def test_a_toml_file_names_a_base_and_overrides(tmp_path: Path) -> None:
    path = _write(tmp_path, "mine.toml", 'base = "strict"\ntie = "first-seen"\nmin_count = 1\nboundary_ids = false\n')
    profile = resolve_profile(path)
    assert profile.name == "strict+tie_break=first-seen+min_count=1+boundary_ids=false"
    assert profile.first_rule_id == 256
    assert get_profile(profile.name) == profile


def test_a_json_file_takes_plain_texts(tmp_path: Path) -> None:
    table = {"base": "rustbpe", "documents": "concatenated", "document_separator": "\n", "pre_tokenization": None}
    profile = resolve_profile(_write(tmp_path, "mine.json", json.dumps(table)))
    assert (profile.documents, profile.document_separator) == ("concatenated", "\n")
    assert profile.name == "rustbpe+documents=concatenated+document_separator=%0A"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.json", '{"tie": "first-seen"}', "base None must name a profile: one of strict"),
        ("a.json", '["strict"]', "the file must hold one table"),
        ("a.json", "{", "not valid JSON"),
        ("a.json", '{"base": "strict", "min_count": true}', "min_count True is not an integer >= 1"),
        ("a.json", '{"base": "strict", "tie": 3}', "tie_break 3 is not one of"),
        ("a.json", '{"base": "strict", "documents": null}', "documents None is not one of: separate, concatenated"),
        (
            "a.json",
            '{"base": "strict", "documents": "concatenated", "document_separator": 3}',
            "separator 3 is not a text",
        ),
        ("a.json", '{"base": "gpt-5"}', "unknown base profile 'gpt-5'; choose one of: strict, minbpe, tinybpe"),
        ("a.json", '{"base": "strict", "tie": "first-seen", "tie_break": "first-seen"}', "tie_break is given twice"),
        ("a.json", '{"base": "strict", "colour": "red"}', "unknown parameter 'colour'"),
        ("a.json", '{"base": "strict", "boundary_ids": "maybe"}', "boundary_ids 'maybe' is not one of: true, false"),
        ("a.json", '{"base": "strict", "pre_tokenization": 3}', "pre_tokenization 3 is not a regular expression"),
        ("a.json", '{"base": "strict", "pre_tokenization": "("}', "pre_tokenization '(' is not a Python regular"),
        ("a.json", '{"base": "strict", "pre_tokenization": "(a)"}', "pre_tokenization '(a)' has a capturing group"),
        ("a.json", '{"base": "strict", "pre_tokenization": "a*"}', "pre_tokenization 'a*' matches the empty text"),
        ("a.json", " " * 70_000 + "{}", "at most 65536 bytes"),
        pytest.param("a.toml", "base = ", "not valid TOML", marks=NEEDS_TOMLLIB),
    ],
)
def test_a_bad_file_is_one_line(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = _write(tmp_path, name, text)
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        resolve_profile(path)
    assert message in str(raised.value)
    assert repr(path) in str(raised.value)  # the error names the file, not the base or the spec
    assert "\n" not in str(raised.value)


def test_a_bad_base_in_a_file_lists_every_profile(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="must name a profile") as raised:
        resolve_profile(_write(tmp_path, "a.json", '{"base": 5}'))
    listed = str(raised.value).rpartition("one of ")[2]
    assert listed.split(", ") == list(PROFILES)


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("a.json", '{\n"base": "strict",\n"tie": }', "line 3"),
        pytest.param("a.toml", 'base = "strict"\ntie = \n', "line 2", marks=NEEDS_TOMLLIB),
    ],
)
def test_a_file_that_does_not_parse_names_the_line(tmp_path: Path, name: str, text: str, line: str) -> None:
    with pytest.raises(ValueError, match="not valid") as raised:
        resolve_profile(_write(tmp_path, name, text))
    assert line in str(raised.value)


@pytest.mark.parametrize(
    ("name", "text"),
    [("a.json", "[" * 60_000), pytest.param("a.toml", "a = " + "[" * 60_000, marks=NEEDS_TOMLLIB)],
)
def test_a_file_nested_too_deeply_is_one_line(tmp_path: Path, name: str, text: str) -> None:
    """Bad input, not a traceback: the parsers give up on deep nesting with RecursionError, no ValueError."""
    path = _write(tmp_path, name, text)
    with pytest.raises(ValueError, match="not valid") as raised:
        resolve_profile(path)
    assert repr(path) in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_file_of_exactly_the_largest_size_is_read(tmp_path: Path) -> None:
    table = '{"base": "strict", "min_count": 1}'
    path = _write(tmp_path, "a.json", table + " " * (MAX_FILE_BYTES - len(table)))
    assert resolve_profile(path) == parse_profile("strict+min_count=1")
    with pytest.raises(ValueError, match=f"at most {MAX_FILE_BYTES} bytes"):
        resolve_profile(_write(tmp_path, "b.json", table + " " * (MAX_FILE_BYTES + 1 - len(table))))


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "absent.toml"
    with pytest.raises(ValueError, match="no such profile file") as raised:
        load_profile_file(path)
    assert repr(str(path)) in str(raised.value)


def test_an_unreadable_file_names_the_file_and_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, "a.json", '{"base": "strict"}')

    def unreadable(self: Path) -> bytes:
        raise OSError("the disk is unreadable")  # an OSError without errno, so no strerror

    monkeypatch.setattr(Path, "read_bytes", unreadable)
    with pytest.raises(ValueError, match="cannot read it") as raised:
        load_profile_file(path)
    assert repr(path) in str(raised.value)
    assert "the disk is unreadable" in str(raised.value)


def test_a_toml_file_before_python_3_11_names_the_file_and_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.10 (supported) has no tomllib: the error names the file and the JSON form instead."""
    path = _write(tmp_path, "a.toml", 'base = "strict"\n')
    monkeypatch.setattr(sys, "version_info", (3, 10, 14, "final", 0))
    with pytest.raises(ValueError, match=r"3\.11") as raised:
        load_profile_file(path)
    assert repr(path) in str(raised.value)
    assert "JSON" in str(raised.value)
    assert "not valid" not in str(raised.value)  # the file may be fine: it is the Python that cannot read it


_PATTERNS = (None, r" ?\S+|\s+", r"[^\n]+|\n")
overrides = st.fixed_dictionaries(
    {},
    optional={
        "tie_break": st.sampled_from(TIE_BREAKS),
        "min_count": st.integers(1, 4),
        "boundary_ids": st.booleans(),
        "documents": st.sampled_from(DOCUMENT_MODES),
        "pre_tokenization": st.sampled_from(_PATTERNS),
        "encode_algorithm": st.sampled_from(ENCODE_ALGORITHMS),
        "decode_policy": st.sampled_from(DECODE_POLICIES),
        "lone_surrogates": st.sampled_from(SURROGATE_POLICIES),
    },
)
bases = st.sampled_from([name for name, profile in PROFILES.items() if profile.tie_break is not None])
documents = st.lists(st.text(alphabet="ab \nc1é", max_size=12), max_size=4)


def _custom(base: str, changes: dict[str, Any], separator: str) -> Any:
    if changes.get("documents", PROFILES[base].documents) == "concatenated" and separator:
        changes = {**changes, "documents": "concatenated", "document_separator": separator}
    return custom_profile(base, changes)


@given(base=bases, changes=overrides, separator=st.sampled_from(["", "\n", "|"]), docs=documents)
def test_every_accepted_profile_round_trips_and_the_engines_agree_on_it(
    base: str, changes: dict[str, Any], separator: str, docs: list[str]
) -> None:
    """Whatever combination the validator accepts, its name resolves to it again, the fast engine trains as the
    literal reference does, and the literal encoder and decoder run it (an encoding decodes to its text)."""
    profile = _custom(base, changes, separator)
    assert get_profile(profile.name) == profile
    rules = train_profile(docs, 50, profile)
    if has_fast_engine(profile):
        assert fast_train_profile(docs, 50, profile) == rules
    for text in docs:
        assert decode_profile(encode_profile(text, rules, profile), rules, profile) == text
