"""The identification probes: crafted calls, their outcomes, and the reference under one profile.

A probe is one call sequence (train; train then encode; load then encode; decode) whose outcome the
profiles of :mod:`bpe_conformance.reference.profiles` predict differently. :func:`capture` turns a call into an
:class:`Outcome` (a value, or the family and type of what it raised), so an exception is an
observation like any other.

>>> capture(lambda: [1, 2]).value, capture(lambda: int("x")).family
([1, 2], 'ValueError')
>>> renumbered([(97, 258)], 256)
[(97, 256)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bpe_conformance.reference.alphabet import FIRST_RULE_ID
from bpe_conformance.reference.dialects import (
    check_profile_rules,
    decode_profile,
    encode_profile,
    renumbered,
    train_profile,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.reference.profiles import Profile

__all__ = [
    "CAPABILITIES",
    "CONTRACT_FAMILIES",
    "PROBES",
    "Outcome",
    "Probe",
    "ProfileModel",
    "capture",
    "describe_call",
    "error_family",
    "renumbered",
    "run_probe",
]

CAPABILITIES = ("train", "load", "encode", "decode")
_NOT_CAUGHT = (KeyboardInterrupt, SystemExit, GeneratorExit)


@dataclass(frozen=True)
class Outcome:
    """What one call sequence did: returned ``value``, or raised ``error`` (``"Type: message"``)."""

    ok: bool
    value: Any = None
    error: str = ""
    family: str = ""

    def agrees_with(self, other: Outcome) -> bool:
        """Both returned equal values, or both rejected the input as the contract says.

        A rejection is a ValueError or a TypeError (subclasses included); which of the two the
        specification prefers is a SHOULD, so the choice never separates profiles. Any other
        exception agrees only with the same type.

        >>> Outcome(False, error="ValueError: bad", family="ValueError").agrees_with(
        ...     Outcome(False, error="TypeError: bad", family="TypeError"))
        True
        >>> Outcome(False, error="ValueError: bad", family="ValueError").agrees_with(
        ...     Outcome(False, error="KeyError: 7", family="KeyError"))
        False
        """
        if self.ok or other.ok:
            return self.ok == other.ok and self.value == other.value
        return self.family == other.family or {self.family, other.family} <= CONTRACT_FAMILIES

    def describe(self) -> str:
        """A one-line account for reports."""
        return f"returned {self.value!r}" if self.ok else f"raised {self.error}"


def _normalized(value: Any) -> Any:
    # Lists of pairs come back as lists, tuples or numpy-free sequences; compare them as plain lists.
    if isinstance(value, (list, tuple)):
        return [tuple(item) if isinstance(item, (list, tuple)) else item for item in value]
    return value


def capture(call: Callable[[], Any]) -> Outcome:
    """Run ``call``; any exception (pyo3 panics included) becomes an error outcome."""
    try:
        return Outcome(True, _normalized(call()))
    except _NOT_CAUGHT:
        raise
    except BaseException as error:  # noqa: BLE001 - a library panic is BaseException; it is still just an answer
        return Outcome(False, error=f"{type(error).__name__}: {str(error)[:200]}", family=error_family(error))


CONTRACT_FAMILIES = frozenset({"ValueError", "TypeError"})


def error_family(error: BaseException) -> str:
    """The family a raised error belongs to: ValueError and TypeError (subclasses included), else its type name.

    >>> error_family(UnicodeDecodeError("utf-8", b"", 0, 1, "bad")), error_family(KeyError(1))
    ('ValueError', 'KeyError')
    """
    for family in (ValueError, TypeError):
        if isinstance(error, family):
            return family.__name__
    return type(error).__name__


@dataclass(frozen=True)
class Probe:
    """One crafted call sequence: ``kind`` is train, load-encode, train-encode or decode."""

    name: str
    kind: str
    clauses: tuple[str, ...]
    why: str
    documents: tuple[str, ...] = ()
    max_merges: int = 0
    rules: tuple[tuple[int, int], ...] = ()  # strict numbering; renumbered per run
    text: str = ""
    ids: tuple[int, ...] = ()

    @property
    def capabilities(self) -> frozenset[str]:
        """What an implementation must be able to do for this probe to run."""
        needed = {"train": {"train"}, "load-encode": {"load", "encode"}, "train-encode": {"train", "encode"}}
        return frozenset(needed.get(self.kind, {"decode"}))


def _probe(name: str, kind: str, clauses: str, why: str, **inputs: Any) -> Probe:
    return Probe(name, kind, tuple(clauses.split()), why, **inputs)


PROBES: tuple[Probe, ...] = (
    _probe(
        "tie-int-vs-first-seen",
        "train",
        "BPE-TRAIN-TIE",
        "(99,100) is seen first, (97,98) is smaller",
        documents=("cdcdabab",),
        max_merges=1,
    ),
    _probe(
        "tie-first-seen-vs-largest",
        "train",
        "BPE-TRAIN-TIE",
        "(97,98) is seen first and smaller",
        documents=("ababcdcd",),
        max_merges=1,
    ),
    _probe(
        "tie-int-vs-string-key",
        "train",
        "BPE-TRAIN-TIE",
        "'100,101' < '99,102' as text, not as integers",
        documents=("dedecfcf",),
        max_merges=1,
    ),
    _probe(
        "tie-hf-id-order",
        "train",
        "BPE-TRAIN-TIE",
        "space is 32 but sorts after letters in HF's alphabet",
        documents=(" a a", "bcbc"),
        max_merges=1,
    ),
    _probe(
        "tie-ids-vs-pieces",
        "train",
        "BPE-TRAIN-TIE",
        "rule 'aa' has a larger id but a smaller piece than 'b'",
        documents=("aaaa", "aacaac", "bcbc"),
        max_merges=2,
    ),
    _probe(
        "stop-pairs-seen-once", "train", "BPE-TRAIN-STOP", "every pair is seen once", documents=("abcd",), max_merges=1
    ),
    _probe(
        "stop-zero-merges",
        "train",
        "BPE-TRAIN-STOP BPE-TRAIN-MAXMERGES",
        "max_merges 0 makes no rule",
        documents=("abab",),
        max_merges=0,
    ),
    _probe(
        "pairs-run-out",
        "train",
        "BPE-TRAIN-STOP",
        "after (97,98) no pair is left, max_merges is not reached",
        documents=("ab", "ab"),
        max_merges=2,
    ),
    _probe(
        "documents-separate",
        "train",
        "BPE-TRAIN-DOCS BPE-TRAIN-INPUT",
        "(97,98) only spans documents",
        documents=("a", "b", "a", "b"),
        max_merges=1,
    ),
    _probe(
        "run-of-one-byte",
        "train",
        "BPE-TRAIN-COUNT BPE-MERGE-SCAN BPE-RULE-ID",
        "aaaaa: overlaps and ids",
        documents=("aaaaa",),
        max_merges=2,
    ),
    _probe(
        "recount-three-byte-char",
        "train",
        "BPE-TRAIN-RECOUNT BPE-TRAIN-TIE",
        "低 x 30, ties (189,142)",
        documents=("低" * 30,),
        max_merges=3,
    ),
    _probe(
        "worked-example-encode",
        "train-encode",
        "BPE-ENCODE-ORDER BPE-RULE-ID",
        "abab/acac then abac",
        documents=("abab", "acac"),
        max_merges=2,
        text="abac",
    ),
    _probe(
        "pair-rank-vs-piece-rank",
        "load-encode",
        "BPE-ENCODE-ORDER BPE-ENCODE-LOWEST",
        "'abc' is a piece, but its rule joins 'ab'+'c' and 'bc' comes first",
        rules=((98, 99), (97, 98), (259, 99)),
        text="abc",
    ),
    _probe(
        "no-pre-tokenization",
        "load-encode",
        "BPE-ENCODE-RAW",
        "merges cross a space",
        rules=((97, 32), (258, 98)),
        text="a b",
    ),
    _probe(
        "encode-scan", "load-encode", "BPE-MERGE-SCAN", "aaa with (a,a) gives [aa, a]", rules=((97, 97),), text="aaa"
    ),
    _probe(
        "lone-surrogate", "load-encode", "BPE-INPUT-TEXT", "U+DC80 has no UTF-8 encoding", rules=(), text="a\udc80b"
    ),
    _probe("decode-valid", "decode", "BPE-DECODE-BYTES", "a, 低 as three bytes, b", ids=(97, 228, 189, 142, 98)),
    _probe("decode-invalid-utf8", "decode", "BPE-DECODE-STRICT", "e4 bd is a cut character", ids=(228, 189)),
    _probe("decode-unknown-id", "decode", "BPE-DECODE-STRICT BPE-INPUT-IDS", "100000 is no id", ids=(97, 100000)),
    _probe(
        "decode-id-256", "decode", "BPE-ALPHA-BOUNDARY", "256 is a boundary (strict) or no id yet", ids=(97, 256, 98)
    ),
)


class ProfileModel:
    """The plug-in contract run by the literal reference under one profile (the expected side)."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.rules: list[tuple[int, int]] = []

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        self.rules = train_profile(documents, max_merges, self.profile)
        return list(self.rules)

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        self.rules = check_profile_rules(rules, self.profile)
        return list(self.rules)

    def encode(self, text: str) -> list[int]:
        return encode_profile(text, self.rules, self.profile)

    def decode(self, ids: list[int]) -> str:
        return decode_profile(ids, self.rules, self.profile)


def _call_sequence(instance: Any, probe: Probe, first_rule_id: int) -> Any:
    if probe.kind == "train":
        return instance.train(list(probe.documents), probe.max_merges)
    if probe.kind == "train-encode":
        instance.train(list(probe.documents), probe.max_merges)
        return instance.encode(probe.text)
    if probe.kind == "load-encode":
        instance.load(renumbered(probe.rules, first_rule_id))
        return instance.encode(probe.text)
    return instance.decode(list(probe.ids))


def run_probe(factory: Callable[[], Any], probe: Probe, first_rule_id: int = FIRST_RULE_ID) -> Outcome:
    """The outcome of ``probe`` on a fresh ``factory()`` (a failing factory is an error outcome too)."""
    return capture(lambda: _call_sequence(factory(), probe, first_rule_id))


def describe_call(probe: Probe, first_rule_id: int) -> str:
    """The probe as the calls it makes, for reports."""
    if probe.kind == "train":
        return f"train({list(probe.documents)!r}, {probe.max_merges})"
    if probe.kind == "train-encode":
        return f"train({list(probe.documents)!r}, {probe.max_merges}); encode({probe.text!r})"
    if probe.kind == "load-encode":
        return f"load({renumbered(probe.rules, first_rule_id)!r}); encode({probe.text!r})"
    return f"decode({list(probe.ids)!r})"
