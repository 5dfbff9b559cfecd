"""``rustbpe.Tokenizer`` in production configuration: training behind a split pattern (profile ``rustbpe``).

Two adapters, both declaring ``split = "cl100k"`` so ``compare`` trains the reference behind the same
pattern (``compare --split cl100k``):

* :class:`RustbpePretokenized`: ``train_from_iterator(iter(documents), 256 + max_merges)`` with rustbpe's
  own default pattern, the one its documentation calls GPT-4's (cl100k's), exactly as nanochat trains.
  rustbpe 0.1.0's default is *not* tiktoken's cl100k pattern to the letter: it lacks the alternative
  ``\\s++$``, so a text that ends in whitespace holding a line break followed by more whitespace (``"a\\n "``)
  is split ``"\\n"``, ``" "`` where cl100k keeps ``"\\n "`` whole (``docs/findings.md``).
* :class:`RustbpeCl100k`: the same trainer given cl100k's pattern explicitly (``pattern=`` the
  ``cl100k`` profile's), which trains and encodes exactly as the reference behind that split.

``run`` judges each behind its own pattern: ``--profile rustbpe+split=cl100k`` for :class:`RustbpeCl100k`,
``--profile rustbpe+split=rustbpe`` (rustbpe's default, ``TRAINING_SPLITS["rustbpe"]``) for
:class:`RustbpePretokenized`; both pass every algorithm check.

Each document is one item of the iterator, so nothing is counted across documents. Ids and the
recovery of pairs from ranks are :mod:`~bpe_conformance.adapters.thirdparty.rustbpe_trainer`'s. Encoding
splits with the pattern the tokenizer trained with.
"""

from __future__ import annotations

from importlib.metadata import version

import rustbpe

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, reachable_budget, rules_from_ranks
from bpe_conformance.reference.pretokenization import CL100K

__all__ = ["RustbpeCl100k", "RustbpePretokenized"]


class RustbpePretokenized:
    """rustbpe with its default (GPT-4-style) split pattern: what nanochat trains with."""

    name = "rustbpe-pretokenized"
    version = version("rustbpe")
    profile = "rustbpe"
    split = "cl100k"
    capabilities = frozenset({"train", "encode", "decode"})
    pattern: str | None = None  # rustbpe's own default

    def __init__(self) -> None:
        self._tokenizer = rustbpe.Tokenizer()

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        tokenizer = rustbpe.Tokenizer()
        tokenizer.train_from_iterator(iter(documents), FIRST_RULE_ID + max_merges, pattern=self.pattern)
        self._tokenizer = tokenizer
        return rules_from_ranks(dict(tokenizer.get_mergeable_ranks()))

    def encode(self, text: str) -> list[int]:
        return list(self._tokenizer.encode(text))

    def decode(self, ids: list[int]) -> str:
        text: str = self._tokenizer.decode(ids)
        return text


class RustbpeCl100k(RustbpePretokenized):
    """rustbpe given tiktoken's cl100k split pattern explicitly."""

    name = "rustbpe-cl100k"
    pattern = CL100K.pattern
