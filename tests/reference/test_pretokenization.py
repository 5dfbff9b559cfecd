"""The production profiles: the released patterns, what they split, and the literal encoder against tiktoken."""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any

import pytest
from hypothesis import given

from bpe_conformance.inputs.split_texts import split_texts
from bpe_conformance.reference.pretokenization import (
    CL100K,
    GPT2,
    O200K,
    SPLIT_PROFILES,
    TRAINING_SPLITS,
    PatternError,
    SplitProfile,
    decode_production,
    encode_chunk,
    encode_chunk_fast,
    encode_production,
    encode_production_fast,
    get_split_profile,
    get_training_split,
    split_text,
)
from bpe_conformance.reference.vocabulary import Vocabulary, vocabulary_from_pieces
from tests.support.vocabularies import trained_vocabulary

VOCABULARY = trained_vocabulary()


def test_the_patterns_and_specials_are_tiktokens_own() -> None:
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    released = {"gpt2": "r50k_base", "cl100k": "cl100k_base", "o200k": "o200k_base"}
    for profile_name, constructor in released.items():
        source = openai_public.ENCODING_CONSTRUCTORS[constructor]
        # The constructors download the ranks; the pattern and specials are plain literals in their source.
        text = inspect.getsource(source)
        profile = SPLIT_PROFILES[profile_name]
        for special, token_id in profile.special_tokens.items():
            name = {"<|endoftext|>": "ENDOFTEXT", "<|endofprompt|>": "ENDOFPROMPT"}.get(
                special, special.strip("<|>").upper()
            )
            assert f"{name}: {token_id}" in text
    assert GPT2.pattern == openai_public.r50k_pat_str


@pytest.mark.parametrize(
    ("profile", "text", "chunks"),
    [
        (CL100K, "I'LL go", ["I", "'LL", " go"]),
        (GPT2, "I'LL go", ["I", "'", "LL", " go"]),  # r50k's contractions are lower case only
        (CL100K, "1234567", ["123", "456", "7"]),
        (GPT2, "1234567", ["1234567"]),
        (CL100K, "a   b", ["a", "  ", " b"]),  # the last space goes with the word: \s+(?!\S)
        (CL100K, "a\r\n\r\nb", ["a", "\r\n\r\n", "b"]),
        (CL100K, "x\u00a0y", ["x", "\u00a0y"]),  # NBSP is whitespace, and also the one non-letter before a word
        (CL100K, "naïve", ["naïve"]),
        (O200K, "HTTPServer's", ["HTTPServer's"]),
        (O200K, "helloWorld", ["hello", "World"]),
        (CL100K, "<|endoftext|>", ["<|", "endoftext", "|>"]),
        (CL100K, "end  ", ["end", "  "]),
    ],
)
def test_what_each_released_pattern_splits(profile: SplitProfile, text: str, chunks: list[str]) -> None:
    assert split_text(text, profile) == chunks


def test_a_lone_surrogate_is_split_and_encoded_as_u_fffd() -> None:
    assert split_text("a\ud800b", CL100K) == split_text("a\ufffdb", CL100K)
    assert encode_production("a\ud800", VOCABULARY, CL100K) == encode_production("a\ufffd", VOCABULARY, CL100K)


def test_a_pattern_the_regex_engine_cannot_compile_is_a_clear_error() -> None:
    with pytest.raises(PatternError, match=r"broken: the regex package cannot compile the split pattern '\(\?<x'"):
        SplitProfile("broken", "", "(?<x", "test", "none", 0)


def test_a_chunk_that_is_a_piece_is_that_piece_even_when_merging_would_not_reach_it() -> None:
    pieces = [bytes([value]) for value in range(256)] + [b"bc", b"ab", b"cd", b"abcd"]
    vocabulary = vocabulary_from_pieces([(piece, rank, None) for rank, piece in enumerate(pieces)], "test")
    assert encode_chunk(b"abcd", vocabulary) == [259]
    assert encode_chunk(b"abcde", vocabulary) == [97, 256, 100, 101]  # "bc" first, then nothing joins


def test_a_production_profile_is_found_by_its_name_and_an_unknown_name_lists_the_known_ones() -> None:
    for name, profile in SPLIT_PROFILES.items():
        assert get_split_profile(name) is profile
    for unknown in ("cl100k_base", "GPT2", None, 3):
        # A ValueError naming the name (not a KeyError or TypeError): compare makes it a usage error.
        with pytest.raises(ValueError, match=re.escape(repr(unknown))) as raised:
            get_split_profile(unknown)
        assert all(name in str(raised.value) for name in SPLIT_PROFILES)


def test_decode_joins_pieces_and_specials_and_refuses_unknown_ids() -> None:
    special = VOCABULARY.special_tokens["<|endoftext|>"]
    assert decode_production([*encode_production("hi ", VOCABULARY, CL100K), special], VOCABULARY) == "hi <|endoftext|>"
    assert decode_production([VOCABULARY.rank_of[b"\xe6"]], VOCABULARY) == "\ufffd"
    with pytest.raises(ValueError, match=rf"unknown id {special - 1} at position 0"):
        decode_production([special - 1], VOCABULARY)


@pytest.mark.parametrize(("text", "kept"), [("a\udfffb", "a\ufffdb"), ("a\ue000b", "a\ue000b")])
def test_every_lone_surrogate_and_only_a_surrogate_is_split_as_u_fffd(text: str, kept: str) -> None:
    assert "".join(split_text(text, GPT2)) == kept


def test_split_text_refuses_what_is_not_a_str_naming_its_type() -> None:
    with pytest.raises(TypeError, match=r"not bytes$"):
        split_text(b"ab", GPT2)  # type: ignore[arg-type]


def test_a_pattern_that_skips_a_character_names_the_profile_and_the_text() -> None:
    letters = dataclasses.replace(GPT2, name="letters-only", pattern=r"\p{L}+")
    with pytest.raises(ValueError, match="does not cover") as raised:
        split_text("ab cd", letters)
    assert "'letters-only'" in str(raised.value)
    assert "'ab cd'" in str(raised.value)


@pytest.mark.parametrize(
    ("pieces", "chunk"),
    [
        ([b"a", b"b", b"c", b"ac", b"ab", b"bc", b"ba"], b"ccbababcc"),
        ([b"a", b"b", b"c", b"aa", b"cb", b"aaaa", b"acb", b"cbaaaa"], b"aaacbcaac"),
    ],
)
def test_the_fast_chunk_encoder_skips_pairs_whose_parts_changed_since_they_were_queued(
    pieces: list[bytes], chunk: bytes
) -> None:
    vocabulary = vocabulary_from_pieces(
        [(piece, rank, None) for rank, piece in enumerate(pieces)], "v", require_all_bytes=False
    )
    assert encode_chunk_fast(chunk, vocabulary) == encode_chunk(chunk, vocabulary)


@pytest.mark.parametrize(
    ("ids", "position", "kind"), [([True], 0, "bool"), ([0, "1"], 1, "str"), ([0, 1.0], 1, "float")]
)
def test_decode_refuses_an_id_that_is_not_an_int_naming_its_position_and_type(
    ids: list[Any], position: int, kind: str
) -> None:
    with pytest.raises(TypeError, match=rf"position {position} must be an int, not {kind}$"):
        decode_production(ids, VOCABULARY)


@pytest.mark.parametrize("name", ["cl100k_base", "GPT2", None, 3])
def test_an_unknown_training_split_is_a_value_error_listing_the_known_ones(name: object) -> None:
    assert get_training_split("rustbpe") is TRAINING_SPLITS["rustbpe"]
    with pytest.raises(ValueError, match=re.escape(f"unknown split {name!r}")) as raised:
        get_training_split(name)
    assert str(raised.value).rpartition(": ")[2].split(", ") == list(TRAINING_SPLITS)


@pytest.mark.parametrize("profile", list(SPLIT_PROFILES.values()), ids=list(SPLIT_PROFILES))
@given(text=split_texts(max_run=60))
def test_round_trip_and_chunks_cover_the_text(profile: SplitProfile, text: str) -> None:
    assert "".join(split_text(text, profile)) == text
    assert decode_production(encode_production(text, VOCABULARY, profile), VOCABULARY) == text


@pytest.mark.parametrize("profile", list(SPLIT_PROFILES.values()), ids=list(SPLIT_PROFILES))
@given(text=split_texts(max_run=60))
def test_the_literal_encoder_gives_tiktokens_ids(profile: SplitProfile, text: str) -> None:
    tiktoken = pytest.importorskip("tiktoken")
    encoding: Any = _tiktoken_encoding(tiktoken, profile)  # a tiktoken.Encoding: tiktoken is untyped
    assert encode_production(text, VOCABULARY, profile) == encoding.encode(text, disallowed_special=())


_ENCODINGS: dict[str, object] = {}


def _tiktoken_encoding(tiktoken: object, profile: SplitProfile) -> object:
    if profile.name not in _ENCODINGS:
        _ENCODINGS[profile.name] = tiktoken.Encoding(  # type: ignore[attr-defined]
            name=f"test-{profile.name}",
            pat_str=profile.pattern,
            mergeable_ranks=dict(VOCABULARY.rank_of),
            special_tokens=dict(VOCABULARY.special_tokens),
        )
    return _ENCODINGS[profile.name]


@given(text=split_texts(max_run=300))
def test_the_fast_encoder_equals_the_literal_one(text: str) -> None:
    for profile in SPLIT_PROFILES.values():
        assert encode_production_fast(text, VOCABULARY, profile) == encode_production(text, VOCABULARY, profile)


def test_the_fast_encoder_equals_the_literal_one_on_long_runs() -> None:
    for unit in (b" ", b"a", b"1", "日".encode(), b"ab"):
        run = unit * 700
        assert encode_chunk_fast(run, VOCABULARY) == encode_chunk(run, VOCABULARY)


@pytest.mark.parametrize("encode", [encode_chunk, encode_chunk_fast])
def test_a_byte_without_a_rank_is_named_with_the_vocabulary(encode: Any) -> None:
    """A vocabulary built in memory need not hold every byte: the first byte left without a rank is named."""
    vocabulary = Vocabulary((b"a", b"b", b"ab"), source="two-letters")
    assert encode(b"abab", vocabulary) == [2, 2]
    with pytest.raises(ValueError, match=r"^byte b'x' has no rank in the vocabulary two-letters$"):
        encode(b"xaby", vocabulary)
