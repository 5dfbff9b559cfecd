"""What localisation records: the stages of training and encoding, each experiment, and the verdict.

A *stage* is one step of the algorithm that a small, generated question can put to the implementation on
its own (:mod:`~bpe_conformance.diagnosis.localisation` for training,
:mod:`~bpe_conformance.diagnosis.encoding_localisation` for encoding). Each has a stable slug and the
clause of ``specs/bpe.md`` that fixes it.

>>> Stage.DOCUMENTS.value, Stage.DOCUMENTS.clause
('documents', 'BPE-TRAIN-DOCS')
>>> unlocalised = Localisation(localised=False, stage=None, clause="BPE-TRAIN-GREEDY",
...                            symptom="pair not maximal", experiments=())
>>> unlocalised.label
'unlocalised: first seen as pair not maximal [BPE-TRAIN-GREEDY]'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["Experiment", "Localisation", "Stage"]


class Stage(enum.Enum):
    """A stage of the algorithm a question isolates; the value is its stable slug."""

    GREEDY = "greedy"
    DOCUMENTS = "documents"
    INPUT = "input"
    DOCUMENT_SPLIT = "document-split"
    COUNTING = "counting"
    RECOUNT = "recount"
    STOP = "stop"
    TIE = "tie"
    REPLACEMENT_SCAN = "replacement-scan"
    NO_REMATCH = "no-rematch"
    LOWEST_RANK = "lowest-rank"
    PRE_TOKENIZATION = "pre-tokenization"
    SPLIT = "split"
    CHUNKING = "chunking"
    RULE_ORDER = "rule-order"
    LOAD = "load"

    @property
    def clause(self) -> str:
        """The clause of ``specs/bpe.md`` that fixes this stage."""
        return _STAGE_CLAUSES[self]

    @property
    def description(self) -> str:
        """What the stage's questions ask, for a report."""
        return _STAGE_DESCRIPTIONS[self]


_STAGE_CLAUSES = {
    Stage.GREEDY: "BPE-TRAIN-GREEDY",
    Stage.DOCUMENTS: "BPE-TRAIN-DOCS",
    Stage.INPUT: "BPE-TRAIN-INPUT",
    # A trainer that cuts its documents into words breaks BPE-TRAIN-INPUT ("Documents MUST NOT be ... split
    # into words first"); an encoder that cuts its text breaks BPE-ENCODE-RAW. They are two stages, each
    # with its own question (a train call here, an encode call with given rules there), so a trainer-only
    # word splitter is never told it pre-tokenizes its encoding, nor an encoder-only one its training.
    Stage.DOCUMENT_SPLIT: "BPE-TRAIN-INPUT",
    Stage.COUNTING: "BPE-TRAIN-COUNT",
    Stage.RECOUNT: "BPE-TRAIN-RECOUNT",
    Stage.STOP: "BPE-TRAIN-STOP",
    Stage.TIE: "BPE-TRAIN-TIE",
    Stage.REPLACEMENT_SCAN: "BPE-MERGE-SCAN",
    Stage.NO_REMATCH: "BPE-MERGE-NOREMATCH",
    Stage.LOWEST_RANK: "BPE-ENCODE-LOWEST",
    Stage.PRE_TOKENIZATION: "BPE-ENCODE-RAW",
    Stage.SPLIT: "BPE-PRETOK-SPLIT",
    Stage.CHUNKING: "BPE-ENCODE-RAW",
    Stage.RULE_ORDER: "BPE-ENCODE-ORDER",
    # A load adopts the rules whole (the plug-in contract: encode answers "under the rules of the last
    # successful train or load"); what the instance kept from before it is BPE-SER-LOAD's, the loading clause.
    Stage.LOAD: "BPE-SER-LOAD",
}

_STAGE_DESCRIPTIONS = {
    Stage.GREEDY: "one document, one round, one pair clearly the most frequent",
    Stage.DOCUMENTS: "pairs across document seams, and repeated documents",
    Stage.INPUT: "the same corpus with line ends, NUL, tabs, spaces or accents against plain letters",
    Stage.COUNTING: "overlapping windows in runs, the first and last window, counts past 255",
    Stage.RECOUNT: "two rounds where only an up-to-date count picks the second rule",
    Stage.STOP: "the minimum count and the max_merges budget",
    Stage.TIE: "this counterexample with its tie removed",
    Stage.REPLACEMENT_SCAN: "one rule (a, a) on runs of a",
    Stage.NO_REMATCH: "a token made by one rule, which a later rule pairs with what a rule in between takes",
    Stage.LOWEST_RANK: "a pair listed twice: its lowest rank takes every occurrence",
    Stage.DOCUMENT_SPLIT: "a training document with a pair across a word boundary against the same pair of letters",
    Stage.SPLIT: "the counterexample against its own chunks under the profile's split, each given on its own",
    Stage.PRE_TOKENIZATION: "a text with a merge across a word boundary against the same merge between letters",
    Stage.CHUNKING: "a merge across byte 32, 64 or 4096 of a long text, against the same merge elsewhere",
    Stage.RULE_ORDER: "the wrong text, renamed to letters and digits, still wrong",
    Stage.LOAD: "the same question after the instance held other rules, against a fresh instance",
}


@dataclass(frozen=True)
class Experiment:
    """One question put to the implementation: what it was given, what the specification says, its answer.

    ``control`` marks the plain twin of a question (the same shape without the stage's feature): a stage
    is blamed only where a question departs while its control agrees. ``agrees`` is None when the
    answer decides nothing (the implementation raised, or made fewer rules than asked, a stop matter).
    """

    stage: Stage
    question: str
    inputs: JSONObject
    expected: Any
    answer: Any
    agrees: bool | None
    control: bool = False

    def as_dict(self) -> JSONObject:
        """The JSON-ready record, enough to ask the implementation the same question again."""
        return {
            "stage": self.stage.value,
            "question": self.question,
            "control": self.control,
            "inputs": self.inputs,
            "expected": self.expected,
            "answer": self.answer,
            "agrees": self.agrees,
        }


@dataclass(frozen=True)
class Localisation:
    """The stage a divergence comes from, decided by experiments, or the symptom when they cannot decide.

    ``clause`` is the stage's clause when ``localised``, otherwise the clause of the symptom the
    divergence was first seen as (``symptom``), which is then only a symptom, never a diagnosis.
    """

    localised: bool
    stage: Stage | None
    clause: str
    symptom: str
    experiments: tuple[Experiment, ...]

    @property
    def label(self) -> str:
        """The clause when localised; ``unlocalised: first seen as <symptom> [<clause>]`` otherwise."""
        if self.localised:
            return self.clause
        return f"unlocalised: first seen as {self.symptom} [{self.clause}]"

    @property
    def root(self) -> str:
        """What failures with the same root share: the stage's slug, or the unlocalised symptom."""
        return self.stage.value if self.stage is not None else self.label

    def as_dict(self) -> JSONObject:
        """The JSON-ready record the report carries."""
        return {
            "localised": self.localised,
            "stage": None if self.stage is None else self.stage.value,
            "clause": self.clause,
            "label": self.label,
            "symptom": self.symptom,
            "experiments": [experiment.as_dict() for experiment in self.experiments],
        }
