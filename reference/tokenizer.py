"""The plug-in contract, implemented by the reference itself.

>>> tokenizer = LiteralTokenizer()
>>> tokenizer.train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> tokenizer.encode("abac"), tokenizer.encode_document("abac")
([258, 259], [256, 258, 259, 257])
>>> tokenizer.decode([258, 259]), tokenizer.vocab_size
('abac', 260)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpe_conformance.reference import decoding, encoding, fast_encoding, fast_training, serialization, training
from bpe_conformance.reference.alphabet import BEGIN_ID, END_ID, vocab_size
from bpe_conformance.reference.pieces import build_pieces, check_piece_budget
from bpe_conformance.reference.validation import check_rules

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["LiteralTokenizer", "Tokenizer"]

Rules = list[tuple[int, int]]


class LiteralTokenizer:
    """The literal algorithm of ``specs/bpe.md``, one rule at a time: obviously correct, O(merges x length)."""

    name = "reference-literal"
    _train: Callable[[list[str], int], Rules] = staticmethod(training.train)
    _encode: Callable[[str, Rules], list[int]] = staticmethod(encoding.encode)

    def __init__(self) -> None:
        self._adopt([])

    def _adopt(self, rules: Rules) -> Rules:
        self._rules = list(rules)
        self._pieces = build_pieces(self._rules)
        return list(self._rules)

    @property
    def rules(self) -> Rules:
        """The current rules in rank order (a copy)."""
        return list(self._rules)

    @property
    def vocab_size(self) -> int:
        """258 plus the number of rules (BPE-VOCAB-SIZE)."""
        return vocab_size(self._rules)

    def train(self, documents: list[str], max_merges: int) -> Rules:
        """Learn rules from ``documents`` and adopt them; bad input leaves the model unchanged."""
        return self._adopt(type(self)._train(documents, max_merges))

    def load(self, rules: Rules, max_piece_bytes: int | None = None) -> Rules:
        """Adopt ``rules`` after validating them (BPE-INPUT-RULES).

        Pieces totalling more than ``max_piece_bytes`` (default :func:`bpe_conformance.reference.pieces.piece_budget`,
        proportional to the number of rules) are a ValueError, raised before any piece is built.
        """
        checked = check_rules(rules)
        check_piece_budget(checked, max_piece_bytes)
        return self._adopt(checked)

    def encode(self, text: str) -> list[int]:
        """Body ids of ``text`` under the current rules."""
        return type(self)._encode(text, self._rules)

    def encode_document(self, text: str) -> list[int]:
        """``[256, *encode(text), 257]`` (BPE-ENCODE-BOUNDARY)."""
        return [BEGIN_ID, *self.encode(text), END_ID]

    def decode_bytes(self, ids: list[int]) -> bytes:
        """The bytes ``ids`` stand for, even when they split a character."""
        return decoding.decode_bytes_with_pieces(ids, self._pieces)

    def decode(self, ids: list[int]) -> str:
        """The text ``ids`` stand for; unknown ids and invalid UTF-8 raise ValueError."""
        return decoding.strict_utf8(self.decode_bytes(ids))

    def dumps(self) -> str:
        """The canonical JSON form of this tokenizer (BPE-SER-JSON)."""
        return serialization.dumps(self._rules)

    def loads(self, text: str | bytes, max_piece_bytes: int | None = None) -> Rules:
        """Adopt the rules of a canonical JSON tokenizer after validating it (BPE-SER-LOAD)."""
        return self._adopt(serialization.loads(text, max_piece_bytes=max_piece_bytes))

    @property
    def digest(self) -> str:
        """SHA-256 digest of the rules (BPE-SER-DIGEST)."""
        return serialization.digest(self._rules)


class Tokenizer(LiteralTokenizer):
    """The reference tokenizer for everyday use: same answers as :class:`LiteralTokenizer`, fast.

    Training uses :func:`bpe_conformance.reference.fast_training.fast_train` and encoding
    :func:`bpe_conformance.reference.fast_encoding.fast_encode`, given a
    :class:`~bpe_conformance.reference.fast_encoding.MergeTable`
    built once whenever rules are adopted (it is itself a sequence of the rules).

    >>> tokenizer = Tokenizer()
    >>> tokenizer.train(["abab", "acac"], 32)
    [(97, 98), (97, 99)]
    >>> tokenizer.encode("abac"), tokenizer.encode_document("abac")
    ([258, 259], [256, 258, 259, 257])
    """

    name = "reference"
    _train: Callable[[list[str], int], Rules] = staticmethod(fast_training.fast_train)
    _encode: Callable[[str, Rules], list[int]] = staticmethod(fast_encoding.fast_encode)

    def _adopt(self, rules: Rules) -> Rules:
        adopted = super()._adopt(rules)
        self._table = fast_encoding.MergeTable(self._rules)
        return adopted

    def encode(self, text: str) -> list[int]:
        """Body ids of ``text`` under the current rules."""
        # MergeTable is a sequence of the rules with a prebuilt rank index; _encode stays swappable.
        return type(self)._encode(text, self._table)  # type: ignore[arg-type]
