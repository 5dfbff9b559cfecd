"""Checks at the extremes random corpora never reach: wide integers, big counts, another process.

* ``max-merges-wide`` (BPE-TRAIN-MAXMERGES): a ``max_merges`` of 2**31, 2**32 + 1, 2**53 + 1, 2**63 or
  2**64 + 1 is valid and never reached, so training stops only when no pair is seen twice. An
  implementation that narrows integers to 32 or 64 bits trains one rule for 2**32 + 1, or refuses 2**31.
* ``large-counts`` (BPE-TRAIN-COUNT): a pair seen 256 or 65 536 times (:mod:`bpe_conformance.inputs.large_counts`)
  outranks a pair seen three times; a counter of 8 or 16 bits wraps and picks the rare one. Only a
  failure that the same corpus with small counts does not show is put down to the count.
* ``determinism-across-processes`` (BPE-PROP-DETERMINISM): two fresh processes of the implementation,
  under ``PYTHONHASHSEED`` 1 and 2 and the environment in two orders, train the same rules and encode the
  same ids. An in-process subject is started in its own processes for this (through the Python host),
  or the check is skipped, saying why, when its factory cannot be imported by name.

>>> from bpe_conformance.adapters.python import InProcessSubject
>>> from bpe_conformance.inputs.large_counts import LargeCountCorpus
>>> from bpe_conformance.reference import Tokenizer
>>> verify_large_counts(InProcessSubject(Tokenizer), {"corpus": LargeCountCorpus("copies", 256, 3), "max_merges": 2})
>>> verify_wide_max_merges(InProcessSubject(Tokenizer), {"documents": ["abab", "acac"], "max_merges": 2**64 + 1})
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from hypothesis import strategies as st

from bpe_conformance.adapters.restart import fresh_process, restart_problem
from bpe_conformance.checks.base import ALGORITHM, Check
from bpe_conformance.checks.common import rules_json
from bpe_conformance.checks.examples import TextsExample, TrainingExample, drawn
from bpe_conformance.dialects.context import expected_rules, is_strict, subject_profile, train_subject
from bpe_conformance.errors import ImplementationRaised, Violation
from bpe_conformance.inputs.corpora.training import WIDE_MAX_MERGES
from bpe_conformance.inputs.large_counts import LargeCountCorpus, large_count_corpora
from bpe_conformance.inputs.strategies import corpora, encode_texts, max_merges_values
from bpe_conformance.reference import Tokenizer

if TYPE_CHECKING:
    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.adapters.subprocess import ProcessSubject

__all__ = ["EXTREME_CHECKS", "HASH_SEEDS", "verify_large_counts", "verify_wide_max_merges"]

Rules = list[tuple[int, int]]
# Two fixed seeds, so a hash-order bug is found (and shrunk) the same way on every run.


class LargeCountExample(TypedDict):
    """A corpus with a pair seen past 8 or 16 bits of count, and the merge budget."""

    corpus: LargeCountCorpus
    max_merges: int


HASH_SEEDS = (1, 2)


# ---- max_merges past 32 bits ------------------------------------------------------------------


def verify_wide_max_merges(subject: Subject, example: TrainingExample) -> None:
    """BPE-TRAIN-MAXMERGES: a wide max_merges is valid and trains what any budget never reached trains."""
    documents, max_merges = list(example["documents"]), example["max_merges"]
    expected = expected_rules(list(documents), max_merges, subject_profile(subject))
    inputs = {"documents": documents, "max_merges": max_merges}
    # The control first: a small budget never reached must train right, or the width is not what is wrong
    # here (another check's finding). Asked before the wide budget, so a trainer that never stops on its own
    # (a broken stop rule, rules for pairs that are not there) is not given an unbounded one to loop on.
    try:
        if train_subject(subject, list(documents), len(expected) + 1) != expected:
            return  # wrong with a small budget never reached too: not the budget's width
    except ImplementationRaised:
        return  # a small budget is refused too: not the budget's width
    try:
        actual = train_subject(subject, list(documents), max_merges)
    except ImplementationRaised as raised:
        raise Violation(
            "BPE-TRAIN-MAXMERGES",
            f"train refused max_merges={max_merges}, a valid non-negative int: large integers must not be "
            "narrowed, wrapped or read as floats",
            inputs=inputs,
            expected=rules_json(expected),
            actual=f"{raised.kind}: {raised.message}",
        ) from None
    if actual is not None and actual != expected:
        raise Violation(
            "BPE-TRAIN-MAXMERGES",
            f"max_merges={max_merges} is never reached here ({len(expected)} rules, then no pair is left to "
            f"merge), yet training made {len(actual)}: the budget was read as another number",
            inputs=inputs,
            expected=rules_json(expected),
            actual=rules_json(actual),
        )


# ---- counts past 8 and 16 bits ------------------------------------------------------------------


def _expected(documents: list[str], max_merges: int, subject: Subject) -> Rules:
    profile = subject_profile(subject)
    if is_strict(profile):  # the fast engine, proven equal to the literal one, keeps 65 536 documents cheap
        return Tokenizer().train(documents, max_merges)
    return expected_rules(documents, max_merges, profile)


def _trains_right(subject: Subject, corpus: LargeCountCorpus, max_merges: int) -> tuple[Rules, Rules | None]:
    documents = corpus.documents()
    expected = _expected(list(documents), max_merges, subject)
    return expected, train_subject(subject, documents, max_merges)


def verify_large_counts(subject: Subject, example: LargeCountExample) -> None:
    """BPE-TRAIN-COUNT: a pair seen 256 or 65 536 times is counted that many times, not modulo 2**8 or 2**16.

    Put down to the count only when the same corpus with the big pair seen once fewer than the width
    it crosses (255 or 65 535 times) trains right: any other wrong answer is another check's finding.
    """
    corpus, max_merges = example["corpus"], example["max_merges"]
    width = corpus.width_crossed
    if width is None:
        return  # below 256: nothing a narrow counter gets wrong
    expected, actual = _trains_right(subject, corpus, max_merges)
    if actual is None or actual == expected:
        return
    below_expected, below_actual = _trains_right(subject, corpus.with_count(width - 1), max_merges)
    if below_actual != below_expected:
        return  # wrong just below the width too: not the count's size
    round_index = next(
        (index for index, (want, got) in enumerate(zip(expected, actual, strict=False)) if want != got),
        min(len(expected), len(actual)),
    )
    raise Violation(
        "BPE-TRAIN-COUNT",
        f"with a pair seen {corpus.largest_count} times, round {round_index} differs; the same corpus with that "
        f"pair seen {width - 1} times trains right: a count must not stop at {width - 1} or wrap at {width}",
        inputs={
            "documents": repr(corpus),
            "max_merges": max_merges,
            "largest_count": corpus.largest_count,
            "right_with_count": width - 1,
        },
        expected=rules_json(expected),
        actual=rules_json(actual),
    )


# ---- another process, another hash seed ------------------------------------------------------------

_FRESH: dict[int, list[ProcessSubject]] = {}


def _fresh_instances(subject: Subject) -> list[ProcessSubject]:
    """Two new processes of the subject's implementation, started once per check run (see :func:`_close`)."""
    if id(subject) not in _FRESH:
        instances: list[ProcessSubject] = []
        try:
            for index, seed in enumerate(HASH_SEEDS):
                instances.append(fresh_process(subject, hash_seed=seed, reverse_environment=index % 2 == 1))
        except BaseException:
            for instance in instances:
                instance.close()
            raise
        _FRESH[id(subject)] = instances
    return _FRESH[id(subject)]


def _close(subject: Subject) -> None:
    for instance in _FRESH.pop(id(subject), []):
        instance.close()


def _answers(instance: ProcessSubject, documents: list[str], max_merges: int, texts: list[str]) -> Any:
    instance.reset()
    rules = train_subject(instance, list(documents), max_merges)
    if rules is None or not instance.supports("encode"):
        return rules, None
    return rules, [instance.encode(text) for text in texts]


def verify_across_processes(subject: Subject, example: TextsExample) -> None:
    """BPE-PROP-DETERMINISM: processes under other hash seeds and environment orders give the same answers."""
    documents, max_merges = list(example["documents"]), example["max_merges"]
    texts = [*documents, *example["texts"]]
    first, second = (_answers(instance, documents, max_merges, texts) for instance in _fresh_instances(subject))
    inputs = {"documents": documents, "max_merges": max_merges}
    seeds = f"PYTHONHASHSEED={HASH_SEEDS[0]} and PYTHONHASHSEED={HASH_SEEDS[1]} (environment reversed)"
    if first[0] is not None and second[0] is not None and first[0] != second[0]:
        raise Violation(
            "BPE-PROP-DETERMINISM",
            f"training on the same documents in two fresh processes, under {seeds}, gave other rules",
            inputs=inputs,
            expected=rules_json(first[0]),
            actual=rules_json(second[0]),
        )
    if first[1] is not None and second[1] is not None and first[1] != second[1]:
        position = next(
            index for index, (one, other) in enumerate(zip(first[1], second[1], strict=True)) if one != other
        )
        raise Violation(
            "BPE-PROP-DETERMINISM",
            f"encode({texts[position]!r}) gave other ids in two fresh processes, under {seeds}",
            inputs={**inputs, "text": texts[position]},
            expected=first[1][position],
            actual=second[1][position],
        )


EXTREME_CHECKS = [
    Check(
        name="max-merges-wide",
        level=ALGORITHM,
        clause="BPE-TRAIN-MAXMERGES",
        summary="max_merges past 32, 53 and 64 bits is valid and trains as a budget never reached",
        verify=verify_wide_max_merges,
        strategy=lambda: drawn(
            TrainingExample,
            documents=corpora(max_documents=3, max_length=20),
            max_merges=st.sampled_from(WIDE_MAX_MERGES),
        ),
        budget=0.25,
    ),
    Check(
        name="large-counts",
        level=ALGORITHM,
        clause="BPE-TRAIN-COUNT",
        summary="a pair seen 256 or 65 536 times outranks one seen a few times: counts never wrap",
        verify=verify_large_counts,
        strategy=lambda: drawn(LargeCountExample, corpus=large_count_corpora(), max_merges=st.integers(1, 3)),
        budget=0.2,
    ),
    Check(
        name="determinism-across-processes",
        level=ALGORITHM,
        clause="BPE-PROP-DETERMINISM",
        summary="two fresh processes under other hash seeds and environment orders give the same rules and ids",
        verify=verify_across_processes,
        strategy=lambda: drawn(
            TextsExample,
            documents=corpora(max_documents=3, max_length=20),
            max_merges=max_merges_values(max_value=20),
            texts=st.lists(encode_texts(max_length=20), max_size=2),
        ),
        requires=frozenset({"train"}),
        budget=0.25,  # two more processes to start: few examples, each one three trainings
        unavailable=restart_problem,
        finish=_close,
    ),
]
