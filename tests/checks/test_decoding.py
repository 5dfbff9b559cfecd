"""What the decoding, encoding, training and validation checks decide on small fixed inputs (mutation survivors).

Each test names the clause whose verdict it protects; the inputs are fixed and tiny, so no hypothesis
search is involved and the file runs in well under a second.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.base import INTERFACE
from bpe_conformance.checks.decoding import BAD_ID_KINDS, bad_ids, boundary_inapplicable
from bpe_conformance.errors import Violation
from bpe_conformance.reference import LiteralTokenizer
from bpe_conformance.reference.profiles import HF_TOKENIZERS, MINBPE, STRICT
from bpe_conformance.results.advisories import collecting
from tests.checks.helpers import (
    CHECKS,
    assert_inapplicable,
    assert_ranges,
    checks_drawing_their_sizes,
    dialect,
    longest,
    violation_of,
)
from tests.support import broken_for_checks as broken
from tests.support.fresh_modules import fresh_copy as fresh


def _appending(extra_id: Any) -> type:
    """A tokenizer whose encoder appends one id after the right ones (``extra_id(self)`` gives it)."""

    class Appending(LiteralTokenizer):
        def encode(self, text: str) -> list[int]:
            return [*super().encode(text), extra_id(self)]

    return Appending


def _round_trip_violation(implementation: type) -> Violation:
    example = {"documents": ["abab"], "max_merges": 1, "texts": []}
    with pytest.raises(Violation) as caught:
        CHECKS["round-trip"].verify(InProcessSubject(implementation), example)
    return caught.value


def test_round_trip_blames_the_encoder_when_the_ids_spell_other_bytes() -> None:
    """BPE-ROUNDTRIP: ids whose pieces (byte 0 included) spell other bytes are reported as the encoder's loss.

    The counterexample names the ids, the text they should spell and the ids as what the encoder gave.
    """
    violation = _round_trip_violation(_appending(lambda self: 0))
    ids = [258, 258, 0]
    assert violation.clause == "BPE-ROUNDTRIP"
    assert violation.inputs["ids"] == ids
    assert violation.inputs["text"] == "abab"
    assert violation.expected == "abab"
    assert violation.actual == ids
    assert "00" in violation.message  # the spelled bytes are shown, the trailing NUL among them


@pytest.mark.parametrize("past", [0, 7], ids=["first unknown id", "far unknown id"])
def test_round_trip_with_an_unknown_id_from_the_encoder_is_a_violation_not_a_crash(past: int) -> None:
    """BPE-ROUNDTRIP: an id past the vocabulary has no piece; the check still reports a violation."""
    violation = _round_trip_violation(_appending(lambda self: 258 + len(self.rules) + past))
    assert violation.clause == "BPE-ROUNDTRIP"
    assert violation.inputs["ids"][-1] == 258 + 1 + past


@pytest.mark.parametrize("kind", BAD_ID_KINDS)
def test_the_error_bad_ids_demands_is_the_one_the_reference_raises(kind: str) -> None:
    """BPE-DECODE-STRICT / BPE-INPUT-IDS: the preferred error kind is the strict reference's own error."""
    rules = [(97, 98), (0xE4, 0xBD)]
    chosen = bad_ids(kind, rules, STRICT)
    assert chosen is not None
    ids, wanted, clause = chosen
    tokenizer = LiteralTokenizer()
    tokenizer.load(rules)
    with pytest.raises((ValueError, TypeError)) as caught:
        tokenizer.decode(ids)
    assert type(caught.value).__name__ == wanted
    assert clause in {CHECKS["decode-strict"].clause, *CHECKS["decode-strict"].also}


class UnknownIdsAreTypeErrors(LiteralTokenizer):
    """Rejects unknown ids with a TypeError (strict prefers ValueError)."""

    def decode(self, ids: list[int]) -> str:
        if any(isinstance(token, int) and token >= 258 + len(self.rules) for token in ids):
            raise TypeError("unknown id")
        return super().decode(ids)


def test_a_far_unknown_id_is_judged_under_decode_strict() -> None:
    """BPE-DECODE-STRICT: a far unknown id must raise ValueError; TypeError is noted, ValueError is not."""
    example = {"documents": ["abab"], "max_merges": 2, "kind": "far unknown id", "prefix": "a"}
    with collecting() as notes:
        CHECKS["decode-strict"].verify(InProcessSubject(LiteralTokenizer), example)
    assert notes == []
    with collecting() as notes:
        CHECKS["decode-strict"].verify(InProcessSubject(UnknownIdsAreTypeErrors), example)
    assert len(notes) == 1
    assert "BPE-DECODE-STRICT" in notes[0]
    assert "ValueError" in notes[0]


def _minbpe(decode: Any) -> type:
    """Follows minbpe exactly, but decodes with ``decode``."""
    return dialect(MINBPE, decode=decode)


_UNKNOWN_UNDER_MINBPE = {"documents": ["abab"], "max_merges": 2, "kind": "far unknown id", "prefix": "a"}


def test_a_lenient_profile_raising_its_preferred_error_gets_no_note() -> None:
    """BPE-DECODE-STRICT under minbpe: an unknown id raises ValueError, as the profile does: no advisory."""

    def decode(self: Any, ids: list[int]) -> str:
        decoded: str = self.model.decode(ids)
        return decoded

    with collecting() as notes:
        CHECKS["decode-strict"].verify(InProcessSubject(_minbpe(decode)), _UNKNOWN_UNDER_MINBPE)
    assert notes == []


def test_a_lenient_profile_raising_an_error_of_neither_family_is_a_violation() -> None:
    """BPE-DECODE-STRICT under minbpe: an unknown id answered by a KeyError is neither input-error family."""

    def decode(self: Any, ids: list[int]) -> str:
        if any(token >= 256 + len(self.model.rules) for token in ids):
            raise KeyError("unknown id")
        decoded: str = self.model.decode(ids)
        return decoded

    with pytest.raises(Violation) as caught:
        CHECKS["decode-strict"].verify(InProcessSubject(_minbpe(decode)), _UNKNOWN_UNDER_MINBPE)
    assert caught.value.clause == "BPE-DECODE-STRICT"
    assert "KeyError" in caught.value.actual


class MalformedRules(LiteralTokenizer):
    """Trains a rule whose second part is an id no earlier rule made (rule-references reports it)."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        super().train(documents, max_merges)
        return [(97, 300)]


_MALFORMED = {"documents": ["abab", "a b"], "max_merges": 2, "texts": ["ab"]}


@pytest.mark.parametrize("name", ["encode-trained", "no-pre-tokenization", "rule-ids"])
def test_checks_that_need_valid_rules_leave_malformed_rules_to_rule_references(name: str) -> None:
    """BPE-ENCODE-ORDER, BPE-ENCODE-RAW, BPE-RULE-ID: malformed trained rules are not judged a second time."""
    CHECKS[name].verify(InProcessSubject(MalformedRules), dict(_MALFORMED))


class PreTokenizingWithMalformedRules(LiteralTokenizer):
    """Splits text at spaces before merging, and trains one valid rule that crosses a space plus a malformed one."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        self.load([(97, 32)])
        return [(97, 32), (97, 10**6)]

    def encode(self, text: str) -> list[int]:
        return [token for chunk in re.split("( )", text) if chunk for token in LiteralTokenizer.encode(self, chunk)]


def test_no_pre_tokenization_does_not_judge_encodings_under_malformed_rules() -> None:
    """BPE-ENCODE-RAW: with malformed rules the canonical encoding is undefined, so no violation is reported."""
    CHECKS["no-pre-tokenization"].verify(
        InProcessSubject(PreTokenizingWithMalformedRules), {"documents": ["a b a b"], "max_merges": 2}
    )


def test_every_validation_check_is_at_the_interface_level() -> None:
    """BPE-TRAIN-MAXMERGES, BPE-INPUT-DOCS, BPE-INPUT-TEXT, BPE-INPUT-IDS: input validation is interface-level."""
    validation = fresh("bpe_conformance.checks.validation")
    assert validation.VALIDATION_CHECKS
    assert {check.level for check in validation.VALIDATION_CHECKS} == {INTERFACE}


class StrictDeclaringMinbpe(LiteralTokenizer):
    """Decodes strictly although its declared profile replaces invalid UTF-8."""

    profile = "minbpe"


class BoolIdsDeclaringMinbpe(broken.AcceptsBoolIds):
    profile = "minbpe"


class WrongErrorKindDeclaringMinbpe(LiteralTokenizer):
    profile = "minbpe"

    def decode(self, ids: list[int]) -> str:
        if any(type(token) is bool for token in ids):
            raise ValueError("bool ids are not ids")
        return super().decode(ids)


@pytest.mark.parametrize(
    ("implementation", "kind", "clause", "expected", "actual", "fragment"),
    [
        (
            StrictDeclaringMinbpe,
            "byte ff",
            "BPE-DECODE-STRICT",
            "a\ufffd",
            "raised ValueError: ids decode to invalid UTF-8 at byte offset 1 (invalid start byte): 61 ff",
            "under profile minbpe (decode_policy=replace) must return 'a\ufffd', but it raised ValueError",
        ),
        (
            BoolIdsDeclaringMinbpe,
            "bool id",
            "BPE-INPUT-IDS",
            "TypeError",
            "returned 'aa\\x01'",
            "with a bool id under profile minbpe (decode_policy=replace) must raise TypeError, but it returned",
        ),
    ],
)
def test_a_lenient_profile_expects_its_own_answer(
    implementation: type, kind: str, clause: str, expected: str, actual: str, fragment: str
) -> None:
    """Under replace/skip-unknown policies the profile's answer (U+FFFD, or the strict error kind) is required."""
    example = {"documents": ["abab"], "max_merges": 1, "kind": kind, "prefix": "a"}
    with pytest.raises(Violation) as caught:
        CHECKS["decode-strict"].verify(InProcessSubject(implementation), example)
    violation = caught.value
    assert (violation.clause, violation.expected, violation.actual) == (clause, expected, actual)
    assert violation.inputs["problem"] == kind
    assert violation.inputs["rules"] == [[97, 98]]
    assert fragment in violation.message


@pytest.mark.parametrize("profile", [MINBPE, HF_TOKENIZERS], ids=lambda profile: profile.name)
@pytest.mark.parametrize("kind", BAD_ID_KINDS)
def test_a_dialect_that_follows_its_lenient_profile_passes_decode_strict(profile: Any, kind: str) -> None:
    """The same bad ids are no violation for an implementation that gives its profile's answer."""
    example = {"documents": ["abab", "低低"], "max_merges": 4, "kind": kind, "prefix": "é"}
    CHECKS["decode-strict"].verify(InProcessSubject(dialect(profile)), example)


def test_vocab_size_under_skip_unknown_drops_the_next_id() -> None:
    """BPE-VOCAB-SIZE under hf-tokenizers: an id past the vocabulary decodes to nothing, it does not raise."""
    example = {"documents": ["abab"], "max_merges": 3}
    CHECKS["vocab-size"].verify(InProcessSubject(dialect(HF_TOKENIZERS)), example)

    def raise_on_unknown(self: Any, ids: list[int]) -> str:
        if any(token >= 256 + len(self.model.rules) for token in ids):
            raise ValueError("unknown id")
        decoded: str = self.model.decode(ids)
        return decoded

    with pytest.raises(Violation) as caught:
        CHECKS["vocab-size"].verify(InProcessSubject(dialect(HF_TOKENIZERS, decode=raise_on_unknown)), example)
    violation = caught.value
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-VOCAB-SIZE", "", "ValueError: unknown id")
    assert violation.inputs["ids"] == [257]
    assert violation.message.endswith("must be unknown (dropped: decodes to '')")

    def drop_only_the_next_id(self: Any, ids: list[int]) -> str:
        if any(token > 256 + len(self.model.rules) for token in ids):
            raise ValueError("unknown id")
        decoded: str = self.model.decode([token for token in ids if token != 256 + len(self.model.rules)])
        return decoded

    with pytest.raises(Violation) as caught:
        CHECKS["vocab-size"].verify(InProcessSubject(dialect(HF_TOKENIZERS, decode=drop_only_the_next_id)), example)
    violation = caught.value
    assert (violation.expected, violation.actual, violation.inputs["ids"]) == ("", "ValueError: unknown id", [258])


class BoundariesOnlyAtTheEnds(LiteralTokenizer):
    """Ignores 256 and 257 around the ids but spells them '|' anywhere else."""

    def decode(self, ids: list[int]) -> str:
        ids = list(ids)
        while ids and ids[0] in (256, 257):
            ids.pop(0)
        while ids and ids[-1] in (256, 257):
            ids.pop()
        inner = [124 if token in (256, 257) else token for token in ids]
        return super().decode(inner)


class BoundariesAsBytes(LiteralTokenizer):
    """Spells 256 and 257 as '<' and '>'."""

    def decode(self, ids: list[int]) -> str:
        return super().decode([{256: 60, 257: 62}.get(token, token) for token in ids])


def test_boundary_ids_must_decode_to_nothing_alone_and_inside_a_text() -> None:
    """BPE-ALPHA-BOUNDARY: [256, 257] is the empty text, and boundaries cut into a text leave it whole."""
    example = {"documents": ["abab"], "max_merges": 1, "texts": ["xyz"], "cut": 1}
    alone = violation_of("boundary-ids", BoundariesAsBytes, example)
    assert (alone.clause, alone.expected, alone.actual) == ("BPE-ALPHA-BOUNDARY", "", "<>")
    assert alone.inputs["ids"] == [256, 257]
    assert alone.message.startswith("decode([256, 257]) must be empty")
    inside = violation_of("boundary-ids", BoundariesOnlyAtTheEnds, example)
    assert (inside.clause, inside.expected, inside.actual) == ("BPE-ALPHA-BOUNDARY", "abab", "ab||ab")
    assert inside.inputs["ids"] == [258, 257, 256, 258]
    assert inside.message.startswith("decode([258, 257, 256, 258]) must ignore the boundary ids")


def recording_decodes(decoded: list[list[int]]) -> type:
    """The literal reference, appending every id list it is asked to decode to ``decoded``."""

    class RecordsDecodes(LiteralTokenizer):
        def decode(self, ids: list[int]) -> str:
            decoded.append(list(ids))
            return super().decode(ids)

    return RecordsDecodes


@pytest.mark.parametrize("cut", range(5))
def test_the_cut_is_a_place_between_ids_counted_round_both_ends(cut: int) -> None:
    """BPE-ALPHA-BOUNDARY: the example's cut is taken modulo len(ids) + 1, the places from front to back.

    "abab" under (97, 98) is [258, 258]: three places, so cut 3 is the front again and cut 4 the middle.
    """
    decoded: list[list[int]] = []
    example = {"documents": ["abab"], "max_merges": 1, "texts": [], "cut": cut}
    CHECKS["boundary-ids"].verify(InProcessSubject(recording_decodes(decoded)), example)
    place = cut % 3
    assert decoded[-1] == [*[258, 258][:place], 257, 256, *[258, 258][place:]]


def test_decode_strict_takes_the_other_family_as_an_advisory() -> None:
    """An unknown id should be a ValueError; a TypeError is an advisory note, under strict and lenient policies."""
    cases = ((UnknownIdsAreTypeErrors, "far unknown id"), (WrongErrorKindDeclaringMinbpe, "bool id"))
    for implementation, kind in cases:
        example = {"documents": ["abab"], "max_merges": 1, "kind": kind, "prefix": ""}
        with collecting() as notes:
            CHECKS["decode-strict"].verify(InProcessSubject(implementation), example)
        assert len(notes) == 1, implementation
        assert "prefers" in notes[0], implementation


def test_decode_strict_has_nothing_to_ask_when_no_rule_piece_is_partial() -> None:
    """BPE-DECODE-STRICT: "partial rule piece" needs a rule whose piece is not UTF-8; without one, no call."""
    example = {"documents": ["abab"], "max_merges": 1, "kind": "partial rule piece", "prefix": "a"}
    CHECKS["decode-strict"].verify(InProcessSubject(broken.LenientDecoder), example)


def test_a_partial_rule_piece_is_found_among_the_profiles_own_rule_ids() -> None:
    """Under minbpe rule 0 is id 256: its partial piece must decode to U+FFFD (replace), not raise."""
    example = {"documents": ["低低"], "max_merges": 1, "kind": "partial rule piece", "prefix": "a"}
    violation = violation_of("decode-strict", StrictDeclaringMinbpe, example)
    assert (violation.clause, violation.expected, violation.actual) == (
        "BPE-DECODE-STRICT",
        "a\ufffd\ufffd",
        "returned 'a'",
    )
    assert violation.inputs["ids"] == [97, 256]
    assert violation.inputs["rules"] == [[189, 142]]


class DecodesPieceByPieceReplacing(LiteralTokenizer):
    """Decodes each id's piece on its own and replaces what is not UTF-8 there."""

    def decode(self, ids: list[int]) -> str:
        return "".join(self.decode_bytes([token]).decode("utf-8", errors="replace") for token in ids)


def test_decode_bytes_decodes_the_canonical_the_exploded_and_the_byte_ids() -> None:
    """BPE-DECODE-BYTES: the example's explode choices replace tokens by their bytes, splitting characters anew."""
    decoded: list[list[int]] = []
    example = {"documents": ["低低低低"], "max_merges": 2, "texts": [], "explode": [True, False]}
    CHECKS["decode-bytes-level"].verify(InProcessSubject(recording_decodes(decoded)), example)
    byte_ids = list("低低低低".encode())
    assert decoded == [[259, 259, 259, 259], [228, 189, 142, 259, 228, 189, 142, 259], byte_ids]


def test_a_character_split_across_pieces_must_decode_whole() -> None:
    """BPE-DECODE-BYTES: a replacement character where the bytes together are valid UTF-8 is a violation."""
    example = {"documents": ["低低"], "max_merges": 1, "texts": [], "explode": []}
    violation = violation_of("decode-bytes-level", DecodesPieceByPieceReplacing, example)
    assert (violation.clause, violation.expected) == ("BPE-DECODE-BYTES", "低低")
    assert violation.actual == "\ufffd" * 6
    assert violation.inputs["ids"] == [228, 258, 228, 258]
    assert violation.message == "decode([228, 258, 228, 258]) must decode the concatenated bytes, not each piece"


class JoinsPiecesBackwards(LiteralTokenizer):
    """Decodes one id right, but joins the pieces of several ids last to first."""

    def decode(self, ids: list[int]) -> str:
        return super().decode(list(ids)[::-1])


def test_decode_concatenates_joins_the_pieces_of_the_texts_in_order() -> None:
    """BPE-DECODE-CONCAT: the canonical ids of the texts, all together, decode to the texts joined."""
    example = {"documents": ["abab"], "max_merges": 1, "texts": ["abc", "d"]}
    violation = violation_of("decode-concatenates", JoinsPiecesBackwards, example)
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-DECODE-CONCAT", "abcd", "dcab")
    assert violation.inputs == {"documents": ["abab"], "max_merges": 1, "rules": [[97, 98]], "ids": [258, 99, 100]}
    assert violation.message == "decode([258, 99, 100]) is not its pieces concatenated"


def test_decode_concatenates_checks_every_rule_after_a_partial_piece() -> None:
    """BPE-RULE-PIECE: rule 0 (bytes bd 8e) is no text alone and is skipped; rule 1 (低) is still checked, and its
    piece built second part first is the rule's piece at fault: its own bytes, as byte ids, decode right."""
    example = {"documents": ["低低低低"], "max_merges": 2, "texts": []}
    violation = violation_of("decode-concatenates", broken.PiecesReversed, example)
    assert (violation.clause, violation.inputs["ids"], violation.expected) == ("BPE-RULE-PIECE", [259], "低")


def test_a_wrong_rule_id_is_decoding_at_fault_when_its_bytes_decode_wrong_too() -> None:
    """BPE-DECODE-CONCAT: a decoder that drops the last byte of every answer is wrong on the bytes as well."""

    class DropsTheLastCharacter(LiteralTokenizer):
        def decode(self, ids: list[int]) -> str:
            return super().decode(ids)[:-1]

    example = {"documents": ["abab"], "max_merges": 1, "texts": []}
    violation = violation_of("decode-concatenates", DropsTheLastCharacter, example)
    assert (violation.clause, violation.inputs["ids"]) == ("BPE-DECODE-CONCAT", [258])


_SWAPPED = {258: 259, 259: 258}


class DecodesRules258And259Swapped(LiteralTokenizer):
    """Decodes rule id 258 as rule 259's piece and 259 as 258's; byte ids decode right; encodes canonically."""

    def decode(self, ids: list[int]) -> str:
        return super().decode([_SWAPPED.get(token, token) for token in ids])


class NumbersRules258And259Swapped(DecodesRules258And259Swapped):
    """Encodes and decodes with rules 258 and 259 swapped: encoder and decoder agree on another numbering."""

    def encode(self, text: str) -> list[int]:
        return [_SWAPPED.get(token, token) for token in super().encode(text)]


class SwappedDecoderEncodesWithATrailingNul(DecodesRules258And259Swapped):
    """The swapped decoder, and an encoder whose ids (the right ones and byte 0) do not decode to the text."""

    def encode(self, text: str) -> list[int]:
        return [*super().encode(text), 0]


class SwappedDecoderCannotEncode(DecodesRules258And259Swapped):
    """The swapped decoder, and an encoder that raises on every text."""

    def encode(self, text: str) -> list[int]:
        raise RuntimeError("no encoder here")


class SwappedDecoderWithoutEncode(SwappedDecoderCannotEncode):
    """The swapped decoder in an implementation that declares no encode (calling it raises)."""

    capabilities = ("train", "load", "decode")


# Rules (97, 98) and (99, 100): ids 258 ("ab") and 259 ("cd") under strict.
_TWO_RULES = {"documents": ["abab", "cdcd"], "max_merges": 2, "texts": []}


@pytest.mark.parametrize(
    ("implementation", "clause"),
    [
        (NumbersRules258And259Swapped, "BPE-RULE-ID"),
        (DecodesRules258And259Swapped, "BPE-RULE-PIECE"),
        (SwappedDecoderEncodesWithATrailingNul, "BPE-DECODE-CONCAT"),
        (SwappedDecoderCannotEncode, "BPE-DECODE-CONCAT"),
        (SwappedDecoderWithoutEncode, "BPE-RULE-PIECE"),
    ],
    ids=["consistent renumbering", "canonical encoder", "encoder loses text", "encoder raises", "no encode"],
)
def test_a_wrong_piece_for_a_rule_id_is_blamed_on_what_the_encoder_shows(implementation: type, clause: str) -> None:
    """BPE-RULE-ID / BPE-RULE-PIECE / BPE-DECODE-CONCAT: decode([258]) gives "cd" while the bytes 97, 98 decode
    to "ab". An encoder of "ab" to [259], which decodes back to "ab", numbers the rules otherwise (BPE-RULE-ID);
    to the canonical [258], the decoder's piece is wrong (BPE-RULE-PIECE); to ids that do not decode to "ab", or
    raising, decoding stays the clause; with no encode declared, the control alone says BPE-RULE-PIECE."""
    violation = violation_of("decode-concatenates", implementation, _TWO_RULES)
    assert (violation.clause, violation.inputs["ids"], violation.expected) == (clause, [258], "ab")
    assert violation.inputs["rules"] == [[97, 98], [99, 100]]


class DecodesSupplementaryAsSurrogatePairs(LiteralTokenizer):
    """Returns each character past U+FFFF as its two UTF-16 surrogates (CESU-8 style), a lone-surrogate string."""

    def decode(self, ids: list[int]) -> str:
        return "".join(_utf16_units(character) for character in super().decode(ids))


def _utf16_units(character: str) -> str:
    """``character`` as its UTF-16 code units, each a character of its own."""
    code = ord(character) - 0x10000
    return character if code < 0 else chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def test_a_decoder_answering_surrogates_is_a_violation_of_decode_concat_not_a_crash() -> None:
    """BPE-DECODE-CONCAT: "😀" decoded as "\\ud83d\\ude00" is wrong for the rule id and for its bytes alike; the
    control compares the answer's bytes (surrogates passed through), so the verdict is a violation, not an
    encoding error of the harness."""
    example = {"documents": ["😀😀"], "max_merges": 3, "texts": []}
    violation = violation_of("decode-concatenates", DecodesSupplementaryAsSurrogatePairs, example)
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-DECODE-CONCAT", "😀", "\ud83d\ude00")


def test_decode_concatenates_judges_rule_pieces_only_not_the_boundary_ids() -> None:
    """One bug, one failing check: boundary ids spelt as bytes break BPE-ALPHA-BOUNDARY, not BPE-DECODE-CONCAT."""
    example = {"documents": ["abab"], "max_merges": 1, "texts": ["ab"], "cut": 0}
    CHECKS["decode-concatenates"].verify(InProcessSubject(BoundariesAsBytes), example)
    assert violation_of("boundary-ids", BoundariesAsBytes, example).clause == "BPE-ALPHA-BOUNDARY"


def test_boundary_ids_are_skipped_only_where_256_and_257_are_rule_ids() -> None:
    """BPE-ALPHA-BOUNDARY under minbpe: the reason names boundary_ids=False and why it makes the clause moot."""
    reason = boundary_inapplicable(MINBPE)
    assert_inapplicable(
        reason,
        "minbpe",
        "boundary_ids=False",
        "ids 256 and 257 are the first two rules, not boundaries",
    )
    assert boundary_inapplicable(STRICT) is None


DECODING_SIZES: dict[str, dict[str, Any]] = {
    "round-trip": {"documents": (0, 3), "length": 24, "texts": 3},
    "decode-concatenates": {"documents": (0, 3), "length": 24, "texts": 3},
    "decode-bytes-level": {"documents": (1, 3), "length": 10, "texts": 3},
    "decode-strict": {"documents": (1, 3), "length": 10},
    "vocab-size": {"documents": (0, 3), "length": 20},
    "boundary-ids": {"documents": (0, 3), "length": 20, "texts": 3},
}


@pytest.mark.parametrize("name", sorted(DECODING_SIZES))
def test_decoding_check_examples_have_documents_and_max_merges_up_to_24(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """The decoding checks draw documents and a max_merges from 0 to 24, plus their own fields: up to 3 texts
    of up to 24 characters, up to 4 explode choices, a cut from 0 to 64."""
    sizes = DECODING_SIZES[name]
    check = checks_drawing_their_sizes(monkeypatch, "bpe_conformance.checks.decoding")[name]
    shortest = 0 if sizes["documents"][0] == 0 else sizes["length"]
    ranges = {
        "documents": (lambda example: len(example["documents"]), *sizes["documents"]),
        # No document at all is the one way to draw a longest length below the asked-for one.
        "document length": (lambda example: longest(example["documents"]), shortest, sizes["length"]),
        "max_merges": (lambda example: example["max_merges"], 0, 24),
    }
    if "texts" in sizes:
        ranges["texts"] = (lambda example: len(example["texts"]), 0, sizes["texts"])
        ranges["text length"] = (lambda example: longest(example["texts"]), 0, 24)
    if name == "decode-bytes-level":
        ranges["explode"] = (lambda example: len(example["explode"]), 0, 4)
    if name == "boundary-ids":
        ranges["cut"] = (lambda example: example["cut"], 0, 64)
    assert check.strategy is not None
    assert_ranges(check.strategy(), ranges)
