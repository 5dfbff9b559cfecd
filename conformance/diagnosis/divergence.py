"""Where an implementation's training first parted from the specification, and what that round's kind is.

Each of the implementation's rules is judged in the state its own earlier rules leave behind (the
reference replacement applied to the same documents). The first round whose rule is not the one the
specification makes in that state is the first divergence; its *kind* says what went wrong there,
and the cause line names a bug model only when :mod:`bpe_conformance.diagnosis.confirmation` proved it.

>>> [judgement.kind.description for judgement in judge_rounds(["aaab", "aab"], 32, [(97, 97), (258, 98)])]
['merged a pair seen once']
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.diagnosis.confirmation import (
    MIN_FOLLOW_UPS,
    Explanation,
    Retrain,
    explanation_of,
    tie_free_departures,
)
from bpe_conformance.diagnosis.models import (
    Counts,
    Pair,
    checked_rules,
    initial_sequences,
    model_cause,
    model_clause,
    piece_of,
)
from bpe_conformance.reference import count_pairs, replace_pair
from bpe_conformance.reference.dialects import profile_pieces, select_profile_pair
from bpe_conformance.reference.profiles import STRICT, Profile
from bpe_conformance.reference.validation import check_documents, check_max_merges

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "BELOW_MINIMUM",
    "KIND_CLAUSES",
    "NEVER_SEEN",
    "NOT_MAXIMAL",
    "NO_MODEL",
    "SEEN_ONCE",
    "STOPPED_EARLY",
    "STOP_KINDS",
    "TIED_UNTESTED",
    "TIE_OTHER_WAY",
    "TOO_MANY",
    "DivergenceKind",
    "Judgement",
    "describe",
    "first_divergence",
    "judge_round",
    "judge_rounds",
]


class DivergenceKind(enum.Enum):
    """What went wrong in a divergent round; the value is its stable slug, the sentence its description."""

    TIE_OTHER_WAY = "tie-other-way"
    NOT_MAXIMAL = "not-maximal"
    STOPPED_EARLY = "stopped-early"
    SEEN_ONCE = "seen-once"
    NEVER_SEEN = "never-seen"
    BELOW_MINIMUM = "below-minimum"
    TOO_MANY = "too-many"

    @property
    def description(self) -> str:
        """The sentence a report prints (the ``diagnosis`` of a divergence)."""
        return _KIND_DESCRIPTIONS[self]

    @property
    def clause(self) -> str:
        """The clause of the symptom: what the round shows, before any localisation."""
        return _KIND_SYMPTOM_CLAUSES[self]


_KIND_DESCRIPTIONS = {
    DivergenceKind.TIE_OTHER_WAY: "tie broken the other way",
    DivergenceKind.NOT_MAXIMAL: "pair not maximal",
    DivergenceKind.STOPPED_EARLY: "stopped early",
    DivergenceKind.SEEN_ONCE: "merged a pair seen once",
    DivergenceKind.NEVER_SEEN: "merged a pair that does not occur",
    DivergenceKind.BELOW_MINIMUM: "merged a pair counted fewer times than the profile's minimum",
    DivergenceKind.TOO_MANY: "made more than max_merges rules",
}
_KIND_SYMPTOM_CLAUSES = {
    DivergenceKind.TIE_OTHER_WAY: "BPE-TRAIN-TIE",
    DivergenceKind.NOT_MAXIMAL: "BPE-TRAIN-GREEDY",
    **{
        kind: "BPE-TRAIN-STOP"
        for kind in (
            DivergenceKind.STOPPED_EARLY,
            DivergenceKind.SEEN_ONCE,
            DivergenceKind.NEVER_SEEN,
            DivergenceKind.BELOW_MINIMUM,
            DivergenceKind.TOO_MANY,
        )
    },
}
# The sentences, by the names the rest of the harness and its tests have always used.
TIE_OTHER_WAY = DivergenceKind.TIE_OTHER_WAY.description
NOT_MAXIMAL = DivergenceKind.NOT_MAXIMAL.description
STOPPED_EARLY = DivergenceKind.STOPPED_EARLY.description
SEEN_ONCE = DivergenceKind.SEEN_ONCE.description
NEVER_SEEN = DivergenceKind.NEVER_SEEN.description
BELOW_MINIMUM = DivergenceKind.BELOW_MINIMUM.description
TOO_MANY = DivergenceKind.TOO_MANY.description
# The kinds the stop rule decides: a rule too many, too few, or one merged below the minimum count.
STOP_KINDS = frozenset(kind for kind, clause in _KIND_SYMPTOM_CLAUSES.items() if clause == "BPE-TRAIN-STOP")
NO_MODEL = "no known bug model explains these rules"
UNEXPLAINED = {TIE_OTHER_WAY: "ties broken in an order none of the known rules gives"}
# A pair tied for the top count was chosen, and nothing more is known: a tie order would do that,
# and so would counts or documents other than the specification's (they can make the same pair win).
TIED_UNTESTED = (
    "no known bug model explains these rules; a pair tied for the top count was chosen, which an unknown "
    "tie order would do, and so would counts or documents other than the specification's"
)
KIND_CLAUSES = {kind.description: kind.clause for kind in DivergenceKind}


@dataclass(frozen=True)
class Judgement:
    """One round whose rule (or missing rule) is not what the specification makes in that state.

    ``expected`` is the rule the specification makes in that state and ``actual`` the implementation's,
    each None for "no rule", with its count in that state (None exactly when the pair is None).
    ``top_counts`` are the five highest counts of the state, highest first, equal counts by pair.
    """

    round: int
    kind: DivergenceKind
    clause: str
    cause: str
    expected: Pair | None
    expected_count: int | None
    actual: Pair | None
    actual_count: int | None
    top_counts: list[tuple[Pair, int]]
    confirmed: bool = False

    def as_dict(self) -> JSONObject:
        """The JSON-ready ``divergence`` of a counterexample."""
        return {
            "round": self.round,
            "expected": _pair_record(self.expected, self.expected_count),
            "actual": _pair_record(self.actual, self.actual_count),
            "diagnosis": self.kind.description,
            "kind": self.kind.value,
            "clause": self.clause,
            "cause": self.cause,
            "confirmed": self.confirmed,
            "top_counts": [[first, second, count] for (first, second), count in self.top_counts],
        }


def _pair_record(pair: Pair | None, count: int | None) -> JSONObject | None:
    return None if pair is None else {"pair": list(pair), "count": count}


def _clause_and_cause(
    kind: DivergenceKind,
    explanation: Explanation | None,
    profile: Profile,
    without_ties: Callable[[], tuple[int, int] | None] = lambda: None,
) -> tuple[str, str, bool]:
    """The clause, the cause line, and whether that cause is confirmed.

    ``without_ties()`` is (inputs answered unlike the profile, inputs asked) over follow-ups cut before
    their first tie (:func:`tie_free_departures`), or None when the implementation cannot be asked.
    """
    if explanation is None or not explanation.candidates:
        if kind is not DivergenceKind.TIE_OTHER_WAY:
            return kind.clause, NO_MODEL, False
        return kind.clause, _unexplained_tie(without_ties()), False
    clauses = {model_clause(index, profile) for index in explanation.candidates}
    causes = [model_cause(index, profile) for index in explanation.candidates]
    if explanation.confirmed:
        return (
            clauses.pop(),
            f"the rules are exactly what a trainer with {causes[0]} makes, here and on "
            f"{explanation.asked} follow-up inputs that put it to the test",
            True,
        )
    clause = clauses.pop() if len(clauses) == 1 and explanation.asked else kind.clause
    why = "no follow-up inputs were run" if not explanation.asked else "the follow-up inputs did not tell them apart"
    return clause, f"not confirmed: consistent with a trainer with {' or with '.join(causes)} ({why})", False


def _unexplained_tie(evidence: tuple[int, int] | None) -> str:
    """What an unmodeled choice among tied pairs is, told by the inputs without ties."""
    if evidence is None or evidence[1] < MIN_FOLLOW_UPS:
        return TIED_UNTESTED
    departed, asked = evidence
    if departed:
        return (
            f"{NO_MODEL}, and not a tie order alone: the implementation also departs from the specification "
            f"on {departed} of {asked} follow-up inputs cut before their first tie"
        )
    return (
        f"{UNEXPLAINED[TIE_OTHER_WAY]}; on {asked} follow-up inputs cut before their first tie it makes "
        f"exactly the specification's rules"
    )


def _kind(rank: int, max_merges: int, actual_count: int | None, best_count: int, minimum: int) -> DivergenceKind:
    if actual_count is None:
        return DivergenceKind.STOPPED_EARLY
    if rank >= max_merges:
        return DivergenceKind.TOO_MANY
    if best_count < minimum:
        if actual_count == 0:
            return DivergenceKind.NEVER_SEEN
        return DivergenceKind.SEEN_ONCE if actual_count == 1 else DivergenceKind.BELOW_MINIMUM
    return DivergenceKind.TIE_OTHER_WAY if actual_count == best_count else DivergenceKind.NOT_MAXIMAL


def judge_round(
    rules: list[Pair],
    rank: int,
    counts: Counts,
    max_merges: int,
    pieces: list[bytes],
    profile: Profile,
    explain: Callable[[], Explanation | None],
    without_ties: Callable[[], tuple[int, int] | None] = lambda: None,
) -> Judgement | None:
    """Round ``rank`` of ``rules`` judged in its state (``counts``, and ``pieces`` by id); None when it is right.

    ``explain()`` gives the bug models' explanation of the rules (or None) and ``without_ties()`` what the
    implementation does on inputs cut before their first tie; each is called only for a divergent round.
    """
    best = select_profile_pair(counts, pieces, profile)
    best_count = max(counts.values(), default=0)
    expected = best if rank < max_merges else None
    actual = rules[rank] if rank < len(rules) else None
    if actual == expected:
        return None
    actual_count = None if actual is None else counts.get(actual, 0)
    kind = _kind(rank, max_merges, actual_count, best_count, profile.min_count)
    clause, cause, confirmed = _clause_and_cause(kind, explain(), profile, without_ties)
    return Judgement(
        round=rank,
        kind=kind,
        clause=clause,
        cause=cause,
        expected=expected,
        expected_count=None if expected is None else best_count,
        actual=actual,
        actual_count=actual_count,
        top_counts=sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:5],
        confirmed=confirmed,
    )


def judge_rounds(
    documents: list[str],
    max_merges: int,
    actual_rules: list[Pair],
    profile: Profile = STRICT,
    retrain: Retrain | None = None,
) -> Iterator[Judgement]:
    """Every round where ``actual_rules`` is not what ``profile`` makes, each judged in its own state.

    The state of round r is the documents after the reference replacement of ``actual_rules[:r]``, so a
    tie broken the other way in round 0 does not make every later rule look wrong. The profile says how
    the state starts (documents separate or joined), how ties go, the minimum count and the new ids.
    ``retrain(documents, max_merges)`` trains the implementation itself on follow-up inputs: without
    it no bug model is confirmed, so no cause is claimed, and each round keeps the clause of its kind.

    >>> [judgement.kind.description for judgement in judge_rounds(["aaab", "aab"], 32, [(97, 97), (258, 98)])]
    ['merged a pair seen once']
    """
    check_documents(documents)
    limit = check_max_merges(max_merges)
    rules = checked_rules(actual_rules)
    sequences = initial_sequences(list(documents), profile)
    pieces = profile_pieces([], profile)
    # The models run once, and only for an implementation that diverges.
    explain = functools.cache(lambda: explanation_of(list(documents), limit, rules, profile, retrain))
    without_ties = functools.cache(lambda: tie_free_departures(profile, retrain))
    for rank in range(len(rules) + 1):
        judgement = judge_round(rules, rank, count_pairs(sequences), limit, pieces, profile, explain, without_ties)
        if judgement is not None:
            yield judgement
        if rank < len(rules):
            new_id = profile.first_rule_id + rank
            sequences = [replace_pair(sequence, rules[rank], new_id) for sequence in sequences]
            pieces.append(piece_of(pieces, rules[rank][0]) + piece_of(pieces, rules[rank][1]))


def first_divergence(
    documents: list[str],
    max_merges: int,
    actual_rules: list[Pair],
    profile: Profile = STRICT,
    retrain: Retrain | None = None,
) -> JSONObject | None:
    """The first round where ``actual_rules`` leaves the reference's rules, as a JSON-ready dict; None if equal.

    Keys: ``round``; ``expected`` and ``actual`` (each ``{"pair": [a, b], "count": n}`` with the count in
    that round's state under the specification, or None for "no rule"); ``diagnosis`` (one of
    "tie broken the other way", "pair not maximal", "stopped early", "merged a pair seen once",
    "merged a pair that does not occur", "made more than max_merges rules"); ``clause``, the likely
    clause; ``cause``, what explains the choice: a bug model only when ``confirmed`` (the implementation,
    trained through ``retrain`` on follow-up inputs, made that model's rules every time), otherwise the
    candidates still consistent or that no known model explains it; ``top_counts``.

    >>> first_divergence(["abab", "acac"], 32, [(97, 98)])["diagnosis"]
    'stopped early'
    >>> first_divergence(["abab", "acac"], 1, [(97, 98), (97, 99)])["diagnosis"]
    'made more than max_merges rules'
    """
    judgement = next(judge_rounds(documents, max_merges, actual_rules, profile, retrain), None)
    return None if judgement is None else judgement.as_dict()


def describe(divergence: JSONObject) -> str:
    """One line for a failure message.

    >>> print(describe(first_divergence(["abab", "acac"], 32, [(97, 99)])))  # doctest: +NORMALIZE_WHITESPACE
    round 0: expected (97, 98) (count 2), got (97, 99) (count 2): tie broken the other way;
    no known bug model explains these rules; a pair tied for the top count was chosen, which an unknown
    tie order would do, and so would counts or documents other than the specification's [BPE-TRAIN-TIE]
    """

    def side(record: JSONObject | None) -> str:
        if record is None:
            return "no rule"
        return f"({record['pair'][0]}, {record['pair'][1]}) (count {record['count']})"

    text = f"round {divergence['round']}: expected {side(divergence['expected'])}, got {side(divergence['actual'])}"
    text += f": {divergence['diagnosis']}"
    if divergence["cause"]:
        text += f"; {divergence['cause']}"
    return text + f" [{divergence['clause']}]"
