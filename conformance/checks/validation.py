"""Checks of input validation (interface level): every bad input the specification lists is rejected.

Each bad input is a case: the operation, its arguments, the error family (``ValueError`` or
``TypeError``) the specification prefers, and the clause. Either family passes (any subclass); the
other one than preferred is an advisory note. Arguments are JSON values only, so the same
cases reach implementations in other languages through the subprocess protocol unchanged. A second
check makes the same bad calls against varied models and requires the model to be unchanged after.

>>> [case.kind for case in MAX_MERGES_CASES[:3]]
['ValueError', 'ValueError', 'TypeError']
>>> from bpe_conformance.adapters.python import InProcessSubject
>>> from bpe_conformance.reference import Tokenizer
>>> for case in RULES_CASES:
...     verify_rejection(InProcessSubject(Tokenizer), case)
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from bpe_conformance.adapters.protocol import to_wire
from bpe_conformance.checks.base import INTERFACE, Check
from bpe_conformance.checks.common import expect_rejection, rules_json
from bpe_conformance.checks.examples import TrainingExample, drawn
from bpe_conformance.dialects.context import expected_rules, is_strict, subject_profile, train_subject
from bpe_conformance.dialects.probes import ProfileModel
from bpe_conformance.errors import ImplementationRaised, Violation
from bpe_conformance.inputs.strategies import corpora, encode_texts, max_merges_values
from bpe_conformance.inputs.unrepresentable import marker

if TYPE_CHECKING:
    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.reference.profiles import Profile

__all__ = [
    "ALL_CASES",
    "DOCUMENTS_CASES",
    "IDS_CASES",
    "MAX_MERGES_CASES",
    "RULES_CASES",
    "TEXT_CASES",
    "VALIDATION_CHECKS",
    "WIDE_OFFSETS",
    "BadCall",
    "GeneratorOf",
    "kept_model_clause",
    "profile_accepts",
    "setup_merges",
    "verify_rejection",
]

SETUP_DOCUMENTS = ["abab", "acac"]  # two rules, (97, 98) and (97, 99), under strict


# Integers around the widths other languages narrow to (int32, uint32, a double's exact range, int64,
# uint64): as ids and rule parts they are out of range; an implementation that wraps them finds a valid id.
WIDE_OFFSETS = (2**31, 2**32, 2**53, 2**63, 2**64)


@dataclass(frozen=True)
class GeneratorOf:
    """A generator over ``items``, made afresh for every call (a generator is used up once read)."""

    items: tuple[Any, ...]

    def __repr__(self) -> str:
        return f"(item for item in {list(self.items)!r})"

    def make(self) -> Any:
        return (item for item in self.items)


def _shown(argument: Any) -> Any:
    """``argument`` with bytes, sets, NaN and generators as ``$unrepresentable`` markers, containers kept."""
    if isinstance(argument, GeneratorOf):
        return marker(argument.make(), repr(argument))
    if isinstance(argument, (list, tuple)):
        return type(argument)(_shown(item) for item in argument)
    if argument is None or isinstance(argument, (bool, int, str, dict)):
        return argument
    return to_wire(argument)


def _fresh(argument: Any) -> Any:
    """The argument to send: a deep copy (an implementation may mutate it), generators made anew."""
    if isinstance(argument, GeneratorOf):
        return argument.make()
    if isinstance(argument, tuple):  # train's (documents, max_merges)
        return tuple(_fresh(item) for item in argument)
    return copy.deepcopy(argument)


@dataclass(frozen=True)
class BadCall:
    """One call the specification rejects, and how."""

    operation: str
    argument: Any
    kind: str
    clause: str
    description: str

    def call(self, subject: Subject) -> Any:
        """Make the call; the subject raises ImplementationRaised if the implementation rejects it."""
        argument = _fresh(self.argument)
        if self.operation == "train":
            return subject.train(argument[0], argument[1])
        if self.operation == "encode":
            return subject.encode(argument)
        if self.operation == "decode":
            return subject.decode(argument)
        return subject.load(argument)

    def inputs(self) -> JSONObject:
        """The counterexample's inputs; a value JSON cannot carry is shown as the protocol's marker for it."""
        return {"operation": self.operation, "argument": _shown(self.argument), "problem": self.description}


def _max_merges(value: Any, kind: str, description: str) -> BadCall:
    return BadCall("train", (["abab"], value), kind, "BPE-TRAIN-MAXMERGES", f"max_merges {description}")


def _documents(value: Any, kind: str, description: str) -> BadCall:
    return BadCall("train", (value, 8), kind, "BPE-INPUT-DOCS", description)


MAX_MERGES_CASES = (
    _max_merges(-1, "ValueError", "-1"),
    _max_merges(-100, "ValueError", "-100"),
    _max_merges(True, "TypeError", "True (bool)"),
    _max_merges(False, "TypeError", "False (bool)"),
    _max_merges(2.0, "TypeError", "2.0 (whole float)"),
    _max_merges(2.5, "TypeError", "2.5"),
    _max_merges("3", "TypeError", "'3' (str)"),
    _max_merges(None, "TypeError", "None"),
    _max_merges([3], "TypeError", "[3] (list)"),
    _max_merges(float("nan"), "TypeError", "nan"),
    _max_merges(float("inf"), "TypeError", "inf"),
    _max_merges(b"\x02", "TypeError", "bytes"),
    *(_max_merges(-value, "ValueError", f"-{value} (a wide negative int)") for value in WIDE_OFFSETS),
    _max_merges(-(2**64) - 1, "ValueError", f"-{2**64 + 1} (a wide negative int)"),
)
DOCUMENTS_CASES = (
    _documents("abab", "TypeError", "a bare str instead of a list"),
    _documents(None, "TypeError", "None"),
    _documents(5, "TypeError", "an int"),
    _documents({"abab": 1}, "TypeError", "a dict"),
    _documents(["abab", 3], "TypeError", "a document that is an int"),
    _documents(["abab", None], "TypeError", "a document that is None"),
    _documents([["ab", "ab"]], "TypeError", "a document that is a list"),
    _documents(["abab", "x\ud800"], "ValueError", "a lone high surrogate"),
    _documents(["\udfff"], "ValueError", "a lone low surrogate"),
    _documents(["ab\udc80ab"], "ValueError", "a lone surrogate inside a document"),
    _documents(b"abab", "TypeError", "bytes instead of a list"),
    _documents(bytearray(b"abab"), "TypeError", "a bytearray instead of a list"),
    _documents({"abab"}, "TypeError", "a set of str"),
    _documents(frozenset({"abab"}), "TypeError", "a frozenset of str"),
    _documents(GeneratorOf(("abab",)), "TypeError", "a generator of str"),
    _documents(["abab", b"acac"], "TypeError", "a document that is bytes"),
)
TEXT_CASES = tuple(
    BadCall("encode", value, kind, "BPE-INPUT-TEXT", description)
    for value, kind, description in (
        (None, "TypeError", "None"),
        (97, "TypeError", "an int"),
        (["a", "b"], "TypeError", "a list of str"),
        ("a\udc80b", "ValueError", "a lone low surrogate"),
        ("\ud800", "ValueError", "a lone high surrogate"),
        ("ab\udfff", "ValueError", "a trailing lone surrogate"),
        (b"ab", "TypeError", "bytes"),
        (bytearray(b"ab"), "TypeError", "a bytearray"),
        ({"ab"}, "TypeError", "a set of str"),
        (frozenset({"ab"}), "TypeError", "a frozenset of str"),
        (GeneratorOf(("a", "b")), "TypeError", "a generator of str"),
    )
)
IDS_CASES = tuple(
    BadCall("decode", value, kind, "BPE-INPUT-IDS", description)
    for value, kind, description in (
        ("abc", "TypeError", "a str"),
        (None, "TypeError", "None"),
        (97, "TypeError", "a bare int"),
        ([97.0], "TypeError", "a whole float id"),
        (["a"], "TypeError", "a str id"),
        ([None], "TypeError", "a None id"),
        ([[97]], "TypeError", "a list id"),
        ([True], "TypeError", "a bool id True"),
        ([97, False], "TypeError", "a bool id False"),
        ([97, -1], "ValueError", "a negative id"),
        (b"ab", "TypeError", "bytes (which iterate as ints)"),
        (bytearray(b"ab"), "TypeError", "a bytearray (which iterates as ints)"),
        ({97}, "TypeError", "a set of int"),
        (frozenset({97}), "TypeError", "a frozenset of int"),
        (GeneratorOf((97,)), "TypeError", "a generator of int"),
        ([b"a"], "TypeError", "a bytes id"),
        ([97, float("nan")], "TypeError", "a nan id"),
        *(([97, offset + 97], "ValueError", f"the id {offset} + 97") for offset in WIDE_OFFSETS),
        *(([97, offset], "ValueError", f"the id {offset}") for offset in WIDE_OFFSETS),
        *(([97, 97 - offset], "ValueError", f"the id 97 - {offset}") for offset in WIDE_OFFSETS),
        ([97, 10**6], "ValueError", "a huge id"),
    )
)
RULES_CASES = tuple(
    BadCall("load", value, kind, clause, description)
    for value, kind, clause, description in (
        ([[97, 258]], "ValueError", "BPE-RULE-REF", "a rule that refers to itself"),
        ([[97, 259]], "ValueError", "BPE-RULE-REF", "a rule that refers to a later rule"),
        ([[97, 98], [258, 260]], "ValueError", "BPE-RULE-REF", "a rule that refers to a later rule (rank 1)"),
        ([[256, 97]], "ValueError", "BPE-RULE-REF", "a rule that refers to the begin id"),
        ([[97, 257]], "ValueError", "BPE-RULE-REF", "a rule that refers to the end id"),
        ([[-1, 97]], "ValueError", "BPE-RULE-REF", "a rule with a negative id"),
        ([[97]], "ValueError", "BPE-INPUT-RULES", "a rule with one part"),
        ([[97, 98], [258, 99, 100]], "ValueError", "BPE-INPUT-RULES", "a rule with three parts"),
        ([[]], "ValueError", "BPE-INPUT-RULES", "an empty rule"),
        ("ab", "TypeError", "BPE-INPUT-RULES", "a str"),
        (None, "TypeError", "BPE-INPUT-RULES", "None"),
        ([97, 98], "TypeError", "BPE-INPUT-RULES", "a flat list of ints"),
        ([[97.0, 98]], "TypeError", "BPE-INPUT-RULES", "a float part"),
        ([[True, 98]], "TypeError", "BPE-INPUT-RULES", "a bool part"),
        ([[97, "b"]], "TypeError", "BPE-INPUT-RULES", "a str part"),
        ([[97, None]], "TypeError", "BPE-INPUT-RULES", "a None part"),
        ([b"ab"], "TypeError", "BPE-INPUT-RULES", "a bytes rule (which iterates as two ints)"),
        (b"ab", "TypeError", "BPE-INPUT-RULES", "bytes"),
        ({(97, 98)}, "TypeError", "BPE-INPUT-RULES", "a set of rules"),
        ([{97, 98}], "TypeError", "BPE-INPUT-RULES", "a set rule"),
        ([[97, b"b"]], "TypeError", "BPE-INPUT-RULES", "a bytes part"),
        *(([[97, offset + 98]], "ValueError", "BPE-INPUT-RULES", f"the part {offset} + 98") for offset in WIDE_OFFSETS),
        *(([[offset + 97, 98]], "ValueError", "BPE-INPUT-RULES", f"the part {offset} + 97") for offset in WIDE_OFFSETS),
        *(([[97 - offset, 98]], "ValueError", "BPE-INPUT-RULES", f"the part 97 - {offset}") for offset in WIDE_OFFSETS),
    )
)
ALL_CASES = MAX_MERGES_CASES + DOCUMENTS_CASES + TEXT_CASES + IDS_CASES + RULES_CASES


class CallExample(TrainingExample):
    """A training example, a bad call to make after it, and texts whose encodings it must not change."""

    call: BadCall
    texts: list[str]


def setup_merges(profile: Profile) -> int:
    """As many merges as the profile makes on the set-up documents, so setting up never runs out of pairs.

    A trainer that raises once no pair is left breaks BPE-TRAIN-STOP (the stop-rule check's finding);
    the validation checks must not stumble on it while arranging their model.

    >>> from bpe_conformance.reference.profiles import MINBPE, STRICT
    >>> setup_merges(STRICT), setup_merges(MINBPE)
    (2, 5)
    """
    return len(expected_rules(list(SETUP_DOCUMENTS), 32, profile))


def _set_up(subject: Subject | ProfileModel, profile: Profile, can_train: bool) -> None:
    """A model with a few rules, so that every operation has something to work with."""
    if can_train:
        subject.train(list(SETUP_DOCUMENTS), setup_merges(profile))
    else:
        subject.load([(97, 98), (97, 99)])


def profile_accepts(case: BadCall, profile: Profile, can_train: bool) -> bool:
    """True when the profile's own reference accepts ``case`` (a lone surrogate it replaces, say).

    >>> from bpe_conformance.reference.profiles import HF_TOKENIZERS, TIKTOKEN
    >>> [profile_accepts(case, HF_TOKENIZERS, True) for case in IDS_CASES].count(True)  # unknown ids up to 2**53
    7
    >>> profile_accepts(TEXT_CASES[3], TIKTOKEN, False)
    True
    """
    model = ProfileModel(profile)
    _set_up(model, profile, can_train)
    try:
        case.call(model)  # type: ignore[arg-type]  # the model has the subject's four operations
    except (ValueError, TypeError):
        return False
    return True


def verify_rejection(subject: Subject, case: BadCall) -> None:
    """The bad call is rejected with a ValueError or TypeError (any subclass); the other family than the one
    the specification prefers is an advisory note.

    A call the subject's profile accepts (an unknown id that ``skip-unknown`` drops, a lone surrogate
    that ``lone_surrogates="replace"`` encodes) is no bad call under that profile.
    """
    profile = subject_profile(subject)
    if not is_strict(profile) and profile_accepts(case, profile, subject.supports("train")):
        return
    _set_up(subject, profile, subject.supports("train"))
    expect_rejection(
        lambda: case.call(subject),
        clause=case.clause,
        what=f"{case.operation} with {case.description}",
        inputs=case.inputs(),
        kind=case.kind,
    )


def kept_model_clause(case: BadCall) -> str:
    """The clause a rejected ``case`` breaks when it changed the model anyway.

    Accepting a bad argument is the argument's clause (``case.clause``, judged by the validation checks).
    A load that is rejected *and* changed the model is a load that adopted before it checked: BPE-SER-LOAD
    says loading checks everything "before adopting anything" and "the current model stays as it was", so
    that is the clause of the order, whatever was wrong with the rules. A rejected train, encode or decode
    changing the model keeps the argument's clause: no clause of those operations orders validation.

    >>> [kept_model_clause(case) for case in (MAX_MERGES_CASES[0], RULES_CASES[0])]
    ['BPE-TRAIN-MAXMERGES', 'BPE-SER-LOAD']
    """
    return "BPE-SER-LOAD" if case.operation == "load" else case.clause


def _probe(subject: Subject, texts: list[str]) -> list[list[int]]:
    return [subject.encode(text) for text in texts]


def verify_failed_call_keeps_model(subject: Subject, example: CallExample) -> None:
    """A rejected call leaves the model as it was: the same texts encode to the same ids afterwards."""
    case: BadCall = example["call"]
    if not subject.supports(case.operation):
        return
    documents = list(example["documents"])
    rules = train_subject(subject, documents, example["max_merges"])
    if rules is None:
        return
    probes = [*documents, *example["texts"]]
    before = _probe(subject, probes)
    try:
        case.call(subject)
    except ImplementationRaised:
        pass
    else:
        return  # accepting it is the validation checks' finding; the model may then legitimately change
    try:
        after: Any = _probe(subject, probes)
    except ImplementationRaised as raised:
        after = f"encode raised {raised.kind}: {raised.message}"
    if after != before:
        raise Violation(
            kept_model_clause(case),
            f"after a rejected {case.operation} ({case.description}) the same texts encode differently: "
            "a rejected call must leave the model unchanged",
            inputs={
                "documents": documents,
                "max_merges": example["max_merges"],
                "rules": rules_json(rules),
                **case.inputs(),
                "texts": probes,
            },
            expected=before,
            actual=after,
        )


def _case_check(name: str, clause: str, summary: str, cases: tuple[BadCall, ...], requires: set[str]) -> Check:
    also = tuple(sorted({case.clause for case in cases} - {clause}))
    return Check(
        name=name,
        level=INTERFACE,
        clause=clause,
        summary=summary,
        verify=verify_rejection,
        cases=lambda: cases,
        requires=frozenset(requires),
        also=also,
    )


VALIDATION_CHECKS = [
    _case_check(
        "max-merges-validation",
        "BPE-TRAIN-MAXMERGES",
        "max_merges must be a non-negative int: negative is ValueError; bool, float, str, None are TypeError",
        MAX_MERGES_CASES,
        {"train"},
    ),
    _case_check(
        "documents-validation",
        "BPE-INPUT-DOCS",
        "documents must be a list of str: a bare str or non-str items are TypeError, lone surrogates ValueError",
        DOCUMENTS_CASES,
        {"train"},
    ),
    _case_check(
        "text-validation",
        "BPE-INPUT-TEXT",
        "encode takes a str: anything else is TypeError, a lone surrogate ValueError",
        TEXT_CASES,
        {"train", "encode"},
    ),
    _case_check(
        "ids-validation",
        "BPE-INPUT-IDS",
        "decode takes a list of int: other types and bool ids are TypeError, ids outside the vocabulary ValueError",
        IDS_CASES,
        {"train", "decode"},
    ),
    _case_check(
        "rules-validation",
        "BPE-INPUT-RULES",
        "load takes (int, int) pairs that refer only to bytes and earlier rules; anything else is rejected",
        RULES_CASES,
        {"load"},
    ),
    Check(
        name="failed-call-keeps-model",
        level=INTERFACE,
        clause="BPE-INPUT-DOCS",
        summary="a rejected train, load, encode or decode leaves the model unchanged",
        verify=verify_failed_call_keeps_model,
        strategy=lambda: drawn(
            CallExample,
            documents=corpora(max_documents=3, max_length=20),
            max_merges=max_merges_values(max_value=16),
            call=st.sampled_from(ALL_CASES),
            texts=st.lists(encode_texts(max_length=16), max_size=2),
        ),
        requires=frozenset({"train", "encode"}),
        also=(
            "BPE-TRAIN-MAXMERGES",
            "BPE-INPUT-TEXT",
            "BPE-INPUT-IDS",
            "BPE-INPUT-RULES",
            "BPE-RULE-REF",
            "BPE-SER-LOAD",
        ),
    ),
]
