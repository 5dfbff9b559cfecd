"""Deterministic adversarial corpora: the inputs behind the known-answer vectors.

Plain functions over a :class:`random.Random` seeded by a string, so one seed gives the same cases on
every machine and Python version. Builders choose inputs only; the expected answers come from the
reference when the vectors are generated (:mod:`conformance.vectors`).

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
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from reference.pieces import build_pieces

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

SEED = "bpe-conformance/vectors/1"

LATIN = tuple("abcdefgh")
CJK = tuple("低高的一是不人我中大")
CYRILLIC = tuple("абвгдежзик")
GREEK = tuple("αβγδεζηθ")
HANGUL = tuple("한국어글말")
# Flags, skin tones, ZWJ families, keycaps and variation selectors: one visible glyph, many code points.
EMOJI = (
    *("👍", "👍🏽", "😀", "🇫🇷", "🇯🇵"),
    *("👨\u200d👩\u200d👧", "👩🏽\u200d💻", "❤\ufe0f", "1\ufe0f\u20e3", "🏳\ufe0f\u200d🌈"),
)
# Precomposed characters whose NFD form is a different byte string (a base letter and combining marks).
COMPOSED = ("é", "ñ", "Å", "ệ", "ü", "ç", "ǘ", "한")
CONTROL = ("\r\n", "\n", "\t", "\x00", " ", "\r", "\x7f")
PUNCTUATION = tuple(".,;:!?-'\"()")
WORDS = ("the", "cat", "sat", "on", "mat", "low", "lower", "newest", "widest", "a", "hat")
# Printable ASCII with two-digit byte values (33-99) and with three-digit ones (100-126).
_TWO_DIGIT = tuple(chr(value) for value in range(33, 100))
_THREE_DIGIT = tuple(chr(value) for value in range(100, 127))
_FOREIGN = ("Z", "ŋ", "字", "🙂", " ")


@dataclass(frozen=True)
class TrainingCase:
    """Documents to train on, and texts (not trained on) whose encodings the vector records."""

    description: str
    documents: tuple[str, ...]
    max_merges: int
    texts: tuple[str, ...]
    clauses: tuple[str, ...] = ()


@dataclass(frozen=True)
class LoadCase:
    """A valid rule list adopted through ``load`` (possibly one no training could make), and texts."""

    description: str
    rules: tuple[tuple[int, int], ...]
    texts: tuple[str, ...]
    clauses: tuple[str, ...] = ()


@dataclass(frozen=True)
class InvalidCase:
    """One rejected call made after training ``setup``; ``probe`` is encoded afterwards to see the model kept."""

    description: str
    operation: str
    arguments: dict[str, object]
    error: str
    clauses: tuple[str, ...]
    setup: tuple[tuple[str, ...], int] = (("abab", "acac"), 32)
    probe: str = "abac"


def random_text(rng: random.Random, units: Sequence[str], length: int) -> str:
    """``length`` units (characters or clusters) drawn from ``units``."""
    return "".join(rng.choice(units) for _ in range(length))


def random_documents(rng: random.Random, units: Sequence[str], count: int, shortest: int, longest: int) -> list[str]:
    """``count`` documents of ``shortest`` to ``longest`` units each."""
    return [random_text(rng, units, rng.randint(shortest, longest)) for _ in range(count)]


def _texts(rng: random.Random, units: Sequence[str], documents: Sequence[str], count: int = 3) -> tuple[str, ...]:
    """Held-out texts: mostly the documents' own units, one with a unit training never saw, none a document."""
    texts: list[str] = []
    for index in range(count * 4):
        if len(texts) == count:
            break
        text = random_text(rng, units, rng.randint(1, 12))
        if index == 1:
            text = text + rng.choice(_FOREIGN) + text
        if text not in documents and text not in texts:
            texts.append(text)
    return tuple(texts)


def _case(
    rng: random.Random, description: str, documents: Sequence[str], max_merges: int, units: Sequence[str], *clauses: str
) -> TrainingCase:
    return TrainingCase(description, tuple(documents), max_merges, _texts(rng, units, documents), clauses)


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
        texts = (z + x + y + z, x + y + z + x + y, z + x + y)
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


def script_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Multi-byte UTF-8: CJK, Cyrillic, Greek and Hangul, alone or mixed with Latin and spaces."""
    scripts = {
        "CJK": CJK,
        "Cyrillic": CYRILLIC,
        "Greek": GREEK,
        "Hangul": HANGUL,
        "CJK and Latin": CJK[:4] + LATIN[:3],
        "Cyrillic and spaces": (*CYRILLIC[:5], " "),
    }
    cases = []
    for index in range(count):
        name = sorted(scripts)[index % len(scripts)]
        units = rng.sample(scripts[name], rng.randint(2, min(5, len(scripts[name]))))
        documents = random_documents(rng, units, rng.randint(1, 4), 4, 30)
        max_merges = rng.choice((1, 2, 4, 8, 16, 64))
        cases.append(_case(rng, f"{name} text from {''.join(units)!r}", documents, max_merges, units))
    return cases


def emoji_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Emoji with skin tones, flags, keycaps and ZWJ sequences: many bytes per visible character."""
    cases = []
    for _ in range(count):
        units = rng.sample(EMOJI, rng.randint(2, 4)) + rng.sample((" ", "a", ""), 1)
        documents = random_documents(rng, units, rng.randint(1, 3), 2, 12)
        cases.append(_case(rng, f"emoji from {''.join(units)!r}", documents, rng.choice((2, 5, 20, 100)), units))
    return cases


def normalization_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """NFC and NFD spellings are different bytes; training on one form and encoding the other must not mix them."""
    cases = []
    for index in range(count):
        composed = rng.sample(COMPOSED, rng.randint(2, 4))
        forms: tuple[Literal["NFC", "NFD"], Literal["NFC", "NFD"]] = (
            ("NFC", "NFD") if index % 2 == 0 else ("NFD", "NFC")
        )
        train_form, text_form = forms
        units = [unicodedata.normalize(train_form, unit) for unit in composed] + ["a"]
        documents = random_documents(rng, units, rng.randint(1, 3), 3, 15)
        same_form = _texts(rng, units, documents, 2)
        texts = same_form + tuple(unicodedata.normalize(text_form, text) for text in same_form)
        description = f"trained on {train_form} of {''.join(composed)!r}; texts in both forms"
        cases.append(TrainingCase(description, tuple(documents), rng.choice((3, 8, 30)), texts))
    return cases


def control_character_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """CRLF, LF, CR, tabs, NUL and DEL between a few letters: bytes like any other."""
    cases = []
    for _ in range(count):
        units = rng.sample(CONTROL, rng.randint(2, 4)) + rng.sample(LATIN, 2)
        documents = random_documents(rng, units, rng.randint(1, 4), 3, 20)
        description = f"control characters {''.join(units)!r}"
        cases.append(_case(rng, description, documents, rng.choice((1, 4, 12, 50)), units, "BPE-ENCODE-RAW"))
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
            _case(rng, f"tiny documents {documents!r}", documents, max_merges, ("a", "b", "é", "低"), *clauses)
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
            _case(
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
            _case(
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


def long_document_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """One or two documents of a few thousand bytes, with dozens of merges."""
    cases = []
    for _ in range(count):
        units = [*rng.sample(WORDS, 5), " ", " ", ". ", *rng.sample(CJK, 2)]
        documents = random_documents(rng, units, rng.randint(1, 2), 800, 1600)
        cases.append(_case(rng, f"long documents from {units!r}", documents, rng.randint(24, 48), units))
    return cases


def many_small_document_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Dozens of documents of one to six units: counts come from summing many small sequences."""
    cases = []
    for _ in range(count):
        units = rng.sample((*LATIN, "é", "я"), 4)
        documents = random_documents(rng, units, rng.randint(40, 120), 1, 6)
        cases.append(
            _case(rng, f"{len(documents)} small documents", documents, rng.choice((3, 10, 40)), units, "BPE-TRAIN-DOCS")
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
            _case(
                rng,
                f"duplicated documents {sorted(set(documents))!r}",
                documents,
                rng.choice((2, 6, 30)),
                units,
                "BPE-TRAIN-DOCS",
            )
        )
    return cases


def raw_text_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Sentences: merges cross spaces and punctuation because nothing pre-tokenizes."""
    cases = []
    for _ in range(count):
        units = [word + rng.choice((" ", ", ", ". ", "! ")) for word in rng.sample(WORDS, 4)]
        documents = random_documents(rng, units, rng.randint(1, 3), 3, 10)
        cases.append(
            _case(rng, f"sentences over {units!r}", documents, rng.choice((8, 20, 60)), units, "BPE-ENCODE-RAW")
        )
    return cases


def mixed_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Everything at once: Latin, scripts, emoji, combining marks, controls and punctuation."""
    pool = LATIN + CJK[:3] + CYRILLIC[:3] + EMOJI[:4] + COMPOSED[:2] + ("e\u0301",) + CONTROL[:4] + PUNCTUATION[:4]
    cases = []
    for _ in range(count):
        units = rng.sample(pool, rng.randint(3, 7))
        documents = random_documents(rng, units, rng.randint(1, 5), 1, 25)
        cases.append(_case(rng, f"mixed units {units!r}", documents, rng.choice((1, 3, 7, 15, 40, 500)), units))
    return cases


def prefix_family_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Families of the same documents with max_merges 0 to 5 and 64: each rule list a prefix of the next."""
    cases = []
    for family in range(count):
        units = rng.sample(LATIN + CJK[:2] + (" ",), 4)
        documents = random_documents(rng, units, 3, 6, 20)
        texts = _texts(rng, units, documents)
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
        texts = _texts(rng, units, documents)
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
)


def generated_training_cases(seed: str = SEED) -> list[TrainingCase]:
    """Every builder's cases; each builder has its own generator, so adding one leaves the others unchanged."""
    cases = []
    for builder, count in _BUILDERS:
        cases.extend(builder(random.Random(f"{seed}/{builder.__name__}"), count))
    return cases


def _fixed_load_cases() -> list[LoadCase]:
    return [
        LoadCase(
            "one rule, a run of three and four: [a, a, a] -> [258, a]",
            ((97, 97),),
            ("aaa", "aaaa", "a"),
            ("BPE-MERGE-SCAN", "BPE-MERGE-NOREMATCH"),
        ),
        LoadCase("no rules: one id per byte", (), ("abc", "", "低"), ("BPE-ALPHA-BYTES", "BPE-VOCAB-SIZE")),
        LoadCase("the same pair twice: the second rule never applies", ((97, 98), (97, 98)), ("abab", "ab", "ba")),
        LoadCase(
            "259 and 260 are both 'aaa': the earlier one always wins",
            ((97, 97), (258, 97), (97, 258)),
            ("aaa", "aaaaaa", "aaaaa"),
        ),
        LoadCase(
            "rule 259 refers to 258, which never occurs in 'abab'",
            ((120, 121), (258, 258), (97, 98)),
            ("abab", "xyxy", "xyab"),
        ),
        LoadCase("rules in an order no count would give", ((98, 99), (97, 98), (97, 258)), ("abc", "abcabc", "ab")),
        LoadCase("pieces that are partial UTF-8", ((228, 189), (258, 142), (189, 142)), ("低低", "低", "a低")),
        LoadCase("rules over bytes that never occur in UTF-8 text", ((255, 254), (192, 128), (97, 97)), ("aa", "ÿ")),
        LoadCase("merges across spaces and punctuation", ((32, 97), (258, 32), (44, 259)), ("a a , a b", ", a ")),
        LoadCase("NUL and control bytes", ((0, 0), (13, 10), (258, 0)), ("\x00\x00\x00", "\r\n\x00\x00\x00\x00")),
        LoadCase("a chain of doublings", ((97, 97), (258, 258), (259, 259), (260, 260)), ("a" * 17, "a" * 31)),
        LoadCase("the rules trained from ['abab', 'acac'], given directly", ((97, 98), (97, 99)), ("abac", "acab")),
    ]


def _random_rules(rng: random.Random, base: Sequence[int], count: int) -> list[tuple[int, int]]:
    rules: list[tuple[int, int]] = []
    for rank in range(count):
        if rules and rng.random() < 0.15:  # a duplicate pair: valid, and never made by training
            rules.append(rng.choice(rules))
            continue
        choices = [*base, *range(258, 258 + rank)]
        rules.append((rng.choice(choices), rng.choice(choices)))
    return rules


def _texts_for_rules(rng: random.Random, rules: list[tuple[int, int]], units: Sequence[str]) -> tuple[str, ...]:
    """Texts made of the rules' own pieces (so they fire) and of plain units."""
    pieces = build_pieces(rules)[258:]
    texts = []
    for _ in range(2):
        joined = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 6)))
        try:
            texts.append(joined.decode("utf-8"))
        except UnicodeDecodeError:
            texts.append(random_text(rng, units, 8))
    texts.append(random_text(rng, units, rng.randint(0, 15)))
    return tuple(dict.fromkeys(texts))


def load_cases(seed: str = SEED) -> list[LoadCase]:
    """Hand-picked rule lists, then random valid ones over small alphabets (duplicates and unused rules included)."""
    rng = random.Random(f"{seed}/load_cases")
    cases = _fixed_load_cases()
    for index in range(40):
        units = rng.sample((LATIN, LATIN[:3] + CJK[:1], (*CYRILLIC[:3], " "), ("é", "e", "\u0301"))[index % 4], 3)
        base = sorted({byte for unit in units for byte in unit.encode()})
        rules = _random_rules(rng, base, rng.randint(1, 12))
        cases.append(
            LoadCase(f"random rules over {''.join(units)!r}", tuple(rules), _texts_for_rules(rng, rules, units))
        )
    return cases


_LOW = (("低低低",), 1)  # one rule, (189, 142), whose piece is the end of a character
_NO_RULES = (("abc",), 4)  # every pair occurs once: no rules, vocabulary 0-257


def _invalid_train_cases() -> list[InvalidCase]:
    merges = "BPE-TRAIN-MAXMERGES"
    docs = "BPE-INPUT-DOCS"
    bad_merges = [
        (-1, "ValueError"),
        (-100, "ValueError"),
        (True, "TypeError"),
        (False, "TypeError"),
        (1.5, "TypeError"),
        (2.0, "TypeError"),
        ("3", "TypeError"),
        (None, "TypeError"),
        ([3], "TypeError"),
    ]
    bad_documents = [
        ("abab", "TypeError"),
        (5, "TypeError"),
        (None, "TypeError"),
        ({"abab": 1}, "TypeError"),
        ([5], "TypeError"),
        (["ab", None], "TypeError"),
        ([["ab"]], "TypeError"),
        (["\ud800"], "ValueError"),
        (["ok", "a\udfffb"], "ValueError"),
        (["\udc00\ud800"], "ValueError"),
    ]
    cases = [
        InvalidCase(f"max_merges {value!r}", "train", {"documents": ["abab"], "max_merges": value}, error, (merges,))
        for value, error in bad_merges
    ]
    cases += [
        InvalidCase(f"documents {value!r}", "train", {"documents": value, "max_merges": 8}, error, (docs,))
        for value, error in bad_documents
    ]
    return cases


def _invalid_encode_decode_cases() -> list[InvalidCase]:
    text, ids, strict = "BPE-INPUT-TEXT", "BPE-INPUT-IDS", "BPE-DECODE-STRICT"
    cases = [
        InvalidCase(f"encode {value!r}", "encode", {"text": value}, error, (text,))
        for value, error in [
            (None, "TypeError"),
            (97, "TypeError"),
            (["abac"], "TypeError"),
            ("\ud800", "ValueError"),
            ("ab\udfff", "ValueError"),
            ("\ud83d", "ValueError"),
        ]
    ]
    cases += [
        InvalidCase(f"decode {value!r} with 260 ids", "decode", {"ids": value}, error, clauses)
        for value, error, clauses in [
            ([260], "ValueError", (ids, strict)),
            ([97, 1000], "ValueError", (ids, strict)),
            ([-1], "ValueError", (ids, strict)),
            ([True], "TypeError", (ids,)),
            ([97, False], "TypeError", (ids,)),
            ([258.0], "TypeError", (ids,)),
            (["97"], "TypeError", (ids,)),
            ([None], "TypeError", (ids,)),
            ("258", "TypeError", (ids,)),
            (258, "TypeError", (ids,)),
            (None, "TypeError", (ids,)),
        ]
    ]
    cases += [
        InvalidCase(
            f"decode {value!r}: not valid UTF-8",
            "decode",
            {"ids": value},
            "ValueError",
            (strict, "BPE-RULE-PIECE"),
            _LOW,
            "低",
        )
        for value in ([258], [228], [255], [256, 228, 189, 257], [142, 228], [258, 228])
    ]
    cases.append(
        InvalidCase(
            "decode [258] without rules", "decode", {"ids": [258]}, "ValueError", (ids, strict), _NO_RULES, "abc"
        )
    )
    return cases


def _invalid_load_cases() -> list[InvalidCase]:
    ref, rules, boundary = "BPE-RULE-REF", "BPE-INPUT-RULES", "BPE-ALPHA-BOUNDARY"
    values = [
        ([[97, 258]], "ValueError", (ref, rules)),
        ([[97, 98], [259, 97]], "ValueError", (ref, rules)),
        ([[97, 259]], "ValueError", (ref, rules)),
        ([[97, 98], [97, 260]], "ValueError", (ref, rules)),
        ([[300, 97]], "ValueError", (ref, rules)),
        ([[256, 97]], "ValueError", (ref, rules, boundary)),
        ([[97, 257]], "ValueError", (ref, rules, boundary)),
        ([[97, 98], [256, 258]], "ValueError", (ref, boundary)),
        ([[-1, 97]], "ValueError", (ref, rules)),
        ([[97, -2]], "ValueError", (ref, rules)),
        ([[99, 97], [98, 97], [258, 300]], "ValueError", (ref, rules)),
        ([[97.0, 98]], "TypeError", (rules,)),
        ([["a", 98]], "TypeError", (rules,)),
        ([[True, 98]], "TypeError", (rules,)),
        ([[97, None]], "TypeError", (rules,)),
        ([[97]], "ValueError", (rules,)),
        ([[97, 98, 99]], "ValueError", (rules,)),
        ([[]], "ValueError", (rules,)),
        ([97], "TypeError", (rules,)),
        (["ab"], "TypeError", (rules,)),
        ("ab", "TypeError", (rules,)),
        (None, "TypeError", (rules,)),
        ({"97": 98}, "TypeError", (rules,)),
        (5, "TypeError", (rules,)),
    ]
    return [
        InvalidCase(f"load {value!r}", "load", {"rules": value}, error, clauses) for value, error, clauses in values
    ]


def invalid_cases() -> list[InvalidCase]:
    """Rejected calls to train, encode, decode and load, each with the error kind the spec names."""
    return _invalid_train_cases() + _invalid_encode_decode_cases() + _invalid_load_cases()
