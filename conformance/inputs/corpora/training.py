"""Deterministic adversarial corpora: the inputs behind the known-answer vectors.

Plain functions over a :class:`random.Random` seeded by a string, so one seed gives the same cases on
every machine and Python version. Builders choose inputs only; the expected answers come from the
reference when the vectors are generated (:mod:`bpe_conformance.vectors.generate`).

Here are the worked examples, the builders whose difficulty is in the counting (ties, runs, document
boundaries, stopping, families of runs) and the list of every builder. Text-heavy builders are in
:mod:`~bpe_conformance.inputs.corpora.text`, rule lists for ``load`` in
:mod:`~bpe_conformance.inputs.corpora.loading`, rejected calls in :mod:`~bpe_conformance.inputs.corpora.invalid`,
and the shared alphabets in :mod:`~bpe_conformance.inputs.corpora.base`;
every name in ``__all__`` is importable from here.

>>> cases = generated_training_cases()
>>> len(cases) >= 200 and cases == generated_training_cases()
True
>>> case = tie_digit_cases(random.Random("doc"), 1)[0]
>>> case.documents
('_0', '_0', '_0', '_0', 'p9', 'p9', 'p9', 'p9')
>>> case.description
'(95, 48) and (112, 57) both occur 4 times; the smaller integer pair wins'
>>> [case.error for case in invalid_cases()][:3]
['ValueError', 'ValueError', 'TypeError']
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from bpe_conformance.inputs.corpora.base import (
    CJK,
    COMPOSED,
    CONTROL,
    CYRILLIC,
    EMOJI,
    GREEK,
    HANGUL,
    LATIN,
    PUNCTUATION,
    SEED,
    WORDS,
    TrainingCase,
    held_out_texts,
    random_documents,
    random_text,
    training_case,
)
from bpe_conformance.inputs.corpora.invalid import InvalidCase, invalid_cases
from bpe_conformance.inputs.corpora.loading import LoadCase, load_cases
from bpe_conformance.inputs.corpora.text import (
    control_character_cases,
    emoji_cases,
    mixed_cases,
    normalization_cases,
    raw_text_cases,
    script_cases,
)

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "CJK",
    "COMPOSED",
    "CONTROL",
    "CYRILLIC",
    "EMOJI",
    "GREEK",
    "HANGUL",
    "LATIN",
    "PUNCTUATION",
    "SEED",
    "WORDS",
    "InvalidCase",
    "LoadCase",
    "TrainingCase",
    "generated_training_cases",
    "invalid_cases",
    "load_cases",
    "random_documents",
    "random_text",
    "tie_digit_cases",
    "worked_example_cases",
]

# Printable ASCII with two-digit byte values (33-99) and with three-digit ones (100-126).
_TWO_DIGIT = tuple(chr(value) for value in range(33, 100))
_THREE_DIGIT = tuple(chr(value) for value in range(100, 127))


def worked_example_cases() -> list[TrainingCase]:
    """The worked answers of the specification, as training vectors."""
    return [
        TrainingCase(
            "two documents tie (97, 98) with (97, 99); 32 merges allowed, 2 made",
            ("abab", "acac"),
            32,
            ("abac", "", "xyxyxy", "acab"),
            ("BPE-TRAIN-TIE", "BPE-TRAIN-STOP"),
        ),
        TrainingCase(
            "(97, 97) counts 2 + 1 = 3 with overlapping windows, then every pair occurs once",
            ("aaab", "aab"),
            32,
            ("aaaa", "aaa", "ab"),
            ("BPE-TRAIN-COUNT", "BPE-TRAIN-STOP"),
        ),
        TrainingCase(
            "a CJK character three bytes wide: (189, 142) ties with (228, 189) and is smaller; 90 -> 60 -> 30",
            ("低" * 30,),
            2,
            ("低低低", "低a低", "高低"),
            ("BPE-TRAIN-TIE", "BPE-TRAIN-RECOUNT"),
        ),
        TrainingCase(
            "one rule from a run of three: [a, a, a] becomes [258, a]",
            ("aaa",),
            1,
            ("aaaa", "aaaaa", "a"),
            ("BPE-MERGE-SCAN", "BPE-MERGE-NOREMATCH"),
        ),
    ]


def tie_digit_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Two pairs with equal counts where integer order and decimal-string order disagree."""
    cases = []
    for index in range(count):
        if index % 2 == 0:  # the first parts differ in digit count, as in (99, 102) against (100, 101)
            small = rng.choice(_TWO_DIGIT) + rng.choice(_TWO_DIGIT + _THREE_DIGIT)
            large = rng.choice(_THREE_DIGIT) + rng.choice(_TWO_DIGIT + _THREE_DIGIT)
        else:  # same first part, second parts differ in digit count, as in (97, 99) against (97, 100)
            first = rng.choice(_TWO_DIGIT + _THREE_DIGIT)
            small, large = first + rng.choice(_TWO_DIGIT), first + rng.choice(_THREE_DIGIT)
        repeats = rng.randint(2, 4)
        documents = sorted([small] * repeats + [large] * repeats)
        pairs = [tuple(pair.encode()) for pair in (small, large)]
        description = f"{pairs[0]} and {pairs[1]} both occur {repeats} times; the smaller integer pair wins"
        texts = (large + small, small + small + large, large * 3)
        cases.append(TrainingCase(description, tuple(documents), rng.randint(1, 3), texts, ("BPE-TRAIN-TIE",)))
    return cases


def rule_id_tie_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """After rule 258 = (x, y), (258, z) and (z, 258) tie; (z, 258) wins because z < 258."""
    cases = []
    pool = (*_TWO_DIGIT, *_THREE_DIGIT, "\t", "\x00", " ")
    for _ in range(count):
        x, y, z = rng.sample(pool, 3)
        repeats = rng.randint(2, 5)
        documents = [x + y + z, z + x + y] * repeats
        rng.shuffle(documents)
        pair = (ord(z), 258)
        description = f"(258, {ord(z)}) ties with {pair} at {repeats} after 258 = ({ord(x)}, {ord(y)}); {pair} wins"
        # Held out: never a training document (the documents are x+y+z and z+x+y).
        texts = (z + x + y + z, x + y + z + x + y, y + z + x + y)
        cases.append(TrainingCase(description, tuple(documents), rng.randint(2, 5), texts, ("BPE-TRAIN-TIE",)))
    return cases


def byte_run_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Runs of one unit, odd and even lengths, alone, split over documents, or between other text."""
    cases = []
    for index in range(count):
        unit = rng.choice(("a", "z", " ", "\x00", "\t", "é", "低", "я", "👍"))
        length = 2 * rng.randint(1, 12) + index % 2
        shape = index % 3
        if shape == 0:
            documents = [unit * length]
        elif shape == 1:
            documents = [unit * rng.randint(1, 9) for _ in range(rng.randint(2, 4))]
        else:
            documents = [unit * length + "b" + unit * (length + 1)]
        description = f"runs of {unit!r}, lengths {[len(document) for document in documents]}"
        texts = (unit * (length + 1), unit * (length + 2), unit * 3 + "b" + unit * 2)
        max_merges = rng.choice((1, 2, 3, 5, 40))
        cases.append(
            TrainingCase(description, tuple(documents), max_merges, texts, ("BPE-TRAIN-COUNT", "BPE-MERGE-SCAN"))
        )
    return cases


def tiny_document_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """No documents, empty documents and one-character documents (which still hold pairs if multi-byte)."""
    fixed = [
        (),
        ("",),
        ("", ""),
        ("a",),
        ("a", "a"),
        ("ab", "ab"),
        ("", "ab", "", "ab"),
        ("低",),
        ("低", "低"),
        ("é", "é", "é"),
        ("👍",),
        ("\x00", "\x00"),
    ]
    cases = []
    for index in range(count):
        if index < len(fixed):
            documents = list(fixed[index])
        else:
            documents = [rng.choice(("", "a", "b", "é", "低")) for _ in range(rng.randint(2, 8))]
        max_merges = rng.choice((0, 1, 5, 100))
        clauses = ("BPE-INPUT-DOCS",) if not documents or "" in documents else ()
        cases.append(
            training_case(rng, f"tiny documents {documents!r}", documents, max_merges, ("a", "b", "é", "低"), *clauses)
        )
    return cases


def cross_boundary_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """A pair that occurs only across document boundaries, more often than any pair inside a document."""
    cases = []
    for index in range(count):
        x, y, p, q, *fillers = rng.sample(_TWO_DIGIT + _THREE_DIGIT, 20)
        repeats = rng.randint(3, 8)
        if index % 2 == 0:  # ends in x, starts with y, alternating; inside pairs are all distinct
            documents = [fillers[i] + x if i % 2 == 0 else y + fillers[i] for i in range(2 * repeats)]
            documents += [p + q, p + q]
        else:  # one-character documents alternate, so only boundaries hold pairs
            documents = [x, y] * repeats
        description = f"({ord(x)}, {ord(y)}) occurs {repeats} times, but only across document boundaries"
        texts = (x + y, (x + y) * 3, p + q + x + y)
        cases.append(TrainingCase(description, tuple(documents), rng.choice((1, 2, 10)), texts, ("BPE-TRAIN-DOCS",)))
    return cases


def small_max_merges_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """max_merges 0, 1 and 2 on text with many mergeable pairs: stop exactly there."""
    cases = []
    for index in range(count):
        units = rng.sample(LATIN + CJK[:2], 4)
        documents = random_documents(rng, units, rng.randint(1, 3), 8, 30)
        cases.append(
            training_case(
                rng,
                f"max_merges {index % 3} on {''.join(units)!r}",
                documents,
                index % 3,
                units,
                "BPE-TRAIN-MAXMERGES",
                "BPE-TRAIN-STOP",
            )
        )
    return cases


def early_stop_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """A large max_merges that is never reached: training stops when the best count drops below 2."""
    cases = []
    for _ in range(count):
        units = rng.sample(LATIN + GREEK[:3] + (" ",), rng.randint(2, 5))
        documents = random_documents(rng, units, rng.randint(1, 4), 2, 16)
        cases.append(
            training_case(
                rng,
                f"early stop on {''.join(units)!r}",
                documents,
                rng.choice((100, 1000, 100000)),
                units,
                "BPE-TRAIN-STOP",
                "BPE-VOCAB-SIZE",
            )
        )
    return cases


# Budgets at the widths other languages narrow an integer to: each is valid and never reached, so training
# stops as if unlimited; wrapped to 32 bits, 2**32 + 1 would allow one rule and 2**31 none at all.
WIDE_MAX_MERGES = (2**31 - 1, 2**31, 2**32, 2**32 + 1, 2**53 + 1, 2**63, 2**64 + 1)


def wide_max_merges_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """max_merges past 32, 53 and 64 bits on text with several rules: the same rules as any budget never reached."""
    cases = []
    for index in range(count):
        units = rng.sample(LATIN, 3)
        documents = random_documents(rng, units, rng.randint(1, 3), 8, 24)
        max_merges = WIDE_MAX_MERGES[index % len(WIDE_MAX_MERGES)]
        cases.append(
            training_case(
                rng,
                f"max_merges {max_merges} (never reached) on {''.join(units)!r}",
                documents,
                max_merges,
                units,
                "BPE-TRAIN-MAXMERGES",
                "BPE-TRAIN-STOP",
            )
        )
    return cases


def long_document_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """One or two documents of a few thousand bytes, with dozens of merges."""
    cases = []
    for _ in range(count):
        units = [*rng.sample(WORDS, 5), " ", " ", ". ", *rng.sample(CJK, 2)]
        documents = random_documents(rng, units, rng.randint(1, 2), 800, 1600)
        cases.append(training_case(rng, f"long documents from {units!r}", documents, rng.randint(24, 48), units))
    return cases


def many_small_document_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Dozens of documents of one to six units: counts come from summing many small sequences."""
    cases = []
    for _ in range(count):
        units = rng.sample((*LATIN, "é", "я"), 4)
        documents = random_documents(rng, units, rng.randint(40, 120), 1, 6)
        cases.append(
            training_case(
                rng, f"{len(documents)} small documents", documents, rng.choice((3, 10, 40)), units, "BPE-TRAIN-DOCS"
            )
        )
    return cases


def duplicate_document_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """The same document several times: each copy counts."""
    cases = []
    for _ in range(count):
        units = rng.sample(LATIN + CYRILLIC[:3], 4)
        base = random_documents(rng, units, rng.randint(1, 3), 2, 8)
        documents = [document for document in base for _ in range(rng.randint(2, 6))]
        rng.shuffle(documents)
        cases.append(
            training_case(
                rng,
                f"duplicated documents {sorted(set(documents))!r}",
                documents,
                rng.choice((2, 6, 30)),
                units,
                "BPE-TRAIN-DOCS",
            )
        )
    return cases


def prefix_family_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Families of the same documents with max_merges 0 to 5 and 64: each rule list a prefix of the next."""
    cases = []
    for family in range(count):
        units = rng.sample(LATIN + CJK[:2] + (" ",), 4)
        documents = random_documents(rng, units, 3, 6, 20)
        texts = held_out_texts(rng, units, documents)
        for max_merges in (0, 1, 2, 3, 4, 5, 64):
            description = f"prefix family {family}: max_merges {max_merges}"
            cases.append(TrainingCase(description, tuple(documents), max_merges, texts, ("BPE-PROP-PREFIX",)))
    return cases


def permutation_family_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Families of the same documents in three orders: the rules are the same."""
    cases = []
    for family in range(count):
        units = rng.sample((*LATIN, "é", "低"), 4)
        documents = random_documents(rng, units, 5, 2, 10)
        texts = held_out_texts(rng, units, documents)
        shuffled = list(documents)
        rng.shuffle(shuffled)
        for order, ordered in (("original", documents), ("reversed", documents[::-1]), ("shuffled", shuffled)):
            description = f"permutation family {family}: {order} order"
            cases.append(TrainingCase(description, tuple(ordered), 40, texts, ("BPE-PROP-PERMUTE",)))
    return cases


_BUILDERS: tuple[tuple[Callable[[random.Random, int], list[TrainingCase]], int], ...] = (
    (tie_digit_cases, 20),
    (rule_id_tie_cases, 12),
    (byte_run_cases, 24),
    (script_cases, 24),
    (emoji_cases, 12),
    (normalization_cases, 12),
    (control_character_cases, 12),
    (tiny_document_cases, 16),
    (cross_boundary_cases, 10),
    (small_max_merges_cases, 15),
    (early_stop_cases, 12),
    (long_document_cases, 4),
    (many_small_document_cases, 8),
    (duplicate_document_cases, 10),
    (raw_text_cases, 12),
    (mixed_cases, 24),
    (prefix_family_cases, 4),
    (permutation_family_cases, 5),
    (wide_max_merges_cases, 7),
)


def generated_training_cases(seed: str = SEED) -> list[TrainingCase]:
    """Every builder's cases; each builder has its own generator, so adding one leaves the others unchanged."""
    cases = []
    for builder, count in _BUILDERS:
        cases.extend(builder(random.Random(f"{seed}/{builder.__name__}"), count))
    return cases
