"""Small vocabularies built in the tests, in every released format, so no test downloads anything.

A vocabulary here is trained by the reference *without* a split pattern, so its pieces cross the places
where a production pattern splits (``"  "``, ``" b"``, ``"1234"``, ``"'LL"``): a port that splits in the
wrong place then gets other ids, which is what the production checks must see.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bpe_conformance.reference.dialects import byte_level_symbol, profile_pieces, train_profile
from bpe_conformance.reference.profiles import RUSTBPE
from bpe_conformance.reference.vocabulary import Vocabulary, vocabulary_from_pieces

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["SPLIT_CORPUS", "gpt2_files", "hf_tokenizer_json", "trained_vocabulary"]

# Text full of what split patterns decide on: runs of spaces before words and line ends, digit runs,
# contractions in both cases, letters outside ASCII, a special token's text.
SPLIT_CORPUS = [
    "I'LL say it's 12345678 and 1234  or   more  words\r\n\r\n\tthen",
    "we'll WE'LL We'Re they've 2024 9999  a  b   c\n\n  x",
    "naïve café Ünïcode ß пример пример 日本語 日本語 <|endoftext|> <|endoftext|>",
    "   leading  spaces  and\u00a0nbsp\u00a0here 000111222333",
    "'LLama 'Sam 'Dan 'REd 'VEry 'Tis 'Mike 'DEAR 'LLama 'Sam 'REd",
    "'Sa 'Sa 'Sthe 'Sthe 'LLa 'LLa 'Tthe 'Tthe 'Sabc 'Sabc 'Ma 'Ma 'Da 'Da",
]


def _byte_order() -> list[int]:
    # GPT-2 ranks its bytes printable first (the order of their byte-level symbols), not by value.
    return sorted(range(256), key=lambda value: ord(byte_level_symbol(value)))


def trained_vocabulary(
    corpus: list[str] | None = None, merges: int = 160, special_tokens: dict[str, int] | None = None
) -> Vocabulary:
    """Bytes in GPT-2's order, then the pieces of the rules the reference trains on ``corpus``."""
    rules = train_profile(corpus if corpus is not None else SPLIT_CORPUS, merges, RUSTBPE)
    ranked_pieces = [bytes([value]) for value in _byte_order()]
    for piece in profile_pieces(rules, RUSTBPE)[256:]:
        if piece not in ranked_pieces:  # two rules may make one piece; a piece has one rank
            ranked_pieces.append(piece)
    if special_tokens is None:
        special_tokens = {"<|endoftext|>": len(ranked_pieces) + 1}
    triples = [(piece, rank, None) for rank, piece in enumerate(ranked_pieces)]
    return vocabulary_from_pieces(triples, "trained in the test", special_tokens=special_tokens)


def _symbols(piece: bytes) -> str:
    return "".join(byte_level_symbol(value) for value in piece)


def _merge_of(piece: bytes, rank: int, vocabulary: Vocabulary) -> str:
    for cut in range(1, len(piece)):
        first, second = vocabulary.rank_of.get(piece[:cut], rank), vocabulary.rank_of.get(piece[cut:], rank)
        if first < rank and second < rank:
            return f"{_symbols(piece[:cut])} {_symbols(piece[cut:])}"
    raise AssertionError(f"{piece!r} has no lower-rank pair")


def hf_tokenizer_json(vocabulary: Vocabulary, path: Path) -> Path:
    """``vocabulary`` as a Hugging Face ``tokenizer.json`` (BPE model, byte-level symbols, added specials)."""
    vocab = {_symbols(piece): rank for rank, piece in enumerate(vocabulary.pieces)}
    merges = [_merge_of(piece, rank, vocabulary) for rank, piece in enumerate(vocabulary.pieces) if len(piece) > 1]
    added = [{"id": token_id, "content": text, "special": True} for text, token_id in vocabulary.special_tokens.items()]
    vocab.update(vocabulary.special_tokens)
    document = {"version": "1.0", "added_tokens": added, "model": {"type": "BPE", "vocab": vocab, "merges": merges}}
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def gpt2_files(vocabulary: Vocabulary, folder: Path) -> tuple[Path, Path]:
    """``vocabulary`` as GPT-2's ``encoder.json`` and ``vocab.bpe`` (merge ``r`` makes rank ``256 + r``)."""
    encoder = {_symbols(piece): rank for rank, piece in enumerate(vocabulary.pieces)}
    encoder.update(vocabulary.special_tokens)
    merges = [_merge_of(piece, rank, vocabulary) for rank, piece in enumerate(vocabulary.pieces) if rank >= 256]
    encoder_path, merges_path = folder / "encoder.json", folder / "vocab.bpe"
    encoder_path.write_text(json.dumps(encoder, ensure_ascii=False), encoding="utf-8")
    merges_path.write_text("#version: 0.2\n" + "".join(line + "\n" for line in merges), encoding="utf-8")
    return encoder_path, merges_path
