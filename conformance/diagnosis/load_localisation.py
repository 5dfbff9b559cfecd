"""Whether a wrong answer under loaded rules comes from state an instance kept across the load.

An encode or decode answered under rules given to ``load`` depends, by the plug-in contract, on those
rules and its argument only. :func:`localise_history` asks the same question twice more, each time on
a fresh instance: once right after loading the rules (the control), once after the instance first held
other rules and was asked the same question under them (the question). Only the question departs: the
wrong answer comes from what the instance kept from before the load (a cache of encodings, a piece
table), so the load did not adopt the rules whole, which is BPE-SER-LOAD's. The control departs too:
the fault is the algorithm's own, and the encoding stages are asked (None is returned). The control
agrees and the question does not depart: the wrong answer needs a longer history than one load, so no
stage is named (unlocalised). No bug model takes part.

A decoder that keeps the piece table of the first rules it saw:

>>> from bpe_conformance.reference import build_pieces
>>> def keeps_first_pieces(rules, before):
...     pieces = build_pieces(rules if before is None else before)
...     return b"".join(pieces[token] for token in [258]).decode("latin-1")
>>> localisation = localise_history("decode", {"ids": [258]}, "ab", [(97, 98)], keeps_first_pieces, loaded=True)
>>> localisation.localised, localisation.stage.value, localisation.clause
(True, 'load', 'BPE-SER-LOAD')
>>> [experiment.agrees for experiment in localisation.experiments]
[True, False]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bpe_conformance.diagnosis.stages import Experiment, Localisation, Stage
from bpe_conformance.reference import BYTE_COUNT

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["Answer", "localise_history", "other_rules"]

Pair = tuple[int, int]
Rules = list[Pair]
# answer(rules, before): a fresh instance that, when ``before`` is not None, loads ``before`` and is asked
# the question under it first, then loads ``rules`` and is asked the question; None when a call failed.
Answer = Callable[[Rules, "Rules | None"], Any]

_SYMPTOMS = {
    "encode": ("ids that are not the canonical encoding", "BPE-ENCODE-ORDER"),
    "decode": ("a decoding that is not the ids' pieces", "BPE-DECODE-CONCAT"),
}


def other_rules(rules: Rules) -> Rules:
    """As many rules, referring to the same ids, with every byte part changed: the same ids, other pieces.

    >>> other_rules([(97, 98), (258, 99)])
    [(96, 99), (258, 98)]
    """
    return [tuple(part ^ 1 if part < BYTE_COUNT else part for part in pair) for pair in rules]  # type: ignore[misc]


def _experiment(
    question: str, inputs: JSONObject, rules: Rules, expected: Any, answer: Any, before: Rules | None
) -> Experiment:
    shown: JSONObject = {**inputs, "rules": [[first, second] for first, second in rules]}
    if before is not None:
        shown["rules_before"] = [[first, second] for first, second in before]
    return Experiment(
        stage=Stage.LOAD,
        question=question,
        inputs=shown,
        expected=expected,
        answer=answer,
        agrees=None if answer is None else answer == expected,
        control=before is None,
    )


def localise_history(
    operation: str, inputs: JSONObject, expected: Any, rules: Rules, answer: Answer, *, loaded: bool
) -> Localisation | None:
    """Whether the wrong answer to ``operation`` on ``inputs`` under ``rules`` needs the instance's history.

    ``loaded`` says the counterexample's instance got ``rules`` from ``load`` (not from ``train``): only
    then is a departure after other rules the load's fault. None when a fresh instance answers wrong too
    (or cannot answer): the operation's own stages must be asked.
    """
    symptom, symptom_clause = _SYMPTOMS[operation]
    fresh = _experiment(
        f"the same {operation} on a fresh instance that loaded the same rules",
        inputs,
        rules,
        expected,
        answer(rules, None),
        None,
    )
    if fresh.agrees is not True:
        return None
    experiments = [fresh]
    if loaded and rules:
        before = other_rules(rules)
        question = (
            f"the same {operation} after the instance held other rules (asked the same under them), then loaded these"
        )
        asked = _experiment(question, inputs, rules, expected, answer(rules, before), before)
        experiments.append(asked)
        if asked.agrees is False:
            return Localisation(True, Stage.LOAD, Stage.LOAD.clause, symptom, tuple(experiments))
    return Localisation(False, None, symptom_clause, symptom, tuple(experiments))
