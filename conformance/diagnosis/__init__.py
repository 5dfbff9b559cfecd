"""Where, and probably why, an implementation's training first parted from the specification.

The package owns the first-divergence diagnosis: :mod:`~bpe_conformance.diagnosis.models` (the bug models),
:mod:`~bpe_conformance.diagnosis.follow_ups` (the corpora that tell them apart),
:mod:`~bpe_conformance.diagnosis.confirmation` (retraining the implementation on them) and
:mod:`~bpe_conformance.diagnosis.divergence` (judging each round). It imports the reference and
:mod:`bpe_conformance.dialects`; the checks and the CLI import it, never the other way round.

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

>>> import dataclasses
>>> from bpe_conformance.reference.dialects import train_profile
>>> from bpe_conformance.reference.profiles import STRICT
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

from bpe_conformance.diagnosis.confirmation import (
    MIN_FOLLOW_UPS,
    Explanation,
    Retrain,
    cross_examine,
    follow_up_inputs,
    rounds_before_a_tie,
    tie_free_departures,
)
from bpe_conformance.diagnosis.divergence import (
    BELOW_MINIMUM,
    KIND_CLAUSES,
    NEVER_SEEN,
    NO_MODEL,
    NOT_MAXIMAL,
    SEEN_ONCE,
    STOP_KINDS,
    STOPPED_EARLY,
    TIE_OTHER_WAY,
    TIED_UNTESTED,
    TOO_MANY,
    DivergenceKind,
    Judgement,
    describe,
    first_divergence,
    judge_round,
    judge_rounds,
)
from bpe_conformance.diagnosis.encoding_localisation import localise_encoding, split_report
from bpe_conformance.diagnosis.load_localisation import localise_history
from bpe_conformance.diagnosis.localisation import TRAINING_STAGES, chunked_documents, localise_training
from bpe_conformance.diagnosis.models import (
    GPT2_PATTERN,
    MODELS,
    model_cause,
    model_rules,
    replace_overlapping,
    replace_right_to_left,
    reproducing_models,
)
from bpe_conformance.diagnosis.stages import Experiment, Localisation, Stage

__all__ = [
    "BELOW_MINIMUM",
    "GPT2_PATTERN",
    "KIND_CLAUSES",
    "MIN_FOLLOW_UPS",
    "MODELS",
    "NEVER_SEEN",
    "NOT_MAXIMAL",
    "NO_MODEL",
    "SEEN_ONCE",
    "STOPPED_EARLY",
    "STOP_KINDS",
    "TIED_UNTESTED",
    "TIE_OTHER_WAY",
    "TOO_MANY",
    "TRAINING_STAGES",
    "DivergenceKind",
    "Experiment",
    "Explanation",
    "Judgement",
    "Localisation",
    "Retrain",
    "Stage",
    "chunked_documents",
    "cross_examine",
    "describe",
    "first_divergence",
    "follow_up_inputs",
    "judge_round",
    "judge_rounds",
    "localise_encoding",
    "localise_history",
    "localise_training",
    "model_cause",
    "model_rules",
    "replace_overlapping",
    "replace_right_to_left",
    "reproducing_models",
    "rounds_before_a_tie",
    "split_report",
    "tie_free_departures",
]
