"""Values JSON cannot carry, and integers past 32 and 53 bits, across the protocol (specs/protocol.md 3.3).

The Python host rebuilds ``$unrepresentable`` markers, so a Python implementation receives the bytes or
the set a check sent; a program in another language receives the marker and rejects it. Large integers
are written in full: the Node.js fixture reads them without losing what matters (out of range as ids,
unlimited as max_merges), and its int32-narrowing variant is convicted under the clauses they break.
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING, Any

import pytest

from bpe_conformance.adapters import host_command
from bpe_conformance.adapters.protocol import build_request, decode_message, encode_message
from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.checks import select_checks
from bpe_conformance.errors import ImplementationRaised
from bpe_conformance.inputs.unrepresentable import REBUILT_TYPES, restore
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.runner import run_checks
from bpe_conformance.settings import EFFORTS
from tests import ROOT

if TYPE_CHECKING:
    from collections.abc import Callable

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
pytestmark = pytest.mark.timeout(180)


def hosted(spec: str) -> ProcessSubject:
    return ProcessSubject(host_command(spec), env=ENV, cwd=ROOT)


def node(script: str) -> ProcessSubject:
    assert NODE is not None
    return ProcessSubject([NODE, str(ROOT / "tests" / "fixtures" / "node" / script)], timeout=10)


def raised(call: Callable[..., object], *args: object) -> ImplementationRaised:
    with pytest.raises(ImplementationRaised) as error:
        call(*args)
    return error.value


def wired(value: object) -> Any:
    """``value`` as the other end of a request reads it."""
    return decode_message(encode_message(build_request(1, "encode", text=value)))["text"]


@pytest.mark.parametrize(
    "value",
    [b"ab", b"", b"\x00\xff", bytearray(b"ab"), {"ab"}, set(), frozenset({(97, 98)}), frozenset(), [b"a", {1}]],
    ids=repr,
)
def test_a_marker_is_rebuilt_into_the_value_it_stands_for(value: object) -> None:
    rebuilt = restore(wired(value))
    assert rebuilt == value
    assert type(rebuilt) is type(value)


def test_nan_infinities_and_a_generator_stand_in_are_rebuilt_with_their_types() -> None:
    assert [repr(restore(wired(float(text)))) for text in ("nan", "inf", "-inf")] == ["nan", "inf", "-inf"]
    stand_in = restore(wired(item for item in "ab"))
    assert type(stand_in).__name__ == "generator"
    assert list(stand_in) == []
    assert set(REBUILT_TYPES) >= {"bytes", "bytearray", "set", "frozenset", "float", "generator", "str"}


def test_what_cannot_be_rebuilt_stays_a_marker_and_plain_objects_stay_objects() -> None:
    memory = wired(memoryview(b"ab"))
    assert restore(memory) == memory
    assert memory["$unrepresentable"] == "memoryview"
    shortened = wired(b"x" * 500)  # its repr is cut short on the wire: no exact value to rebuild
    assert restore(shortened) == shortened
    assert restore({"abab": 1}) == {"abab": 1}
    assert restore({"$unrepresentable": "bytes", "repr": "__import__('os')"})["repr"] == "__import__('os')"


def test_the_python_host_hands_real_bytes_and_sets_to_the_implementation() -> None:
    with hosted("bpe_conformance.zoo:EncodeAcceptsBytes") as subject:
        # Not a str, on purpose: accepted, so the implementation saw bytes, not a dict.
        assert subject.encode(b"ab") == [97, 98]  # type: ignore[arg-type]  # bytes on purpose
        assert subject.encode(bytearray(b"ab")) == [97, 98]  # type: ignore[arg-type]  # bytearray on purpose
        assert "not set" in raised(subject.encode, {"ab"}).message
    with hosted("bpe_conformance.reference:Tokenizer") as subject:
        subject.train(["abab", "acac"], 2)
        assert raised(subject.decode, b"ab").message == "ids must be a list of int, not bytes"
        assert raised(subject.load, [b"ab"]).message == "rule 0 must be a pair of ints, not bytes"
        assert raised(subject.train, (item for item in ["abab"]), 8).message.endswith("not generator")


@needs_node
def test_a_program_in_another_language_receives_the_marker_and_rejects_it() -> None:
    with node("bpe.mjs") as subject:
        subject.train(["abab", "acac"], 2)
        for call, argument in ((subject.encode, b"ab"), (subject.decode, {97}), (subject.load, [b"ab"])):
            assert raised(call, argument).kind == "TypeError"


@needs_node
def test_the_node_fixture_reads_integers_past_53_bits_as_the_protocol_says() -> None:
    with node("bpe.mjs") as subject:
        for budget in (2**31, 2**32 + 1, 2**53 + 1, 2**64 + 1):
            assert subject.train(["abab", "acac"], budget) == [(97, 98), (97, 99)], budget
        for wide in (2**31, 2**32, 2**53, 2**63, 2**64):
            assert raised(subject.decode, [97, wide + 97]).kind == "ValueError"
            assert raised(subject.decode, [97, 97 - wide]).kind == "ValueError"
            assert raised(subject.load, [[97, wide + 98]]).kind == "ValueError"
        assert raised(subject.train, ["abab"], -(2**64)).kind == "ValueError"


@needs_node
def test_an_int32_narrowing_program_is_convicted_under_the_clauses_it_breaks() -> None:
    with node("bpe_int32.mjs") as subject:
        assert subject.train(["abab", "acac"], 2**32 + 1) == [(97, 98)]
        assert subject.decode([97, 2**32 + 97]) == "aa"
        checks = select_checks(["max-merges-wide", "ids-validation", "rules-validation"])
        results = run_checks(checks, subject, EFFORTS["dev"], seed=0)
    assert [(result.check, result.outcome, result.clause) for result in results] == [
        ("max-merges-wide", Outcome.FAIL, "BPE-TRAIN-MAXMERGES"),
        ("ids-validation", Outcome.FAIL, "BPE-INPUT-IDS"),
        ("rules-validation", Outcome.FAIL, "BPE-INPUT-RULES"),
    ]
