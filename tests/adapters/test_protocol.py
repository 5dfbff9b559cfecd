"""The JSON-lines protocol of specs/protocol.md: schemas, message building, faithful transport of bad input.

Checks that run over the protocol send invalid inputs on purpose (BPE-INPUT-DOCS, BPE-INPUT-TEXT,
BPE-INPUT-IDS, BPE-INPUT-RULES, BPE-TRAIN-MAXMERGES), so the transport must deliver them unchanged.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.host import open_session, respond
from bpe_conformance.adapters.protocol import (
    OPERATIONS,
    PROTOCOL_VERSION,
    SCHEMA_DIR,
    ProtocolError,
    VersionMismatch,
    build_error,
    build_request,
    build_result,
    decode_message,
    encode_message,
    handshake_result,
    has_split_pair,
    implementation_info,
    load_schema,
    request_problem,
    to_wire,
    validate_request,
    validate_response,
    vocabulary_arguments,
    vocabulary_from_wire,
)
from bpe_conformance.adapters.subject import ImplementationInfo
from tests import ROOT

SPEC = ROOT / "specs" / "protocol.md"
HANDSHAKE = {
    "name": "demo",
    "version": "1.0",
    "language": "rust",
    "capabilities": ["train", "encode"],
    "profile": "strict",
    "protocol": PROTOCOL_VERSION,
}


def transcript(marker: str) -> list[dict[str, Any]]:
    """Every example line of specs/protocol.md written by one side (``>`` harness, ``<`` implementation)."""
    lines = re.findall(rf"^{re.escape(marker)} (\{{.*\}})$", SPEC.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return [json.loads(line) for line in lines]


# -- the schemas and the document agree --------------------------------------------------------


@pytest.mark.parametrize("name", ["request", "response", "handshake"])
def test_schemas_are_valid_and_versioned(name: str) -> None:
    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == f"urn:bpe-conformance:protocol:{PROTOCOL_VERSION}:{name}"
    assert f"protocol {PROTOCOL_VERSION}" in schema["title"]


def test_schema_directory_is_found_from_the_package() -> None:
    assert sorted(path.name for path in SCHEMA_DIR.glob("*.schema.json")) == [
        "handshake.schema.json",
        "request.schema.json",
        "response.schema.json",
    ]


def test_request_schema_knows_every_operation() -> None:
    assert load_schema("request")["properties"]["op"]["enum"] == list(OPERATIONS)


def test_example_exchange_in_the_spec_follows_the_schemas() -> None:
    requests, responses = transcript(">"), transcript("<")
    assert len(requests) == len(responses) >= 8
    for request, response in zip(requests, responses, strict=True):
        validate_request(request)
        assert request_problem(request) is None
        validate_response(response)
        assert response["id"] == request["id"]
    assert requests[0]["op"] == "handshake"
    assert requests[-1]["op"] == "stop"
    assert implementation_info(responses[0]["result"]).name == "node-bpe"
    assert {request["op"] for request in requests} == set(OPERATIONS)


def test_spec_states_the_protocol_version() -> None:
    assert f"version {PROTOCOL_VERSION}" in SPEC.read_text(encoding="utf-8").splitlines()[0]


# -- building and writing ----------------------------------------------------------------------


def test_build_request_keeps_invalid_arguments_as_they_are() -> None:
    request = build_request(4, "train", documents=("ab", None, 3, ["x"]), max_merges=True)
    assert request == {"id": 4, "op": "train", "documents": ["ab", None, 3, ["x"]], "max_merges": True}
    validate_request(request)


@pytest.mark.parametrize(
    ("operation", "arguments", "problem"),
    [
        ("fit", {}, "unknown operation 'fit'"),
        ("encode", {}, "carries text; got none"),
        ("decode", {"ids": [], "text": ""}, "carries ids; got ids, text"),
        ("stop", {"now": True}, "carries no arguments; got now"),
    ],
)
def test_build_request_rejects_what_the_protocol_does_not_have(
    operation: str, arguments: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        build_request(1, operation, **arguments)


def test_results_and_errors_follow_the_response_schema() -> None:
    for message in (build_result(1, [(97, 98)]), build_result(2, None), build_error(3, "TypeError", "no")):
        validate_response(message)
    validate_response(build_error(None, "ProtocolError", "not JSON"))


def test_encoded_lines_are_ascii_with_one_terminating_newline() -> None:
    line = encode_message(build_request(1, "encode", text="日本\n\ud800\U0001f600"))
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert line.isascii()
    assert b"\\ud800" in line
    assert b"\\ud83d\\ude00" in line


def test_values_json_cannot_carry_become_objects() -> None:
    wired = to_wire([b"ab", float("inf"), float("nan"), {1, 2}, {3: 4}, object])
    assert [item["$unrepresentable"] for item in wired] == ["bytes", "float", "float", "set", "dict", "type"]
    assert wired[0]["repr"] == "b'ab'"
    encode_message(build_request(1, "decode", ids=wired))  # never raises: NaN never reaches json


def test_long_reprs_are_shortened() -> None:
    wired = to_wire(b"x" * 1000)
    assert len(wired["repr"]) < 300
    assert wired["repr"].endswith("characters in all)")


# hypothesis's text() never yields lone surrogates on its own; the protocol must carry them.
LONE_SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
json_like = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters() | LONE_SURROGATES),
    lambda children: st.lists(children, max_size=4),
    max_leaves=12,
)


def same_value_and_type(left: object, right: object) -> bool:
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_value_and_type, left, right))
    if isinstance(left, float) and isinstance(right, float) and math.copysign(1, left) != math.copysign(1, right):
        return False
    return type(left) is type(right) and left == right


def assert_carried(received: Any, value: object) -> None:
    """``value`` arrived with its type, except strings JSON cannot hold, which arrive as a marked object."""
    if isinstance(value, list):
        assert isinstance(received, list)
        assert len(received) == len(value)
        for received_item, item in zip(received, value, strict=True):
            assert_carried(received_item, item)
    elif isinstance(value, str) and has_split_pair(value):
        assert received["$unrepresentable"] == "str"
        assert received["repr"].startswith(repr(value)[:100])
    else:
        assert same_value_and_type(received, value)


@given(json_like)
def test_invalid_inputs_arrive_unchanged(value: object) -> None:
    """specs/protocol.md §3.3: "The harness never cleans up what a check sends" — lone surrogates,
    booleans, floats (even integral ones), nulls, huge integers and nested wrong types arrive with
    their type and value (BPE-INPUT-DOCS, BPE-INPUT-TEXT, BPE-INPUT-IDS, BPE-INPUT-RULES)."""
    assert_carried(decode_message(encode_message(build_request(9, "decode", ids=value)))["ids"], value)


def test_a_split_surrogate_pair_is_not_sent_as_the_character_it_would_become() -> None:
    text = "a" + chr(0xD83D) + chr(0xDE00)  # two code points Python cannot encode; JSON would join them
    received = decode_message(encode_message(build_request(1, "encode", text=text)))["text"]
    assert received == {"$unrepresentable": "str", "repr": repr(text)}
    assert decode_message(encode_message(build_request(1, "encode", text="a\U0001f600")))["text"] == "a\U0001f600"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_are_always_written_as_floats(number: float) -> None:
    """specs/protocol.md §3.3: "a float always with one (2.0, 1e+300), even when its value is
    integral" — so max_merges=2.0 stays a TypeError in every language (BPE-TRAIN-MAXMERGES)."""
    text = encode_message(build_request(1, "train", documents=[], max_merges=number)).decode("ascii")
    found = re.search(r'"max_merges":([^,}]+)', text)
    assert found is not None, text
    written = found.group(1)
    assert re.search(r"[.eE]", written)


# -- reading -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (b"\xff\xfe{}\n", "line is not UTF-8"),
        (b"starting up...\n", "line is not JSON"),
        (b"\n", "line is not JSON"),
        (b'{"id": 1, "ok": true, "result": NaN}\n', "line is not JSON (NaN is not JSON)"),
        (b'{"id": 1, "ok": true} {"id": 2}\n', "line is not JSON (Extra data"),
    ],
)
def test_decode_message_rejects_lines_that_are_not_json(line: bytes, problem: str) -> None:
    with pytest.raises(ProtocolError, match=re.escape(problem)):
        decode_message(line)


def test_decode_message_accepts_raw_utf8_and_crlf() -> None:
    assert decode_message('{"id":1,"ok":true,"result":"é"}\r\n'.encode()) == {"id": 1, "ok": True, "result": "é"}


@pytest.mark.parametrize(
    ("response", "problem"),
    [
        ({"id": 1, "ok": True}, "'result' is a required property"),
        ({"id": "1", "ok": True, "result": 1}, "'1' is not of type 'integer' (at id)"),
        ({"id": 1, "ok": True, "result": 1, "log": "x"}, "('log' was unexpected)"),
        ({"id": 1, "ok": False, "error": "bad"}, "'bad' is not of type 'object' (at error)"),
        ({"id": 1, "ok": False, "error": {"type": "", "message": ""}}, "should be non-empty (at error/type)"),
        ({"id": 1, "ok": False, "error": {"type": "ValueError"}}, "'message' is a required property"),
        ({"id": None, "ok": True, "result": []}, "None is not of type 'integer' (at id)"),
        ([1, True, None], "is not of type 'object'"),
    ],
)
def test_validate_response_names_the_problem(response: object, problem: str) -> None:
    with pytest.raises(ProtocolError, match=re.escape(problem)):
        validate_response(response)


@pytest.mark.parametrize(
    ("request_message", "problem"),
    [
        ("encode", "a request is a JSON object, not str"),
        ({"op": "stop"}, "a request needs an integer id"),
        ({"id": True, "op": "stop"}, "a request needs an integer id"),
        ({"id": 1, "op": "fit"}, "unknown op 'fit'"),
        ({"id": 1, "op": "train", "documents": []}, "a train request needs max_merges"),
        ({"id": 1, "op": "handshake"}, "a handshake request needs protocol"),
    ],
)
def test_request_problem_is_cheap_and_precise(request_message: object, problem: str) -> None:
    assert request_problem(request_message) == problem
    with pytest.raises(ProtocolError):
        validate_request(request_message)


# -- the handshake -----------------------------------------------------------------------------


def test_implementation_info_from_a_handshake() -> None:
    info = implementation_info(HANDSHAKE)
    assert info == ImplementationInfo("demo", "1.0", "rust", frozenset({"train", "encode"}), "strict")


def test_handshake_result_round_trips() -> None:
    info = ImplementationInfo("x", "2", "python", frozenset({"train", "load", "encode", "decode"}), "strict")
    assert implementation_info(handshake_result(info)) == info


def test_version_mismatch_is_reported_before_anything_else() -> None:
    with pytest.raises(VersionMismatch, match="the harness speaks 1, the implementation 2"):
        implementation_info({"protocol": 2})


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"capabilities": ["train", "tokenize"]}, "'tokenize' is not one of"),
        ({"capabilities": ["train", "train"]}, "has non-unique elements"),
        ({"name": ""}, "should be non-empty (at name)"),
        ({"protocol": True}, "True is not of type 'integer' (at protocol)"),
        ({"protocol": None}, "None is not of type 'integer' (at protocol)"),
        ({"profile": 1}, "1 is not of type 'string' (at profile)"),
    ],
)
def test_unusable_handshakes_are_protocol_errors(change: dict[str, Any], problem: str) -> None:
    with pytest.raises(ProtocolError, match=re.escape(problem)) as raised:
        implementation_info({**HANDSHAKE, **change})
    assert not isinstance(raised.value, VersionMismatch)


def test_missing_handshake_fields_are_named() -> None:
    incomplete = {key: value for key, value in HANDSHAKE.items() if key != "capabilities"}
    with pytest.raises(ProtocolError, match="'capabilities' is a required property"):
        implementation_info(incomplete)


def test_extra_handshake_keys_are_ignored() -> None:
    assert implementation_info({**HANDSHAKE, "homepage": "https://example.org"}).name == "demo"


# -- production configuration (section 3.4) -----------------------------------------------------


def test_a_vocabulary_travels_as_base64_pieces_in_rank_order_and_back() -> None:
    ranks = {bytes([value]): value for value in range(256)} | {b"\xe6\x97": 256, b" the": 257}
    arguments = vocabulary_arguments(ranks, {"<|endoftext|>": 258})
    request = build_request(2, "load_vocabulary", **arguments)
    validate_request(request)
    assert decode_message(encode_message(request)) == request
    assert vocabulary_from_wire(request["pieces"], request["special_tokens"]) == (ranks, {"<|endoftext|>": 258})


@pytest.mark.parametrize(
    ("pieces", "special_tokens", "problem"),
    [
        ("YQ==", {}, "pieces must be a list"),
        (["YQ==", 5], {}, "piece 1 must be a base64 string"),
        (["YQ==", "Y*=="], {}, "piece 1 is not base64"),
        (["YQ==", "YQ=="], {}, "piece 1 (b'a') is also piece 0"),
        (["YQ=="], {"<|x|>": 1.0}, "special token '<|x|>' must have an integer id"),
    ],
)
def test_a_malformed_vocabulary_request_is_answered_with_a_protocol_error(
    pieces: object, special_tokens: object, problem: str
) -> None:
    session = open_session("tests.support.broken_ports:CorrectPort")
    message = {"id": 4, "op": "load_vocabulary", "pieces": pieces, "special_tokens": special_tokens}
    error = respond(session, message)["error"]
    assert error["type"] == "ProtocolError"
    assert problem in error["message"]


def test_the_host_declares_the_capability_only_for_a_load_vocabulary_method() -> None:
    loads = respond(open_session("tests.support.broken_ports:CorrectPort"), {"id": 1, "op": "handshake", "protocol": 1})
    plain = open_session("bpe_conformance.reference:Tokenizer")
    answer = respond(plain, {"id": 1, "op": "handshake", "protocol": 1})
    assert "load_vocabulary" in loads["result"]["capabilities"]
    assert "load_vocabulary" not in answer["result"]["capabilities"]
    assert "vocabulary" not in answer["result"]
    refused = respond(plain, {"id": 2, "op": "load_vocabulary", "pieces": ["YQ=="], "special_tokens": {}})
    assert refused["error"]["type"] == "NotImplemented"
    for result in (loads["result"], answer["result"]):
        assert implementation_info(result).name  # both are handshakes of protocol 1


@pytest.mark.parametrize("name", ["", "x" * 201, "lone" + chr(0xD800)])
def test_a_vocabulary_attribute_the_handshake_cannot_carry_is_left_out(name: str) -> None:
    session = open_session("bpe_conformance.reference:Tokenizer")
    session.instance.vocabulary = name
    result = respond(session, {"id": 1, "op": "handshake", "protocol": 1})["result"]
    assert "vocabulary" not in result
    implementation_info(result)  # a handshake of protocol 1 all the same
