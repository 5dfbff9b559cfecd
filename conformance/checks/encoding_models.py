"""The encoding bug models: encoders that each differ from rank order in one step, and naming a cause by them.

Localisation (:func:`bpe_conformance.diagnosis.localise_encoding`) decides the clause of wrong ids; these
models only say which known bug the wrong ids match (:func:`encoding_clause`), as the known-answer
vectors still ask when the implementation cannot be questioned.

>>> encoding_clause([("ab", [98, 97])], [])
'BPE-ALPHA-BYTES'
>>> encoding_clause([("abc", [259, 99])], [(98, 99), (97, 98)])  # "ab" applied before "bc"
'BPE-ENCODE-ORDER'
>>> encoding_clause([("aabb", [260, 98])], [(97, 97), (98, 98), (258, 98)])  # 258 merged again at once
'BPE-MERGE-NOREMATCH'
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from bpe_conformance.diagnosis import GPT2_PATTERN, replace_overlapping, replace_right_to_left
from bpe_conformance.dialects.context import profile_encode
from bpe_conformance.inputs.predicates import character_class
from bpe_conformance.reference import BOUNDARY_IDS, FIRST_RULE_ID, replace_pair
from bpe_conformance.reference.profiles import STRICT, Profile

__all__ = [
    "PROBE_RULES",
    "Encoder",
    "EncodingModel",
    "cross_examine_encodings",
    "encoding_clause",
    "follow_up_texts",
    "single_pass_encode",
]

Pair = tuple[int, int]
Rules = list[Pair]


def single_pass_encode(text: str, rules: Rules, first_rule_id: int = FIRST_RULE_ID) -> list[int]:
    """The classic rematching bug: one pass that merges a new token again with its neighbours at once."""
    rank_of: dict[Pair, int] = {}
    for rank, pair in enumerate(rules):
        rank_of.setdefault(pair, rank)
    stack: list[int] = []
    for byte in text.encode():
        stack.append(byte)
        while len(stack) >= 2 and (stack[-2], stack[-1]) in rank_of:
            stack[-2:] = [first_rule_id + rank_of[(stack[-2], stack[-1])]]
    return stack


def _encode_with(
    text: str, rules: Rules, first_rule_id: int, replace: Callable[[list[int], Pair, int], list[int]]
) -> list[int]:
    sequence = list(text.encode())
    for rank, pair in enumerate(rules):
        sequence = replace(sequence, pair, first_rule_id + rank)
    return sequence


def _reverse_order_encode(text: str, rules: Rules, first_rule_id: int) -> list[int]:
    sequence = list(text.encode())
    for rank in reversed(range(len(rules))):
        sequence = replace_pair(sequence, rules[rank], first_rule_id + rank)
    return sequence


def _pretokenized_encode(text: str, rules: Rules, profile: Profile, key: Callable[[str], object]) -> list[int]:
    chunks = ["".join(group) for _, group in itertools.groupby(text, key=key)]
    return [token for chunk in chunks for token in profile_encode(chunk, rules, profile)]


def _gpt2_encode(text: str, rules: Rules, profile: Profile) -> list[int]:
    return [token for chunk in re.findall(GPT2_PATTERN, text) for token in profile_encode(chunk, rules, profile)]


EncodingModel = Callable[[str, Rules, Profile], list[int]]

# Models of encoding bugs, tried in order; the first that reproduces every wrong answer names the clause.
_ENCODING_MODELS: tuple[tuple[str, EncodingModel], ...] = (
    ("BPE-ENCODE-ORDER", lambda text, rules, profile: _reverse_order_encode(text, rules, profile.first_rule_id)),
    ("BPE-MERGE-NOREMATCH", lambda text, rules, profile: single_pass_encode(text, rules, profile.first_rule_id)),
    (
        "BPE-MERGE-SCAN",
        lambda text, rules, profile: _encode_with(text, rules, profile.first_rule_id, replace_right_to_left),
    ),
    (
        "BPE-MERGE-SCAN",
        lambda text, rules, profile: _encode_with(text, rules, profile.first_rule_id, replace_overlapping),
    ),
    (
        "BPE-ENCODE-RAW",
        lambda text, rules, profile: _pretokenized_encode(
            text, rules, profile, lambda char: character_class(ord(char))
        ),
    ),
    ("BPE-ENCODE-RAW", lambda text, rules, profile: _pretokenized_encode(text, rules, profile, str.isspace)),
    ("BPE-ENCODE-RAW", _gpt2_encode),
)


# Rule lists on which the encoding models part for the fixed follow-up texts ("a " then "a b").
PROBE_RULES: tuple[Rules, ...] = ([(97, 32), (258, 98)], [(98, 97), (97, 258), (32, 97)])
Encoder = Callable[[str, Rules], "list[int] | None"]


def follow_up_texts(texts: list[str]) -> list[str]:
    """Texts on which the encoding models part: the wrong texts joined, reversed, and a few fixed ones.

    >>> follow_up_texts(["ab"])[:3]
    ['ab', 'ab', 'ba']
    """
    fixed = ["ab ab, ab", "a b a b", "aaa aaa", "it's 12 ab", "x,y x,y", "aaaa", "abab abab", "ba a b"]
    return [" ".join(texts), ", ".join(texts), *(text[::-1] for text in texts), *fixed]


def cross_examine_encodings(
    candidates: list[tuple[str, EncodingModel]],
    texts: list[str],
    rules: Rules,
    profile: Profile,
    encode: Encoder,
    probe_rules: tuple[Rules, ...] = (),
) -> list[tuple[str, EncodingModel]]:
    """The candidate models whose ids equal the implementation's on every follow-up they disagree on.

    Follow-ups are the follow-up texts under ``rules``, then under each of ``probe_rules`` (in the
    profile's numbering) when the implementation can load rules.
    """
    shift = profile.first_rule_id - FIRST_RULE_ID
    rule_lists = [
        rules,
        *([(a if a < 256 else a + shift, b if b < 256 else b + shift) for a, b in probe] for probe in probe_rules),
    ]
    for given in rule_lists:
        for text in follow_up_texts(texts):
            if len(candidates) < 2:
                return candidates
            predictions = [model(text, given, profile) for _, model in candidates]
            if len({tuple(ids) for ids in predictions}) < 2:
                continue
            answer = encode(text, given)
            candidates = [candidate for candidate, ids in zip(candidates, predictions, strict=True) if ids == answer]
    return candidates


def encoding_clause(
    wrong: list[tuple[str, list[int]]],
    rules: Rules,
    profile: Profile = STRICT,
    encode: Encoder | None = None,
    probe_rules: tuple[Rules, ...] = (),
) -> str:
    """The clause that wrong encodings (``(text, ids)`` pairs) most likely break under ``profile``.

    A model of a common bug names the clause only if it reproduces every wrong answer; when several
    do, ``encode(text, rules)`` (the implementation) is asked follow-ups they part on, and a model it
    contradicts is dropped. None left, or several: the generic BPE-ENCODE-ORDER ("not the canonical ids").
    """
    if profile.boundary_ids and any(token in BOUNDARY_IDS for _, ids in wrong for token in ids):
        return "BPE-ENCODE-BOUNDARY"
    if not rules:
        return "BPE-ALPHA-BYTES"
    candidates = [
        (clause, model)
        for clause, model in _ENCODING_MODELS
        if all(model(text, rules, profile) == ids for text, ids in wrong)
    ]
    if encode is not None:
        texts = [text for text, _ in wrong]
        candidates = cross_examine_encodings(candidates, texts, rules, profile, encode, probe_rules)
    return candidates[0][0] if len({clause for clause, _ in candidates}) == 1 else "BPE-ENCODE-ORDER"
