"""Rejected calls: bad arguments to train, encode, decode and load, each with the error family preferred.

>>> cases = invalid_cases()
>>> [case.error for case in cases][:3]
['ValueError', 'ValueError', 'TypeError']
>>> sorted({case.operation for case in cases})
['decode', 'encode', 'load', 'train']
"""

from __future__ import annotations

from dataclasses import dataclass

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
    ]
    cases = [
        InvalidCase(f"max_merges {value!r}", "train", {"documents": ["abab"], "max_merges": value}, error, (merges,))
        for value, error in bad_merges
    ]
    cases += [
        InvalidCase(f"documents {value!r}", "train", {"documents": value, "max_merges": 8}, error, (docs,))
        for value, error in bad_documents
    ]
    return cases


def _invalid_encode_decode_cases() -> list[InvalidCase]:
    text, ids, strict = "BPE-INPUT-TEXT", "BPE-INPUT-IDS", "BPE-DECODE-STRICT"
    cases = [
        InvalidCase(f"encode {value!r}", "encode", {"text": value}, error, (text,))
        for value, error in [
            (None, "TypeError"),
            (97, "TypeError"),
            (["abac"], "TypeError"),
            ("\ud800", "ValueError"),
            ("ab\udfff", "ValueError"),
            ("\ud83d", "ValueError"),
        ]
    ]
    cases += [
        InvalidCase(f"decode {value!r} with 260 ids", "decode", {"ids": value}, error, clauses)
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
    ]
    return [
        InvalidCase(f"load {value!r}", "load", {"rules": value}, error, clauses) for value, error, clauses in values
    ]


def invalid_cases() -> list[InvalidCase]:
    """Rejected calls to train, encode, decode and load, each with the error kind the spec names."""
    return _invalid_train_cases() + _invalid_encode_decode_cases() + _invalid_load_cases()
