"""Rejected calls: bad arguments to train, encode, decode and load, each with the error family preferred.

>>> cases = invalid_cases()
>>> [case.error for case in cases][:3]
['ValueError', 'ValueError', 'TypeError']
>>> sorted({case.operation for case in cases})
['decode', 'encode', 'load', 'train']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bpe_conformance.inputs.unrepresentable import MARKER_KEY, marker

__all__ = ["InvalidCase", "invalid_cases"]


@dataclass(frozen=True)
class InvalidCase:
    """One rejected call made after training ``setup``; ``probe`` is encoded afterwards to see the model kept."""

    description: str
    operation: str
    arguments: dict[str, object]
    error: str
    clauses: tuple[str, ...]
    setup: tuple[tuple[str, ...], int] = (("abab", "acac"), 32)
    probe: str = "abac"


# Integers past what int32, uint32, a double, int64 and uint64 hold exactly: out of range as ids and rule
# parts, where an implementation that narrows them would find a valid one (2**32 + 97 wrapping to 97).
_WIDE = (2**31, 2**32, 2**53, 2**63, 2**64)


def _generator(items: list[Any]) -> dict[str, str]:
    # A generator's repr names its address; the vector's must be the same on every run.
    return {MARKER_KEY: "generator", "repr": f"(item for item in {items!r})"}


def _shown(value: object) -> str:
    """How a case's value reads in its description: a marker by the value it stands for."""
    if isinstance(value, dict) and MARKER_KEY in value:
        return str(value["repr"])
    return repr(value)


_LOW = (("低低低",), 1)  # one rule, (189, 142), whose piece is the end of a character
_NO_RULES = (("abc",), 4)  # every pair occurs once: no rules, vocabulary 0-257


def _invalid_train_cases() -> list[InvalidCase]:
    merges = "BPE-TRAIN-MAXMERGES"
    docs = "BPE-INPUT-DOCS"
    bad_merges = [
        (-1, "ValueError"),
        (-100, "ValueError"),
        (True, "TypeError"),
        (False, "TypeError"),
        (1.5, "TypeError"),
        (2.0, "TypeError"),
        ("3", "TypeError"),
        (None, "TypeError"),
        ([3], "TypeError"),
        (marker(float("nan")), "TypeError"),
        (marker(float("inf")), "TypeError"),
        (marker(b"\x02"), "TypeError"),
        *((-wide, "ValueError") for wide in _WIDE),
        (-(2**64) - 1, "ValueError"),
    ]
    bad_documents = [
        ("abab", "TypeError"),
        (5, "TypeError"),
        (None, "TypeError"),
        ({"abab": 1}, "TypeError"),
        ([5], "TypeError"),
        (["ab", None], "TypeError"),
        ([["ab"]], "TypeError"),
        (["\ud800"], "ValueError"),
        (["ok", "a\udfffb"], "ValueError"),
        (["\udc00\ud800"], "ValueError"),
        (marker(b"abab"), "TypeError"),
        (marker(bytearray(b"abab")), "TypeError"),
        (marker({"abab"}), "TypeError"),
        (marker(frozenset({"abab"})), "TypeError"),
        (_generator(["abab"]), "TypeError"),
        (["ab", marker(b"ab")], "TypeError"),
    ]
    cases = [
        InvalidCase(
            f"max_merges {_shown(value)}", "train", {"documents": ["abab"], "max_merges": value}, error, (merges,)
        )
        for value, error in bad_merges
    ]
    cases += [
        InvalidCase(f"documents {_shown(value)}", "train", {"documents": value, "max_merges": 8}, error, (docs,))
        for value, error in bad_documents
    ]
    return cases


def _invalid_encode_decode_cases() -> list[InvalidCase]:
    text, ids, strict = "BPE-INPUT-TEXT", "BPE-INPUT-IDS", "BPE-DECODE-STRICT"
    cases = [
        InvalidCase(f"encode {_shown(value)}", "encode", {"text": value}, error, (text,))
        for value, error in [
            (None, "TypeError"),
            (97, "TypeError"),
            (["abac"], "TypeError"),
            ("\ud800", "ValueError"),
            ("ab\udfff", "ValueError"),
            ("\ud83d", "ValueError"),
            (marker(b"ab"), "TypeError"),
            (marker(bytearray(b"ab")), "TypeError"),
            (marker({"ab"}), "TypeError"),
            (marker(frozenset({"ab"})), "TypeError"),
            (_generator(["a", "b"]), "TypeError"),
        ]
    ]
    cases += [
        InvalidCase(f"decode {_shown(value)} with 260 ids", "decode", {"ids": value}, error, clauses)
        for value, error, clauses in [
            ([260], "ValueError", (ids, strict)),
            ([97, 1000], "ValueError", (ids, strict)),
            ([-1], "ValueError", (ids, strict)),
            ([True], "TypeError", (ids,)),
            ([97, False], "TypeError", (ids,)),
            ([258.0], "TypeError", (ids,)),
            (["97"], "TypeError", (ids,)),
            ([None], "TypeError", (ids,)),
            ("258", "TypeError", (ids,)),
            (258, "TypeError", (ids,)),
            (None, "TypeError", (ids,)),
            (marker(b"ab"), "TypeError", (ids,)),
            (marker(bytearray(b"ab")), "TypeError", (ids,)),
            (marker({97}), "TypeError", (ids,)),
            ([marker(b"a")], "TypeError", (ids,)),
            *(([97, wide + 97], "ValueError", (ids, strict)) for wide in _WIDE),
            *(([97, 97 - wide], "ValueError", (ids, strict)) for wide in _WIDE),
        ]
    ]
    cases += [
        InvalidCase(
            f"decode {value!r}: not valid UTF-8",
            "decode",
            {"ids": value},
            "ValueError",
            (strict, "BPE-RULE-PIECE"),
            _LOW,
            "低",
        )
        for value in ([258], [228], [255], [256, 228, 189, 257], [142, 228], [258, 228])
    ]
    cases.append(
        InvalidCase(
            "decode [258] without rules", "decode", {"ids": [258]}, "ValueError", (ids, strict), _NO_RULES, "abc"
        )
    )
    return cases


def _invalid_load_cases() -> list[InvalidCase]:
    ref, rules, boundary = "BPE-RULE-REF", "BPE-INPUT-RULES", "BPE-ALPHA-BOUNDARY"
    values = [
        ([[97, 258]], "ValueError", (ref, rules)),
        ([[97, 98], [259, 97]], "ValueError", (ref, rules)),
        ([[97, 259]], "ValueError", (ref, rules)),
        ([[97, 98], [97, 260]], "ValueError", (ref, rules)),
        ([[300, 97]], "ValueError", (ref, rules)),
        ([[256, 97]], "ValueError", (ref, rules, boundary)),
        ([[97, 257]], "ValueError", (ref, rules, boundary)),
        ([[97, 98], [256, 258]], "ValueError", (ref, boundary)),
        ([[-1, 97]], "ValueError", (ref, rules)),
        ([[97, -2]], "ValueError", (ref, rules)),
        ([[99, 97], [98, 97], [258, 300]], "ValueError", (ref, rules)),
        ([[97.0, 98]], "TypeError", (rules,)),
        ([["a", 98]], "TypeError", (rules,)),
        ([[True, 98]], "TypeError", (rules,)),
        ([[97, None]], "TypeError", (rules,)),
        ([[97]], "ValueError", (rules,)),
        ([[97, 98, 99]], "ValueError", (rules,)),
        ([[]], "ValueError", (rules,)),
        ([97], "TypeError", (rules,)),
        (["ab"], "TypeError", (rules,)),
        ("ab", "TypeError", (rules,)),
        (None, "TypeError", (rules,)),
        ({"97": 98}, "TypeError", (rules,)),
        (5, "TypeError", (rules,)),
        ([marker(b"ab")], "TypeError", (rules,)),
        (marker({(97, 98)}), "TypeError", (rules,)),
        ([marker({97, 98})], "TypeError", (rules,)),
        *(([[97, wide + 98]], "ValueError", (rules, ref)) for wide in _WIDE),
        *(([[wide + 97, 98]], "ValueError", (rules, ref)) for wide in _WIDE),
        *(([[97 - wide, 98]], "ValueError", (rules, ref)) for wide in _WIDE),
    ]
    return [
        InvalidCase(f"load {_shown(value)}", "load", {"rules": value}, error, clauses)
        for value, error, clauses in values
    ]


def invalid_cases() -> list[InvalidCase]:
    """Rejected calls to train, encode, decode and load, each with the error kind the spec names."""
    return _invalid_train_cases() + _invalid_encode_decode_cases() + _invalid_load_cases()
