"""Reading released vocabularies: the three formats agree, and each broken fact is a one-line error naming the line."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.reference.vocabulary import (
    Vocabulary,
    VocabularyError,
    read_gpt2_files,
    read_hf_tokenizer_json,
    read_tiktoken_file,
    read_tiktoken_text,
    read_vocabulary,
    tiktoken_text,
    vocabulary_from_pieces,
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
    hf_path = hf_tokenizer_json(vocabulary, tmp_path / "tokenizer.json")
    from_hf = read_hf_tokenizer_json(hf_path)
    encoder, merges = gpt2_files(vocabulary, tmp_path)
    from_gpt2 = read_gpt2_files(encoder, merges)
    assert from_ranks.pieces == from_hf.pieces == from_gpt2.pieces == vocabulary.pieces
    assert vocabulary.special_tokens
    assert dict(from_ranks.special_tokens) == dict(vocabulary.special_tokens)  # the specials it was given
    assert dict(from_hf.special_tokens) == dict(from_gpt2.special_tokens) == dict(vocabulary.special_tokens)
    assert len({from_ranks.sha256, from_hf.sha256, from_gpt2.sha256}) == 3
    assert all(len(digest) == 64 for digest in (from_ranks.sha256, from_hf.sha256, from_gpt2.sha256))
    # Every report names the vocabulary by its source: the file, or both of GPT-2's files.
    assert (from_ranks.source, from_hf.source, from_gpt2.source) == (
        str(rank_file),
        str(hf_path),
        f"{encoder},{merges}",
    )


def test_read_vocabulary_picks_the_reader_by_the_path(tmp_path: Path) -> None:
    vocabulary = trained_vocabulary()
    (tmp_path / "v.tiktoken").write_text(tiktoken_text(vocabulary))
    hf = hf_tokenizer_json(vocabulary, tmp_path / "tokenizer.json")
    encoder, merges = gpt2_files(vocabulary, tmp_path)
    for spec in (str(tmp_path / "v.tiktoken"), str(hf), f"{encoder},{merges}"):
        assert read_vocabulary(spec).pieces == vocabulary.pieces


def test_read_vocabulary_splits_gpt2_files_at_the_first_comma(tmp_path: Path) -> None:
    """The encoder's path ends at the first comma; the merges file's name may hold more."""
    vocabulary = trained_vocabulary()
    encoder, merges = gpt2_files(vocabulary, tmp_path)
    merges = merges.rename(tmp_path / "vocab,2,3.bpe")
    assert read_vocabulary(f"{encoder},{merges}").pieces == vocabulary.pieces


def test_a_rank_file_skips_blank_lines_and_keeps_a_digest_only_when_given() -> None:
    text = _bytes_text().replace(_line(b"a", 97), "\n" + _line(b"a", 97) + "  \n")
    vocabulary = read_tiktoken_text(text + _line(b"ab", 256), "x.tiktoken")
    assert vocabulary.pieces[97] == b"a"
    assert vocabulary.pieces[256:] == (b"ab",)
    assert vocabulary.sha256 == ""  # no file was read: no digest is claimed
    assert read_tiktoken_text(_bytes_text(), "x.tiktoken", sha256="ab12").sha256 == "ab12"


def test_a_tiny_rank_file_need_not_hold_every_byte() -> None:
    vocabulary = read_tiktoken_text(_line(b"a", 0) + _line(b"b", 1) + _line(b"ab", 2), "t", require_all_bytes=False)
    assert vocabulary.pieces == (b"a", b"b", b"ab")


@pytest.mark.parametrize("piece", ["Y!Q==", "YW*I="])
def test_a_piece_with_a_character_outside_base64_is_refused_and_named(piece: str) -> None:
    with pytest.raises(VocabularyError, match="is not base64") as raised:
        read_tiktoken_text(_bytes_text() + f"{piece} 256\n", "bad.tiktoken")
    assert repr(piece) in str(raised.value)
    assert "256" not in str(raised.value).partition(": ")[2]  # the piece is named, not its rank


def test_a_rank_file_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.tiktoken"
    path.write_bytes(_bytes_text().encode() + b"caf\xe9 256\n")
    with pytest.raises(VocabularyError, match="not UTF-8") as raised:
        read_tiktoken_file(path)
    assert str(raised.value).startswith(f"{path}: ")


def _ranked(*pieces: bytes) -> list[tuple[bytes, int, int | None]]:
    return [(piece, rank, rank + 1) for rank, piece in enumerate(pieces)]


@pytest.mark.parametrize(
    ("ranked", "line", "fact"),
    [
        ([(b"a", 0, 1), (b"", 1, 2)], 2, "an empty piece"),
        ([(b"a", 0, 1), (b"b", 2, 2)], 2, "rank 1 is missing"),  # a rank one past the end
        (_ranked(b"a", b"ab", b"b"), 2, "piece b'ab' (rank 1) is no join of two lower-rank pieces"),
    ],
)
def test_pieces_that_cannot_be_a_vocabulary_name_the_source_line_and_fact(
    ranked: list[tuple[bytes, int, int | None]], line: int, fact: str
) -> None:
    with pytest.raises(VocabularyError) as raised:
        vocabulary_from_pieces(ranked, "v.src", require_all_bytes=False)
    assert str(raised.value).startswith(f"v.src line {line}: ")
    assert fact in str(raised.value)


def test_pieces_need_every_byte_unless_told_and_claim_no_digest_unless_given() -> None:
    with pytest.raises(VocabularyError, match="byte 0x00 has no rank"):
        vocabulary_from_pieces(_ranked(b"a"), "v.src")
    assert vocabulary_from_pieces(_ranked(b"a"), "v.src", require_all_bytes=False).sha256 == ""


@pytest.mark.parametrize("special_id", [0, 1])
def test_a_special_token_on_the_rank_of_a_piece_names_the_source(special_id: int) -> None:
    with pytest.raises(VocabularyError, match=f"has id {special_id}, the rank of piece") as raised:
        vocabulary_from_pieces(
            _ranked(b"a", b"b"), "v.src", special_tokens={"<s>": special_id}, require_all_bytes=False
        )
    assert str(raised.value).startswith("v.src: ")


def test_an_unreadable_rank_file_names_the_file_and_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path as RealPath

    path = tmp_path / "v.tiktoken"
    path.write_text(_bytes_text())

    def unreadable(self: Path) -> bytes:
        raise OSError("the disk is unreadable")  # an OSError without errno, so no strerror

    monkeypatch.setattr(RealPath, "read_bytes", unreadable)
    with pytest.raises(VocabularyError, match="cannot read") as raised:
        read_tiktoken_file(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert "the disk is unreadable" in str(raised.value)


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
    with pytest.raises(VocabularyError, match=r"byte 0x00 has no rank") as raised:
        read_tiktoken_text(without_zero, "x.tiktoken")
    assert str(raised.value).startswith("x.tiktoken: ")  # no line holds the missing byte: none is named
    with pytest.raises(VocabularyError, match=r"special token '<\|eot\|>' has id 5"):
        read_tiktoken_text(_bytes_text(), "x.tiktoken", special_tokens={"<|eot|>": 5})


def _line_holding(text: str, key: str) -> int:
    """The 1-based number of the line whose entry has the JSON key ``key`` (counted apart from the reader)."""
    return next(number for number, line in enumerate(text.split("\n"), start=1) if line.lstrip().startswith(f"{key}:"))


@pytest.mark.parametrize("leading", ["", "\n"])
@pytest.mark.parametrize("token", ["a\u4e00", "\u4e00\u4e01"])  # U+4E00 and U+4E01 are no byte-level symbols
def test_a_bad_byte_level_symbol_names_the_file_and_line(tmp_path: Path, token: str, leading: str) -> None:
    vocabulary = trained_vocabulary()
    path = hf_tokenizer_json(vocabulary, tmp_path / "tokenizer.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["model"]["vocab"][token] = 10_000
    text = leading + json.dumps(document, ensure_ascii=False, indent=1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(VocabularyError) as raised:
        read_hf_tokenizer_json(path)
    assert str(raised.value).startswith(f"{path} line {_line_holding(text, json.dumps(token, ensure_ascii=False))}: ")
    assert "U+4E00" in str(raised.value)


def test_a_bad_symbol_the_reader_cannot_find_in_the_text_is_named_without_a_line(tmp_path: Path) -> None:
    # The token's text is in the file neither raw nor escaped (written with other escapes): no line is guessed.
    path = hf_tokenizer_json(trained_vocabulary(), tmp_path / "tokenizer.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["model"]["vocab"]["a\u4e00"] = 10_000
    path.write_text(json.dumps(document, indent=1).replace("a\\u4e00", "\\u0061\\u4e00"), encoding="utf-8")
    with pytest.raises(VocabularyError) as raised:
        read_hf_tokenizer_json(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert "U+4E00" in str(raised.value)


@pytest.mark.parametrize(
    ("token", "value", "ensure_ascii"),
    [("a\u4e00", 10_000, True), ("\u012012", "x", False), ("\u012012", "x", True)],
)
def test_a_bad_entry_is_found_on_its_line_written_raw_or_escaped(
    tmp_path: Path, token: str, value: object, ensure_ascii: bool
) -> None:
    """HF writes raw UTF-8 ('Ġ12' as such), other writers JSON escapes ('\\u0120'): either way the line is named."""
    path = hf_tokenizer_json(trained_vocabulary(), tmp_path / "tokenizer.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["model"]["vocab"][token] = value
    text = json.dumps(document, ensure_ascii=ensure_ascii, indent=1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(VocabularyError) as raised:
        read_hf_tokenizer_json(path)
    line = _line_holding(text, json.dumps(token, ensure_ascii=ensure_ascii))
    assert str(raised.value).startswith(f"{path} line {line}: ")


@pytest.mark.parametrize("bad_id", ["259", True, 259.0])
def test_a_tokenizer_json_id_that_is_no_integer_names_the_file_line_and_token(tmp_path: Path, bad_id: object) -> None:
    vocabulary = trained_vocabulary()
    path = hf_tokenizer_json(vocabulary, tmp_path / "tokenizer.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    # Merges as pairs (as tokenizers 0.20 writes them): the token is written again after its vocab entry.
    document["model"]["merges"] = [merge.split(" ") for merge in document["model"]["merges"]]
    assert ["t", "he"] in document["model"]["merges"]
    document["model"]["vocab"]["he"] = bad_id
    text = json.dumps(document, ensure_ascii=False, indent=1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(VocabularyError) as raised:
        read_hf_tokenizer_json(path)
    assert str(raised.value).startswith(f"{path} line {_line_holding(text, json.dumps('he'))}: ")
    assert repr("he") in str(raised.value)


def test_added_tokens_that_are_not_a_text_and_an_id_are_not_specials(tmp_path: Path) -> None:
    vocabulary = trained_vocabulary()
    path = hf_tokenizer_json(vocabulary, tmp_path / "tokenizer.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["added_tokens"] += ["<|x|>", {"content": 5, "id": 9_000}, {"id": 9_001}, {"content": "<|y|>"}]
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert dict(read_hf_tokenizer_json(path).special_tokens) == dict(vocabulary.special_tokens)


def test_gpt2_merges_that_disagree_with_the_encoder_are_refused(tmp_path: Path) -> None:
    encoder, merges = gpt2_files(trained_vocabulary(), tmp_path)
    lines = merges.read_text(encoding="utf-8").splitlines()
    lines[1], lines[2] = lines[2], lines[1]  # swap the first two merges: their ranks no longer match
    merges.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(
        VocabularyError, match=r"vocab\.bpe line 2: merge makes .* at rank 256, but the encoder gives it 257"
    ):
        read_gpt2_files(encoder, merges)


def _merge_lines(merges: Path) -> list[str]:
    return merges.read_text(encoding="utf-8").splitlines()


def test_gpt2_files_read_the_same_without_a_version_line_or_with_the_specials_first(tmp_path: Path) -> None:
    # GPT-2's <|endoftext|> has the first id past the merges (50256 = 256 + 50000); JSON keys have no order.
    pieces = trained_vocabulary().pieces
    vocabulary = Vocabulary(pieces, {"<|endoftext|>": len(pieces), "<|pad|>": len(pieces) + 1})
    encoder, merges = gpt2_files(vocabulary, tmp_path)
    merges.write_text("\n".join(_merge_lines(merges)[1:]) + "\n", encoding="utf-8")  # no "#version" line
    entries = json.loads(encoder.read_text(encoding="utf-8"))
    specials_first = {**vocabulary.special_tokens, **entries}
    encoder.write_text(json.dumps(specials_first, ensure_ascii=False), encoding="utf-8")
    read = read_gpt2_files(encoder, merges)
    assert read.pieces == vocabulary.pieces
    assert dict(read.special_tokens) == dict(vocabulary.special_tokens)


@pytest.mark.parametrize("spacing", ["{} {} {}", "{}  {}", "{} {} ", "{}{}"])
def test_a_gpt2_merge_line_not_of_two_tokens_and_one_space_names_the_file_and_line(
    tmp_path: Path, spacing: str
) -> None:
    encoder, merges = gpt2_files(trained_vocabulary(), tmp_path)
    lines = _merge_lines(merges)
    first, second = lines[4].split(" ")
    lines[4] = spacing.format(first, second, "x")  # the right tokens, but not as two and one space apart
    merges.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(VocabularyError) as raised:
        read_gpt2_files(encoder, merges)
    assert str(raised.value).startswith(f"{merges} line 5: ")
    assert repr(lines[4]) in str(raised.value)


@pytest.mark.parametrize("side", [0, 1])
def test_a_bad_symbol_in_a_gpt2_merge_names_the_file_and_line(tmp_path: Path, side: int) -> None:
    encoder, merges = gpt2_files(trained_vocabulary(), tmp_path)
    lines = _merge_lines(merges)
    parts = lines[6].split(" ")
    parts[side] += "\u4e00"
    lines[6] = " ".join(parts)
    merges.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(VocabularyError) as raised:
        read_gpt2_files(encoder, merges)
    assert str(raised.value).startswith(f"{merges} line 7: ")
    assert "U+4E00" in str(raised.value)


@pytest.mark.parametrize(("token", "value"), [("he", "259"), ("he", False), ("a\u4e00", 300)])
def test_a_bad_gpt2_encoder_entry_names_the_file_line_and_token(tmp_path: Path, token: str, value: object) -> None:
    encoder, merges = gpt2_files(trained_vocabulary(), tmp_path)
    entries = json.loads(encoder.read_text(encoding="utf-8"))
    entries[token] = value
    text = json.dumps(entries, ensure_ascii=False, indent=1)
    encoder.write_text(text, encoding="utf-8")
    with pytest.raises(VocabularyError) as raised:
        read_gpt2_files(encoder, merges)
    assert str(raised.value).startswith(
        f"{encoder} line {_line_holding(text, json.dumps(token, ensure_ascii=False))}: "
    )
    assert repr(token) in str(raised.value) or "U+4E00" in str(raised.value)


def test_unreadable_gpt2_files_name_the_file_at_fault(tmp_path: Path) -> None:
    encoder, merges = gpt2_files(trained_vocabulary(), tmp_path)
    good_encoder, good_merges = encoder.read_bytes(), merges.read_bytes()
    for encoder_data, merges_data, at_fault in [
        (b'{"a": 0,\n "b": }', good_merges, f"{encoder} line 2: "),
        (b'["a", "b"]', good_merges, f"{encoder}: "),
        (good_encoder, good_merges + "caf\u00e9 x\n".encode("latin-1"), f"{merges}: "),
    ]:
        encoder.write_bytes(encoder_data)
        merges.write_bytes(merges_data)
        with pytest.raises(VocabularyError) as raised:
            read_gpt2_files(encoder, merges)
        assert str(raised.value).startswith(at_fault)


def test_unreadable_and_non_json_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(VocabularyError, match=r"cannot read"):
        read_vocabulary(str(tmp_path / "absent.tiktoken"))
    (tmp_path / "tokenizer.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"tokenizer\.json line 1: not JSON"):
        read_vocabulary(str(tmp_path / "tokenizer.json"))
    (tmp_path / "wordpiece.json").write_text('{"model": {"type": "WordPiece", "vocab": {}}}', encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"no BPE model"):
        read_vocabulary(str(tmp_path / "wordpiece.json"))
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"no BPE model") as raised:
        read_vocabulary(str(tmp_path / "list.json"))
    assert str(raised.value).startswith(f"{tmp_path / 'list.json'}: ")
    (tmp_path / "latin1.json").write_bytes(b'{"model": "caf\xe9"}')
    with pytest.raises(VocabularyError, match=r"UTF-8") as raised:
        read_vocabulary(str(tmp_path / "latin1.json"))
    assert str(raised.value).startswith(f"{tmp_path / 'latin1.json'}: ")
