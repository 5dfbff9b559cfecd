"""``bpetokenizer``'s base ``Tokenizer`` behind the plug-in contract (profile ``minbpe``).

``bpetokenizer`` (PyPI) follows minbpe: its base ``Tokenizer.train(texts, vocab_size,
min_frequency=1)`` trains on one text with ``max`` over an insertion-ordered dict (the pair counted
first wins a tie), numbers rule ``r`` as ``256 + r``, encodes by lowest merge index and decodes with
``errors="replace"``. The base class has no regex split and no special tokens (``BPETokenizer``
adds both), so it is the byte-level job the suite describes.

Configuration: ``Tokenizer().train("".join(documents), 256 + max_merges, min_frequency=1)``, the
library's default threshold. Its ids are ``256 + r`` already, which are ours. No ``load``: the
library loads only its own JSON or model files with pieces, not a rule list.
"""

from __future__ import annotations

from importlib.metadata import version

from bpetokenizer import Tokenizer

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, reachable_budget

__all__ = ["BpetokenizerAdapter"]


class BpetokenizerAdapter:
    """bpetokenizer ``Tokenizer`` (byte-level, no regex split, no special tokens)."""

    name = "bpetokenizer"
    version = version("bpetokenizer")
    profile = "minbpe"
    capabilities = frozenset({"train", "encode", "decode"})

    def __init__(self) -> None:
        self._tokenizer = Tokenizer()

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        tokenizer = Tokenizer()
        tokenizer.train("".join(documents), FIRST_RULE_ID + max_merges, min_frequency=1)
        self._tokenizer = tokenizer
        return [pair for pair, _ in sorted(tokenizer.merges.items(), key=lambda item: item[1])]

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._tokenizer.encode(text)
        return ids

    def decode(self, ids: list[int]) -> str:
        text: str = self._tokenizer.decode(ids)
        return text
