"""``tinybpe`` behind the plug-in contract (profile ``tinybpe``).

tinybpe (PyPI, a C core) trains with ``Trainer(text)``: one text, as minbpe does, so the documents
are joined with no separator and counting crosses their boundaries. ``Trainer.train(max_merges)``
stops early when no pair is left and ``Trainer.merges`` lists the pairs, rule ``r`` being id
``256 + r``, which are our ids. Encoding and decoding go through ``tinybpe.Tokenizer(merges)``,
whose default pattern ``(?s)^.*$`` keeps the whole text as one chunk; ``load(rules)`` builds the same
``Tokenizer`` from our rules, which the library validates itself (pairs of earlier ids).
"""

from __future__ import annotations

import warnings
from typing import Any

import tinybpe

from bpe_conformance.adapters.thirdparty.pieces import reachable_budget

__all__ = ["TinybpeAdapter"]


def _tokenizer(merges: list[Any]) -> tinybpe.Tokenizer:
    with warnings.catch_warnings():
        # The C core warns "special_tokens must be a non-empty dict" (and "No special_tokens defined."
        # on decode) whenever there are none, which is this adapter's configuration.
        warnings.simplefilter("ignore", UserWarning)
        return tinybpe.Tokenizer(merges)


class TinybpeAdapter:
    """tinybpe ``Trainer`` (one joined text) and ``Tokenizer`` (no pre-tokenization)."""

    name = "tinybpe"
    version = tinybpe.__version__
    profile = "tinybpe"
    capabilities = frozenset({"train", "load", "encode", "decode"})

    def __init__(self) -> None:
        # Whatever load was given (tuples of what the harness sent): the C core judges it, not this adapter.
        self._merges: list[Any] = []
        self._tokenizer: tinybpe.Tokenizer | None = None

    def _encoder(self) -> tinybpe.Tokenizer:
        # Built on first use, so that the library's own refusal of an empty merge list
        # ("The merges list must not be empty.") surfaces where the model is used, not in train.
        if self._tokenizer is None:
            self._tokenizer = _tokenizer(self._merges)
        return self._tokenizer

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        trainer = tinybpe.Trainer("".join(documents))
        trainer.train(max_merges)
        self._merges = [(int(first), int(second)) for first, second in trainer.merges]
        self._tokenizer = None
        return list(self._merges)

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        # The C core takes tuples; a JSON list becomes a tuple of the same values, nothing else changes.
        merges = [tuple(rule) if isinstance(rule, list) else rule for rule in rules]
        self._tokenizer = _tokenizer(merges)
        self._merges = merges
        return list(rules)

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._encoder().encode(text)
        return ids

    def decode(self, ids: list[int]) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            text: str = self._encoder().decode(ids)
            return text
