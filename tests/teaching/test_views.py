"""conformance/teaching/: labels, and the training and encoding views, by the facts they must state."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from bpe_conformance.reference import reversed_ranks, trace_encoding, trace_training
from bpe_conformance.teaching.encoding_view import encoding_lines
from bpe_conformance.teaching.labels import (
    PARTIAL_LABEL,
    fit,
    ids_text,
    piece_label,
    selection_reason,
    short_repr,
    stop_explanation,
    wrap,
    wrap_items,
)
from bpe_conformance.teaching.training_view import footnote_lines, training_lines

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bpe_conformance.teaching.lines import Line


def text_of(lines: Sequence[Line]) -> str:
    return " ".join(" ".join(line.text for line in lines).split())


@pytest.mark.parametrize(
    ("piece", "label"),
    [
        (b"ab", "'ab'"),
        (b" ", "' '"),
        (b"\n", "'\\n'"),
        ("低".encode(), "'低'"),
        (b"\xbd\x8e", "<bd 8e>*"),
        (b"\xe4", "<e4>*"),
        (b"", "''"),
    ],
)
def test_a_piece_is_text_only_when_it_is_valid_utf8_on_its_own(piece: bytes, label: str) -> None:
    """BPE-RULE-PIECE: tools SHOULD show pieces as hex bytes and MUST NOT decode a partial one with U+FFFD."""
    assert piece_label(piece) == label
    assert bool(PARTIAL_LABEL.fullmatch(label)) == label.startswith("<")


def test_long_pieces_and_texts_are_cut_saying_how_long_they_are() -> None:
    assert piece_label(b"a" * 100, 30).endswith("(100 characters)")
    assert cell_len(piece_label(b"a" * 100, 30)) <= 30
    assert piece_label(b"\xbd" * 100, 40).endswith("(100 bytes)")
    assert PARTIAL_LABEL.search(piece_label(b"\xbd" * 100))
    assert cell_len(short_repr("低" * 50, 30)) <= 30
    assert short_repr("低" * 50, 30).endswith("(50 characters)")


@given(st.lists(st.integers(0, 100_000), max_size=60), st.integers(12, 120))
def test_ids_fit_the_width_and_say_how_many(ids: list[int], width: int) -> None:
    shown = ids_text(ids, width)
    if shown == str(ids):
        return
    assert cell_len(shown) <= width or shown.count(",") == 1  # at least one id is always shown
    assert shown.endswith(f"… {len(ids)} ids]")
    assert ids_text(ids, 10_000) == str(ids)


@given(st.text(alphabet="ab 低(),0123456789", max_size=200), st.integers(20, 100))
def test_wrap_never_exceeds_the_width_unless_a_word_is_longer(text: str, width: int) -> None:
    for line in wrap(text, width, "  ", "    "):
        words = line.split()
        assert cell_len(line) <= width or len(words) == 1
    assert " ".join(" ".join(wrap(text, width)).split()) == " ".join(text.split())


def test_wrap_keeps_pairs_and_items_whole() -> None:
    assert all("(116," not in line or "(116, 260)" in line for line in wrap("x " * 30 + "(116, 260) y", 22))
    assert wrap_items(["(97, 98)×2"] * 3, 24, "  ", "    ") == ["  (97, 98)×2  (97, 98)×2", "    (97, 98)×2"]
    assert fit(["a", "b"], 3) == "a b"
    assert fit([], 3) == ""


def test_the_winner_is_explained_by_a_tie_by_the_highest_count_or_as_the_only_pair() -> None:
    """BPE-TRAIN-TIE and BPE-TRAIN-GREEDY: the reason names the tied pairs, or the runner-up and its count."""
    tie, greedy = trace_training(["abab", "acac"], 32).rounds
    assert "(97, 98) and (97, 99) tie at count 2" in selection_reason(tie)
    assert "BPE-TRAIN-TIE" in selection_reason(tie)
    assert "(99, 97), has 1" in selection_reason(greedy)
    assert "BPE-TRAIN-GREEDY" in selection_reason(greedy)
    assert "only pair" in selection_reason(trace_training(["aaa"], 1).rounds[0])
    many = trace_training(["abcdefghijkl", "abcdefghijkl"], 1).rounds[0]
    assert "11 pairs" not in selection_reason(many)
    assert "and 3 more tie at count 2" in selection_reason(many)


@pytest.mark.parametrize(
    ("documents", "max_merges", "facts"),
    [
        (["a", "b"], 8, ("no pair left",)),
        (["abab", "acac"], 32, ("(258, 258)", "occurs once", "below 2")),
        (["abab", "acac"], 1, ("1 rule made, all that max_merges 1 allows",)),
        (["abab", "acac"], 0, ("0 rules made, all that max_merges 0 allows",)),
    ],
)
def test_the_stop_is_explained_by_the_rule_that_applied(
    documents: list[str], max_merges: int, facts: tuple[str, ...]
) -> None:
    explanation = stop_explanation(trace_training(documents, max_merges).stop)
    assert all(fact in explanation for fact in facts), explanation
    assert "BPE-TRAIN-STOP" in explanation


def test_the_training_view_of_a_merge_with_overlapping_windows() -> None:
    lines = training_lines(["aaa"], trace_training(["aaa"], 32), width=100)
    shown = text_of(lines)
    assert "doc 0 [258, 97] 'aa' 'a'" in shown
    assert "why [258, 97] and not [258, 258] in doc 0" in shown
    assert "decodes to 'aaaa' (4 bytes), not 'aaa'" in shown
    assert footnote_lines(lines, 100) == []


def test_max_docs_zero_hides_sequences_but_counts_them() -> None:
    documents = ["ab", "ab", "cd"]
    shown = text_of(training_lines(documents, trace_training(documents, 32, kept_documents=0), width=100))
    assert "doc 0" not in shown
    assert "… and 3 more documents (--max-docs)" in shown


def test_a_partial_piece_brings_its_footnote_once() -> None:
    documents = ["低" * 4]
    lines = training_lines(documents, trace_training(documents, 2), width=100)
    assert any(PARTIAL_LABEL.search(line.text) for line in lines)
    assert len([line for line in footnote_lines(lines, 100) if line.text]) >= 1


def test_the_encoding_view_explains_each_rule_that_found_nothing_out_of_order() -> None:
    """Out of order a rule can miss because it names an id not made yet, or because the rules before it merged
    its ids otherwise; the view says which, and never the other."""
    rules = [(97, 98), (98, 99)]
    right, wrong = trace_encoding("abc", rules), trace_encoding("abc", rules, order=reversed_ranks(2))
    shown = text_of(encoding_lines(right, rules, wrong=wrong, width=100))
    assert "[97, 259], not the canonical [258, 99]" in shown
    assert "rule 0 (97, 98) found its ids already merged otherwise" in shown
    assert "names" not in shown
    rules = [(97, 98), (258, 99)]
    right, wrong = trace_encoding("abc", rules), trace_encoding("abc", rules, order=reversed_ranks(2))
    shown = text_of(encoding_lines(right, rules, wrong=wrong, width=100))
    assert "rule 1 (258, 99) names 258, which no rule had made yet" in shown
    assert "merged otherwise" not in shown


def test_the_encoding_view_counts_the_rules_that_replaced_nothing() -> None:
    rules = [(97, 98), (120, 121), (97, 99)]
    shown = text_of(encoding_lines(trace_encoding("abac", rules), rules, width=100))
    assert "1 rule of 3 replaced nothing" in shown
    assert "ids [258, 260]" in shown
    assert "document [256, 258, 260, 257]" in shown
    assert "= 'abac'" in shown
