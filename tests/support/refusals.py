"""An implementation that refuses an input every profile accepts, and is otherwise correct.

:class:`RefusesEmptyCorpus` is the strict reference except that ``train([], max_merges)`` raises
ValueError (strict trains no rule from no documents). A run must show that refusal once, with the
checks it blocked, and let those checks go on to their other examples.

>>> RefusesEmptyCorpus().train(["abab"], 1)
[(97, 98)]
>>> RefusesEmptyCorpus().train([], 1)
Traceback (most recent call last):
...
ValueError: no documents to train on
"""

from __future__ import annotations

from bpe_conformance import reference

__all__ = ["RefusesEmptyCorpus"]


class RefusesEmptyCorpus(reference.Tokenizer):
    """Strict, but an empty corpus is refused as many libraries refuse it."""

    name = "refuses-empty-corpus"

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        if isinstance(documents, list) and not documents:
            raise ValueError("no documents to train on")
        return super().train(documents, max_merges)
