"""``turbobpe.RegexTokenizer`` behind the plug-in contract (profile ``minbpe``).

turbobpe (PyPI) is minbpe with a C-accelerated core (``turbobpe.utils``) and batched merges:
``train(text, vocab_size, batch_size=10)`` takes up to ``batch_size`` of the most frequent pairs per
counting round. ``batch_size=1`` is its one-merge-per-round setting, the greedy algorithm the suite
describes, and is what the adapter passes. Pairs are ordered by a stable sort on count over an
insertion-ordered dict, so a tie goes to the pair counted first, as in minbpe.

Configuration: ``RegexTokenizer(pattern=r"[\\s\\S]+")`` (no pre-tokenization) and
``train("".join(documents), 256 + max_merges, batch_size=1)``: one text, so counting crosses
document boundaries. Its ids are ours. ``load(rules)`` writes a ``minbpe v1`` model file and calls
``RegexTokenizer.load``.
"""

from __future__ import annotations

import tempfile
from importlib.metadata import version
from pathlib import Path

import turbobpe

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, reachable_budget

__all__ = ["TurbobpeAdapter"]

_NO_SPLIT_PATTERN = r"[\s\S]+"


class TurbobpeAdapter:
    """turbobpe ``RegexTokenizer`` with no split pattern and one merge per round."""

    name = "turbobpe"
    # The distribution's version: turbobpe 0.1.2's module still says __version__ = "0.1.0".
    version = version("turbobpe")
    profile = "minbpe"
    capabilities = frozenset({"train", "load", "encode", "decode"})

    def __init__(self) -> None:
        self._tokenizer = turbobpe.RegexTokenizer(_NO_SPLIT_PATTERN)

    def _rules(self) -> list[tuple[int, int]]:
        return [pair for pair, _ in sorted(self._tokenizer.merges.items(), key=lambda item: item[1])]

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        tokenizer = turbobpe.RegexTokenizer(_NO_SPLIT_PATTERN)
        tokenizer.train("".join(documents), FIRST_RULE_ID + max_merges, batch_size=1)
        self._tokenizer = tokenizer
        return self._rules()

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        lines = ["minbpe v1", _NO_SPLIT_PATTERN, "0", *(f"{first} {second}" for first, second in rules)]
        tokenizer = turbobpe.RegexTokenizer(_NO_SPLIT_PATTERN)
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
