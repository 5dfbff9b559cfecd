"""``cminbpe.RegexTokenizer`` behind the plug-in contract, one adapter per backend (profile ``minbpe``).

cminbpe (PyPI) is minbpe's ``RegexTokenizer`` with an optional C backend: ``train(text,
vocab_size, backend="python" | "c")`` and ``encode(text, backend=...)``. The Python backend is
minbpe's trainer (one text, ``max(stats, key=stats.get)`` over an insertion-ordered dict, stop when
no pair is left, ids ``256 + i``); the docstring presents the C backend as the same algorithm "for
faster execution". Each backend is its own implementation here, ``cminbpe`` (the default, Python)
and ``cminbpe-c``.

Configuration: ``RegexTokenizer(pattern=r"[\\s\\S]+")``, which keeps the whole text as one chunk
(no pre-tokenization), and ``train("".join(documents), 256 + max_merges, backend=...)``: minbpe
trains on one text, so counting crosses document boundaries. Its ids are ours. ``load(rules)``
writes a ``minbpe v1`` model file with the same pattern and calls ``RegexTokenizer.load``.
"""

from __future__ import annotations

import tempfile
from importlib.metadata import version
from pathlib import Path

from cminbpe import RegexTokenizer

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, reachable_budget

__all__ = ["CminbpeAdapter", "CminbpeCAdapter"]

_NO_SPLIT_PATTERN = r"[\s\S]+"


class CminbpeAdapter:
    """cminbpe ``RegexTokenizer`` with no split pattern, on its default (Python) backend."""

    name = "cminbpe"
    version = version("cminbpe")
    profile = "minbpe"
    capabilities = frozenset({"train", "load", "encode", "decode"})
    backend = "python"

    def __init__(self) -> None:
        self._tokenizer = RegexTokenizer(_NO_SPLIT_PATTERN)

    def _rules(self) -> list[tuple[int, int]]:
        return [pair for pair, _ in sorted(self._tokenizer.merges.items(), key=lambda item: item[1])]

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        tokenizer = RegexTokenizer(_NO_SPLIT_PATTERN)
        tokenizer.train("".join(documents), FIRST_RULE_ID + max_merges, backend=self.backend)
        self._tokenizer = tokenizer
        return self._rules()

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        lines = ["minbpe v1", _NO_SPLIT_PATTERN, "0", *(f"{first} {second}" for first, second in rules)]
        tokenizer = RegexTokenizer(_NO_SPLIT_PATTERN)
        with tempfile.TemporaryDirectory() as directory:
            model_file = Path(directory) / "rules.model"
            model_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
            tokenizer.load(str(model_file))
        self._tokenizer = tokenizer
        return self._rules()

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._tokenizer.encode(text, backend=self.backend)
        return ids

    def decode(self, ids: list[int]) -> str:
        text: str = self._tokenizer.decode(ids)
        return text


class CminbpeCAdapter(CminbpeAdapter):
    """The same tokenizer on its C backend (``backend="c"`` for training and encoding)."""

    name = "cminbpe-c"
    backend = "c"
