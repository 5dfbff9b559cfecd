"""dialects/parameters.py: every profile parameter told by its own questions (issue 25, item 3)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from jsonschema import Draft202012Validator

from bpe_conformance import reference
from bpe_conformance.cli import main as cli
from bpe_conformance.dialects.identify import format_report, identify
from bpe_conformance.dialects.parameters import PARAMETER_PROBES, QUESTIONS, Status, infer_parameters
from bpe_conformance.dialects.probes import ProfileModel
from bpe_conformance.reference.profile_spec import PARAMETERS, parse_profile
from bpe_conformance.reference.profiles import PROFILES, Profile
from bpe_conformance.running import RunConfig, RunPlan
from bpe_conformance.spec.resources import spec_file
from tests.dialects.test_identify import OverlappingMergeTokenizer
from tests.support.combined_dialects import FirstSeenMinOne, LargestPiecesMinOneJoined, LastSeen

if TYPE_CHECKING:
    from pathlib import Path


def _same_parameters(found: str | None, profile: Profile) -> list[str]:
    assert found is not None
    inferred = parse_profile(found)
    return [field for field in PARAMETERS if getattr(inferred, field) != getattr(profile, field)]


def _model(profile: Profile) -> Any:
    class Model(ProfileModel):
        capabilities = ("train", "load", "encode", "decode") if profile.tie_break else ("load", "encode", "decode")

    return Model


def test_the_reference_is_strict_in_every_parameter() -> None:
    found = infer_parameters(reference.Tokenizer)
    assert found.profile == "strict"
    assert found.closest == "strict"
    assert not found.differing
    assert all(finding.status is Status.DETERMINED for finding in found.findings)
    assert not found.unexplained


@pytest.mark.parametrize("name", list(PROFILES))
def test_every_named_profile_is_inferred_parameter_by_parameter(name: str) -> None:
    profile = PROFILES[name]
    model = _model(profile)
    found = infer_parameters(lambda: model(profile), model.capabilities)
    assert found.profile == name
    assert found.closest == name
    assert not found.differing


@pytest.mark.parametrize(
    "spec",
    [
        "strict+tie=first-seen+min_count=1",
        "rustbpe+tie=largest-pieces+documents=concatenated",
        "hf-tokenizers+min_count=3+decode_policy=replace",
        "minbpe+documents=concatenated+document_separator=%0A%0A+boundary_ids=true",
        "subword-nmt+encode_algorithm=piece-rank+lone_surrogates=replace",
        "largest-pair+documents=concatenated+document_separator=%20+decode_policy=skip-unknown",
        "strict+tie=smallest-string-key+min_count=3+pre_tokenization=%20%3F%5CS%2B%7C%5Cs%2B",
    ],
)
def test_a_combination_of_documented_values_is_named_by_exactly_those(spec: str) -> None:
    profile = parse_profile(spec)
    found = infer_parameters(lambda: ProfileModel(profile))
    assert found.complete
    assert _same_parameters(found.profile, profile) == []


def test_first_seen_ties_with_pairs_seen_once_are_named_and_then_pass_under_that_profile() -> None:
    report = identify(FirstSeenMinOne)
    assert report.matches == []  # no named profile combines these choices
    found = report.parameters
    assert found is not None
    assert found.closest == "strict"
    assert found.differing == ("tie_break=first-seen", "min_count=1")
    assert found.profile == "strict+tie_break=first-seen+min_count=1"
    assert report.judged_by_profile
    text = format_report(report)
    assert "judge it by: --profile 'strict+tie_break=first-seen+min_count=1'" in text
    config = RunConfig(
        impl="tests.support.combined_dialects:FirstSeenMinOne", isolation="inprocess", profile=found.profile
    )
    result = RunPlan.build(config).run()
    assert result.exit_code == 0, [(r.check, r.outcome) for r in result.results if r.outcome.value != "pass"]
    assert RunPlan.build(RunConfig(impl=config.impl, isolation="inprocess", patterns=("tie-break",))).run().exit_code


def test_joined_documents_with_a_newline_are_told_with_their_separator() -> None:
    found = infer_parameters(LargestPiecesMinOneJoined)
    values = {finding.parameter: finding.values for finding in found.findings}
    assert values["documents"] == ("concatenated",)
    assert values["document_separator"] == ("'\\n'",)
    assert values["tie_break"] == ("largest-pieces",)
    assert values["min_count"] == ("1",)
    assert parse_profile(str(found.profile)).document_separator == "\n"


def test_an_undocumented_tie_order_fits_no_value_and_shows_its_questions() -> None:
    report = identify(LastSeen)
    found = report.parameters
    assert found is not None
    assert not found.complete
    assert found.profile is None
    ties = next(finding for finding in found.findings if finding.parameter == "tie_break")
    assert ties.status is Status.NO_VALUE
    assert {item.question for item in ties.evidence} == set(QUESTIONS["tie_break"])
    # Every value fails some question: that is what "fits no value" means.
    for value in ("smallest-ids", "first-seen", "largest-ids", "largest-pieces", "smallest-hf-ids"):
        assert any(value not in item.fitting for item in ties.evidence)
    others = [finding for finding in found.findings if finding.parameter != "tie_break"]
    assert all(finding.status is Status.DETERMINED for finding in others)
    assert "tie_break: fits no value" in found.differing
    assert not found.unexplained
    text = format_report(report)
    assert "tie_break           fits no value: likely a bug" in text
    assert "question tie-first-seen-vs-largest: train(['ababcdcd'], 1) returned [(99, 100)]; fits largest-ids" in text


def test_a_counting_bug_is_no_parameter_s_value() -> None:
    found = infer_parameters(OverlappingMergeTokenizer)
    assert not found.complete
    assert all(finding.status is not Status.NO_VALUE for finding in found.findings)
    assert [item.question for item in found.unexplained] == ["run-of-one-byte"]


def test_an_encoder_is_not_asked_the_training_questions() -> None:
    profile = PROFILES["tiktoken"]
    model = _model(profile)
    found = infer_parameters(lambda: model(profile), model.capabilities)
    statuses = {finding.parameter: finding.status for finding in found.findings}
    assert statuses["tie_break"] is Status.NOT_ASKED
    assert statuses["min_count"] is Status.NOT_ASKED
    assert statuses["encode_algorithm"] is Status.DETERMINED


def test_identify_json_carries_every_parameter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "identify.json"
    code = cli.main(
        [
            "identify",
            "--impl",
            "tests.support.combined_dialects:LastSeen",
            "--isolation",
            "inprocess",
            "--json",
            str(target),
        ]
    )
    assert code == 1
    assert "fits no value: likely a bug" in capsys.readouterr().out
    document = json.loads(target.read_text(encoding="utf-8"))
    parameters = document["parameters"]
    assert [item["parameter"] for item in parameters["parameters"]][:2] == ["tie_break", "min_count"]
    assert parameters["parameters"][0]["status"] == "fits-no-value"
    assert parameters["profile"] is None
    assert parameters["closest"] == "strict"
    evidence = parameters["parameters"][0]["evidence"][0]
    assert set(evidence) == {"question", "why", "call", "observed", "predictions", "explained", "fitting"}
    _validate(document)


def _validate(document: dict[str, Any]) -> None:
    schema = json.loads(spec_file("schema", "identify.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator(schema).validate(document)


@pytest.mark.parametrize("factory", [reference.Tokenizer, FirstSeenMinOne, OverlappingMergeTokenizer])
def test_the_identify_document_follows_its_schema(factory: Any) -> None:
    _validate(json.loads(json.dumps(identify(factory).to_dict(), default=repr)))


def test_identify_exits_0_when_a_custom_profile_explains_everything(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        ["identify", "--impl", "tests.support.combined_dialects:FirstSeenMinOne", "--isolation", "inprocess"]
    )
    assert code == 0
    assert "judge it by: --profile 'strict+tie_break=first-seen+min_count=1'" in capsys.readouterr().out


def test_identify_judges_a_custom_profile_given_with_profile(capsys: pytest.CaptureFixture[str]) -> None:
    spec = "strict+tie=first-seen+min_count=1"
    arguments = ["identify", "--impl", "tests.support.combined_dialects:FirstSeenMinOne", "--isolation", "inprocess"]
    assert cli.main([*arguments, "--profile", spec]) == 0
    assert "identified as: strict+tie_break=first-seen+min_count=1" in capsys.readouterr().out
    assert cli.main([*arguments, "--profile", "strict+tie=sideways"]) == 2
    assert "--profile: profile 'strict+tie=sideways': tie_break 'sideways' is not one of" in capsys.readouterr().err


def test_every_question_names_a_probe_and_no_probe_answers_two_parameters() -> None:
    names = [probe.name for probe in PARAMETER_PROBES]
    assert len(names) == len(set(names))
    owned = [name for questions in QUESTIONS.values() for name in questions]
    assert len(owned) == len(set(owned))
    assert set(owned) <= set(names)
    # first_rule_id follows boundary_ids; split (a released pattern) is stated, not inferred.
    assert set(QUESTIONS) == {field for field in PARAMETERS if field not in ("first_rule_id", "split")}
