"""Hugging Face ``tokenizers`` behind the plug-in contract (profile ``hf-tokenizers``).

Configuration, fixed so the library sees exactly our input:

* model ``models.BPE()`` with no unk token, no dropout, no continuing-subword prefix;
* pre-tokenizer ``pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)``: every
  document becomes one sequence of byte-level symbols, with no regex split and no added space;
* decoder ``decoders.ByteLevel()`` (turns symbols back into bytes, then lossy UTF-8);
* trainer ``trainers.BpeTrainer(vocab_size=256 + max_merges, min_frequency=2,
  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=[])``; the default
  ``min_frequency`` is 0, which would merge pairs seen once, so 2 is set to match ``bpe.md``.

Mapping: HF numbers its alphabet by sorted symbol code point (``!`` is 0, ``Ġ`` for the space
comes after ``ÿ``) and each merge after it. Token strings are turned back into bytes with the
GPT-2 byte-level table, bytes become ids 0-255 and HF's ``r``-th merge becomes our ``256 + r``.
``load`` builds ``models.BPE(vocab, merges)`` in the same numbering HF's trainer would use.
Ids unknown to us are passed to HF as ids unknown to it, so its own policy (skip) applies.
"""

from __future__ import annotations

import json

import tokenizers
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from bpe_conformance.adapters.thirdparty.pieces import (
    FIRST_RULE_ID,
    bytes_to_symbols,
    reachable_budget,
    rule_pieces,
    symbols_to_bytes,
)

__all__ = ["HFTokenizersAdapter"]


def _configured(model: models.Model) -> Tokenizer:
    tokenizer = Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer


class HFTokenizersAdapter:
    """``tokenizers.Tokenizer`` with a BPE model, trained by ``BpeTrainer``."""

    name = "hf-tokenizers"
    version = tokenizers.__version__
    profile = "hf-tokenizers"
    capabilities = frozenset({"train", "load", "encode", "decode"})

    def __init__(self) -> None:
        self.load([])

    def _adopt(self, tokenizer: Tokenizer) -> list[tuple[int, int]]:
        model = json.loads(tokenizer.to_str())["model"]
        ours: dict[str, int] = {bytes_to_symbols(bytes([value])): value for value in range(FIRST_RULE_ID)}
        rules = []
        for rank, merge in enumerate(model["merges"]):
            left, right = merge if isinstance(merge, list) else merge.split(" ")
            rules.append((ours[left], ours[right]))
            ours.setdefault(left + right, FIRST_RULE_ID + rank)
        hf_vocab: dict[str, int] = model["vocab"]
        self._tokenizer = tokenizer
        self._to_ours = {hf_id: ours[symbols] for symbols, hf_id in hf_vocab.items()}
        self._to_hf = {our_id: hf_id for hf_id, our_id in self._to_ours.items()}
        self._unknown_offset = len(hf_vocab)
        self._rules = rules
        return list(rules)

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        tokenizer = _configured(models.BPE())
        trainer = trainers.BpeTrainer(
            vocab_size=FIRST_RULE_ID + max_merges,
            min_frequency=2,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            special_tokens=[],
            show_progress=False,
        )
        tokenizer.train_from_iterator(documents, trainer=trainer)
        return self._adopt(tokenizer)

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        # HF's trainer numbers the alphabet by sorted symbol, then the merges in order.
        alphabet = sorted(bytes_to_symbols(bytes([value])) for value in range(FIRST_RULE_ID))
        vocab = {symbol: hf_id for hf_id, symbol in enumerate(alphabet)}
        pieces = [bytes([value]) for value in range(FIRST_RULE_ID)] + rule_pieces(rules)
        merges = []
        for rank, (first, second) in enumerate(rules):
            left, right = bytes_to_symbols(pieces[first]), bytes_to_symbols(pieces[second])
            merges.append((left, right))
            vocab.setdefault(left + right, len(alphabet) + rank)
        return self._adopt(_configured(models.BPE(vocab=vocab, merges=merges)))

    def encode(self, text: str) -> list[int]:
        return [self._to_ours[hf_id] for hf_id in self._tokenizer.encode(text).ids]

    def decode(self, ids: list[int]) -> str:
        hf_ids = [
            self._to_hf.get(token_id, self._unknown_offset + token_id)
            if isinstance(token_id, int) and token_id >= 0
            else token_id
            for token_id in ids
        ]
        text: str = self._tokenizer.decode(hf_ids)
        return text

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes HF's own vocabulary spells for one of our ids (for mapping tests)."""
        return symbols_to_bytes(str(self._tokenizer.id_to_token(self._to_hf[token_id])))
