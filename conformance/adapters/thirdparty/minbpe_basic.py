"""minbpe's ``BasicTokenizer`` behind the plug-in contract (profile ``minbpe``).

``minbpe`` itself is not on PyPI; ``MiniBpeRust`` (PyPI ``minibperust``) ships minbpe's
``BasicTokenizer`` unchanged in Python (training ``max`` over an insertion-ordered dict, encode
by lowest merge index, ``decode`` with ``errors="replace"``), so that is the library used.

Configuration: ``BasicTokenizer().train(text, vocab_size=256 + max_merges)`` where ``text`` is
the documents joined with no separator: minbpe trains on one text, so counting crosses
document boundaries. Its ids are ``256 + r`` already, which are ours. ``load(rules)`` writes a
``minbpe v1`` model file with the rules and calls ``BasicTokenizer.load``.
"""

from __future__ import annotations

import tempfile
from importlib.metadata import version
from pathlib import Path

from MiniBpeRust import BasicTokenizer

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, reachable_budget, rule_pieces

__all__ = ["MinbpeAdapter"]


class MinbpeAdapter:
    """minbpe ``BasicTokenizer`` (byte-level, no regex split, no special tokens)."""

    name = "minbpe"
    version = version("minibperust")
    profile = "minbpe"
    capabilities = frozenset({"train", "load", "encode", "decode"})

    def __init__(self) -> None:
        self._tokenizer = BasicTokenizer()

    def _rules(self) -> list[tuple[int, int]]:
        return [pair for pair, _ in sorted(self._tokenizer.merges.items(), key=lambda item: item[1])]

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        tokenizer = BasicTokenizer()
        tokenizer.train("".join(documents), FIRST_RULE_ID + max_merges)
        self._tokenizer = tokenizer
        return self._rules()

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        rule_pieces(rules)  # a model file can only hold rules that refer backwards
        lines = ["minbpe v1", "", "0", *(f"{first} {second}" for first, second in rules)]
        tokenizer = BasicTokenizer()
        with tempfile.TemporaryDirectory() as directory:
            model_file = Path(directory) / "rules.model"
            model_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
            tokenizer.load(str(model_file))
        self._tokenizer = tokenizer
        return self._rules()

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._tokenizer.encode(text)
        return ids

    def decode(self, ids: list[int]) -> str:
        text: str = self._tokenizer.decode(ids)
        return text
