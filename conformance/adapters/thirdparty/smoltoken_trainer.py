"""``smoltoken.BytePairTokenizer`` behind the plug-in contract (profile ``bpeasy``).

smoltoken (PyPI, Rust) ports tiktoken's ``_educational.py`` trainer. Configuration:
``BytePairTokenizer(name, pattern=r"[\\s\\S]+", special_tokens=set(), n_vocab=256 + max_merges)``
and ``train(data=documents)``: a sequence of documents is trained as separate texts and the
pattern keeps each whole, so there is no pre-tokenization and no counting across documents. Like
its model it merges pairs seen once, encodes by piece rank (tiktoken's byte-pair merge) and decodes
with ``errors="replace"``: of the named profiles ``bpeasy`` (rustbpe's training, tiktoken's encoding)
is the closest; it differs in refusing lone surrogates, which only the validation checks' skip rule
consults.

Mapping: the library's ids are tiktoken ranks, bytes at their value and merge ``r`` at ``256 + r``,
which are our ids. Its only way out of a rank table is ``save(dir)`` (a ``.smtkn`` file of base64
piece and rank per line), so ``train`` saves to a temporary directory and reads the ranks back; the
pairs are recovered by the tiktoken convention in :mod:`bpe_conformance.adapters.thirdparty.pieces`.
``load(rules)`` writes such a file from our rules and calls ``BytePairTokenizer.load``.
"""

from __future__ import annotations

import base64
import tempfile
from importlib.metadata import version
from pathlib import Path

import smoltoken

from bpe_conformance.adapters.thirdparty.pieces import (
    FIRST_RULE_ID,
    ranks_from_rules,
    reachable_budget,
    rules_from_ranks,
)

__all__ = ["SmoltokenAdapter"]

_NO_SPLIT_PATTERN = r"[\s\S]+"
_NAME = "bpe-conformance"


def _read_ranks(path: Path) -> dict[bytes, int]:
    ranks = {}
    for line in path.read_bytes().splitlines():
        piece, rank = line.split()
        ranks[base64.b64decode(piece)] = int(rank)
    return ranks


class SmoltokenAdapter:
    """Train, encode and decode with smoltoken; load rules through its ``.smtkn`` file."""

    name = "smoltoken"
    version = version("smoltoken")
    profile = "bpeasy"
    capabilities = frozenset({"train", "load", "encode", "decode"})

    def __init__(self) -> None:
        self.load([])

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        tokenizer = smoltoken.BytePairTokenizer(
            _NAME, pattern=_NO_SPLIT_PATTERN, special_tokens=set(), n_vocab=FIRST_RULE_ID + max_merges
        )
        tokenizer.train(data=documents)
        with tempfile.TemporaryDirectory() as directory:
            tokenizer.save(directory)
            ranks = _read_ranks(Path(directory) / f"{_NAME}.smtkn")
        self._tokenizer = tokenizer
        return rules_from_ranks(ranks)

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        lines = [f"{base64.b64encode(piece).decode()} {rank}" for piece, rank in ranks_from_rules(rules).items()]
        with tempfile.TemporaryDirectory() as directory:
            model_file = Path(directory) / f"{_NAME}.smtkn"
            model_file.write_text("\n".join(lines) + "\n", encoding="ascii")
            self._tokenizer = smoltoken.BytePairTokenizer.load(
                str(model_file), pattern=_NO_SPLIT_PATTERN, special_tokens=set()
            )
        return list(rules)

    def encode(self, text: str) -> list[int]:
        return list(self._tokenizer.encode_ordinary(text))

    def decode(self, ids: list[int]) -> str:
        text: str = self._tokenizer.decode(ids)
        return text
