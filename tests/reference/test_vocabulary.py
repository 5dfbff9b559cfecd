"""Reading released vocabularies: the three formats agree, and each broken fact is a one-line error naming the line."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.reference.vocabulary import (
    VocabularyError,
    read_gpt2_files,
    read_hf_tokenizer_json,
    read_tiktoken_file,
    read_tiktoken_text,
    read_vocabulary,
    tiktoken_text,
)
from tests.support.vocabularies import gpt2_files, hf_tokenizer_json, trained_vocabulary

if TYPE_CHECKING:
    from pathlib import Path


def _line(piece: bytes, rank: int) -> str:
    return f"{base64.b64encode(piece).decode()} {rank}\n"


def _bytes_text() -> str:
    return "".join(_line(bytes([value]), value) for value in range(256))


def test_the_three_formats_read_back_the_same_pieces_and_specials(tmp_path: Path) -> None:
    vocabulary = trained_vocabulary()
    rank_file = tmp_path / "small.tiktoken"
    rank_file.write_text(tiktoken_text(vocabulary))
    from_ranks = read_tiktoken_file(rank_file, special_tokens=vocabulary.special_tokens)
    from_hf = read_hf_tokenizer_json(hf_tokenizer_json(vocabulary, tmp_path / "tokenizer.json"))
    from_gpt2 = read_gpt2_files(*gpt2_files(vocabulary, tmp_path))
    assert from_ranks.pieces == from_hf.pieces == from_gpt2.pieces == vocabulary.pieces
    assert dict(from_hf.special_tokens) == dict(from_gpt2.special_tokens) == dict(vocabulary.special_tokens)
    assert len({from_ranks.sha256, from_hf.sha256, from_gpt2.sha256}) == 3
    assert all(len(digest) == 64 for digest in (from_ranks.sha256, from_hf.sha256, from_gpt2.sha256))


def test_read_vocabulary_picks_the_reader_by_the_path(tmp_path: Path) -> None:
    vocabulary = trained_vocabulary()
    (tmp_path / "v.tiktoken").write_text(tiktoken_text(vocabulary))
    hf = hf_tokenizer_json(vocabulary, tmp_path / "tokenizer.json")
    encoder, merges = gpt2_files(vocabulary, tmp_path)
    for spec in (str(tmp_path / "v.tiktoken"), str(hf), f"{encoder},{merges}"):
        assert read_vocabulary(spec).pieces == vocabulary.pieces


@pytest.mark.parametrize(
    ("extra", "line", "fact"),
    [
        (_line(b"a", 256), 257, "piece b'a' already has rank 97"),
        (_line(b"ab", 97), 257, "rank 97 is given to two pieces"),
        (_line(b"ab", 300), 257, "rank 256 is missing"),
        (_line(b"ab", 256) + _line(b"abcd", 257), 258, "b'abcd' (rank 257) is no join of two lower-rank pieces"),
        ("!!notbase64 256\n", 257, "is not base64"),
        (_line(b"ab", 256).replace("256", "x6"), 257, "is not a non-negative integer"),
        ("YWI= 256 extra\n", 257, "expected 'base64-piece rank'"),
    ],
)
def test_a_broken_rank_file_names_its_line_and_the_fact(extra: str, line: int, fact: str) -> None:
    with pytest.raises(VocabularyError) as raised:
        read_tiktoken_text(_bytes_text() + extra, "bad.tiktoken")
    message = str(raised.value)
    assert message.startswith(f"bad.tiktoken line {line}: ")
    assert fact in message
    assert "\n" not in message


def test_a_missing_byte_and_a_special_on_a_piece_rank_are_refused() -> None:
    without_zero = "".join(_line(bytes([value]), value - 1) for value in range(1, 256))
    with pytest.raises(VocabularyError, match=r"byte 0x00 has no rank"):
        read_tiktoken_text(without_zero, "x.tiktoken")
    with pytest.raises(VocabularyError, match=r"special token '<\|eot\|>' has id 5"):
        read_tiktoken_text(_bytes_text(), "x.tiktoken", special_tokens={"<|eot|>": 5})


def test_a_bad_byte_level_symbol_names_the_file_and_line(tmp_path: Path) -> None:
    vocabulary = trained_vocabulary()
    path = hf_tokenizer_json(vocabulary, tmp_path / "tokenizer.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["model"]["vocab"]["a\u4e00"] = 10_000  # U+4E00 is no byte-level symbol
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")
    with pytest.raises(VocabularyError) as raised:
        read_hf_tokenizer_json(path)
    assert str(raised.value).startswith(f"{path} line ")
    assert "U+4E00" in str(raised.value)


def test_gpt2_merges_that_disagree_with_the_encoder_are_refused(tmp_path: Path) -> None:
    encoder, merges = gpt2_files(trained_vocabulary(), tmp_path)
    lines = merges.read_text(encoding="utf-8").splitlines()
    lines[1], lines[2] = lines[2], lines[1]  # swap the first two merges: their ranks no longer match
    merges.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(
        VocabularyError, match=r"vocab\.bpe line 2: merge makes .* at rank 256, but the encoder gives it 257"
    ):
        read_gpt2_files(encoder, merges)


def test_unreadable_and_non_json_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(VocabularyError, match=r"cannot read"):
        read_vocabulary(str(tmp_path / "absent.tiktoken"))
    (tmp_path / "tokenizer.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"tokenizer\.json line 1: not JSON"):
        read_vocabulary(str(tmp_path / "tokenizer.json"))
    (tmp_path / "wordpiece.json").write_text('{"model": {"type": "WordPiece", "vocab": {}}}', encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"no BPE model"):
        read_vocabulary(str(tmp_path / "wordpiece.json"))
