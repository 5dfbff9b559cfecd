"""The bug zoo is real and the controls are correct.

Every member's witness must show a difference from ``reference.LiteralTokenizer`` (and none from
the plain ``ZooBase`` it derives from, so the difference is the member's one override); every
control must agree with the reference on adversarial input.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bpe_conformance.reference import LiteralTokenizer
from bpe_conformance.zoo import CONTROLS, ZOO, ZooBase, by_name
from bpe_conformance.zoo.witness import CallResult, call, describe_witness, run_witness

KNOWN_CLAUSES = frozenset(
    (
        *("BPE-ALPHA-BYTES", "BPE-ALPHA-BOUNDARY", "BPE-RULE-ID", "BPE-RULE-REF", "BPE-RULE-PIECE"),
        *("BPE-VOCAB-SIZE", "BPE-TRAIN-INPUT", "BPE-TRAIN-COUNT", "BPE-TRAIN-DOCS", "BPE-TRAIN-GREEDY"),
        *("BPE-TRAIN-TIE", "BPE-TRAIN-RECOUNT", "BPE-TRAIN-STOP", "BPE-TRAIN-MAXMERGES", "BPE-MERGE-SCAN"),
        *("BPE-MERGE-NOREMATCH", "BPE-ENCODE-ORDER", "BPE-ENCODE-RAW", "BPE-ENCODE-LOWEST"),
        *("BPE-ENCODE-BOUNDARY", "BPE-ENCODE-PURE", "BPE-DECODE-CONCAT", "BPE-DECODE-STRICT"),
        *("BPE-DECODE-BYTES", "BPE-ROUNDTRIP", "BPE-PROP-UNIQUE", "BPE-PROP-PREFIX", "BPE-PROP-PERMUTE"),
        *("BPE-PROP-DETERMINISM", "BPE-SER-JSON", "BPE-SER-DIGEST", "BPE-SER-LOAD", "BPE-INPUT-DOCS"),
        *("BPE-INPUT-TEXT", "BPE-INPUT-IDS", "BPE-INPUT-RULES"),
    )
)
OPERATIONS = frozenset({"train", "encode", "decode", "load"})
KEBAB_CASE = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def _label(implementation: Any) -> str:
    return str(implementation.name)


# ---- the registry -------------------------------------------------------------------------


def test_zoo_and_controls_are_big_enough_and_names_are_unique_kebab_case() -> None:
    names = [implementation.name for implementation in [*ZOO, *CONTROLS]]
    assert len(ZOO) >= 30
    assert len(CONTROLS) >= 3
    assert len(names) == len(set(names)), sorted(name for name in names if names.count(name) > 1)
    assert [name for name in names if not KEBAB_CASE.fullmatch(name)] == []


def test_by_name_finds_every_class_and_names_the_unknown() -> None:
    for implementation in [*ZOO, *CONTROLS]:
        assert by_name(implementation.name) is implementation
    with pytest.raises(ValueError, match="no-such-member"):
        by_name("no-such-member")


def test_every_class_is_a_zero_argument_factory_importable_by_class_name() -> None:
    module = importlib.import_module("bpe_conformance.zoo")
    for implementation in [*ZOO, *CONTROLS]:
        assert getattr(module, implementation.__name__) is implementation
        instance = implementation()
        assert all(callable(getattr(instance, method)) for method in OPERATIONS)
    with pytest.raises(AttributeError):
        module.NoSuchMember  # noqa: B018 - the attribute access is the test


# ---- each member ---------------------------------------------------------------------------


@pytest.mark.parametrize("member", ZOO, ids=_label)
def test_member_names_known_clauses_in_its_docstring(member: Any) -> None:
    assert member.clause in KNOWN_CLAUSES
    assert set(member.also) <= KNOWN_CLAUSES
    assert member.clause not in member.also
    assert len(set(member.also)) == len(member.also)
    docstring = member.__doc__ or ""
    first_line = docstring.strip().splitlines()[0] if docstring.strip() else ""
    assert first_line, f"{member.__name__} needs a one-line summary of its bug"
    assert member.clause in docstring
    assert member.why.strip()
    assert "\n\n" not in member.why


@pytest.mark.parametrize("member", ZOO, ids=_label)
def test_member_overrides_a_step_of_the_base(member: Any) -> None:
    overridden = [name for name, value in vars(member).items() if callable(value) and name in vars(ZooBase)]
    assert overridden, f"{member.__name__} overrides no step of ZooBase"


@pytest.mark.parametrize("member", ZOO, ids=_label)
def test_witness_shows_the_bug(member: Any) -> None:
    witness = member.witness
    assert witness.operation in OPERATIONS
    assert isinstance(witness.args, tuple)
    assert all(operation in OPERATIONS for operation, _args in witness.setup)
    expected = run_witness(LiteralTokenizer(), witness)
    assert all(result.kind != "crashed" for result in expected), describe_witness(witness)
    assert run_witness(ZooBase(), witness) == expected, "the base must agree with the spec on the witness"
    actual = run_witness(member(), witness)
    assert actual != expected, f"{member.name}: {describe_witness(witness)} behaves like the spec: {actual}"


@pytest.mark.parametrize("control", CONTROLS, ids=_label)
def test_control_says_how_it_differs(control: Any) -> None:
    assert (control.__doc__ or "").strip()
    assert not hasattr(control, "clause")


# ---- the controls agree with the spec ------------------------------------------------------

SYMBOLS = ["a", "b", "c", "d", "e", " ", ".", "\n", "é", "e\u0301", "低", "😀", "\x00"]
FAMILIAR = ["", "a", "ab", "abab", "acac", "aaa", "abc", "a .", "a\nb", "ab ab", "dede", "cfcf"]

runs = st.lists(st.tuples(st.sampled_from(SYMBOLS), st.integers(1, 9)), max_size=4).map(
    lambda parts: "".join(symbol * times for symbol, times in parts)
)
alternations = st.tuples(st.sampled_from(SYMBOLS), st.sampled_from(SYMBOLS), st.integers(1, 4)).map(
    lambda parts: (parts[0] + parts[1]) * parts[2]
)
mixed = st.lists(st.sampled_from(SYMBOLS), max_size=16).map("".join)
valid_texts = st.one_of(st.sampled_from(FAMILIAR), runs, alternations, mixed)
texts = st.one_of(valid_texts, st.just("x\ud800"))
documents = st.one_of(
    st.lists(valid_texts, max_size=6),
    st.lists(alternations, min_size=1, max_size=4),  # equal counts: ties
    st.lists(valid_texts, min_size=1, max_size=3).map(lambda chosen: chosen * 2),  # every document twice
    st.lists(st.sampled_from(["a", "b", "ab", "ba"]), max_size=8),  # pairs mostly across boundaries
)
max_merges = st.one_of(st.integers(0, 12), st.sampled_from([-1, True]))
ids = st.lists(st.one_of(st.integers(0, 127), st.integers(256, 270), st.integers(-2, 300)), max_size=4)


def _replace(sequence: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    replaced, position = [], 0
    while position < len(sequence):
        if tuple(sequence[position : position + 2]) == pair:
            replaced.append(new_id)
            position += 2
        else:
            replaced.append(sequence[position])
            position += 1
    return replaced


@st.composite
def rules_along(draw: st.DrawFn, sources: list[str]) -> list[tuple[Any, Any]]:
    """Valid rules made by merging random adjacent pairs of the ``sources`` in random order, so they
    apply to those texts in interesting ways; sometimes a random or repeated pair, rarely a bad part."""
    sequences = [list(source.encode("utf-8")) for source in sources]
    rules: list[tuple[Any, Any]] = []
    for rank in range(draw(st.integers(0, 8))):
        sequence = draw(st.sampled_from(sequences))
        choice = draw(st.integers(0, 5))
        if choice >= 2 and len(sequence) >= 2:
            position = draw(st.integers(0, len(sequence) - 2))
            pair = (sequence[position], sequence[position + 1])
        elif choice == 1 and rules:
            pair = draw(st.sampled_from(rules))
        else:
            part = st.one_of(st.integers(0, 255), st.integers(258, 257 + rank) if rank else st.nothing())
            pair = (draw(part), draw(part))
        rules.append(pair)
        sequences = [_replace(each, pair, 258 + rank) for each in sequences]
    if rules and draw(st.integers(0, 4)) == 0:
        rank = draw(st.integers(0, len(rules) - 1))
        rules[rank] = (rules[rank][0], draw(st.sampled_from([-1, 256, 257, 258 + rank, 259 + rank, 300, True, 97.0])))
    return rules


@st.composite
def loads(draw: st.DrawFn) -> tuple[list[tuple[int, int]], list[str]]:
    """A rule list built along some texts, and texts to encode: those, variations of them, others."""
    overlapping = st.sampled_from(["ab", "bc", "abc", "bcd", "abcd", "aab", "abb"])
    sources = draw(st.lists(st.one_of(overlapping, overlapping, valid_texts), min_size=1, max_size=3))
    rules = draw(rules_along(sources))
    variations = [sources[0] + sources[-1], sources[0][1:]]
    return rules, [*sources, *variations, *draw(st.lists(texts, max_size=2))]


session_texts = st.one_of(st.sampled_from(["abab", "acac", "aaa", "abc", "a ."]), texts)


@st.composite
def sessions(draw: st.DrawFn) -> list[tuple[str, list[Any]]]:
    """Two or three model changes (train or load, built around the probe texts), each followed by
    round trips of the same probes."""
    probes = draw(st.lists(session_texts, min_size=1, max_size=3))
    sources = [probe for probe in probes if "\ud800" not in probe] or ["abab"]
    calls: list[tuple[str, list[Any]]] = []
    for _ in range(draw(st.integers(2, 3))):
        if draw(st.booleans()):
            corpus = draw(st.one_of(documents, st.lists(st.sampled_from(sources), max_size=4)))
            calls.append(("train", [corpus, draw(max_merges)]))
        else:
            calls.append(("load", [draw(rules_along(sources))]))
        calls += [("roundtrip", [probe]) for probe in probes]
    return calls


def _run(implementation: Any, calls: list[tuple[str, list[Any]]]) -> list[CallResult]:
    """Make ``calls`` on one new instance; a round trip decodes whatever the instance's encode gave."""
    instance = implementation()
    results = []
    for kind, args in calls:
        if kind == "roundtrip":
            encoded = call(instance, "encode", args)
            results.append(encoded)
            if encoded.kind == "returned":
                results.append(call(instance, "decode", [encoded.value]))
                results.append(call(instance, "decode", [[256, *encoded.value, 257]]))
        else:
            results.append(call(instance, kind, args))
    return results


def _trip(to_encode: list[str], to_decode: list[int]) -> list[tuple[str, list[Any]]]:
    return [*(("roundtrip", [text]) for text in to_encode), ("decode", [to_decode])]


@pytest.mark.parametrize("control", CONTROLS, ids=_label)
@given(corpus=documents, merges=max_merges, to_encode=st.lists(texts, max_size=3), to_decode=ids)
def test_control_trains_encodes_and_decodes_like_the_reference(
    control: Any, corpus: list[str], merges: int, to_encode: list[str], to_decode: list[int]
) -> None:
    """Spec: "The highest count wins; ties go to the smallest (a, b) tuple compared as integers."

    "A round trip is necessary but not sufficient: the exact id sequence is the contract." After
    training, a control gives the reference's rules, ids, texts and rejections (BPE-TRAIN-GREEDY,
    BPE-TRAIN-TIE, BPE-TRAIN-RECOUNT, BPE-TRAIN-STOP, BPE-ENCODE-ORDER, BPE-DECODE-CONCAT).
    """
    calls: list[tuple[str, list[Any]]] = [("train", [corpus, merges])]
    calls += [("roundtrip", [document]) for document in corpus[:2]]
    calls += [*_trip(to_encode, to_decode), ("decode", [[257 + merges]])]
    assert _run(control, calls) == _run(LiteralTokenizer, calls)


ORDER_TRAPS = [  # rule lists where any shortcut around rank order gives other ids
    ([(97, 98), (99, 100), (258, 99)], ["abcd"]),
    ([(98, 99), (97, 98)], ["abc"]),
    ([(98, 99), (97, 98), (259, 99)], ["abc"]),
    ([(97, 98), (97, 98)], ["ab"]),
    ([(97, 97), (258, 258), (259, 97)], ["aaa", "aaaa", "aaaaaaa"]),
]


@pytest.mark.parametrize("control", CONTROLS, ids=_label)
@given(loaded=loads(), to_decode=ids)
@example(loaded=ORDER_TRAPS[0], to_decode=[])
@example(loaded=ORDER_TRAPS[1], to_decode=[])
@example(loaded=ORDER_TRAPS[2], to_decode=[])
@example(loaded=ORDER_TRAPS[3], to_decode=[])
@example(loaded=ORDER_TRAPS[4], to_decode=[])
def test_control_loads_encodes_and_decodes_like_the_reference(
    control: Any, loaded: tuple[list[tuple[int, int]], list[str]], to_decode: list[int]
) -> None:
    """Spec: "Encoding applies the rules in rank order to the text's UTF-8 bytes."

    For rule lists made by merging a text's pairs in random order, a control encodes that text and
    others exactly as the reference, decodes the same, and rejects the same lists
    (BPE-ENCODE-ORDER, BPE-ENCODE-LOWEST, BPE-MERGE-SCAN, BPE-DECODE-STRICT, BPE-RULE-REF).
    """
    rules, to_encode = loaded
    calls: list[tuple[str, list[Any]]] = [("load", [rules]), *_trip(to_encode, to_decode)]
    assert _run(control, calls) == _run(LiteralTokenizer, calls)


@pytest.mark.parametrize("control", CONTROLS, ids=_label)
@given(calls=sessions())
def test_control_keeps_state_like_the_reference(control: Any, calls: list[tuple[str, list[Any]]]) -> None:
    """Spec: "encode(text: str) -> list[int] (body ids, rules of last train/load)"; "encode never
    changes the model" (BPE-ENCODE-PURE).

    Trained or loaded again and again, with the same texts encoded and decoded after every change,
    a control answers as the reference: nothing learned from encoding, nothing kept from an
    earlier model, nothing changed by a rejected call (BPE-ENCODE-PURE, BPE-SER-LOAD,
    BPE-TRAIN-INPUT).
    """
    assert _run(control, calls) == _run(LiteralTokenizer, calls)


BAD_CALLS = [
    ("train", ["abab", 32]),
    ("train", [b"abab", 32]),
    ("train", [["ab", 5], 32]),
    ("train", [["ab", "x\ud800"], 32]),
    ("train", [["ab"], 2.0]),
    ("train", [None, 32]),
    ("encode", [None]),
    ("encode", [b"ab"]),
    ("encode", [["ab"]]),
    ("decode", ["ab"]),
    ("decode", [[97.0]]),
    ("decode", [[True]]),
    ("decode", [[-1]]),
    ("decode", [(97, 258)]),
    ("load", ["ab"]),
    ("load", [[(97,)]]),
    ("load", [[(97, 98, 99)]]),
    ("load", [[(97, "b")]]),
    ("load", [[(97.0, 98)]]),
    ("load", [[(True, 97)]]),
    ("load", [[[97, 98], (258, 97)]]),
    ("load", [((97, 98),)]),
    ("load", [[b"ab"]]),
]


@pytest.mark.parametrize("control", CONTROLS, ids=_label)
@pytest.mark.parametrize("bad_call", BAD_CALLS, ids=repr)
def test_control_treats_malformed_input_like_the_reference(control: Any, bad_call: tuple[str, list[Any]]) -> None:
    """Malformed arguments get the reference's answer: rejected, or (tuples, lists of lists) accepted."""
    calls: list[tuple[str, list[Any]]] = [bad_call, ("roundtrip", ["abab"])]
    assert _run(control, calls) == _run(LiteralTokenizer, calls)
