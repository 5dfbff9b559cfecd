"""Valid rule lists given to ``load``: hand-picked ones, then random ones over small alphabets.

Some are lists no training could make (a pair twice, a rule that never fires, bytes UTF-8 never
contains); ``load`` must accept them all and encode with them exactly as the ranks say.

>>> cases = load_cases()
>>> cases[1].description, cases[1].rules
('no rules: one id per byte', ())
>>> cases == load_cases() and len(cases) > 40
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.inputs.corpora.base import CJK, CYRILLIC, LATIN, SEED, random_text
from bpe_conformance.reference.pieces import build_pieces

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["LoadCase", "load_cases"]


@dataclass(frozen=True)
class LoadCase:
    """A valid rule list adopted through ``load`` (possibly one no training could make), and texts."""

    description: str
    rules: tuple[tuple[int, int], ...]
    texts: tuple[str, ...]
    clauses: tuple[str, ...] = ()


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
