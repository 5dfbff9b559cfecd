"""Where, and probably why, an implementation's training first parted from the specification.

Each of the implementation's rules is judged in the state its own earlier rules leave behind (the
reference replacement applied to the same documents). The first round whose rule is not the one the
specification makes in that state is the first divergence from the reference; its *kind* says what
went wrong there, and a few models of common bugs (counting across documents, non-overlapping counts,
stale counts, wrong scan direction, pre-tokenization) name the likely clause.

>>> first_divergence(["abab", "acac"], 32, [(97, 98), (97, 99)]) is None
True
>>> divergence = first_divergence(["abab", "acac"], 32, [(97, 99), (97, 98)])
>>> divergence["round"], divergence["diagnosis"], divergence["clause"]
(0, 'tie broken the other way', 'BPE-TRAIN-TIE')
>>> divergence["expected"], divergence["actual"]
({'pair': [97, 98], 'count': 2}, {'pair': [97, 99], 'count': 2})

A cause is named only when proven: ``retrain`` trains the implementation itself on follow-up inputs
that tell the models apart, and only a model that made the implementation's rules on all of them is
named (``confirmed``). Here the "implementation" is a trainer that joins its documents:

>>> joined = dataclasses.replace(STRICT, documents="concatenated")
>>> def retrain(documents, max_merges):
...     return train_profile(documents, max_merges, joined)
>>> divergence = first_divergence(["xay", "xby", "xcy"], 32, [(121, 120)], retrain=retrain)
>>> divergence["confirmed"], divergence["clause"]
(True, 'BPE-TRAIN-DOCS')
>>> divergence["cause"].startswith("the rules are exactly what a trainer with documents joined before training")
True
>>> first_divergence(["xay", "xby", "xcy"], 32, [(121, 120)])["cause"]
'not confirmed: consistent with a trainer with documents joined before training (no follow-up inputs were run)'
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from conformance.follow_up_corpora import FOLLOW_UP_CORPORA, FOLLOW_UP_MERGES, TIE_FREE_CORPORA
from conformance.profile_context import pairs_run_out
from reference import count_pairs, replace_pair
from reference.dialects import profile_pieces, select_profile_pair, train_profile, training_sequences
from reference.profiles import STRICT, Profile
from reference.validation import check_documents, check_max_merges

__all__ = [
    "BELOW_MINIMUM",
    "GPT2_PATTERN",
    "KIND_CLAUSES",
    "NEVER_SEEN",
    "NOT_MAXIMAL",
    "SEEN_ONCE",
    "STOPPED_EARLY",
    "TIE_OTHER_WAY",
    "TOO_MANY",
    "Explanation",
    "Judgement",
    "Retrain",
    "cross_examine",
    "describe",
    "first_divergence",
    "follow_up_inputs",
    "judge_rounds",
    "replace_overlapping",
    "replace_right_to_left",
    "reproducing_models",
    "rounds_before_a_tie",
    "tie_free_departures",
]

Pair = tuple[int, int]
Counts = dict[Pair, int]
Sequences = list[list[int]]

TIE_OTHER_WAY = "tie broken the other way"
NOT_MAXIMAL = "pair not maximal"
STOPPED_EARLY = "stopped early"
SEEN_ONCE = "merged a pair seen once"
NEVER_SEEN = "merged a pair that does not occur"
BELOW_MINIMUM = "merged a pair counted fewer times than the profile's minimum"
TOO_MANY = "made more than max_merges rules"
NO_MODEL = "no known bug model explains these rules"
UNEXPLAINED = {TIE_OTHER_WAY: "ties broken in an order none of the known rules gives"}
# A pair tied for the top count was chosen, and nothing more is known: a tie order would do that,
# and so would counts or documents other than the specification's (they can make the same pair win).
TIED_UNTESTED = (
    "no known bug model explains these rules; a pair tied for the top count was chosen, which an unknown "
    "tie order would do, and so would counts or documents other than the specification's"
)
# A cause is named only after the implementation matched it on this many inputs that test it.
MIN_FOLLOW_UPS = 2
KIND_CLAUSES = {
    TIE_OTHER_WAY: "BPE-TRAIN-TIE",
    NOT_MAXIMAL: "BPE-TRAIN-GREEDY",
    STOPPED_EARLY: "BPE-TRAIN-STOP",
    SEEN_ONCE: "BPE-TRAIN-STOP",
    NEVER_SEEN: "BPE-TRAIN-STOP",
    BELOW_MINIMUM: "BPE-TRAIN-STOP",
    TOO_MANY: "BPE-TRAIN-STOP",
}


@dataclass(frozen=True)
class Judgement:
    """One round whose rule (or missing rule) is not what the specification makes in that state.

    ``expected`` is the rule the specification makes in that state and ``actual`` the implementation's,
    each None for "no rule", with its count in that state (None exactly when the pair is None).
    ``top_counts`` are the five highest counts of the state, highest first, equal counts by pair.
    """

    round: int
    kind: str
    clause: str
    cause: str
    expected: Pair | None
    expected_count: int | None
    actual: Pair | None
    actual_count: int | None
    top_counts: list[tuple[Pair, int]]
    confirmed: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready ``divergence`` of a counterexample."""
        return {
            "round": self.round,
            "expected": _pair_record(self.expected, self.expected_count),
            "actual": _pair_record(self.actual, self.actual_count),
            "diagnosis": self.kind,
            "clause": self.clause,
            "cause": self.cause,
            "confirmed": self.confirmed,
            "top_counts": [[first, second, count] for (first, second), count in self.top_counts],
        }


def _pair_record(pair: Pair | None, count: int | None) -> dict[str, Any] | None:
    return None if pair is None else {"pair": list(pair), "count": count}


# --- bug models: buggy trainers that each differ from the reference in one step ---
#
# A model explains the implementation only if it makes exactly the implementation's rules, all of
# them: agreeing on one round is too often a coincidence.

Replace = Callable[[list[int], Pair, int], list[int]]
Count = Callable[[Sequences], Counts]


def replace_right_to_left(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    """The scan-direction bug: ``[a, a, a]`` gives ``[a, n]``."""
    return replace_pair(sequence[::-1], (pair[1], pair[0]), new_id)[::-1]


def replace_overlapping(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    """Every matching window becomes the new id, so ``[a, a, a]`` gives ``[n, n]``: the middle id is used twice."""
    replaced, position = [], 0
    while position < len(sequence):
        if sequence[position : position + 2] == list(pair):
            replaced.append(new_id)
            position += 1 if sequence[position + 1 : position + 3] == list(pair) else 2
        else:
            replaced.append(sequence[position])
            position += 1
    return replaced


def _count_non_overlapping(sequences: Sequences) -> Counts:
    counts: Counts = {}
    for sequence in sequences:
        free_from: dict[Pair, int] = {}
        for position in range(len(sequence) - 1):
            pair = (sequence[position], sequence[position + 1])
            if position >= free_from.get(pair, 0):
                counts[pair] = counts.get(pair, 0) + 1
                free_from[pair] = position + 2
    return counts


def _piece_of(pieces: list[bytes], part: int) -> bytes:
    # A broken implementation may name ids that do not exist (yet); they spell nothing.
    return pieces[part] if 0 <= part < len(pieces) else b""


def _simulate(
    sequences: Sequences,
    rounds: int,
    profile: Profile,
    count: Count = count_pairs,
    replace: Replace = replace_pair,
) -> list[Pair]:
    """Greedy training under ``profile`` with ``count`` and ``replace`` swapped in."""
    rules: list[Pair] = []
    pieces = profile_pieces([], profile)
    for rank in range(rounds):
        pair = select_profile_pair(count(sequences), pieces, profile)
        if pair is None:
            break
        rules.append(pair)
        pieces.append(_piece_of(pieces, pair[0]) + _piece_of(pieces, pair[1]))
        sequences = [replace(sequence, pair, profile.first_rule_id + rank) for sequence in sequences]
    return rules


def _stale_counts(sequences: Sequences, rounds: int, profile: Profile) -> list[Pair]:
    counts, rules = count_pairs(sequences), []
    # The first round's counts hold pairs of bytes only, so no tie ever looks up a rule's piece.
    pieces = profile_pieces([], profile)
    for _ in range(rounds):
        pair = select_profile_pair({pair: n for pair, n in counts.items() if pair not in rules}, pieces, profile)
        if pair is None:
            break
        rules.append(pair)
    return rules


def _byte_kind(byte: int) -> tuple[bool, bool]:
    # (part of a word, a space): words (every byte of a multi-byte character too), spaces, punctuation.
    word = byte >= 128 or chr(byte).isalnum()
    return word, not word and chr(byte).isspace()


def _start(documents: list[str], profile: Profile) -> Sequences:
    return training_sequences(documents, profile)


def _words(sequences: Sequences, key: Callable[[int], object]) -> Sequences:
    return [list(group) for data in sequences for _, group in itertools.groupby(data, key=key)]


Model = Callable[[list[str], int, Profile], "list[Pair] | None"]
Retrain = Callable[[list[str], int], "list[Pair] | None"]

# GPT-2's pre-tokenization pattern in Python's re: letters are [^\W\d_], digits \d, the rest neither.
GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"


def _variant(**changes: Callable[[Profile], Any]) -> Model:
    """The profile's own training with some parameters changed; None when that changes nothing."""

    def train_with(documents: list[str], rounds: int, profile: Profile) -> list[Pair] | None:
        changed = dataclasses.replace(profile, **{key: value(profile) for key, value in changes.items()})
        if changed == profile:
            return None  # the profile itself is no bug model
        return _simulate(_start(documents, changed), rounds, changed)

    return train_with


def _documents_changed(transform: Callable[[list[str]], list[str]]) -> Model:
    """The profile's own training on documents ``transform`` rewrote first; None when it rewrote nothing."""

    def train_with(documents: list[str], rounds: int, profile: Profile) -> list[Pair] | None:
        rewritten = transform(list(documents))
        if rewritten == list(documents):
            return None  # the same input: no story about the input to tell
        rules = _simulate(_start(rewritten, profile), rounds, profile)
        own = _simulate(_start(list(documents), profile), rounds, profile)
        if rules == own[: len(rules)]:
            return None  # a prefix of the right rules is better told as stopping early
        return rules

    return train_with


def _without_repeats(documents: list[str]) -> list[str]:
    return list(dict.fromkeys(documents))


def _stripped(documents: list[str]) -> list[str]:
    return [document.strip() for document in documents]


def _nfc(documents: list[str]) -> list[str]:
    return [unicodedata.normalize("NFC", document) for document in documents]


def _without_overlap(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _simulate(_start(documents, profile), rounds, profile, _count_non_overlapping)


def _first_counts(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _stale_counts(_start(documents, profile), rounds, profile)


def _right_to_left(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _simulate(_start(documents, profile), rounds, profile, count_pairs, replace_right_to_left)


def _overlapping(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _simulate(_start(documents, profile), rounds, profile, count_pairs, replace_overlapping)


def _split_by_kind(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _simulate(_words(_start(documents, profile), _byte_kind), rounds, profile)


def _split_at_whitespace(documents: list[str], rounds: int, profile: Profile) -> list[Pair]:
    return _simulate(_words(_start(documents, profile), lambda byte: chr(byte).isspace()), rounds, profile)


# Tie dialects come first: when one of them explains the rules too, the tie is the simpler story.
# Each model differs from the judging profile in one step; a model equal to the profile is left out.
_MODELS: tuple[tuple[str, str, Model], ...] = (
    ("BPE-TRAIN-TIE", "ties broken towards the largest pair", _variant(tie_break=lambda _: "largest-ids")),
    ("BPE-TRAIN-TIE", "ties broken towards the pair seen first", _variant(tie_break=lambda _: "first-seen")),
    (
        "BPE-TRAIN-TIE",
        "ties broken by the pair's decimal string",
        _variant(tie_break=lambda _: "smallest-string-key"),
    ),
    (
        "BPE-TRAIN-STOP",
        "a pair counted exactly {minimum} left unmerged",
        _variant(min_count=lambda profile: profile.min_count + 1),
    ),
    ("BPE-TRAIN-STOP", "pairs seen once merged too", _variant(min_count=lambda _: 1)),
    ("BPE-TRAIN-DOCS", "documents joined before training", _variant(documents=lambda _: "concatenated")),
    ("BPE-TRAIN-COUNT", "overlapping windows counted once", _without_overlap),
    ("BPE-TRAIN-RECOUNT", "the first round's counts reused", _first_counts),
    ("BPE-MERGE-SCAN", "replacement scanning right to left", _right_to_left),
    ("BPE-MERGE-SCAN", "overlapping occurrences all replaced", _overlapping),
    ("BPE-ENCODE-RAW", "documents split into words, spaces and punctuation first", _split_by_kind),
    ("BPE-ENCODE-RAW", "documents split at whitespace first", _split_at_whitespace),
    (
        "BPE-ENCODE-RAW",
        "documents split by GPT-2's pre-tokenization pattern first",
        _variant(pre_tokenization=lambda _: GPT2_PATTERN),
    ),
    # Last: a rewrite of the input explains fewer, different rules only when no step of the algorithm does.
    ("BPE-TRAIN-DOCS", "repeated documents dropped before counting", _documents_changed(_without_repeats)),
    ("BPE-TRAIN-INPUT", "documents stripped of surrounding whitespace", _documents_changed(_stripped)),
    ("BPE-TRAIN-INPUT", "documents normalized to NFC", _documents_changed(_nfc)),
)


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _model_cause(index: int, profile: Profile) -> str:
    return _MODELS[index][1].format(minimum=_times(profile.min_count))


@functools.lru_cache(maxsize=4096)
def _model_rules(index: int, documents: tuple[str, ...], max_merges: int, profile: Profile) -> tuple[Pair, ...] | None:
    rules = _MODELS[index][2](list(documents), max_merges, profile)
    return None if rules is None else tuple(rules)


def reproducing_models(documents: list[str], max_merges: int, rules: list[Pair], profile: Profile) -> list[int]:
    """The indices of the bug models that make exactly ``rules`` from these documents.

    >>> [_MODELS[index][1] for index in reproducing_models(["xay", "xby", "xcy"], 32, [(121, 120)], STRICT)]
    ['documents joined before training']
    """
    return [
        index
        for index in range(len(_MODELS))
        if _model_rules(index, tuple(documents), max_merges, profile) == tuple(rules)
    ]


def _explanation(
    documents: list[str], max_merges: int, rules: list[Pair], profile: Profile, retrain: Retrain | None
) -> Explanation | None:
    """What the models make of ``rules``: confirmed against the implementation when ``retrain`` is given."""
    candidates = reproducing_models(documents, max_merges, rules, profile)
    if not candidates:
        return None
    if retrain is None:
        return Explanation(candidates=tuple(candidates), asked=0)
    survivors, asked = cross_examine(candidates, profile, retrain, documents, max_merges)
    return Explanation(candidates=tuple(survivors), asked=asked)


@dataclass(frozen=True)
class Explanation:
    """The bug models still consistent with the implementation, and how many follow-up inputs it answered."""

    candidates: tuple[int, ...]
    asked: int

    @property
    def confirmed(self) -> bool:
        """One model left, and it was put to the test on enough inputs where it makes its own prediction."""
        return len(self.candidates) == 1 and self.asked >= MIN_FOLLOW_UPS


def _profile_rules(documents: list[str], max_merges: int, profile: Profile) -> tuple[Pair, ...] | None:
    try:
        return tuple(train_profile(documents, max_merges, profile))
    except ValueError:
        return None  # an encode-only profile has no training to compare with


def _answerable_merges(documents: list[str], max_merges: int, profile: Profile) -> int:
    """``max_merges``, or the profile's rule count where it runs out of pairs first.

    A trainer that raises once no pair is left (minbpe's ``max()`` of nothing) is a stop-rule defect,
    reported by that check; follow-ups ask no more merges than the profile makes, so that defect never
    hides which bug model the rest of the trainer's behaviour matches.
    """
    if not pairs_run_out(documents, max_merges, profile):
        return max_merges
    return len(train_profile(documents, max_merges, profile))


def follow_up_inputs(documents: list[str], max_merges: int) -> list[tuple[list[str], int]]:
    """The inputs that tell the bug models apart: the counterexample reversed, then a fixed set.

    >>> follow_up_inputs(["ab", "cd"], 3)[0]
    (['cd', 'ab'], 3)
    """
    derived = [(list(documents[::-1]), max_merges)] if len(documents) > 1 else []
    return derived + [(list(corpus), FOLLOW_UP_MERGES) for corpus in FOLLOW_UP_CORPORA]


def _as_rules(answer: object) -> tuple[Pair, ...] | None:
    try:
        return tuple(_checked_rules(answer))
    except TypeError:
        return None


def cross_examine(
    candidates: list[int], profile: Profile, retrain: Retrain, documents: list[str], max_merges: int
) -> tuple[list[int], int]:
    """The candidates whose rules equal the implementation's on every follow-up input that tests them.

    An input tests the candidates when one of them predicts other rules than the profile or than
    another candidate; only those are put to the implementation. Returns the survivors and how many
    inputs were put.
    """
    survivors, asked = list(candidates), 0
    for inputs, limit in follow_up_inputs(documents, max_merges):
        merges = _answerable_merges(inputs, limit, profile)
        own = _profile_rules(inputs, merges, profile)
        if own is None:
            continue
        predictions = {}
        for index in survivors:
            rules = _model_rules(index, tuple(inputs), merges, profile)
            predictions[index] = own if rules is None else rules
        if set(predictions.values()) == {own}:
            continue
        answer = _as_rules(retrain(list(inputs), merges))
        asked += 1
        survivors = [index for index in survivors if predictions[index] == answer]
        if not survivors:
            break
    return survivors, asked


def _clause_and_cause(
    kind: str,
    explanation: Explanation | None,
    profile: Profile,
    without_ties: Callable[[], tuple[int, int] | None] = lambda: None,
) -> tuple[str, str, bool]:
    """The clause, the cause line, and whether that cause is confirmed.

    ``without_ties()`` is (inputs answered unlike the profile, inputs asked) over follow-ups cut before
    their first tie (:func:`tie_free_departures`), or None when the implementation cannot be asked.
    """
    if explanation is None or not explanation.candidates:
        if kind != TIE_OTHER_WAY:
            return KIND_CLAUSES[kind], NO_MODEL, False
        return KIND_CLAUSES[kind], _unexplained_tie(without_ties()), False
    clauses = {_MODELS[index][0] for index in explanation.candidates}
    causes = [_model_cause(index, profile) for index in explanation.candidates]
    if explanation.confirmed:
        return (
            clauses.pop(),
            f"the rules are exactly what a trainer with {causes[0]} makes, here and on "
            f"{explanation.asked} follow-up inputs that put it to the test",
            True,
        )
    clause = clauses.pop() if len(clauses) == 1 and explanation.asked else KIND_CLAUSES[kind]
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


def rounds_before_a_tie(documents: list[str], max_merges: int, profile: Profile) -> int:
    """How many of the profile's first rounds have one pair alone at the top count.

    No tie order can change those rules, so an implementation that differs from the profile there
    differs in more than its tie order.

    >>> rounds_before_a_tie(["ababab"], 8, STRICT), rounds_before_a_tie(["abab", "acac"], 8, STRICT)
    (2, 0)
    """
    sequences = training_sequences(documents, profile)
    rules = train_profile(documents, max_merges, profile)
    for rank, pair in enumerate(rules):
        counts = count_pairs(sequences)
        top = max(counts.values())
        if sum(1 for count in counts.values() if count == top) > 1:
            return rank
        sequences = [replace_pair(sequence, pair, profile.first_rule_id + rank) for sequence in sequences]
    return len(rules)


def tie_free_departures(profile: Profile, retrain: Retrain | None) -> tuple[int, int] | None:
    """(inputs the implementation answered unlike the profile, inputs asked), each input cut before its first tie.

    None when the implementation cannot be asked (no ``retrain``).
    """
    if retrain is None:
        return None
    departed = asked = 0
    for corpus in (*FOLLOW_UP_CORPORA, *TIE_FREE_CORPORA):
        merges = rounds_before_a_tie(list(corpus), FOLLOW_UP_MERGES, profile)
        if merges == 0:
            continue
        asked += 1
        departed += _as_rules(retrain(list(corpus), merges)) != tuple(train_profile(list(corpus), merges, profile))
    return departed, asked


def _kind(rank: int, max_merges: int, actual_count: int | None, best_count: int, minimum: int) -> str:
    if actual_count is None:
        return STOPPED_EARLY
    if rank >= max_merges:
        return TOO_MANY
    if best_count < minimum:
        if actual_count == 0:
            return NEVER_SEEN
        return SEEN_ONCE if actual_count == 1 else BELOW_MINIMUM
    return TIE_OTHER_WAY if actual_count == best_count else NOT_MAXIMAL


def _judge(
    rules: list[Pair],
    rank: int,
    counts: Counts,
    max_merges: int,
    pieces: list[bytes],
    profile: Profile,
    explain: Callable[[], Explanation | None],
    without_ties: Callable[[], tuple[int, int] | None] = lambda: None,
) -> Judgement | None:
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


def _checked_rules(rules: object) -> list[Pair]:
    if not isinstance(rules, (list, tuple)):
        raise TypeError(f"actual_rules must be a list of (int, int) pairs, not {type(rules).__name__}")
    checked = []
    for rank, rule in enumerate(rules):
        if not isinstance(rule, (list, tuple)) or len(rule) != 2 or not all(type(part) is int for part in rule):
            raise TypeError(f"actual_rules[{rank}] must be a pair of ints, not {rule!r}")
        checked.append((rule[0], rule[1]))
    return checked


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

    >>> [judgement.kind for judgement in judge_rounds(["aaab", "aab"], 32, [(97, 97), (258, 98)])]
    ['merged a pair seen once']
    """
    check_documents(documents)
    limit = check_max_merges(max_merges)
    rules = _checked_rules(actual_rules)
    sequences = _start(list(documents), profile)
    pieces = profile_pieces([], profile)
    # The models run once, and only for an implementation that diverges.
    explain = functools.cache(lambda: _explanation(list(documents), limit, rules, profile, retrain))
    without_ties = functools.cache(lambda: tie_free_departures(profile, retrain))
    for rank in range(len(rules) + 1):
        judgement = _judge(rules, rank, count_pairs(sequences), limit, pieces, profile, explain, without_ties)
        if judgement is not None:
            yield judgement
        if rank < len(rules):
            new_id = profile.first_rule_id + rank
            sequences = [replace_pair(sequence, rules[rank], new_id) for sequence in sequences]
            pieces.append(_piece_of(pieces, rules[rank][0]) + _piece_of(pieces, rules[rank][1]))


def first_divergence(
    documents: list[str],
    max_merges: int,
    actual_rules: list[Pair],
    profile: Profile = STRICT,
    retrain: Retrain | None = None,
) -> dict[str, Any] | None:
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


def describe(divergence: dict[str, Any]) -> str:
    """One line for a failure message.

    >>> print(describe(first_divergence(["abab", "acac"], 32, [(97, 99)])))  # doctest: +NORMALIZE_WHITESPACE
    round 0: expected (97, 98) (count 2), got (97, 99) (count 2): tie broken the other way;
    no known bug model explains these rules; a pair tied for the top count was chosen, which an unknown
    tie order would do, and so would counts or documents other than the specification's [BPE-TRAIN-TIE]
    """

    def side(record: dict[str, Any] | None) -> str:
        if record is None:
            return "no rule"
        return f"({record['pair'][0]}, {record['pair'][1]}) (count {record['count']})"

    text = f"round {divergence['round']}: expected {side(divergence['expected'])}, got {side(divergence['actual'])}"
    text += f": {divergence['diagnosis']}"
    if divergence["cause"]:
        text += f"; {divergence['cause']}"
    return text + f" [{divergence['clause']}]"
