"""``smolbpe.tokenizer.Tokenizer`` behind the plug-in contract (profile ``minbpe``).

smolbpe (PyPI, pure Python) follows minbpe: ``train(text, vocab_size)`` takes one text, picks
``max(stats, key=stats.get)`` over an insertion-ordered dict (the pair counted first wins a tie),
stops when no pair is left and numbers rule ``r`` as ``256 + r``; ``encode`` applies the lowest-ranked
merge first and ``decode`` uses ``errors="replace"``.

Configuration: ``Tokenizer(output=<a temporary file>, pattern=r"[\\s\\S]+")`` (the pattern keeps the
whole text as one chunk, so there is no pre-tokenization; ``train`` always writes its vocabulary to
``output``) and ``train("".join(documents), 256 + max_merges)``: one text, so counting crosses
document boundaries. Its ids are ours. ``load(rules)`` writes the JSON file that ``train`` itself
writes (``vocab`` and ``merges``) and calls ``Tokenizer.load_vocab``.
"""

from __future__ import annotations

import json
import tempfile
from importlib.metadata import version
from pathlib import Path

from smolbpe.tokenizer import Tokenizer

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, reachable_budget, rule_pieces

__all__ = ["SmolbpeAdapter"]

_NO_SPLIT_PATTERN = r"[\s\S]+"


def _vocab_json(rules: list[tuple[int, int]]) -> dict[str, dict[str, object]]:
    """What ``Tokenizer.save_vocab_and_merges`` writes: each piece as text, or as hex when not UTF-8."""
    pieces = [bytes([value]) for value in range(FIRST_RULE_ID)] + rule_pieces(rules)
    vocab: dict[str, object] = {}
    for token_id, piece in enumerate(pieces):
        try:
            vocab[str(token_id)] = piece.decode("utf-8")
        except UnicodeDecodeError:
            vocab[str(token_id)] = piece.hex()
    merges: dict[str, object] = {
        f"{first},{second}": FIRST_RULE_ID + rank for rank, (first, second) in enumerate(rules)
    }
    return {"vocab": vocab, "merges": merges}


class SmolbpeAdapter:
    """smolbpe ``Tokenizer`` with no split pattern and no special tokens."""

    name = "smolbpe"
    version = version("smolbpe")
    profile = "minbpe"
    capabilities = frozenset({"train", "load", "encode", "decode"})

    def __init__(self) -> None:
        self._directory = tempfile.TemporaryDirectory()
        self._output = str(Path(self._directory.name) / "vocab.json")
        self._tokenizer = Tokenizer(output=self._output, pattern=_NO_SPLIT_PATTERN)

    def _rules(self) -> list[tuple[int, int]]:
        return [pair for pair, _ in sorted(self._tokenizer.merges.items(), key=lambda item: item[1])]

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        tokenizer = Tokenizer(output=self._output, pattern=_NO_SPLIT_PATTERN)
        tokenizer.train("".join(documents), FIRST_RULE_ID + max_merges)
        self._tokenizer = tokenizer
        return self._rules()

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        model_file = Path(self._directory.name) / "load.json"
        model_file.write_text(json.dumps(_vocab_json(rules)), encoding="utf-8")
        tokenizer = Tokenizer(output=self._output, pattern=_NO_SPLIT_PATTERN)
        tokenizer.load_vocab(str(model_file))
        self._tokenizer = tokenizer
        return self._rules()

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._tokenizer.encode(text)
        return ids

    def decode(self, ids: list[int]) -> str:
        text: str = self._tokenizer.decode(ids)
        return text
