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

__all__ = ["RaisesWhenPairsRunOut", "RefusesEmptyCorpus"]


class RefusesEmptyCorpus(reference.Tokenizer):
    """Strict, but an empty corpus is refused as many libraries refuse it."""

    name = "refuses-empty-corpus"

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        if isinstance(documents, list) and not documents:
            raise ValueError("no documents to train on")
        return super().train(documents, max_merges)


class RaisesWhenPairsRunOut(reference.Tokenizer):
    """Strict, but training raises once no pair is left before max_merges (minbpe's ``max()`` of nothing):
    a stop-rule defect, not a refusal, since it raises on corpora that make rules too.

    >>> RaisesWhenPairsRunOut().train(["ab", "ab"], 8)
    Traceback (most recent call last):
    ...
    ValueError: max() arg is an empty sequence
    """

    name = "raises-when-pairs-run-out"

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        rules = super().train(documents, max_merges)
        if len(rules) < max_merges:
            raise ValueError("max() arg is an empty sequence")
        return rules
