"""Checks of decoding: round trip, concatenated pieces, strictness, boundaries, vocabulary size (BPE-DECODE-*).

Id lists are built with the reference from the implementation's own rules, so these checks need only
``train`` and ``decode`` and hold even when the implementation's training differs from the reference's.

Past 400 lines on purpose: the checks share the helpers at the top (``_trained_rules``, ``_inputs``,
``_expect_text``: the implementation's rules, the inputs a violation reports, one decode judged), and
the strict-decoding policy (:func:`bad_ids`, :func:`expected_decode`) is decode-strict's alone; split
off, either would be a module of this family's private helpers.

>>> from bpe_conformance.adapters.python import InProcessSubject
>>> from bpe_conformance.reference import Tokenizer
>>> example = {"documents": ["低低低低"], "max_merges": 2, "texts": ["低!"], "explode": [True]}
>>> verify_decode_bytes(InProcessSubject(Tokenizer), example)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from bpe_conformance.checks.base import ALGORITHM, INTERFACE, Check
from bpe_conformance.checks.common import expect_rejection, rejection_verdict, rules_json
from bpe_conformance.checks.examples import (
    BadIdsExample,
    CutExample,
    ExplodeExample,
    TextsExample,
    TrainingExample,
    drawn,
)
from bpe_conformance.dialects.context import (
    not_applicable,
    profile_encode,
    profile_pieces_of,
    rules_are_valid,
    subject_profile,
    train_subject,
)
from bpe_conformance.errors import ImplementationRaised, MalformedResult, Violation
from bpe_conformance.inputs.strategies import corpora, encode_texts, max_merges_values, unicode_corpora
from bpe_conformance.reference import BEGIN_ID, END_ID
from bpe_conformance.reference.dialects import decode_profile
from bpe_conformance.reference.profiles import STRICT, Profile
from bpe_conformance.results.advisories import advise

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["DECODING_CHECKS", "boundary_inapplicable", "expected_decode"]

Rules = list[tuple[int, int]]

# Byte ids whose concatenation is not UTF-8, with the clause and error kind the specification requires.
_INVALID_UTF8 = {
    "lone continuation byte": [0x80],
    "truncated character": [0xE4, 0xBD],
    "byte ff": [0xFF],
    "overlong encoding": [0xC0, 0x80],
    "encoded surrogate": [0xED, 0xA0, 0x80],
    "truncated character between letters": [97, 0xE4, 97],
}
# Texts a tokenizer that normalizes, strips or re-encodes text gets wrong on the way back.
HARD_TEXTS = ("cafe\u0301", "A\u030a", "a\r\nb\x00", "👨\u200d👩\u200d👧", "\ufeff低", " \t ")
BAD_ID_KINDS = (*_INVALID_UTF8, "first unknown id", "far unknown id", "negative id", "bool id", "partial rule piece")


def _trained_rules(subject: Subject, example: TrainingExample) -> Rules | None:
    """The implementation's rules, or None when they are malformed (rule-references reports that).

    None too when training raised once no pair was left (stop-rule reports that).
    """
    rules = train_subject(subject, list(example["documents"]), example["max_merges"])
    if rules is None or not rules_are_valid(rules, subject_profile(subject)):
        return None
    return rules


def _spelled(ids: list[int], rules: Rules, profile: Profile) -> bytes | None:
    """The bytes the pieces of ``ids`` join to under ``rules``; None where an id or a rule has no piece."""
    try:
        pieces = profile_pieces_of(rules, profile)
    except (IndexError, KeyError, TypeError, ValueError):  # broken rules: the rule checks say so
        return None
    if not all(type(token) is int and 0 <= token < len(pieces) for token in ids):
        return None
    return b"".join(pieces[token] for token in ids)


def _decode_or_violation(subject: Subject, ids: list[int], clause: str, inputs: JSONObject, expected: str) -> str:
    """``decode(ids)`` for ids whose pieces join to ``expected``; raising there violates ``clause``."""
    try:
        return subject.decode(list(ids))
    except ImplementationRaised as raised:
        raise Violation(
            clause,
            f"decode({ids}) raised {raised.kind} for ids whose pieces concatenate to valid UTF-8: {raised.message}",
            inputs={**inputs, "ids": ids},
            expected=expected,
            actual=f"{raised.kind}: {raised.message}",
        ) from None


def _expect_text(subject: Subject, ids: list[int], text: str, clause: str, inputs: JSONObject, why: str) -> None:
    actual = _decode_or_violation(subject, ids, clause, inputs, text)
    if actual != text:
        raise Violation(clause, f"decode({ids}) {why}", inputs={**inputs, "ids": ids}, expected=text, actual=actual)


def _inputs(example: TrainingExample, rules: Rules) -> JSONObject:
    return {"documents": list(example["documents"]), "max_merges": example["max_merges"], "rules": rules_json(rules)}


def verify_round_trip(subject: Subject, example: TextsExample) -> None:
    """BPE-ROUNDTRIP: ``decode(encode(t)) == t`` for training documents, unseen texts and a few hard ones."""
    documents = list(example["documents"])
    rules = train_subject(subject, documents, example["max_merges"])
    if rules is None:
        return
    profile = subject_profile(subject)
    for text in [*documents, *example["texts"], *HARD_TEXTS]:
        ids = subject.encode(text)
        inputs = {"documents": documents, "max_merges": example["max_merges"], "rules": rules_json(rules), "text": text}
        try:
            if subject.decode(list(ids)) == text:
                continue
        except ImplementationRaised:
            pass
        # The round trip failed: say whose fault it is. Only then, so that another numbering (a
        # dialect's, judged under strict) never fails a round trip that works.
        spelled = _spelled(ids, rules, profile)
        if spelled is not None and spelled != text.encode():
            # The encoder lost the text: a decoder that refuses (or mangles) these ids is not at fault.
            raise Violation(
                "BPE-ROUNDTRIP",
                f"encode(text) gave ids whose pieces join to {spelled.hex(' ')}, not the text's bytes "
                f"{text.encode().hex(' ')}: the ids cannot decode to the text",
                inputs={**inputs, "ids": ids},
                expected=text,
                actual=ids,
            )
        _expect_text(subject, ids, text, "BPE-ROUNDTRIP", inputs, "of encode(text) did not give the text back")


def verify_decode_concatenates(subject: Subject, example: TextsExample) -> None:
    """BPE-DECODE-CONCAT: decoding joins the pieces of the ids in order; a rule's piece is its parts' pieces."""
    rules = _trained_rules(subject, example)
    if rules is None:
        return
    profile = subject_profile(subject)
    pieces = profile_pieces_of(rules, profile)
    inputs = _inputs(example, rules)
    for token in range(profile.first_rule_id, profile.first_rule_id + len(rules)):
        try:
            text = pieces[token].decode()
        except UnicodeDecodeError:
            continue  # a partial character on its own: decode-bytes-level covers it
        try:
            _expect_text(
                subject, [token], text, "BPE-DECODE-CONCAT", inputs, "is not the piece of the rule's two parts"
            )
        except Violation as wrong:
            clause = rule_piece_clause(subject, rules, profile, token)
            if clause == wrong.clause:
                raise
            raise Violation(
                clause, str(wrong.message), inputs=wrong.inputs, expected=wrong.expected, actual=wrong.actual
            ) from None
    texts = list(example["texts"])
    joined = [token for text in texts for token in profile_encode(text, rules, profile)]
    _expect_text(subject, joined, "".join(texts), "BPE-DECODE-CONCAT", inputs, "is not its pieces concatenated")


def rule_piece_clause(subject: Subject, rules: Rules, profile: Profile, token: int) -> str:
    """The clause a wrong ``decode([token])`` of one rule id breaks, asked of the subject.

    One id joins nothing, so the fault is the rule's piece (BPE-RULE-PIECE), the rule's id, or decoding
    itself. The control decodes the same bytes as byte ids: wrong, and decoding itself is at fault
    (BPE-DECODE-CONCAT). Right, and the subject encodes the piece's text: canonically, so it numbers the
    rule as the specification does and only the decoder's piece for that id is wrong (BPE-RULE-PIECE);
    otherwise, to ids that decode back to the text, so encoder and decoder agree on another numbering
    (BPE-RULE-ID); to anything else, decoding stays the clause. A subject that cannot encode is judged on
    the control alone.
    """
    pieces = profile_pieces_of(rules, profile)
    piece = pieces[token]
    byte_ids = {pieces[index]: index for index in range(profile.first_rule_id) if len(pieces[index]) == 1}
    ids = [byte_ids.get(bytes([byte])) for byte in piece]
    if any(index is None for index in ids) or _decoded([index for index in ids if index is not None], subject) != piece:
        return "BPE-DECODE-CONCAT"
    if not subject.supports("encode"):
        return "BPE-RULE-PIECE"
    text = piece.decode()
    try:
        encoded = subject.encode(text)
    except (ImplementationRaised, MalformedResult):
        return "BPE-DECODE-CONCAT"
    if encoded == profile_encode(text, rules, profile):
        return "BPE-RULE-PIECE"
    return "BPE-RULE-ID" if _decoded(encoded, subject) == piece else "BPE-DECODE-CONCAT"


def _decoded(ids: list[int], subject: Subject) -> bytes | None:
    """The UTF-8 bytes of ``decode(ids)``, or None when it raised."""
    try:
        return subject.decode(list(ids)).encode("utf-8", "surrogatepass")
    except (ImplementationRaised, MalformedResult):
        return None


def _explode(ids: list[int], pieces: list[bytes], choices: list[bool]) -> list[int]:
    """``ids`` with some tokens replaced by their bytes, so ids split characters in new places."""
    exploded: list[int] = []
    for index, token in enumerate(ids):
        if choices and choices[index % len(choices)]:
            exploded.extend(pieces[token])
        else:
            exploded.append(token)
    return exploded


def verify_decode_bytes(subject: Subject, example: ExplodeExample) -> None:
    """BPE-DECODE-BYTES: ids that split characters decode when the whole is valid UTF-8 (bytes first, then text)."""
    rules = _trained_rules(subject, example)
    if rules is None:
        return
    profile = subject_profile(subject)
    pieces = profile_pieces_of(rules, profile)
    inputs = _inputs(example, rules)
    for text in [*example["documents"], *example["texts"]]:
        canonical = profile_encode(text, rules, profile)
        for ids in (canonical, _explode(canonical, pieces, example["explode"]), list(text.encode())):
            _expect_text(
                subject, ids, text, "BPE-DECODE-BYTES", inputs, "must decode the concatenated bytes, not each piece"
            )


def _partial_piece_ids(pieces: list[bytes], first_rule_id: int) -> list[int] | None:
    for token in range(first_rule_id, len(pieces)):
        try:
            pieces[token].decode()
        except UnicodeDecodeError:
            return [token]
    return None


def bad_ids(kind: str, rules: Rules, profile: Profile = STRICT) -> tuple[list[Any], str, str] | None:
    """The id list for ``kind``, the error kind strict requires and the clause; None when there are no such ids.

    >>> bad_ids("first unknown id", [(97, 98)])
    ([97, 259], 'ValueError', 'BPE-DECODE-STRICT')
    >>> bad_ids("bool id", [])
    ([97, True], 'TypeError', 'BPE-INPUT-IDS')
    """
    vocabulary = profile.first_rule_id + len(rules)
    if kind in _INVALID_UTF8:
        return _INVALID_UTF8[kind], "ValueError", "BPE-DECODE-STRICT"
    if kind == "partial rule piece":
        ids = _partial_piece_ids(profile_pieces_of(rules, profile), profile.first_rule_id)
        return None if ids is None else (ids, "ValueError", "BPE-DECODE-STRICT")
    fixed: dict[str, tuple[list[Any], str, str]] = {
        "first unknown id": ([97, vocabulary], "ValueError", "BPE-DECODE-STRICT"),
        "far unknown id": ([vocabulary + 1000], "ValueError", "BPE-DECODE-STRICT"),
        "negative id": ([97, -1], "ValueError", "BPE-INPUT-IDS"),
        "bool id": ([97, True], "TypeError", "BPE-INPUT-IDS"),
    }
    return fixed[kind]


def expected_decode(ids: list[Any], rules: Rules, profile: Profile) -> tuple[bool, str]:
    """What the profile's decode policy does with ``ids``: ``(True, text)``, or ``(False, error kind)``.

    >>> from bpe_conformance.reference.profiles import HF_TOKENIZERS, MINBPE
    >>> expected_decode([228, 189], [], MINBPE), expected_decode([97, 300], [], HF_TOKENIZERS)
    ((True, '\ufffd'), (True, 'a'))
    >>> expected_decode([97, 300], [], MINBPE)
    (False, 'ValueError')
    """
    try:
        return True, decode_profile(list(ids), rules, profile)
    except (ValueError, TypeError) as error:
        return False, type(error).__name__


def _policy_violation(
    clause: str, inputs: JSONObject, profile: Profile, expected: tuple[bool, str], actual: str
) -> Violation:
    returns, answer = expected
    wanted = f"return {answer!r}" if returns else f"raise {answer}"
    return Violation(
        clause,
        f"decode of ids with a {inputs['problem']} under profile {profile.name} "
        f"(decode_policy={profile.decode_policy}) must {wanted}, but it {actual}",
        inputs=inputs,
        expected=answer,
        actual=actual,
    )


def _verify_decode_policy(
    subject: Subject, ids: list[Any], rules: Rules, profile: Profile, clause: str, inputs: JSONObject
) -> None:
    """Under a lenient decode policy the profile's own answer is the expected one: text or an error kind."""
    expected = expected_decode(ids, rules, profile)
    try:
        returned = subject.decode(list(ids))
    except ImplementationRaised as raised:
        if expected[0] or rejection_verdict(raised, expected[1]) == "outside":
            actual = f"raised {raised.kind}: {raised.message}"
            raise _policy_violation(clause, inputs, profile, expected, actual) from None
        if rejection_verdict(raised, expected[1]) == "other":
            advise(
                f"[{clause}] decode of ids with a {inputs['problem']}: raised {raised.kind}; "
                f"the specification prefers {expected[1]} (a SHOULD)"
            )
        return
    if expected != (True, returned):
        raise _policy_violation(clause, inputs, profile, expected, f"returned {returned!r}")


def verify_decode_strict(subject: Subject, example: BadIdsExample) -> None:
    """BPE-DECODE-STRICT: unknown ids and invalid UTF-8 raise ValueError (bool ids TypeError), never U+FFFD.

    Under a profile whose decode policy is ``replace`` or ``skip-unknown`` the expected answer is that
    policy's (U+FFFD for invalid UTF-8, unknown ids dropped), and every error kind is still the strict one.
    """
    rules = _trained_rules(subject, example)
    if rules is None:
        return
    profile = subject_profile(subject)
    chosen = bad_ids(example["kind"], rules, profile)
    if chosen is None:
        return
    ids, kind, clause = chosen
    prefix = profile_encode(example["prefix"], rules, profile)
    ids = [*prefix, *ids]
    inputs = {**_inputs(example, rules), "ids": ids, "problem": example["kind"]}
    if profile.decode_policy != "strict":
        _verify_decode_policy(subject, ids, rules, profile, clause, inputs)
        return
    expect_rejection(
        lambda: subject.decode(ids),
        clause=clause,
        what=f"decode of ids with a {example['kind']}",
        inputs=inputs,
        kind=kind,
    )


def verify_vocab_size(subject: Subject, example: TrainingExample) -> None:
    """BPE-VOCAB-SIZE: the vocabulary is 258 + rules made, never 258 + max_merges: the next id is unknown.

    Any error counts as "unknown" here (an algorithm-level clause); which error family it must be
    is decode-strict's, an interface-level check. Under a ``skip-unknown`` decode policy an unknown
    id decodes to nothing instead of raising.
    """
    rules = _trained_rules(subject, example)
    if rules is None:
        return
    profile = subject_profile(subject)
    first = profile.first_rule_id
    made, inputs = len(rules), _inputs(example, rules)
    beyond = sorted({first + made, first + max(made, example["max_merges"] - 1)})
    skips = profile.decode_policy == "skip-unknown"
    for token in beyond:
        try:
            returned = subject.decode([token])
        except ImplementationRaised as raised:
            if not skips:
                continue
            returned = f"{raised.kind}: {raised.message}"
        else:
            if skips and returned == "":
                continue
        raise Violation(
            "BPE-VOCAB-SIZE",
            f"{made} rules were made (max_merges {example['max_merges']}), so the vocabulary is "
            f"{first + made} ids and id {token} must be unknown ("
            + ("dropped: decodes to ''" if skips else "rejected")
            + ")",
            inputs={**inputs, "ids": [token]},
            expected="" if skips else "an error",
            actual=returned,
        )


def boundary_inapplicable(profile: Profile) -> str | None:
    """Why BPE-ALPHA-BOUNDARY does not apply under ``profile`` (256 and 257 are rule ids), or None."""
    if profile.boundary_ids:
        return None
    return not_applicable(profile, "boundary_ids", "ids 256 and 257 are the first two rules, not boundaries")


def verify_boundary_ids(subject: Subject, example: CutExample) -> None:
    """BPE-ALPHA-BOUNDARY: ids 256 and 257 carry no bytes, wherever they appear in the ids to decode."""
    if boundary_inapplicable(subject_profile(subject)) is not None:
        return
    rules = _trained_rules(subject, example)
    if rules is None:
        return
    inputs = _inputs(example, rules)
    _expect_text(subject, [BEGIN_ID, END_ID], "", "BPE-ALPHA-BOUNDARY", inputs, "must be empty: no bytes")
    for text in [*example["documents"], *example["texts"]]:
        ids = profile_encode(text, rules, STRICT)
        cut = example["cut"] % (len(ids) + 1)
        for marked in ([BEGIN_ID, *ids, END_ID], [*ids[:cut], END_ID, BEGIN_ID, *ids[cut:]]):
            _expect_text(subject, marked, text, "BPE-ALPHA-BOUNDARY", inputs, "must ignore the boundary ids")


def _examples(
    shape: Callable[..., TrainingExample], documents: st.SearchStrategy[list[str]], /, **extra: st.SearchStrategy[Any]
) -> Callable[[], Any]:
    def strategy() -> st.SearchStrategy[TrainingExample]:
        return drawn(shape, documents=documents, max_merges=max_merges_values(max_value=24), **extra)

    return strategy


_TEXTS = st.lists(encode_texts(max_length=24), max_size=3)
_DECODE = frozenset({"train", "decode"})

DECODING_CHECKS = [
    Check(
        name="round-trip",
        level=ALGORITHM,
        clause="BPE-ROUNDTRIP",
        summary="decode(encode(t)) == t for training documents and unseen texts, multi-byte and emoji included",
        verify=verify_round_trip,
        strategy=_examples(TextsExample, corpora(max_documents=3, max_length=24), texts=_TEXTS),
        requires=frozenset({"train", "encode", "decode"}),
        budget=0.5,
    ),
    Check(
        name="decode-concatenates",
        level=ALGORITHM,
        clause="BPE-DECODE-CONCAT",
        summary="decode joins the pieces of the ids; a rule's piece is its two parts' pieces",
        also=("BPE-RULE-PIECE", "BPE-RULE-ID"),
        verify=verify_decode_concatenates,
        strategy=_examples(TextsExample, corpora(max_documents=3, max_length=24), texts=_TEXTS),
        requires=_DECODE,
        budget=0.5,
    ),
    Check(
        name="decode-bytes-level",
        level=ALGORITHM,
        clause="BPE-DECODE-BYTES",
        summary="ids that split characters decode when their bytes together are valid UTF-8",
        verify=verify_decode_bytes,
        strategy=_examples(
            ExplodeExample,
            unicode_corpora(max_documents=3, max_length=10),
            texts=_TEXTS,
            explode=st.lists(st.booleans(), max_size=4),
        ),
        requires=_DECODE,
        budget=0.5,
    ),
    Check(
        name="decode-strict",
        level=INTERFACE,
        clause="BPE-DECODE-STRICT",
        summary="unknown ids and invalid UTF-8 raise ValueError, bool ids TypeError; never a replacement character",
        verify=verify_decode_strict,
        strategy=_examples(
            BadIdsExample,
            unicode_corpora(max_documents=3, max_length=10),
            kind=st.sampled_from(BAD_ID_KINDS),
            prefix=st.sampled_from(("", "a", "é", "低")),
        ),
        requires=_DECODE,
        also=("BPE-INPUT-IDS",),
        budget=0.5,
    ),
    Check(
        name="vocab-size",
        level=ALGORITHM,
        clause="BPE-VOCAB-SIZE",
        summary="the vocabulary is 258 + rules made: ids from there on are unknown, whatever max_merges was",
        verify=verify_vocab_size,
        strategy=_examples(TrainingExample, corpora(max_documents=3, max_length=20)),
        requires=_DECODE,
        budget=0.5,
    ),
    Check(
        name="boundary-ids",
        level=ALGORITHM,
        clause="BPE-ALPHA-BOUNDARY",
        summary="ids 256 and 257 decode to nothing, around or inside a text",
        verify=verify_boundary_ids,
        inapplicable=boundary_inapplicable,
        strategy=_examples(CutExample, corpora(max_documents=3, max_length=20), texts=_TEXTS, cut=st.integers(0, 64)),
        requires=_DECODE,
        budget=0.5,
    ),
]
