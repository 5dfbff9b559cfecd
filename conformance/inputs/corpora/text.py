"""Training cases whose difficulty is the text itself: scripts, emoji, normalization forms, controls, sentences.

To byte-level BPE none of this is special: each is a run of UTF-8 bytes, and merges cross character,
word and punctuation boundaries alike.

>>> import random
>>> case = normalization_cases(random.Random("doc"), 1)[0]
>>> case.description.startswith("trained on NFC of"), len(case.texts)
(True, 4)
>>> case.texts[2:] == tuple(unicodedata.normalize("NFD", text) for text in case.texts[:2]) != case.texts[:2]
True
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Literal

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
    WORDS,
    TrainingCase,
    held_out_texts,
    random_documents,
    training_case,
)

if TYPE_CHECKING:
    import random

__all__ = [
    "control_character_cases",
    "emoji_cases",
    "mixed_cases",
    "normalization_cases",
    "raw_text_cases",
    "script_cases",
]


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
        cases.append(training_case(rng, f"{name} text from {''.join(units)!r}", documents, max_merges, units))
    return cases


def emoji_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Emoji with skin tones, flags, keycaps and ZWJ sequences: many bytes per visible character."""
    cases = []
    for _ in range(count):
        units = rng.sample(EMOJI, rng.randint(2, 4)) + rng.sample((" ", "a", ""), 1)
        documents = random_documents(rng, units, rng.randint(1, 3), 2, 12)
        cases.append(
            training_case(rng, f"emoji from {''.join(units)!r}", documents, rng.choice((2, 5, 20, 100)), units)
        )
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
        same_form = held_out_texts(rng, units, documents, 2)
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
        cases.append(training_case(rng, description, documents, rng.choice((1, 4, 12, 50)), units, "BPE-ENCODE-RAW"))
    return cases


def raw_text_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Sentences: merges cross spaces and punctuation because nothing pre-tokenizes."""
    cases = []
    for _ in range(count):
        units = [word + rng.choice((" ", ", ", ". ", "! ")) for word in rng.sample(WORDS, 4)]
        documents = random_documents(rng, units, rng.randint(1, 3), 3, 10)
        cases.append(
            training_case(rng, f"sentences over {units!r}", documents, rng.choice((8, 20, 60)), units, "BPE-ENCODE-RAW")
        )
    return cases


def mixed_cases(rng: random.Random, count: int) -> list[TrainingCase]:
    """Everything at once: Latin, scripts, emoji, combining marks, controls and punctuation."""
    pool = LATIN + CJK[:3] + CYRILLIC[:3] + EMOJI[:4] + COMPOSED[:2] + ("e\u0301",) + CONTROL[:4] + PUNCTUATION[:4]
    cases = []
    for _ in range(count):
        units = rng.sample(pool, rng.randint(3, 7))
        documents = random_documents(rng, units, rng.randint(1, 5), 1, 25)
        cases.append(training_case(rng, f"mixed units {units!r}", documents, rng.choice((1, 3, 7, 15, 40, 500)), units))
    return cases
