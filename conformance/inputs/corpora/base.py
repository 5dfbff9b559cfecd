"""What every corpus builder draws on: the seed, alphabets of units, seeded random text, and TrainingCase.

A unit is a character or a cluster of code points (an emoji sequence, CRLF, a word). Builders compose
text from units, so they decide which bytes, and so which byte pairs, can occur.

>>> import random
>>> rng = random.Random("doc")
>>> random_text(rng, LATIN[:2], 8)
'babaaaba'
>>> held_out_texts(rng, ("a", "b"), ["ab"])
('babbbb', 'bbbbabbbbZbbbbabbbb', 'aaaababbbba')
>>> import unicodedata
>>> all(unicodedata.normalize("NFD", unit) != unit for unit in COMPOSED)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import random
    from collections.abc import Sequence

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
    "TrainingCase",
    "held_out_texts",
    "random_documents",
    "random_text",
    "training_case",
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
_FOREIGN = ("Z", "ŋ", "字", "🙂", " ")


@dataclass(frozen=True)
class TrainingCase:
    """Documents to train on, and texts (not trained on) whose encodings the vector records."""

    description: str
    documents: tuple[str, ...]
    max_merges: int
    texts: tuple[str, ...]
    clauses: tuple[str, ...] = ()


def random_text(rng: random.Random, units: Sequence[str], length: int) -> str:
    """``length`` units (characters or clusters) drawn from ``units``."""
    return "".join(rng.choice(units) for _ in range(length))


def random_documents(rng: random.Random, units: Sequence[str], count: int, shortest: int, longest: int) -> list[str]:
    """``count`` documents of ``shortest`` to ``longest`` units each."""
    return [random_text(rng, units, rng.randint(shortest, longest)) for _ in range(count)]


def held_out_texts(
    rng: random.Random, units: Sequence[str], documents: Sequence[str], count: int = 3
) -> tuple[str, ...]:
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


def training_case(
    rng: random.Random, description: str, documents: Sequence[str], max_merges: int, units: Sequence[str], *clauses: str
) -> TrainingCase:
    """A case whose held-out texts are drawn from ``units``."""
    return TrainingCase(description, tuple(documents), max_merges, held_out_texts(rng, units, documents), clauses)
