"""Checks of a vocabulary-bound encoder in production configuration (BPE-PRETOK-*, BPE-SPECIAL-*).

They run only when ``run --vocabulary`` bound the implementation to a released profile and a vocabulary
(:mod:`bpe_conformance.dialects.production`); otherwise each returns at once and the suite never selects
them. Every expected answer is the literal reference's (:mod:`bpe_conformance.reference.pretokenization`).
A wrong encoding is reported with the chunks the pattern makes and the implementation's tokens under them,
and is blamed on a clause only as far as the ids prove it:

* ids whose pieces do not spell the text: the split (BPE-PRETOK-SPLIT), the message naming what they spell;
* an implementation token that spans two chunks: the split (BPE-PRETOK-SPLIT), proven;
* a special token's id for ordinary text: BPE-SPECIAL-ORDINARY, proven;
* a chunk encoded right alone but wrong inside the text: the split, proven (merging sees only the chunk);
* a chunk encoded wrong even alone: merging by rank (BPE-PRETOK-RANK) when the chunk is lower-case ASCII
  letters after at most one space, which every released pattern and every port keeps whole; otherwise the
  split, and the message says the ids cannot tell it from a merge in another order.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hypothesis import strategies as st

from bpe_conformance.checks.base import ALGORITHM, INTERFACE, Check
from bpe_conformance.dialects.production import ProductionSetup, production_setup
from bpe_conformance.errors import ImplementationRaised, Violation
from bpe_conformance.inputs.split_texts import long_runs, split_texts
from bpe_conformance.reference.pretokenization import (
    decode_production,
    encode_chunk_fast,
    encode_production_fast,
    split_text,
)

if TYPE_CHECKING:
    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.reference.vocabulary import Vocabulary

__all__ = ["PRODUCTION_CHECKS", "chunk_report", "verify_production_encode"]

# Lower-case ASCII letters with at most one space before them: one chunk under every released pattern.
_ALWAYS_ONE_CHUNK = re.compile(r" ?[a-z]+")
# How many such texts are tried before a chunk that is wrong even alone is blamed on the split.
MERGE_PROBES = 400
# The lengths of the short runs of ``a`` tried before the probes of two pieces.
SHORT_RUNS = range(2, 17)


def _pieces(ids: list[int], vocabulary: Vocabulary) -> list[str]:
    shown = []
    for token_id in ids:
        piece = vocabulary.piece_of(token_id)
        shown.append(f"<unknown id {token_id}>" if piece is None else piece.decode("utf-8", errors="backslashreplace"))
    return shown


def _token_spans(ids: list[int], vocabulary: Vocabulary) -> list[tuple[int, int]]:
    spans, offset = [], 0
    for token_id in ids:
        length = len(vocabulary.piece_of(token_id) or b"")
        spans.append((offset, offset + length))
        offset += length
    return spans


def chunk_report(text: str, actual: list[int], setup: ProductionSetup) -> JSONObject:
    """The chunks the pattern makes of ``text``, and the implementation's tokens grouped under them (byte offsets).

    Tokens are placed under chunks only when the ids spell the text: otherwise their offsets are not the text's,
    and ``tokens_across_chunks`` is empty (``spells_text`` false, ``spelled`` what the ids spell).
    """
    chunks = split_text(text, setup.profile)
    vocabulary = setup.vocabulary
    bounds, offset = [], 0
    for chunk in chunks:
        bounds.append((offset, offset + len(chunk.encode())))
        offset += len(chunk.encode())
    spans = _token_spans(actual, vocabulary)
    spelled = b"".join(vocabulary.piece_of(token_id) or b"" for token_id in actual)
    spells_text = spelled == text.encode()
    crossing = [
        index
        for index, (start, end) in enumerate(spans)
        if spells_text and any(start < boundary < end for _, boundary in bounds[:-1])
    ]
    return {
        "chunks": chunks,
        "expected_tokens": [_pieces(encode_chunk_fast(chunk.encode(), vocabulary), vocabulary) for chunk in chunks],
        "actual_tokens": _pieces(actual, vocabulary),
        "tokens_across_chunks": [_pieces([actual[index]], vocabulary)[0] for index in crossing],
        "spells_text": spells_text,
        "spelled": spelled.decode("utf-8", errors="backslashreplace"),
        "bounds": bounds,
        "spans": spans,
    }


def _tokens_of_chunk(actual: list[int], spans: list[tuple[int, int]], start: int, end: int) -> list[int]:
    # Called once the ids spell the text and no token crosses a chunk: the tokens inside tile the chunk.
    return [token_id for token_id, span in zip(actual, spans, strict=True) if start <= span[0] and span[1] <= end]


def _merge_probes(vocabulary: Vocabulary) -> list[str]:
    # Two lower-case ASCII pieces joined, lowest ranks first: one chunk under every pattern, and a text on
    # which lowest-rank merging and other merge orders tend to part.
    words = [piece.decode() for piece in vocabulary.pieces if _ALWAYS_ONE_CHUNK.fullmatch(piece.decode("latin-1"))]
    tails = [word for word in words if not word.startswith(" ")][:60]
    probes = [head + tail for head in words[:60] for tail in tails if len(head + tail) > 2]
    return probes[:MERGE_PROBES]


def _probes(vocabulary: Vocabulary, length: int) -> list[str]:
    return ["a" * length, *("a" * count for count in SHORT_RUNS if count != length), *_merge_probes(vocabulary)]


def _merge_deviation(subject: Subject, setup: ProductionSetup, length: int) -> tuple[str, list[int], list[int]] | None:
    """A single-chunk text the implementation merges otherwise than by lowest rank: (text, expected, actual).

    The first probe is a run of ``a`` as long as the chunk in question, for merge paths that depend on length;
    then the short runs of ``a`` (a run of one byte is where a wrong conversion of ranks into merges shows:
    ``aaa`` built as ``a`` + ``aa`` cannot be reached by merging ``aa`` first).
    """
    for probe in _probes(setup.vocabulary, length):
        expected = encode_production_fast(probe, setup.vocabulary, setup.profile)
        actual = subject.encode(probe)
        if actual != expected:
            return probe, expected, actual
    return None


def _without_specials(text: str, setup: ProductionSetup) -> str | None:
    """``text`` with one letter of every special token's text in it changed, or None when it holds none.

    The changed text is no special token's, and is split into the same kinds of chunks; an implementation
    that encodes it right but not ``text`` treats special-token text apart (BPE-SPECIAL-ORDINARY).
    """
    specials = sorted(setup.vocabulary.special_tokens, key=len, reverse=True)
    found = [special for special in specials if special in text]
    if not found:
        return None
    altered = text
    for special in found:
        position = next((index for index, char in enumerate(special) if "a" <= char <= "z"), None)
        if position is None:
            return None
        letter = "x" if special[position] != "x" else "y"
        changed = special[:position] + letter + special[position + 1 :]
        if changed in setup.vocabulary.special_tokens:
            return None
        altered = altered.replace(special, changed)
    return altered if not any(special in altered for special in specials) else None


def _blame(
    subject: Subject, text: str, actual: list[int], setup: ProductionSetup, report: JSONObject
) -> tuple[str, str]:
    """The clause the ids prove broken, and why."""
    specials = {token_id: name for name, token_id in setup.vocabulary.special_tokens.items()}
    honoured = [specials[token_id] for token_id in actual if token_id in specials]
    if honoured:
        return "BPE-SPECIAL-ORDINARY", f"ordinary text got the id of the special token {honoured[0]!r}"
    unknown = [token_id for token_id in actual if setup.vocabulary.piece_of(token_id) is None]
    if unknown:
        return "BPE-PRETOK-RANK", f"id {unknown[0]} is neither a piece's rank nor a special token"
    altered = _without_specials(text, setup)
    if altered is not None and subject.encode(altered) == encode_production_fast(
        altered, setup.vocabulary, setup.profile
    ):
        return "BPE-SPECIAL-ORDINARY", (
            f"special-token text inside ordinary text is not encoded as ordinary text: with one letter of each "
            f"special token's text changed ({altered!r}) the ids are the reference's"
        )
    if not report["spells_text"]:
        # Offsets in the ids' bytes are not offsets in the text: no token can be placed under a chunk.
        return "BPE-PRETOK-SPLIT", (
            f"the ids spell {report['spelled']!r}, not the text: the "
            "implementation's chunks leave text out or add to it (or its bytes are not the text's UTF-8)"
        )
    if report["tokens_across_chunks"]:
        return "BPE-PRETOK-SPLIT", f"token {report['tokens_across_chunks'][0]!r} spans two chunks the pattern makes"
    for chunk, (start, end) in zip(report["chunks"], report["bounds"], strict=True):
        expected = encode_chunk_fast(chunk.encode(), setup.vocabulary)
        got = _tokens_of_chunk(actual, report["spans"], start, end)
        if got == expected:
            continue
        alone = subject.encode(chunk)
        if alone == expected:
            return "BPE-PRETOK-SPLIT", (
                f"chunk {chunk!r} encodes right alone ({expected}) but not inside the text ({got}): the "
                "implementation splits the text elsewhere (or its ids for a chunk depend on the text around it)"
            )
        if _ALWAYS_ONE_CHUNK.fullmatch(chunk):
            return "BPE-PRETOK-RANK", (
                f"chunk {chunk!r}, one chunk under every pattern, encodes to {alone} alone, not {expected}: "
                "the merges are not made by lowest piece rank"
            )
        merge_witness = _merge_deviation(subject, setup, len(chunk.encode()))
        if merge_witness is not None:
            return "BPE-PRETOK-RANK", (
                f"chunk {chunk!r} encodes to {alone} even alone, not {expected}, and the merging itself is wrong: "
                f"{merge_witness[0]!r}, one chunk under every pattern, encodes to {merge_witness[2]}, not "
                f"{merge_witness[1]}"
            )
        tried = len(_probes(setup.vocabulary, len(chunk.encode())))
        return "BPE-PRETOK-SPLIT", (
            f"chunk {chunk!r} encodes to {alone} even alone, not {expected}: the implementation splits it "
            f"where the pattern does not (its merging was right on {tried} "
            "single-chunk texts, though the "
            "ids alone cannot rule out a merge in another order)"
        )
    return "BPE-PRETOK-SPLIT", "the ids differ, though every chunk's tokens look right"


def verify_production_encode(subject: Subject, text: str) -> None:
    """BPE-PRETOK-SPLIT, BPE-PRETOK-RANK, BPE-SPECIAL-ORDINARY: ordinary text gets exactly the reference's ids."""
    setup = production_setup(subject)
    if setup is None:
        return
    expected = encode_production_fast(text, setup.vocabulary, setup.profile)
    actual = subject.encode(text)
    if actual == expected:
        return
    report = chunk_report(text, actual, setup)
    clause, why = _blame(subject, text, actual, setup, report)
    raise Violation(
        clause,
        f"encode(text) under profile {setup.profile.name}: {why}; the pattern makes the chunks {report['chunks']!r}, "
        f"the implementation's tokens are {report['actual_tokens']!r}",
        inputs={"text": text},
        expected=expected,
        actual=actual,
        divergence={
            "chunks": report["chunks"],
            "expected_tokens": report["expected_tokens"],
            "actual_tokens": report["actual_tokens"],
            "tokens_across_chunks": report["tokens_across_chunks"],
            "clause": clause,
        },
    )


def verify_production_roundtrip(subject: Subject, text: str) -> None:
    """BPE-ROUNDTRIP: decoding the implementation's own ids gives the text back."""
    if production_setup(subject) is None:
        return
    ids = subject.encode(text)
    back = subject.decode(ids)
    if back != text:
        raise Violation(
            "BPE-ROUNDTRIP",
            "decode(encode(text)) is not the text",
            inputs={"text": text},
            expected=text,
            actual=back,
        )


def _ids_of(fractions: list[float], vocabulary: Vocabulary) -> list[int]:
    # Fractions of the vocabulary, so the strategy needs no size and shrinks toward id 0.
    return [min(vocabulary.size - 1, int(fraction * vocabulary.size)) for fraction in fractions]


def verify_production_decode(subject: Subject, fractions: list[float]) -> None:
    """BPE-SPECIAL-DECODE: every id, special or not, decodes to its bytes; invalid UTF-8 becomes U+FFFD."""
    setup = production_setup(subject)
    if setup is None:
        return
    vocabulary = setup.vocabulary
    ids = [*_ids_of(fractions, vocabulary), *sorted(vocabulary.special_tokens.values())]
    for token_id in ids:
        expected = decode_production([token_id], vocabulary)
        got = subject.decode([token_id])
        if got != expected:
            raise Violation(
                "BPE-SPECIAL-DECODE",
                f"decode([{token_id}]) is not its piece {vocabulary.piece_of(token_id)!r}",
                inputs={"ids": [token_id]},
                expected=expected,
                actual=got,
            )
    expected_text = decode_production(ids, vocabulary)
    got_text = subject.decode(ids)
    if got_text != expected_text:
        raise Violation(
            "BPE-SPECIAL-DECODE",
            "decoding ids together is not the join of their pieces (invalid UTF-8 replaced by U+FFFD)",
            inputs={"ids": ids},
            expected=expected_text,
            actual=got_text,
        )


def _unknown_ids(vocabulary: Vocabulary) -> list[int]:
    past = vocabulary.size + len(vocabulary.special_tokens) + 1
    return [token_id for token_id in range(vocabulary.size, past + 1) if vocabulary.piece_of(token_id) is None]


def verify_production_unknown_id(subject: Subject, which: int) -> None:
    """BPE-INPUT-IDS: an id that is neither a piece nor a special token is refused (ValueError family)."""
    setup = production_setup(subject)
    if setup is None:
        return
    for token_id in _unknown_ids(setup.vocabulary)[which : which + 1]:
        try:
            answer = subject.decode([97 % setup.vocabulary.size, token_id])
        except ImplementationRaised as raised:
            if raised.is_input_error:
                continue
            raise Violation(
                "BPE-INPUT-IDS",
                f"decode of the unknown id {token_id} raised {raised.kind}, outside the ValueError and TypeError "
                "families",
                inputs={"ids": [97 % setup.vocabulary.size, token_id]},
                expected="ValueError",
                actual=f"{raised.kind}: {raised.message}",
            ) from None
        raise Violation(
            "BPE-INPUT-IDS",
            f"decode accepted the unknown id {token_id} (the vocabulary has {setup.vocabulary.size} pieces and "
            f"the specials {sorted(setup.vocabulary.special_tokens.values())})",
            inputs={"ids": [97 % setup.vocabulary.size, token_id]},
            expected="ValueError",
            actual=answer,
        )


PRODUCTION_CHECKS = [
    Check(
        name="production-encode",
        level=ALGORITHM,
        clause="BPE-PRETOK-SPLIT",
        summary="ordinary text (split-pattern edge cases, special-token strings) gets exactly the reference's ids",
        verify=verify_production_encode,
        strategy=lambda: split_texts(),
        requires=frozenset({"encode"}),
        also=("BPE-PRETOK-RANK", "BPE-SPECIAL-ORDINARY"),
        # Many fragment families, and a port's bug shows only where its family meets the vocabulary's pieces.
        budget=5.0,
    ),
    Check(
        name="production-long-runs",
        level=ALGORITHM,
        clause="BPE-PRETOK-SPLIT",
        summary="runs of 500 to 5000 of one character get exactly the reference's ids (a quadratic merge loop is slow)",
        verify=verify_production_encode,
        strategy=lambda: long_runs(),
        requires=frozenset({"encode"}),
        also=("BPE-PRETOK-RANK",),
        budget=0.2,
    ),
    Check(
        name="production-roundtrip",
        level=ALGORITHM,
        clause="BPE-ROUNDTRIP",
        summary="decode(encode(text)) is the text under the production profile",
        verify=verify_production_roundtrip,
        strategy=lambda: split_texts(),
        requires=frozenset({"encode", "decode"}),
    ),
    Check(
        name="production-decode",
        level=ALGORITHM,
        clause="BPE-SPECIAL-DECODE",
        summary="every id of the vocabulary and every special decodes to its bytes (U+FFFD for invalid UTF-8)",
        verify=verify_production_decode,
        strategy=lambda: st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=12),
        requires=frozenset({"decode"}),
    ),
    Check(
        name="production-unknown-id",
        level=INTERFACE,
        clause="BPE-INPUT-IDS",
        summary="an id that is neither a piece nor a special token is refused with a ValueError",
        verify=verify_production_unknown_id,
        # Which unknown id: the first past the pieces, or the next that is no special either.
        strategy=lambda: st.sampled_from([0, 1]),
        requires=frozenset({"decode"}),
    ),
]
