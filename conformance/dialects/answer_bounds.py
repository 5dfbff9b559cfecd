"""Bounds on what an implementation's answer may imply, checked before the harness builds anything from it.

A wrong answer can be small and still name something enormous: 45 rules that each join the previous
rule with itself name a piece of 2 ** 45 bytes. Everything the checks and the diagnosis compute from
an answer (pieces, replays, counterexamples) must cost time and memory linear in the *request*, so
trained rules are held to two limits the specification itself sets, using only integer lengths:

* at most ``max_merges`` rules (BPE-TRAIN-STOP);
* every rule's piece occurs in a training document (BPE-TRAIN-PIECE), so it is never longer than the
  longest sequence training counts in (a document, or all of them joined under a profile that joins
  them).

A piece past that bound is always wrong, but a buggy trainer makes some (one that replaces
overlapping matches, or trains on other documents), and the checks name *its* bug better than the
bound does. So pieces are refused here only once their total passes ``PIECE_SLACK`` times the most
a correct answer of as many rules could hold; below that the checks judge the answer as usual, at
a cost still linear in the request.

>>> check_trained_answer(["abab", "acac"], 32, [(97, 98), (97, 99)])
>>> check_trained_answer(["abab"], 32, [(97, 98), (258, 258), (259, 259)])  # wrong, but the checks say why
>>> def refused(rules, max_merges=32):
...     try:
...         check_trained_answer(["abab"], max_merges, rules)
...     except Violation as violation:
...         return violation.clause, violation.message.split(", whose")[0].split(", more")[0]
>>> refused([(97, 98)] + [(258 + rank, 258 + rank) for rank in range(30)])
('BPE-TRAIN-PIECE', 'train(documents, 32) returned rule 12 (269, 269)')
>>> refused([(97, 98), (97, 98)], max_merges=1)
('BPE-TRAIN-STOP', 'train(documents, 1) returned 2 rules')
>>> print(refused([], max_merges=-1))  # answering a bad call is the validation checks' finding
None
"""

from __future__ import annotations

from typing import Any

from bpe_conformance.errors import Violation
from bpe_conformance.reference.dialects import training_sequences
from bpe_conformance.reference.pieces import piece_lengths
from bpe_conformance.reference.profiles import STRICT, Profile

__all__ = ["PIECE_SLACK", "SHOWN_RULES", "check_trained_answer", "longest_training_sequence", "piece_allowance"]

# How many of an over-long answer's rules a counterexample shows.
SHOWN_RULES = 8
PIECE_SLACK = 64


def piece_allowance(rule_count: int, longest: int) -> int:
    """The most piece bytes an answer of ``rule_count`` rules may imply before it is refused unjudged.

    >>> piece_allowance(31, 4)
    9920
    """
    return PIECE_SLACK * max(rule_count, 1) * (longest + 1)


def longest_training_sequence(documents: list[str], profile: Profile = STRICT) -> int:
    """An upper bound on the bytes of any piece training on ``documents`` can make under ``profile``.

    >>> longest_training_sequence(["abab", "a"]), longest_training_sequence(["ab", "\\ud800"])
    (4, 5)
    """
    try:
        return max((len(sequence) for sequence in training_sequences(list(documents), profile)), default=0)
    except (TypeError, ValueError):
        # Documents the reference rejects still bound their pieces: all their bytes, and separators, together.
        separators = len(profile.document_separator.encode()) * max(len(documents) - 1, 0)
        return separators + sum(len(str(document).encode("utf-8", "surrogatepass")) for document in documents)


def _shown(rules: list[tuple[int, int]]) -> list[list[int]]:
    return [[first, second] for first, second in rules[:SHOWN_RULES]]


def _violation(
    clause: str, message: str, documents: list[str], max_merges: int, longest: int, actual: Any
) -> Violation:
    return Violation(
        clause,
        message,
        inputs={"documents": list(documents), "max_merges": max_merges},
        expected=f"at most {max_merges} rules, each piece at most {longest} bytes",
        actual=actual,
    )


def check_trained_answer(
    documents: list[str], max_merges: int, rules: list[tuple[int, int]], profile: Profile = STRICT
) -> None:
    """Violation when ``rules``, the answer to ``train(documents, max_merges)``, break a bound of the request.

    Cost: one integer per rule. Nothing is raised for answers within the bounds, right or wrong;
    the checks judge those.
    """
    longest = longest_training_sequence(documents, profile)
    # A negative max_merges is a bad call: answering it at all is the validation checks' finding, not a bound.
    bounded = isinstance(max_merges, int) and not isinstance(max_merges, bool) and max_merges >= 0
    if bounded and len(rules) > max_merges:
        raise _violation(
            "BPE-TRAIN-STOP",
            f"train(documents, {max_merges}) returned {len(rules)} rules, more than max_merges ({max_merges}): "
            "made more than max_merges rules",
            documents,
            max_merges,
            longest,
            {"rule_count": len(rules), "first_rules": _shown(rules)},
        )
    allowance, total = piece_allowance(len(rules), longest), 0
    # Every length up to the allowance is exact; the first piece past it at most doubles it.
    for rank, length in enumerate(piece_lengths(rules, cap=2 * allowance + 1)):
        total += length
        if total > allowance:
            first, second = rules[rank]
            shown = str(length) if length <= 2 * allowance else f"more than {2 * allowance}"
            raise _violation(
                "BPE-TRAIN-PIECE",
                f"train(documents, {max_merges}) returned rule {rank} ({first}, {second}), whose piece is "
                f"{shown} bytes long, but a trained rule's piece occurs in a training document and the longest "
                f"is {longest} bytes (rules 0-{rank} imply {total} bytes of pieces, past the {allowance} "
                "this answer may cost)",
                documents,
                max_merges,
                longest,
                {"rule_count": len(rules), "rank": rank, "rule": [first, second], "first_rules": _shown(rules)},
            )
