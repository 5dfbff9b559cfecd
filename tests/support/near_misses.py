"""Implementations one step away from a bug model of the diagnosis, but not that model.

Each rewrites the documents almost the way a model does (drops only adjacent repeats where the model
drops every repeat, strips only leading whitespace where the model strips both ends, drops repeats
that differ only in case). The diagnosis may tell what it saw, or name no cause; it must never
confirm a model that is false of them (tests/diagnosis/test_near_misses.py).
"""

from __future__ import annotations

from bpe_conformance.reference import LiteralTokenizer, check_documents, check_max_merges, train

__all__ = ["NEAR_MISSES", "AdjacentRepeatsDropped", "LeadingWhitespaceStripped", "RepeatsDroppedIgnoringCase"]


class _RewritesDocuments(LiteralTokenizer):
    """Trains the literal reference on rewritten documents; validation is the reference's own."""

    def rewrite(self, documents: list[str]) -> list[str]:
        raise NotImplementedError

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        check_documents(documents)
        check_max_merges(max_merges)
        rules = train(self.rewrite(list(documents)), max_merges)
        self.load(rules)
        return rules


class AdjacentRepeatsDropped(_RewritesDocuments):
    """A document equal to the one just before it is dropped; a repeat further away is kept."""

    name = "adjacent-repeats-dropped"

    def rewrite(self, documents: list[str]) -> list[str]:
        return [document for index, document in enumerate(documents) if index == 0 or documents[index - 1] != document]


class LeadingWhitespaceStripped(_RewritesDocuments):
    """Whitespace is stripped from the start of each document only."""

    name = "leading-whitespace-stripped"

    def rewrite(self, documents: list[str]) -> list[str]:
        return [document.lstrip() for document in documents]


class RepeatsDroppedIgnoringCase(_RewritesDocuments):
    """A document is dropped when an earlier one equals it up to case."""

    name = "repeats-dropped-ignoring-case"

    def rewrite(self, documents: list[str]) -> list[str]:
        seen: set[str] = set()
        kept = []
        for document in documents:
            if document.casefold() not in seen:
                seen.add(document.casefold())
                kept.append(document)
        return kept


NEAR_MISSES = (AdjacentRepeatsDropped, LeadingWhitespaceStripped, RepeatsDroppedIgnoringCase)
