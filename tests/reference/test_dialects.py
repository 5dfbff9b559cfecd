"""The profile-parameterized reference: equal to strict under STRICT, different only where documented."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance import reference
from bpe_conformance.reference.alphabet import BYTE_COUNT
from bpe_conformance.reference.counting import count_pairs
from bpe_conformance.reference.dialects import (
    _byte_level_alphabet,
    byte_level_symbol,
    check_profile_rules,
    decode_profile,
    decode_profile_bytes,
    encode_profile,
    hf_order_key,
    piece_rank_merge,
    profile_pieces,
    profile_training_rounds,
    rank_order_merge,
    select_profile_pair,
    train_profile,
    training_sequences,
)
from bpe_conformance.reference.profiles import (
    BPEASY,
    HF_TOKENIZERS,
    LARGEST_PAIR,
    MINBPE,
    PROFILES,
    RUSTBPE,
    STRICT,
    STRING_KEY,
    SUBWORD_NMT,
    TIKTOKEN,
    Profile,
)
from bpe_conformance.reference.replacement import replace_pair
from bpe_conformance.reference.training import training_rounds

if TYPE_CHECKING:
    from collections.abc import Callable

# Few distinct characters (one to three bytes each) so that pairs repeat and ties are common.
texts = st.text(alphabet="ab a\u00e9\u4f4e\n", max_size=24)
documents = st.lists(texts, max_size=5)
TRAINABLE = [profile for profile in PROFILES.values() if profile.tie_break is not None]


def _outcome(call: Callable[[], object]) -> tuple[object, ...]:
    try:
        return ("returned", call())
    except (TypeError, ValueError) as error:
        return ("raised", type(error), str(error))


# --- STRICT is the strict reference, exactly ---


@given(documents, st.integers(min_value=0, max_value=12), texts)
def test_strict_profile_equals_the_strict_reference(docs: list[str], max_merges: int, text: str) -> None:
    """BPE-PROP-DETERMINISM: "the exact id sequence is the contract" — under STRICT the dialect
    reference trains the same rules and encodes and decodes to the same ids and text as reference."""
    rules = train_profile(docs, max_merges, STRICT)
    assert rules == reference.train(docs, max_merges)
    ids = encode_profile(text, rules, STRICT)
    assert ids == reference.encode(text, rules)
    assert decode_profile(ids, rules, STRICT) == reference.decode(ids, rules) == text


@given(st.lists(st.integers(min_value=-2, max_value=300), max_size=6))
def test_strict_profile_decodes_any_ids_like_the_reference(ids: list[int]) -> None:
    """BPE-DECODE-STRICT: "unknown ids and invalid UTF-8 are ValueErrors in text decoding" — the
    same answer or the same error as reference.decode, for any ids."""
    rules = [(97, 98), (258, 99)]
    assert _outcome(lambda: decode_profile(ids, rules, STRICT)) == _outcome(lambda: reference.decode(ids, rules))


@pytest.mark.parametrize(
    ("call", "strict_call"),
    [
        # wrong type on purpose: the call must be refused
        (lambda: train_profile("abab", 1, STRICT), lambda: reference.train("abab", 1)),  # type: ignore[arg-type]
        (lambda: train_profile(["ab"], True, STRICT), lambda: reference.train(["ab"], True)),
        (lambda: train_profile(["ab"], -1, STRICT), lambda: reference.train(["ab"], -1)),
        # wrong type on purpose: the call must be refused
        (lambda: encode_profile(b"ab", [], STRICT), lambda: reference.encode(b"ab", [])),  # type: ignore[arg-type]
        (lambda: encode_profile("a\udc80", [], STRICT), lambda: reference.encode("a\udc80", [])),
    ],
)
def test_strict_profile_rejects_bad_input_like_the_reference(
    call: Callable[[], object], strict_call: Callable[[], object]
) -> None:
    assert _outcome(call)[0] == "raised"
    assert _outcome(call) == _outcome(strict_call)


# --- what holds for every greedy BPE, whatever the profile ---


@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
@given(docs=documents, max_merges=st.integers(min_value=0, max_value=10))
def test_every_dialect_replays_its_own_training(profile: Profile, docs: list[str], max_merges: int) -> None:
    """BPE-ENCODE-ORDER: "Encoding applies the rules in rank order" — for a rank-order dialect with
    separate documents, encoding a training document gives exactly its final training sequence,
    and every dialect's rules refer only to bytes and earlier rules (BPE-RULE-REF)."""
    rules = train_profile(docs, max_merges, profile)
    assert check_profile_rules(rules, profile) == rules
    assert len(rules) <= max_merges
    if profile.documents == "separate" and profile.encode_algorithm == "rank-order":
        sequences = training_sequences(docs, profile)
        for rank, pair in enumerate(rules):
            sequences = [reference.replace_pair(sequence, pair, profile.first_rule_id + rank) for sequence in sequences]
        assert [encode_profile(doc, rules, profile) for doc in docs] == sequences


@pytest.mark.parametrize("profile", list(PROFILES.values()), ids=lambda profile: profile.name)
@given(docs=documents, text=texts)
def test_every_dialect_round_trips(profile: Profile, docs: list[str], text: str) -> None:
    """BPE-ROUNDTRIP: "decode(encode(t)) == t" holds in every dialect, whatever its encode algorithm."""
    trainer = profile if profile.tie_break else dataclasses.replace(profile, tie_break="smallest-ids")
    rules = train_profile(docs, 8, trainer)
    assert decode_profile(encode_profile(text, rules, profile), rules, profile) == text


@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
@given(docs=documents)
def test_every_dialect_stops_at_its_min_count(profile: Profile, docs: list[str]) -> None:
    """BPE-TRAIN-STOP: "Stop when the best count is < 2" — in a dialect, below its min_count:
    every rule was counted at least min_count times, and one more round would find none."""
    rules = train_profile(docs, 64, profile)
    sequences = training_sequences(docs, profile)
    pieces = profile_pieces([], profile)
    for rank, pair in enumerate(rules):
        counts = reference.count_pairs(sequences)
        assert counts[pair] >= profile.min_count
        assert select_profile_pair(counts, pieces, profile) == pair
        sequences = [reference.replace_pair(sequence, pair, profile.first_rule_id + rank) for sequence in sequences]
        pieces.append(pieces[pair[0]] + pieces[pair[1]])
    if len(rules) < 64:
        assert select_profile_pair(reference.count_pairs(sequences), pieces, profile) is None


# --- tie-breaks: each dialect differs from strict exactly on its tie rule (BPE-TRAIN-TIE) ---


@pytest.mark.parametrize(
    ("docs", "expected"),
    [
        # (99,100) is counted first, (97,98) is the smaller integer pair.
        (
            ["cdcdabab"],
            {
                "strict": (97, 98),
                "minbpe": (99, 100),
                "subword-nmt": (99, 100),
                "largest-pair": (99, 100),
                "hf-tokenizers": (97, 98),
                "string-key": (97, 98),
                "rustbpe": (97, 98),
            },
        ),
        # '100,101' < '99,102' as text: only string-key and the largest-pair rules pick (100,101).
        (
            ["dedecfcf"],
            {
                "strict": (99, 102),
                "minbpe": (100, 101),
                "subword-nmt": (100, 101),
                "largest-pair": (100, 101),
                "hf-tokenizers": (99, 102),
                "string-key": (100, 101),
            },
        ),
        # The space (32) sorts after the letters in HF's byte-level alphabet ('Ġ' is U+0120).
        (
            [" a a", "bcbc"],
            {
                "strict": (32, 97),
                "minbpe": (32, 97),
                "subword-nmt": (98, 99),
                "largest-pair": (98, 99),
                "hf-tokenizers": (98, 99),
                "string-key": (32, 97),
            },
        ),
    ],
)
def test_first_rule_of_a_tie_per_dialect(docs: list[str], expected: dict[str, tuple[int, int]]) -> None:
    for name, pair in expected.items():
        assert train_profile(docs, 1, PROFILES[name]) == [pair], name


def test_largest_pieces_and_largest_ids_differ_once_rules_take_part_in_a_tie() -> None:
    # Round 2 ties (aa, c) with (b, c): 'aa' has the larger id (256) but the smaller piece.
    docs = ["aaaa", "aacaac", "bcbc"]
    assert train_profile(docs, 2, LARGEST_PAIR) == [(97, 97), (256, 99)]
    assert train_profile(docs, 2, SUBWORD_NMT) == [(97, 97), (98, 99)]
    assert train_profile(docs, 2, STRICT) == [(97, 97), (98, 99)]
    assert train_profile(docs, 2, STRING_KEY) == [(97, 97), (256, 99)]  # '256,99' < '98,99'
    # minbpe joins the documents: 'aaaa' + 'aacaac' starts with six a's, so (aa, aa) wins outright.
    assert train_profile(docs, 2, MINBPE) == [(97, 97), (256, 256)]


def test_hf_order_puts_printable_bytes_first_and_rules_after_every_byte() -> None:
    assert [byte_level_symbol(value) for value in (33, 126, 161, 173, 255, 32)] == ["!", "~", "¡", "Ń", "ÿ", "Ġ"]
    assert hf_order_key(97) < hf_order_key(32) < hf_order_key(0 + 256)
    assert max(hf_order_key(value) for value in range(256)) < hf_order_key(256)
    assert len({byte_level_symbol(value) for value in range(256)}) == 256


def test_worked_low_example_is_the_same_first_rule_in_every_trainable_dialect() -> None:
    # (189,142) ties with (228,189); every tie rule here happens to pick (189,142) but first-seen.
    assert train_profile(["低" * 30], 2, STRICT) == [(189, 142), (228, 258)]
    assert train_profile(["低" * 30], 2, HF_TOKENIZERS) == [(189, 142), (228, 256)]
    assert train_profile(["低" * 30], 2, MINBPE) == [(228, 189), (256, 142)]


# --- stop threshold, numbering, documents (BPE-TRAIN-STOP, BPE-RULE-ID, BPE-TRAIN-DOCS) ---


def test_min_count_one_merges_pairs_seen_once() -> None:
    assert train_profile(["abcd"], 2, STRICT) == []
    assert train_profile(["abcd"], 2, RUSTBPE) == [(97, 98), (99, 100)]  # (99,100) < (256,99)
    assert train_profile(["abcd"], 2, MINBPE) == [(97, 98), (256, 99)]


def test_min_count_one_stops_when_no_pair_is_left() -> None:
    assert train_profile(["ab", "ab"], 5, RUSTBPE) == [(97, 98)]


def test_minbpe_stops_when_no_pair_is_left_before_max_merges() -> None:
    """minbpe's library raises here (a defect, docs/findings.md); its profile, a design, stops."""
    assert train_profile(["ab"], 2, MINBPE) == train_profile(["ab"], 1, MINBPE) == [(97, 98)]


def test_rule_ids_follow_the_profile_numbering() -> None:
    assert train_profile(["aaaa"], 2, STRICT) == [(97, 97)]
    assert train_profile(["aaaa"], 2, RUSTBPE) == [(97, 97), (256, 256)]


def test_concatenated_documents_count_across_the_joins() -> None:
    assert train_profile(["a", "b", "a", "b"], 1, STRICT) == []
    assert train_profile(["a", "b", "a", "b"], 1, MINBPE) == [(97, 98)]
    assert training_sequences(["ab", "c"], MINBPE) == [[97, 98, 99]]


def test_a_document_separator_sits_between_concatenated_documents() -> None:
    spaced = dataclasses.replace(MINBPE, name="joined-by-space", document_separator=" ")
    assert training_sequences(["ab", "c"], spaced) == [[97, 98, 32, 99]]


def test_pre_tokenization_splits_training_and_encoding_into_chunks() -> None:
    words = dataclasses.replace(STRICT, name="words", pre_tokenization=r"\s*\S+|\s+")
    assert training_sequences(["a b"], words) == [[97], [32, 98]]
    # " a" twice inside chunks; "a " never, because the space starts the next chunk.
    assert train_profile(["a a a"], 1, words) == [(32, 97)]
    assert train_profile(["a a a"], 1, STRICT) == [(32, 97)]
    assert encode_profile("a a", [(97, 32)], words) == [97, 32, 97]
    assert encode_profile("a a", [(97, 32)], STRICT) == [258, 97]


def test_pre_tokenization_must_cover_the_text() -> None:
    letters_only = dataclasses.replace(STRICT, name="letters", pre_tokenization=r"[a-z]+")
    with pytest.raises(ValueError, match="pre_tokenization pattern does not cover the text 'a b'"):
        train_profile(["a b"], 1, letters_only)


def test_encode_only_profile_cannot_train() -> None:
    with pytest.raises(ValueError, match="profile 'tiktoken' is encode-only"):
        train_profile(["abab"], 1, TIKTOKEN)


def test_max_merges_is_checked_before_the_profile() -> None:
    with pytest.raises(TypeError, match="max_merges must be an int, not bool"):
        train_profile(["abab"], True, TIKTOKEN)


# --- encoding: rank order vs piece rank (BPE-ENCODE-ORDER, BPE-ENCODE-LOWEST) ---


def test_piece_rank_joins_a_piece_its_rule_would_not() -> None:
    rules = [(98, 99), (97, 98), (257, 99)]  # 'bc', 'ab', then 'abc' made as ('ab', 'c')
    assert rank_order_merge(b"abc", rules, 256) == [97, 256]
    assert piece_rank_merge(b"abc", rules, 256) == [258]
    assert encode_profile("abc", rules, RUSTBPE) == [97, 256]
    assert encode_profile("abc", rules, BPEASY) == [258]


def test_piece_rank_merges_the_leftmost_of_equal_ranks() -> None:
    assert piece_rank_merge(b"aaa", [(97, 97)], 256) == [256, 97]


def test_piece_rank_keeps_the_lowest_id_of_a_repeated_piece() -> None:
    rules = [(97, 98), (97, 98)]
    assert piece_rank_merge(b"ab", rules, 256) == [256]
    assert rank_order_merge(b"ab", rules, 256) == [256]


def test_lone_surrogates_are_replaced_only_where_the_profile_says() -> None:
    assert encode_profile("a\udc80b", [], TIKTOKEN) == [97, 239, 191, 189, 98]
    with pytest.raises(ValueError, match="lone surrogate U\\+DC80 at index 1"):
        encode_profile("a\udc80b", [], RUSTBPE)


# --- decoding policies (BPE-DECODE-STRICT, BPE-ALPHA-BOUNDARY) ---


def test_decode_policies_on_a_cut_character() -> None:
    with pytest.raises(ValueError, match="invalid UTF-8"):
        decode_profile([228, 189], [], RUSTBPE)
    assert decode_profile([228, 189], [], MINBPE) == "\ufffd"
    assert decode_profile([228, 189], [], HF_TOKENIZERS) == "\ufffd"


def test_decode_policies_on_an_unknown_id() -> None:
    with pytest.raises(ValueError, match="id 300 at position 1 is not in the vocabulary"):
        decode_profile([97, 300], [], MINBPE)
    assert decode_profile([97, 300, 98], [], HF_TOKENIZERS) == "ab"
    assert decode_profile_bytes([97, 300], [], HF_TOKENIZERS) == b"a"


def test_skip_unknown_still_checks_id_types_and_signs() -> None:
    with pytest.raises(TypeError, match="id at position 0 must be an int, not str"):
        # wrong type on purpose: the call must be refused
        decode_profile(["a"], [], HF_TOKENIZERS)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="id -1 at position 0 is not in the vocabulary"):
        decode_profile([-1], [], HF_TOKENIZERS)


def test_id_256_is_a_boundary_in_strict_and_a_rule_or_unknown_elsewhere() -> None:
    assert decode_profile([97, 256, 98], [], STRICT) == "ab"
    assert decode_profile([97, 256, 98], [(120, 121)], MINBPE) == "axyb"
    with pytest.raises(ValueError, match="id 256 at position 1"):
        decode_profile([97, 256, 98], [], MINBPE)
    assert profile_pieces([(97, 98)], MINBPE)[256:] == [b"ab"]
    assert profile_pieces([(97, 98)], STRICT)[256:] == [b"", b"", b"ab"]


# --- rules in a profile's numbering (BPE-RULE-REF, BPE-INPUT-RULES) ---


def test_profile_rules_may_refer_to_earlier_rules_from_256() -> None:
    assert check_profile_rules([(97, 98), [256, 99]], MINBPE) == [(97, 98), (256, 99)]


@pytest.mark.parametrize(
    ("rules", "error", "message"),
    [
        ([(97, 256)], ValueError, r"rule 0 \(id 256\) refers to id 256; in profile 'minbpe' a rule may refer only"),
        ([(-1, 97)], ValueError, r"rule 0 \(id 256\) refers to id -1"),
        ([(97, "b")], TypeError, "rule 0 refers to 'b', which is a str, not an int"),
        ([(97, 98, 99)], ValueError, "rule 0 must be a pair of ints, got 3 items"),
        ("ab", TypeError, "rules must be a list of"),
        (7, TypeError, "rules must be a list of"),
    ],
)
def test_bad_profile_rules_are_named(rules: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        check_profile_rules(rules, MINBPE)


def test_strict_profile_rules_are_checked_by_the_strict_validator() -> None:
    with pytest.raises(ValueError, match="refers to boundary id 256"):
        check_profile_rules([(97, 256)], STRICT)


# --- the hf-tokenizers dialect's byte-level alphabet (profile hf-tokenizers) ---------------------


def _gpt2_bytes_to_unicode() -> dict[int, str]:
    """GPT-2's published byte-to-character table, rebuilt here from its definition."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = {byte: chr(byte) for byte in kept}
    shifted = 0
    for byte in range(BYTE_COUNT):
        if byte not in table:
            table[byte] = chr(BYTE_COUNT + shifted)
            shifted += 1
    return table


def test_hf_byte_level_alphabet_is_gpt2_bytes_to_unicode() -> None:
    """BPE-TRAIN-TIE under hf-tokenizers: its ties follow ids ordered by GPT-2's byte-level characters.

    The table is built once at import, so the builder is also called here directly: that is the only
    way mutation testing (which forks after import) can see a change in it.
    """
    expected = _gpt2_bytes_to_unicode()
    assert _byte_level_alphabet() == tuple(expected[byte] for byte in range(BYTE_COUNT))
    assert [byte_level_symbol(byte) for byte in range(BYTE_COUNT)] == [expected[byte] for byte in range(BYTE_COUNT)]
    assert len(set(expected.values())) == BYTE_COUNT


# --- dialects: tiktoken's lone surrogates and piece ranks (profile tiktoken) ---------------------------


@pytest.mark.parametrize(
    ("text", "replaced"),
    [("\ud800", True), ("\udfff", True), ("a\udc80b", True), ("\ud7ff", False), ("\ue000", False)],  # noqa: PT014 - ruff reads lone surrogates alike; these differ
)
def test_tiktoken_replaces_exactly_the_lone_surrogates(text: str, replaced: bool) -> None:
    """BPE-INPUT-TEXT under tiktoken: U+D800-U+DFFF (and nothing next to them) become U+FFFD before encoding."""
    expected = "".join("\ufffd" if 0xD800 <= ord(char) <= 0xDFFF else char for char in text)
    assert (expected != text) == replaced
    assert encode_profile(text, [], TIKTOKEN) == list(expected.encode("utf-8"))


def test_piece_rank_merges_the_lowest_rank_even_when_it_is_not_leftmost() -> None:
    """BPE-ENCODE-ORDER under tiktoken: the pair with the lowest rank wins, wherever it is in the text."""
    rules = [(98, 99), (97, 98)]  # "bc" has rank 256, "ab" rank 257
    assert encode_profile("abc", rules, TIKTOKEN) == [97, 256]
    assert encode_profile("abcab", rules, TIKTOKEN) == [97, 256, 257]


# --- rules in a dialect's numbering (BPE-INPUT-RULES under a profile) ------------------------------------


def test_profile_rules_are_rejected_naming_the_problem() -> None:
    """BPE-INPUT-RULES under minbpe: a str is a TypeError naming it; an id past the rules names the range."""
    with pytest.raises(TypeError) as not_a_list:
        check_profile_rules("ab", MINBPE)
    assert str(not_a_list.value).startswith("rules ")
    assert "list" in str(not_a_list.value)
    assert str(not_a_list.value).split()[-1] == "str"
    with pytest.raises(ValueError) as out_of_range:  # noqa: PT011 - the message is asserted below, more closely than match= would
        check_profile_rules([(97, 98), (97, 300)], MINBPE)  # rule 1 is id 257, and 300 is past it
    message = str(out_of_range.value)
    assert "refers to id 300" in message  # the id that is out of range
    assert "'minbpe'" in message  # the profile whose numbering was broken
    assert "0-255" in message
    assert "(256 and up)" in message
    assert check_profile_rules([(0, 0), (256, 0)], MINBPE) == [(0, 0), (256, 0)]


@given(docs=documents, max_merges=st.integers(min_value=0, max_value=10))
def test_profile_rounds_under_strict_are_the_strict_rounds(docs: list[str], max_merges: int) -> None:
    """Every field of a profile's round (rank, counts, pair, count, new id, sequences before and after)
    is the strict reference's under strict; the known-answer vectors and ``trace`` read them."""
    assert list(profile_training_rounds(docs, max_merges, STRICT)) == list(training_rounds(docs, max_merges))


@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
def test_every_profile_round_is_one_merge_of_the_state_before_it(profile: Profile) -> None:
    """BPE-TRAIN-COUNT, BPE-MERGE-SCAN under each profile: a round counts the sequences it starts from,
    makes id first_rule_id + rank, and leaves the next round the sequences with that pair replaced."""
    rounds = list(profile_training_rounds(["abab ab", "aab\u00e9\u00e9", "ab ab ab"], 6, profile))
    assert rounds, profile.name
    before = None
    for rank, step in enumerate(rounds):
        assert step.rank == rank
        assert step.new_id == profile.first_rule_id + rank
        assert step.counts == count_pairs(step.sequences_before)
        assert step.count == step.counts[step.pair]
        assert step.sequences_after == [
            replace_pair(sequence, step.pair, step.new_id) for sequence in step.sequences_before
        ]
        assert before is None or step.sequences_before == before
        before = step.sequences_after
