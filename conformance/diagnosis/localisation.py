"""Which stage of training a divergence comes from, decided by questions put to the implementation.

Given the first divergence of a counterexample, :func:`localise_training` asks the implementation the
generated questions of :mod:`~bpe_conformance.diagnosis.training_probes`, one stage at a time in the
order the algorithm depends on them (greedy selection of a clear winner, documents, word boundaries, the input bytes,
counting, recounting, replacement, the stop rule), and then this very counterexample with its tie removed. The
clause reported is the one of the first stage whose question the implementation answers unlike the
specification (while its plain control, if it has one, is answered right); when no stage departs the
divergence stays *unlocalised*, named only by its symptom. No bug model takes part: the clause never
depends on a list of known bugs.

A trainer that joins its documents departs on the seam questions:

>>> import dataclasses
>>> from bpe_conformance.reference.dialects import train_profile
>>> from bpe_conformance.reference.profiles import STRICT
>>> from bpe_conformance.diagnosis.divergence import judge_rounds
>>> joined = dataclasses.replace(STRICT, documents="concatenated")
>>> def ask(documents, max_merges):
...     return train_profile(documents, max_merges, joined)
>>> documents, rules = ["xay", "xby", "xcy"], [(121, 120)]
>>> localisation = localise_training(documents, 32, next(judge_rounds(documents, 32, rules)), STRICT, ask)
>>> localisation.localised, localisation.stage.value, localisation.clause
(True, 'documents', 'BPE-TRAIN-DOCS')

A trainer that only breaks ties its own way answers every stage right, and agrees once the tie is gone:

>>> first_seen = dataclasses.replace(STRICT, tie_break="first-seen")
>>> documents = ["cdcd", "abab"]
>>> rules = train_profile(documents, 1, first_seen)
>>> judgement = next(judge_rounds(documents, 1, rules))
>>> localise_training(documents, 1, judgement, STRICT,
...                   lambda docs, merges: train_profile(docs, merges, first_seen)).label
'BPE-TRAIN-TIE'
"""

from __future__ import annotations

import dataclasses
import itertools
import unicodedata
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from bpe_conformance.diagnosis.confirmation import as_rules, rounds_before_a_tie
from bpe_conformance.diagnosis.divergence import STOP_KINDS, DivergenceKind, Judgement
from bpe_conformance.diagnosis.stages import Experiment, Localisation, Stage
from bpe_conformance.diagnosis.training_probes import (
    CLASS_CHANGES,
    LONG,
    MADE_IDS,
    REPEATS,
    RUNS,
    Probe,
    training_probes,
)
from bpe_conformance.inputs.predicates import character_class
from bpe_conformance.reference import count_pairs, replace_pair
from bpe_conformance.reference.dialects import profile_pieces, train_profile, training_sequences

if TYPE_CHECKING:
    from bpe_conformance.diagnosis.models import Pair
    from bpe_conformance.reference.profiles import Profile

__all__ = ["TRAINING_STAGES", "Ask", "localise_training", "tie_free_variants"]

Ask = Callable[[list[str], int], "list[Pair] | None"]

# Stages in the order they are asked; the tie comes last, from the counterexample itself.
_ORDER: tuple[Stage, ...] = (
    Stage.GREEDY,
    Stage.DOCUMENTS,
    Stage.DOCUMENT_SPLIT,
    Stage.INPUT,
    Stage.COUNTING,
    Stage.RECOUNT,
    Stage.REPLACEMENT_SCAN,
    Stage.STOP,
)


# Every stage a training divergence may be localised to.
TRAINING_STAGES = (*_ORDER, Stage.TIE)


def _has_run(documents: list[str], rounds: int, profile: Profile) -> bool:
    """Whether two equal ids stand side by side in the profile's state of any round up to ``rounds``."""
    sequences = training_sequences(documents, profile)
    for rank, pair in enumerate([*train_profile(documents, rounds, profile), None]):
        if any(sequence[index] == sequence[index + 1] for sequence in sequences for index in range(len(sequence) - 1)):
            return True
        if pair is not None:
            sequences = [replace_pair(sequence, pair, profile.first_rule_id + rank) for sequence in sequences]
    return False


def _kind_of(char: str) -> str:
    if unicodedata.category(char).startswith("M"):
        return "mark"
    return "digit" if char.isdigit() else character_class(ord(char))


def _has_class_change(documents: list[str]) -> bool:
    return any(
        _kind_of(left) != _kind_of(right) for document in documents for left, right in itertools.pairwise(document)
    )


def _mentions(feature: str, documents: list[str]) -> bool:
    """Whether a document has a character of ``feature``; an upper-case letter stands for every one."""
    if any(char.isupper() for char in feature) and any(char.isupper() for document in documents for char in document):
        return True
    return any(char in document for char in feature for document in documents)


def _relevant(probe: Probe, documents: list[str], judgement: Judgement, profile: Profile) -> bool:
    """Whether the counterexample could show the probe's stage at all (else the probe is not asked)."""
    if probe.stage is Stage.DOCUMENTS and len(documents) < 2:
        return False
    if probe.stage is Stage.RECOUNT and judgement.round < 1:
        return False
    if probe.stage is Stage.STOP and judgement.kind not in STOP_KINDS:
        return False
    if not probe.feature:
        return True
    if probe.feature == REPEATS:
        return len(set(documents)) < len(documents)
    if probe.feature == RUNS:
        return _has_run(documents, judgement.round, profile)
    if probe.feature == CLASS_CHANGES:
        return _has_class_change(documents)
    if probe.feature == MADE_IDS:
        return judgement.round >= 1
    if probe.feature == LONG:
        return sum(len(document.encode()) for document in documents) > 255
    return _mentions(probe.feature, documents)


def _rules_json(rules: list[Pair] | tuple[Pair, ...] | None) -> list[list[int]] | None:
    return None if rules is None else [[first, second] for first, second in rules]


def _verdict(expected: tuple[Pair, ...], answer: tuple[Pair, ...] | None, compared: int | None) -> bool | None:
    """Whether ``answer`` agrees on the compared rules; None when it decides nothing.

    A failed call decides nothing, and neither does an answer with fewer compared rules that are a
    prefix of the expected ones: making fewer rules is the stop rule's matter, asked at its own stage.
    """
    if answer is None:
        return None
    if compared is not None:
        expected, answer = expected[:compared], answer[:compared]
        if len(answer) < len(expected) and answer == expected[: len(answer)]:
            return None
    return answer == expected


def _ask(
    stage: Stage, question: str, documents: list[str], max_merges: int, compared: int | None, profile: Profile, ask: Ask
) -> Experiment:
    expected = tuple(train_profile(documents, max_merges, profile))
    answer = as_rules(ask(list(documents), max_merges))
    return Experiment(
        stage=stage,
        question=question,
        inputs={"documents": list(documents), "max_merges": max_merges},
        expected=_rules_json(expected),
        answer=_rules_json(answer),
        agrees=_verdict(expected, answer, compared),
    )


def _probe_experiments(probe: Probe, profile: Profile, ask: Ask) -> tuple[Experiment, Experiment | None]:
    """The probe's experiment, and its control's when the probe departs (else the control is not asked)."""
    asked = _ask(probe.stage, probe.question, list(probe.documents), probe.max_merges, probe.compared, profile, ask)
    if probe.control is None or asked.agrees is not False:
        return asked, None
    control = _ask(probe.stage, probe.question, list(probe.control), probe.max_merges, probe.compared, profile, ask)
    return asked, dataclasses.replace(control, control=True)


def _departs(asked: Experiment, control: Experiment | None, probe: Probe, profile: Profile) -> bool:
    if asked.agrees is not False:
        return False
    if probe.stage is Stage.DOCUMENT_SPLIT and not _only_pairs_of(probe.documents, asked.answer, profile):
        return False  # cutting text only loses pairs: a pair the documents lack comes from rewritten input
    return probe.control is None or (control is not None and control.agrees is True)


def _only_pairs_of(documents: tuple[str, ...], answer: Any, profile: Profile) -> bool:
    """Whether the answer's first rule, if any, is a pair of bytes the documents have side by side."""
    present = count_pairs(training_sequences(list(documents), profile))
    return not answer or tuple(answer[0]) in present


def _pair_counts(sequences: list[list[int]], pair: Pair | None) -> int:
    return 0 if pair is None else count_pairs(sequences).get(pair, 0)


def _piece_text(rules: list[Pair], pair: Pair, profile: Profile) -> str | None:
    """The text the pair spells after ``rules`` (the earlier rounds' rules), or None when it is no text."""
    pieces = profile_pieces(rules, profile)
    try:
        return (pieces[pair[0]] + pieces[pair[1]]).decode()
    except (IndexError, UnicodeDecodeError):
        return None


def tie_free_variants(documents: list[str], judgement: Judgement, profile: Profile) -> Iterator[tuple[str, list[str]]]:
    """The counterexample with its tie removed: the expected pair's documents repeated, its text added, or the
    documents with more of the chosen pair dropped.

    Each variant has one pair alone at the top count in every round up to the divergent one, so no tie
    order can change its rules there.
    """
    if profile.documents != "separate" or judgement.expected is None or judgement.actual is None:
        return
    rank = judgement.round
    earlier = train_profile(documents, rank, profile)
    states = []
    for document in documents:
        sequences = training_sequences([document], profile)
        for index, pair in enumerate(earlier):
            sequences = [replace_pair(sequence, pair, profile.first_rule_id + index) for sequence in sequences]
        states.append(
            (document, _pair_counts(sequences, judgement.expected), _pair_counts(sequences, judgement.actual))
        )
    favouring = [document for document, expected, actual in states if expected > actual]
    against = [document for document, expected, actual in states if actual > expected]
    candidates: list[tuple[str, list[str]]] = []
    for copies in (1, 2, 3):
        question = f"a document with more of the expected pair given {copies} more time(s)"
        candidates += [(question, [*documents, *[document] * copies]) for document in favouring[:2]]
    piece = _piece_text(earlier, judgement.expected, profile)
    if piece is not None:
        candidates += [
            (f"the expected pair's own text added as {copies} more document(s)", [*documents, *[piece] * copies])
            for copies in (1, 2, 3)
        ]
    kept = [document for document in documents if document not in against]
    if kept and against:
        candidates.append(("the documents with more of the chosen pair dropped", kept))
    for question, variant in candidates:
        if (
            rounds_before_a_tie(variant, rank + 1, profile) >= rank + 1
            and len(train_profile(variant, rank + 1, profile)) == rank + 1
        ):
            yield question, variant


def _tie_experiments(documents: list[str], judgement: Judgement, profile: Profile, ask: Ask) -> list[Experiment]:
    experiments = []
    for question, variant in tie_free_variants(documents, judgement, profile):
        experiments.append(_ask(Stage.TIE, question, variant, judgement.round + 1, None, profile, ask))
        if len(experiments) == 2:
            break
    return experiments


def _symptom(judgement: Judgement) -> tuple[str, str]:
    return judgement.kind.description, judgement.kind.clause


def localise_training(
    documents: list[str],
    max_merges: int,  # noqa: ARG001 - not read: the judgement carries the round, each probe its own inputs
    judgement: Judgement,
    profile: Profile,
    ask: Ask,
) -> Localisation:
    """The stage ``judgement`` (the first divergence on ``documents``) comes from, by asking ``ask``."""
    symptom, symptom_clause = _symptom(judgement)
    experiments: list[Experiment] = []
    # The questions in the order training_probes lists them: stage by stage as in _ORDER, except that a
    # question which also needs a later stage to be right (counting a made id needs the recount of the
    # round that made it) is listed after that stage's questions, so a bug of the later stage is found
    # by its own questions first and never blamed on the earlier stage.
    for probe in training_probes(profile):
        if not _relevant(probe, list(documents), judgement, profile):
            continue
        asked, control = _probe_experiments(probe, profile, ask)
        experiments += [asked] if control is None else [asked, control]
        if _departs(asked, control, probe, profile):
            return Localisation(True, probe.stage, probe.stage.clause, symptom, tuple(experiments))
    if judgement.kind is DivergenceKind.TIE_OTHER_WAY:
        ties = _tie_experiments(list(documents), judgement, profile, ask)
        experiments += ties
        if ties and all(experiment.agrees is True for experiment in ties):
            return Localisation(True, Stage.TIE, Stage.TIE.clause, symptom, tuple(experiments))
    return Localisation(False, None, symptom_clause, symptom, tuple(experiments))
