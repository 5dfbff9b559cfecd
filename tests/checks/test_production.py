"""The production checks reject each one-line port bug with a minimal counterexample showing the chunks.

The vocabulary is trained in the test without a split pattern, so its pieces cross the places where
cl100k splits and a wrongly split text gets other ids. Each port is judged by the runner exactly as
``run --vocabulary`` does (seed 0, the dev effort).
"""

from __future__ import annotations

import ast
import math
import re
from typing import ClassVar

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.checks.production import (
    PRODUCTION_CHECKS,
    SHORT_RUNS,
    _probes,
    _without_specials,
    chunk_report,
    verify_production_decode,
    verify_production_encode,
    verify_production_roundtrip,
    verify_production_unknown_id,
)
from bpe_conformance.dialects.production import ProductionSetup, VocabularyBoundSubject, bind_vocabulary
from bpe_conformance.errors import HarnessError, Violation
from bpe_conformance.reference.pretokenization import (
    CL100K,
    SPLIT_PROFILES,
    decode_production,
    encode_production_fast,
    split_text,
)
from bpe_conformance.reference.vocabulary import Vocabulary
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.settings import EFFORTS
from tests.support import broken_ports
from tests.support.vocabularies import trained_vocabulary

SETUP = ProductionSetup(CL100K, trained_vocabulary(merges=200, special_tokens=dict(CL100K.special_tokens)))
CHECKS = {check.name: check for check in PRODUCTION_CHECKS}


def _run(implementation: type, check: str) -> CheckResult:
    subject = VocabularyBoundSubject(InProcessSubject(implementation), SETUP)
    return run_check(CHECKS[check], subject, EFFORTS["dev"], seed=0)


def test_the_correct_port_passes_every_production_check() -> None:
    for name in CHECKS:
        result = _run(broken_ports.CorrectPort, name)
        assert result.outcome is Outcome.PASS, (name, result.message)


# The minimal text depends on hypothesis's draw (which also reads constants from the modules loaded), so
# the facts asserted are those every counterexample of the bug has, not one particular text.
SPLIT_FACT = r"spans two chunks|splits it where the pattern does not|splits the text elsewhere"


@pytest.mark.parametrize(
    ("port", "clause", "fact"),
    [
        (broken_ports.WhitespaceWithoutLookahead, "BPE-PRETOK-SPLIT", SPLIT_FACT),
        (broken_ports.DigitsUngrouped, "BPE-PRETOK-SPLIT", SPLIT_FACT),
        (broken_ports.CaseSensitiveContractions, "BPE-PRETOK-SPLIT", SPLIT_FACT),
        (broken_ports.AsciiLetters, "BPE-PRETOK-SPLIT", SPLIT_FACT),
        (broken_ports.SpecialsHonoured, "BPE-SPECIAL-ORDINARY", r"the id of the special token '<\|"),
        (broken_ports.MergesLeftmostFirst, "BPE-PRETOK-RANK", r"the merging itself is wrong|one chunk under every"),
    ],
)
def test_each_port_bug_is_rejected_with_the_chunks_both_sides_made(port: type, clause: str, fact: str) -> None:
    result = _run(port, "production-encode")
    assert result.outcome is Outcome.FAIL
    assert result.clause == clause
    assert re.search(fact, result.message)
    counterexample = result.counterexample or {}
    text = counterexample["inputs"]["text"]
    assert len(text) <= 16  # shrunk to a few characters
    divergence = counterexample["divergence"]
    assert "".join(divergence["chunks"]) == text
    assert divergence["chunks"] == split_text(text, CL100K)
    if clause != "BPE-SPECIAL-ORDINARY":
        assert "".join(divergence["actual_tokens"]) == text
    assert divergence["actual_tokens"] != [token for tokens in divergence["expected_tokens"] for token in tokens]


def test_a_token_across_chunks_is_named() -> None:
    divergence = (_run(broken_ports.WhitespaceWithoutLookahead, "production-encode").counterexample or {})["divergence"]
    crossing = divergence["tokens_across_chunks"]
    assert crossing
    assert all(token in divergence["actual_tokens"] for token in crossing)
    assert all(token.strip() == "" for token in crossing)  # the spaces the lookahead would have left to the word


def test_every_port_still_round_trips_and_decodes_its_pieces() -> None:
    for port in broken_ports.PORTS:
        assert _run(port, "production-roundtrip").outcome is Outcome.PASS
        assert _run(port, "production-decode").outcome is Outcome.PASS


class _DropsSpecials(broken_ports.CorrectPort):
    def decode(self, ids: list[int]) -> str:
        return super().decode([token_id for token_id in ids if token_id not in self.specials.values()])


class _AcceptsUnknown(broken_ports.CorrectPort):
    def decode(self, ids: list[int]) -> str:
        return super().decode([token_id for token_id in ids if token_id in self.pieces])


def test_decode_checks_reject_dropped_specials_and_accepted_unknown_ids() -> None:
    dropped = _run(_DropsSpecials, "production-decode")
    assert (dropped.outcome, dropped.clause) == (Outcome.FAIL, "BPE-SPECIAL-DECODE")
    accepted = _run(_AcceptsUnknown, "production-unknown-id")
    assert (accepted.outcome, accepted.clause, accepted.level) == (Outcome.FAIL, "BPE-INPUT-IDS", "interface")


def test_tiktoken_itself_passes_the_algorithm_level() -> None:
    pytest.importorskip("tiktoken")
    from bpe_conformance.adapters.thirdparty.tiktoken_released import TiktokenCl100k

    for name, check in CHECKS.items():
        result = _run(TiktokenCl100k, name)
        if check.level == "algorithm":
            assert result.outcome is Outcome.PASS, (name, result.message)
        else:  # tiktoken's decode raises KeyError for an unknown id: outside the contract's families
            assert result.outcome is Outcome.FAIL
            assert "KeyError" in result.message


class _BuiltIn:
    """Declares a built-in vocabulary (the test's) instead of taking one through the contract."""

    name = "built-in"
    capabilities = frozenset({"encode", "decode"})
    vocabulary = "the test's"
    shift = 0

    def __init__(self) -> None:
        self.port = broken_ports.CorrectPort()
        ranks = dict(SETUP.vocabulary.rank_of)
        if self.shift:
            first, second = SETUP.vocabulary.pieces[300], SETUP.vocabulary.pieces[301]
            ranks[first], ranks[second] = 301, 300
        self.port.load_vocabulary(ranks, dict(SETUP.vocabulary.special_tokens))

    def encode(self, text: str) -> list[int]:
        return self.port.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self.port.decode(ids)


class _OtherBuiltIn(_BuiltIn):
    shift = 1


def test_a_built_in_vocabulary_is_checked_against_the_file_before_anything_is_judged() -> None:
    bound = bind_vocabulary(InProcessSubject(_BuiltIn), SETUP)
    assert bound.info.profile == "cl100k"
    with pytest.raises(HarnessError, match=r"built-in vocabulary \"the test's\" is not .*: decode\(\[300\]\) is"):
        bind_vocabulary(InProcessSubject(_OtherBuiltIn), SETUP)


def test_an_implementation_that_cannot_get_a_vocabulary_is_a_usage_error() -> None:
    class Nothing:
        def encode(self, text: str) -> list[int]:
            return []

        def decode(self, ids: list[int]) -> str:
            return ""

        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            return []

    with pytest.raises(HarnessError, match=r"has no load_vocabulary\(ranks, special_tokens\) method"):
        bind_vocabulary(InProcessSubject(Nothing), SETUP)


def test_the_production_checks_are_not_in_the_default_suite() -> None:
    assert not {check.name for check in PRODUCTION_CHECKS} & {check.name for check in ALL_CHECKS}


def test_long_runs_catch_a_split_bug_that_shows_at_the_end_of_a_run() -> None:
    result = _run(broken_ports.WhitespaceWithoutLookahead, "production-long-runs")
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-PRETOK-SPLIT")
    text = (result.counterexample or {})["inputs"]["text"]
    assert len(text) >= 500
    assert text.strip(" ") != text


class _UnknownIdForDigits(broken_ports.CorrectPort):
    """Returns an id past the vocabulary for the digit 7."""

    def encode(self, text: str) -> list[int]:
        return [len(self.ranks) if token == self.ranks[b"7"] else token for token in super().encode(text)]


def test_an_id_that_is_no_piece_is_blamed_on_the_merge_not_the_split() -> None:
    result = _run(_UnknownIdForDigits, "production-encode")
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-PRETOK-RANK")
    assert "is neither a piece's rank nor a special token" in result.message


@pytest.mark.parametrize("text", [" <|endoftext|>", "<|endoftext|>'s", "x <|fim_prefix|> <|endoftext|>"])
def test_special_text_encoded_apart_from_its_neighbours_is_blamed_on_the_specials(text: str) -> None:
    # kitoken 0.11.1's way (docs/findings-production.md): the special's text is cut out and encoded as text
    # on its own. The same text with one letter of the special changed encodes right, which proves the cause.
    subject = VocabularyBoundSubject(InProcessSubject(broken_ports.SpecialsIsolated), SETUP)
    with pytest.raises(Violation) as raised:
        verify_production_encode(subject, text)
    assert raised.value.clause == "BPE-SPECIAL-ORDINARY"
    assert "with one letter of each special token's text changed" in str(raised.value)


def test_a_wrong_split_beside_a_special_is_not_blamed_on_the_specials() -> None:
    subject = VocabularyBoundSubject(InProcessSubject(broken_ports.WhitespaceWithoutLookahead), SETUP)
    with pytest.raises(Violation) as raised:
        verify_production_encode(subject, "  a<|endoftext|>")
    assert raised.value.clause == "BPE-PRETOK-SPLIT"


class _DropsLastId(broken_ports.CorrectPort):
    def decode(self, ids: list[int]) -> str:
        return super().decode(ids[:-1])


def test_a_decode_that_loses_text_breaks_the_roundtrip_with_both_texts() -> None:
    subject = VocabularyBoundSubject(InProcessSubject(_DropsLastId), SETUP)
    with pytest.raises(Violation) as raised:
        verify_production_roundtrip(subject, "ab cd")
    assert raised.value.clause == "BPE-ROUNDTRIP"
    assert "decode" in raised.value.message
    assert raised.value.inputs == {"text": "ab cd"}
    assert (raised.value.expected, raised.value.actual) == ("ab cd", subject.decode(subject.encode("ab cd")))
    verify_production_roundtrip(VocabularyBoundSubject(InProcessSubject(broken_ports.CorrectPort), SETUP), "ab cd")


class _RecordsDecodes(broken_ports.CorrectPort):
    asked: ClassVar[list[list[int]]] = []

    def decode(self, ids: list[int]) -> str:
        self.asked.append(list(ids))
        return super().decode(ids)


def test_the_unknown_ids_tried_are_the_first_two_past_the_pieces_that_are_no_special() -> None:
    # A special right after the pieces (at size + 1) is skipped: "which" 1 is the id after it.
    size = SETUP.vocabulary.size
    vocabulary = Vocabulary(SETUP.vocabulary.pieces, {"<|endoftext|>": size + 1})
    subject = VocabularyBoundSubject(InProcessSubject(_RecordsDecodes), ProductionSetup(CL100K, vocabulary))
    for which, unknown in ((0, size), (1, size + 2)):
        _RecordsDecodes.asked.clear()
        verify_production_unknown_id(subject, which)  # the correct port refuses it with a ValueError
        assert _RecordsDecodes.asked == [[97, unknown]], which


class _KeyErrorForUnknown(broken_ports.CorrectPort):
    """tiktoken's way: a KeyError for an id it has no piece for."""

    def decode(self, ids: list[int]) -> str:
        return b"".join(self.pieces[token_id] for token_id in ids).decode("utf-8", errors="replace")


@pytest.mark.parametrize("port", [_AcceptsUnknown, _KeyErrorForUnknown])
def test_an_unknown_id_accepted_or_refused_outside_the_families_is_reported_with_the_ids(port: type) -> None:
    size = SETUP.vocabulary.size
    subject = VocabularyBoundSubject(InProcessSubject(port), SETUP)
    with pytest.raises(Violation) as raised:
        verify_production_unknown_id(subject, 1)
    violation = raised.value
    assert violation.clause == "BPE-INPUT-IDS"
    assert str(size + 1) in violation.message
    assert violation.inputs == {"ids": [97, size + 1]}
    assert violation.expected == "ValueError"
    if port is _AcceptsUnknown:  # its answer: the known id's piece, the unknown id dropped
        assert violation.actual == (SETUP.vocabulary.piece_of(97) or b"").decode("utf-8", errors="replace")
    else:
        assert "KeyError" in violation.message
        assert violation.actual.startswith("KeyError")
        assert str(size + 1) in violation.actual


def _merged_wrong_by_leftmost_first(prefix: str) -> tuple[broken_ports.MergesLeftmostFirst, str]:
    """A loaded leftmost-first port, and the first ``prefix`` + two lower-case pieces it merges otherwise than by
    rank."""
    port = broken_ports.MergesLeftmostFirst()
    port.load_vocabulary(dict(SETUP.vocabulary.rank_of), dict(SETUP.vocabulary.special_tokens))
    words = [piece.decode() for piece in SETUP.vocabulary.pieces if re.fullmatch(rb"[a-z]+", piece)]
    return port, next(
        text
        for text in (f"{prefix}{head}{tail}" for head in words for tail in words)
        if port.encode(text) != encode_production_fast(text, SETUP.vocabulary, CL100K)
    )


def test_a_chunk_merged_wrong_after_chunks_merged_right_is_the_one_blamed() -> None:
    # A text whose first chunks every port encodes right, and whose last chunk the leftmost-first port merges
    # wrong even alone: the chunks before it must not be blamed, whatever their tokens' offsets.
    port, wrong = _merged_wrong_by_leftmost_first(" ")
    text = "a b c" + wrong
    assert split_text(text, CL100K) == ["a", " b", " c", wrong]
    subject = VocabularyBoundSubject(InProcessSubject(broken_ports.MergesLeftmostFirst), SETUP)
    with pytest.raises(Violation) as raised:
        verify_production_encode(subject, text)
    assert raised.value.clause == "BPE-PRETOK-RANK"
    assert (raised.value.divergence or {})["clause"] == "BPE-PRETOK-RANK"
    assert f"chunk {wrong!r}" in raised.value.message
    assert str(port.encode(wrong)) in raised.value.message  # what the chunk encodes to alone
    assert raised.value.expected == encode_production_fast(text, SETUP.vocabulary, CL100K)
    assert raised.value.actual == subject.encode(text)
    assert "'a'" not in raised.value.message.split(";")[0]
    assert "' b'" not in raised.value.message.split(";")[0]


def test_the_merge_probes_are_runs_of_a_then_single_chunk_texts_of_at_least_three_bytes() -> None:
    probes = _probes(SETUP.vocabulary, 7)
    runs = probes[: len(SHORT_RUNS)]
    assert runs[0] == "a" * 7  # as long as the chunk in question, first
    assert sorted(runs) == sorted("a" * count for count in SHORT_RUNS)  # each short run once
    merged = probes[len(SHORT_RUNS) :]
    assert merged
    # Two bytes allow one merge only, so no merge order can part on them; three is the least that can.
    assert min(len(probe.encode()) for probe in merged) == 3
    for profile in SPLIT_PROFILES.values():
        assert all(split_text(probe, profile) == [probe] for probe in merged), profile.name


class _LosesWhitespace(broken_ports.CorrectPort):
    """cl100k's pattern without its whitespace alternatives: re.findall skips the spaces no alternative matches."""

    pattern = CL100K.pattern.split(r"|\s++$")[0]


class _Latin1Bytes(broken_ports.CorrectPort):
    """Merges each chunk's Latin-1 bytes, not its UTF-8 bytes."""

    def encode(self, text: str) -> list[int]:
        return [token for chunk in self.compiled.findall(text) for token in self.merge(chunk.encode("latin-1"))]


@pytest.mark.parametrize(
    ("port", "text", "spelled"),
    [
        (_LosesWhitespace, "ab  ", b"ab"),
        (_LosesWhitespace, "ab  cd", b"ab cd"),
        (_Latin1Bytes, "ab caf\u00e9", b"ab caf\xe9"),
        # One byte short before "he", whose bytes then sit across the text's chunk bound between "1" and "he".
        (_Latin1Bytes, "\u00e91he", b"\xe91he"),
    ],
    ids=["trailing-spaces-lost", "inner-space-lost", "latin-1-bytes", "latin-1-offsets-shifted"],
)
def test_ids_that_spell_another_text_are_blamed_on_the_split_naming_what_they_spell(
    port: type, text: str, spelled: bytes
) -> None:
    # Offsets in the ids' bytes are not offsets in the text, so no chunk's tokens can be said to look right.
    subject = VocabularyBoundSubject(InProcessSubject(port), SETUP)
    assert b"".join(SETUP.vocabulary.piece_of(token_id) or b"" for token_id in subject.encode(text)) == spelled
    with pytest.raises(Violation) as raised:
        verify_production_encode(subject, text)
    assert raised.value.clause == "BPE-PRETOK-SPLIT"
    why = raised.value.message.split(";")[0]
    assert repr(spelled.decode("utf-8", errors="backslashreplace")) in why  # invalid UTF-8 shown, not an error
    assert (raised.value.divergence or {})["tokens_across_chunks"] == []  # none can be placed under a chunk


def test_an_id_that_names_no_piece_spells_nothing_in_the_chunk_report() -> None:
    # A hostile encoder may answer an id past the vocabulary: the report shows what the known ids spell.
    vocabulary = SETUP.vocabulary
    unknown = vocabulary.size + len(vocabulary.special_tokens) + 7
    assert vocabulary.piece_of(unknown) is None
    report = chunk_report("ab", [vocabulary.rank_of[b"a"], unknown], SETUP)
    assert report["spelled"] == "a"
    assert report["spells_text"] is False
    assert report["tokens_across_chunks"] == []


class _LastRankWrong(broken_ports.CorrectPort):
    """An off-by-one in its rank table: the highest rank decodes as rank 0."""

    def decode(self, ids: list[int]) -> str:
        last = len(self.ranks) - 1
        return super().decode([0 if token_id == last else token_id for token_id in ids])


def test_a_fraction_just_below_one_decodes_the_last_piece_and_a_wrong_one_is_named() -> None:
    size = SETUP.vocabulary.size
    subject = VocabularyBoundSubject(InProcessSubject(_LastRankWrong), SETUP)
    verify_production_decode(subject, [0.0, 0.5])  # ids 0 and size // 2 decode right
    with pytest.raises(Violation) as raised:
        verify_production_decode(subject, [0.5, math.nextafter(1.0, 0.0)])
    violation = raised.value
    assert violation.clause == "BPE-SPECIAL-DECODE"
    assert str(size - 1) in violation.message
    assert violation.inputs == {"ids": [size - 1]}
    assert violation.expected == decode_production([size - 1], SETUP.vocabulary)
    assert violation.actual == subject.decode([size - 1])
    assert violation.actual != violation.expected


class _DecodesTokenByToken(broken_ports.CorrectPort):
    """Decodes each id's piece to text on its own, so a character split across two pieces becomes two U+FFFD."""

    def decode(self, ids: list[int]) -> str:
        return "".join(super(_DecodesTokenByToken, self).decode([token_id]) for token_id in ids)


def test_ids_decoded_right_alone_but_wrong_together_are_reported_with_all_the_ids() -> None:
    vocabulary = SETUP.vocabulary
    size = vocabulary.size
    lead, trail = vocabulary.rank_of[b"\xc3"], vocabulary.rank_of[b"\xa9"]  # the two bytes of U+00E9
    subject = VocabularyBoundSubject(InProcessSubject(_DecodesTokenByToken), SETUP)
    with pytest.raises(Violation) as raised:
        verify_production_decode(subject, [(lead + 0.5) / size, (trail + 0.5) / size])
    violation = raised.value
    ids = [lead, trail, *sorted(vocabulary.special_tokens.values())]
    assert violation.clause == "BPE-SPECIAL-DECODE"
    assert violation.message
    assert violation.inputs == {"ids": ids}
    assert violation.expected == decode_production(ids, vocabulary)
    assert violation.expected.startswith("\u00e9")
    assert violation.actual == subject.decode(ids)
    assert violation.actual.startswith("\ufffd\ufffd")


def _with_specials(*specials: str) -> ProductionSetup:
    size = SETUP.vocabulary.size
    return ProductionSetup(
        CL100K, Vocabulary(SETUP.vocabulary.pieces, {text: size + i for i, text in enumerate(specials)})
    )


@pytest.mark.parametrize("special", ["<|endoftext|>", "<|a|>", "<|z|>", "<|x|>", "<|y|>"])
def test_a_special_in_ordinary_text_is_altered_by_one_lower_case_letter(special: str) -> None:
    # One lower-case letter for another keeps the chunks' kinds under every released pattern (o200k's
    # pattern tells upper from lower case), so the altered text proves what the special's text did.
    text = f"x {special}!"
    altered = _without_specials(text, _with_specials(special))
    assert altered is not None
    assert len(altered) == len(text)
    changed = [i for i, (a, b) in enumerate(zip(text, altered, strict=True)) if a != b]
    assert len(changed) == 1
    assert text.index(special) <= changed[0] < text.index(special) + len(special)
    assert text[changed[0]] in "abcdefghijklmnopqrstuvwxyz"
    assert altered[changed[0]] in "abcdefghijklmnopqrstuvwxyz"
    assert special not in altered


@pytest.mark.parametrize(
    ("specials", "text"),
    [
        (("[CLS]",), "x [CLS]!"),  # no lower-case letter to change
        (("<|a|>", "|x|"), "x <|a|>!"),  # the one change would make another special
    ],
    ids=["no-lower-case-letter", "change-makes-a-special"],
)
def test_special_text_that_cannot_be_altered_into_ordinary_text_is_not(specials: tuple[str, ...], text: str) -> None:
    assert _without_specials(text, _with_specials(*specials)) is None


def test_pieces_that_are_not_utf8_are_shown_with_their_bytes_escaped() -> None:
    # "ø" is two bytes no piece of the test's vocabulary joins: each token alone is invalid UTF-8.
    assert "\u00f8".encode() not in SETUP.vocabulary.rank_of
    subject = VocabularyBoundSubject(InProcessSubject(broken_ports.WhitespaceWithoutLookahead), SETUP)
    with pytest.raises(Violation) as raised:
        verify_production_encode(subject, "\u00f8  a")
    divergence = raised.value.divergence or {}
    assert divergence["expected_tokens"][0] == ["\\xc3", "\\xb8"]
    assert divergence["actual_tokens"][:2] == ["\\xc3", "\\xb8"]


def test_a_token_across_a_later_chunk_boundary_is_named() -> None:
    subject = VocabularyBoundSubject(InProcessSubject(broken_ports.WhitespaceWithoutLookahead), SETUP)
    assert split_text("x a  b", CL100K) == ["x", " a", " ", " b"]
    with pytest.raises(Violation) as raised:
        verify_production_encode(subject, "x a  b")  # the port's "  " crosses the third boundary only
    assert raised.value.clause == "BPE-PRETOK-SPLIT"
    assert (raised.value.divergence or {})["tokens_across_chunks"] == ["  "]


class _SplitsLaterChunks(broken_ports.CorrectPort):
    """Right on a text of one chunk, but cuts the first byte off every later chunk."""

    def encode(self, text: str) -> list[int]:
        chunks = [chunk.encode() for chunk in self.compiled.findall(text)]
        later = [token for chunk in chunks[1:] for token in self.merge(chunk[:1]) + self.merge(chunk[1:])]
        return [*self.merge(chunks[0]), *later] if chunks else []


def test_a_chunk_right_alone_but_wrong_inside_the_text_is_blamed_on_the_split() -> None:
    subject = VocabularyBoundSubject(InProcessSubject(_SplitsLaterChunks), SETUP)
    expected = encode_production_fast(" and", SETUP.vocabulary, CL100K)
    assert len(expected) == 1  # " and" is one piece, so cutting its space off changes its ids
    assert subject.encode(" and") == expected
    with pytest.raises(Violation) as raised:
        verify_production_encode(subject, "a and")
    assert raised.value.clause == "BPE-PRETOK-SPLIT"
    assert f"chunk {' and'!r}" in raised.value.message
    assert str(expected) in raised.value.message


def test_a_chunk_wrong_alone_with_right_merging_names_how_many_texts_were_tried() -> None:
    # "na\u00efve" is one chunk under cl100k; the ASCII-letters port cuts it at the "\u00ef" and merges right, so
    # the split is blamed once every probe agreed, and the message says how many there were.
    subject = VocabularyBoundSubject(InProcessSubject(broken_ports.AsciiLetters), SETUP)
    text = "na\u00efve"
    with pytest.raises(Violation) as raised:
        verify_production_encode(subject, text)
    assert raised.value.clause == "BPE-PRETOK-SPLIT"
    tried = len(_probes(SETUP.vocabulary, len(text.encode())))
    assert f" {tried} single-chunk texts" in raised.value.message


def test_a_merge_witness_is_named_with_its_text_and_both_encodings() -> None:
    # A chunk with a capital is not one chunk under every pattern, so the merging is proven wrong on a probe.
    port, chunk = _merged_wrong_by_leftmost_first("X")
    assert split_text(chunk, CL100K) == [chunk]
    subject = VocabularyBoundSubject(InProcessSubject(broken_ports.MergesLeftmostFirst), SETUP)
    with pytest.raises(Violation) as raised:
        verify_production_encode(subject, chunk)
    assert raised.value.clause == "BPE-PRETOK-RANK"
    named = re.search(
        r"wrong: ('[^']*'), one chunk under every pattern, encodes to (\[[^]]*\]), not (\[[^]]*\])", str(raised.value)
    )
    assert named is not None
    probe, got, expected = (ast.literal_eval(group) for group in named.groups())
    assert split_text(probe, CL100K) == [probe]
    assert got == port.encode(probe)
    assert expected == encode_production_fast(probe, SETUP.vocabulary, CL100K)
    assert got != expected
