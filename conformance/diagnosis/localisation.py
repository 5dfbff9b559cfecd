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
from bpe_conformance.reference.pretokenization import get_training_split, split_text

if TYPE_CHECKING:
    from bpe_conformance.diagnosis.models import Pair
    from bpe_conformance.reference.profiles import Profile

__all__ = ["TRAINING_STAGES", "Ask", "chunked_documents", "localise_training", "tie_free_variants"]

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


# Every stage a training divergence may be localised to (the split, asked first, only under a profile's split).
TRAINING_STAGES = (Stage.SPLIT, *_ORDER, Stage.TIE)


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


def chunked_documents(documents: list[str], profile: Profile) -> list[str] | None:
    """The documents' chunks under the profile's split, each a document of its own; None when that is no
    equivalent question (no split, documents joined, or chunks the pattern would cut again).

    Given its chunks one by one, a trainer that splits right trains exactly the rules it trains on the
    documents, and a trainer that splits wrong (another pattern, or none) is given nothing left to split.

    >>> from bpe_conformance.reference.profile_spec import parse_profile
    >>> chunked_documents(["ab ab", "12345"], parse_profile("rustbpe+split=cl100k"))
    ['ab', ' ab', '123', '45']
    """
    if profile.split is None or profile.documents != "separate":
        return None
    split = get_training_split(profile.split)
    chunks = [chunk for document in documents for chunk in split_text(document, split)]
    if any(split_text(chunk, split) != [chunk] for chunk in chunks):
        return None
    return chunks


def _split_question(documents: list[str], max_merges: int, profile: Profile) -> list[str] | None:
    """The counterexample's chunks, each a document, when they ask the same question as the documents."""
    chunks = chunked_documents(documents, profile)
    if chunks is None or train_profile(chunks, max_merges, profile) != train_profile(documents, max_merges, profile):
        return None  # not the same question: the chunks would not tell the split apart
    return chunks


def _split_experiments(
    documents: list[str], max_merges: int, profile: Profile, ask: Ask
) -> tuple[list[Experiment], bool]:
    """The counterexample as given and its chunks given as documents; True when only the first departs."""
    chunks = _split_question(documents, max_merges, profile)
    if chunks is None or chunks == list(documents):
        return [], False
    split = f"split={profile.split}"
    asked = _ask(Stage.SPLIT, "the counterexample as given", list(documents), max_merges, None, profile, ask)
    if asked.agrees is not False:
        return [asked], False
    question = f"the counterexample's chunks ({split}) each given as a document"
    control = dataclasses.replace(_ask(Stage.SPLIT, question, chunks, max_merges, None, profile, ask), control=True)
    return [asked, control], control.agrees is True


_LOWER = "abcdefghijklmnopqrstuvwxyz"


def _lettered(texts: list[str]) -> tuple[list[str], dict[int, int]] | None:
    """``texts`` with every byte renamed to a lower-case letter, in the bytes' order (so every pair keeps its
    place and the order of ids); None past 26 distinct bytes."""
    used = sorted({byte for text in texts for byte in text.encode()})
    if len(used) > len(_LOWER):
        return None
    mapping = {byte: ord(letter) for byte, letter in zip(used, _LOWER, strict=False)}
    return [bytes(mapping[byte] for byte in text.encode()).decode("ascii") for text in texts], mapping


def _lettered_experiments(
    documents: list[str], max_merges: int, judgement: Judgement, profile: Profile, ask: Ask
) -> tuple[list[Experiment], bool]:
    """Behind a split, when no stage's question departed: the counterexample's chunks, each a document (the
    documents themselves when each is one chunk), against the same chunks spelt in letters, which every
    split keeps whole. Wrong on the characters and right on the letters, with the stages that read
    characters (the input) answered right before, is a trainer that cuts a chunk the split keeps whole."""
    if judgement.kind is DivergenceKind.TIE_OTHER_WAY:
        return [], False  # a tie order may read the bytes themselves; the tie has its own question
    chunks = _split_question(documents, max_merges, profile)
    lettered = None if chunks is None else _lettered(chunks)
    if chunks is None or lettered is None:
        return [], False
    letters, mapping = lettered
    split = get_training_split(str(profile.split))
    if any(split_text(text, split) != [text] for text in letters if text):
        return [], False

    def spelt(pair: Pair) -> Pair:
        return (mapping.get(pair[0], pair[0]), mapping.get(pair[1], pair[1]))

    expected = train_profile(chunks, max_merges, profile)
    if train_profile(letters, max_merges, profile) != [spelt(pair) for pair in expected]:
        return [], False  # the letters would not ask the same question
    asked = _ask(Stage.SPLIT, "the counterexample's chunks as given", chunks, max_merges, None, profile, ask)
    if asked.agrees is not False:
        return [asked], False
    question = "the same chunks with every byte spelt as a lower-case letter, in the bytes' order"
    control = dataclasses.replace(_ask(Stage.SPLIT, question, letters, max_merges, None, profile, ask), control=True)
    return [asked, control], control.agrees is True


def _symptom(judgement: Judgement) -> tuple[str, str]:
    return judgement.kind.description, judgement.kind.clause


def _stage_clause(stage: Stage, profile: Profile) -> str:
    """The stage's clause; behind a split, merging across a word boundary breaks the split (BPE-PRETOK-SPLIT)."""
    if stage is Stage.PRE_TOKENIZATION and profile.split is not None:
        return Stage.SPLIT.clause
    return stage.clause


def localise_training(
    documents: list[str],
    max_merges: int,
    judgement: Judgement,
    profile: Profile,
    ask: Ask,
) -> Localisation:
    """The stage ``judgement`` (the first divergence on ``documents``) comes from, by asking ``ask``."""
    symptom, symptom_clause = _symptom(judgement)
    # Behind a split, the counterexample's own chunks come first: right on them and wrong on the documents
    # is a trainer that cuts the text otherwise than the profile's pattern (BPE-PRETOK-SPLIT).
    experiments, split_departs = _split_experiments(list(documents), max_merges, profile, ask)
    if split_departs:
        return Localisation(True, Stage.SPLIT, Stage.SPLIT.clause, symptom, tuple(experiments))
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
            return Localisation(True, probe.stage, _stage_clause(probe.stage, profile), symptom, tuple(experiments))
    if profile.split is not None:
        lettered, split_departs = _lettered_experiments(list(documents), max_merges, judgement, profile, ask)
        experiments += lettered
        if split_departs:
            return Localisation(True, Stage.SPLIT, Stage.SPLIT.clause, symptom, tuple(experiments))
    if judgement.kind is DivergenceKind.TIE_OTHER_WAY:
        ties = _tie_experiments(list(documents), judgement, profile, ask)
        experiments += ties
        if ties and all(experiment.agrees is True for experiment in ties):
            return Localisation(True, Stage.TIE, Stage.TIE.clause, symptom, tuple(experiments))
    return Localisation(False, None, symptom_clause, symptom, tuple(experiments))
