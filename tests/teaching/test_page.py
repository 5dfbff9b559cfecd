"""conformance/teaching/page.py: the walk-through page, as written and as headless Chromium renders it.

The page's states are addressable by URL fragment, so each one is opened in Chromium and checked for
what it must show; the screenshot is there to be looked at (``tox -e html`` keeps it under .tox/html/tmp).
"""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

import pytest

from bpe_conformance.reference import reversed_ranks, trace_encoding, trace_training
from bpe_conformance.teaching.page import MAX_TOKENS_SHOWN, render_page, replaced_positions
from tests.support.browser import chromium_path, render_dom, requires_chromium, screenshot

ABAB_ACAC = ["abab", "acac"]
_SECTION = re.compile(
    r'<section class="state" data-state="(?P<id>[^"]+)"(?P<attributes>[^>]*)>(?P<body>.*?)</section>', re.S
)
_ROW = re.compile(r'<div class="row" data-row="(?P<label>[^"]+)">(?P<body>.*?)</div>', re.S)


def worked_example_page() -> str:
    trace = trace_training(ABAB_ACAC, 32)
    rules = [step.pair for step in trace.rounds]
    return render_page(
        ABAB_ACAC,
        trace,
        [(trace_encoding("abac", rules), trace_encoding("abac", rules, order=reversed_ranks(len(rules))))],
    )


def sections(page: str) -> dict[str, tuple[str, str]]:
    """Each state's attributes and body, by id."""
    return {match["id"]: (match["attributes"], match["body"]) for match in _SECTION.finditer(page)}


def rows(body: str) -> list[tuple[str, list[int]]]:
    """Every row of token boxes in a state: its label and the ids of its boxes."""
    return [
        (match["label"], [int(token) for token in re.findall(r'data-id="(\d+)"', match["body"])])
        for match in _ROW.finditer(body)
    ]


def test_every_state_has_an_address_and_the_page_needs_nothing_else() -> None:
    page = worked_example_page()
    assert list(sections(page)) == ["start", "round-0", "round-1", "stop", "encode-0"]
    assert not re.search(r"(?:src|href)\s*=|https?:|@import|url\(", page)
    assert page.count("<style>") == 1
    assert page.count("<script>") == 1


def test_a_round_shows_each_document_before_and_after_with_the_replaced_pairs() -> None:
    """Round 0 of the worked example: document 0 goes from [97, 98, 97, 98] to [258, 258], two framed pairs;
    document 1 is untouched."""
    body = sections(worked_example_page())["round-0"][1]
    assert rows(body) == [
        ("before", [97, 98, 97, 98]),
        ("after", [258, 258]),
        ("before", [97, 99, 97, 99]),
        ("after", [97, 99, 97, 99]),
    ]
    first_document = body[: body.index('data-document="1"')]
    assert first_document.count('class="replaced"') == 2
    assert len(re.findall(r'class="tok new"', first_document)) == 2


def test_the_counts_table_marks_the_winner_and_the_tie() -> None:
    body = sections(worked_example_page())["round-0"][1]
    table = re.findall(r'<tr class="([^"]*)"><td class="pair">\(([^)]*)\)', body)
    assert table[:2] == [("winner tie", "97, 98"), ("tie", "97, 99")]
    assert all(classes == "" for classes, _ in table[2:])
    assert "the smallest pair, compared as integers, wins" in body


def test_the_stop_and_the_encoding_states() -> None:
    states = sections(worked_example_page())
    assert "(258, 258)" in states["stop"][1]
    assert "below 2" in states["stop"][1]
    encoding = states["encode-0"][1]
    assert ("document", [256, 258, 259, 257]) in rows(encoding)
    assert "ids [258, 259] · decodes to &#x27;abac&#x27;" in encoding
    assert "the same ids, [258, 259]" in encoding  # these two rules do not depend on each other


def test_an_encoding_out_of_rank_order_shows_its_ids_and_why_they_differ() -> None:
    rules = [(97, 98), (258, 99)]
    page = render_page(
        [], None, [(trace_encoding("abc", rules), trace_encoding("abc", rules, order=[1, 0]))], rules=rules
    )
    encoding = sections(page)["encode-0"][1]
    assert [ids for label, ids in rows(encoding) if label == "document"] == [[256, 259, 257], [256, 258, 99, 257]]
    assert "[258, 99], not the canonical [259]" in encoding
    assert "rule 1 (258, 99) names 258, which no rule had made yet" in encoding


def test_an_overlapping_round_says_why_not_every_window() -> None:
    body = sections(render_page(["aaa"], trace_training(["aaa"], 32)))["round-0"][1]
    assert ("after", [258, 97]) in rows(body)
    assert "Not [258, 258]" in body
    assert "&#x27;aaaa&#x27;" in body


def test_replaced_positions_read_off_the_sequence_after() -> None:
    assert replaced_positions([258, 258], 258) == [0, 2]
    assert replaced_positions([98, 258], 258) == [1]
    assert replaced_positions([97, 98], 258) == []


def test_long_rows_end_in_a_box_that_says_how_many_more() -> None:
    document = "ab" * (MAX_TOKENS_SHOWN + 20)
    body = sections(render_page([document], trace_training([document], 0)))["start"][1]
    ((_, shown),) = rows(body)
    assert len(shown) == MAX_TOKENS_SHOWN
    assert f"… {len(document) - MAX_TOKENS_SHOWN} more" in body


def test_a_page_of_encodings_alone_needs_their_rules() -> None:
    rules = [(97, 98), (258, 99)]
    page = render_page([], None, [(trace_encoding("abc", rules), None)], rules=rules)
    assert list(sections(page)) == ["encode-0"]
    with pytest.raises(ValueError, match="needs a training trace or the rules"):
        render_page([], None, [])


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


@requires_chromium
def test_chromium_shows_exactly_the_state_the_fragment_names(tmp_path: Path) -> None:
    """Opened at #round-1, only round 1 is shown, the slider and the position say so, and round 1's rows are the
    seed chapter's: [258, 258] and [259, 259] after it."""
    page = tmp_path / "trace.html"
    page.write_text(worked_example_page(), encoding="utf-8")
    doms = {}
    for fragment, current, index in (
        ("round-1", "round-1", 2),
        ("encode-0", "encode-0", 4),
        ("no-such-state", "start", 0),
    ):
        dom = doms[fragment] = render_dom(page, fragment)
        assert f'data-current="{current}"' in dom
        states = sections(dom)
        shown = [state for state, (attributes, _) in states.items() if "hidden" not in attributes]
        assert shown == [current]
        assert re.search(rf'id="slider"[^>]*value="{index}"', dom)
        assert re.search(r'id="slider"[^>]*max="4"', dom)
        assert f"({index + 1} of 5)" in dom
    round_1 = sections(doms["round-1"])["round-1"][1]
    assert [ids for label, ids in rows(round_1) if label == "after"] == [[258, 258], [259, 259]]


@requires_chromium
def test_chromium_draws_the_page(tmp_path: Path) -> None:
    """A picture of round 0 is taken (and kept where $BPE_SCREENSHOTS points, for a person to look at)."""
    page = tmp_path / "trace.html"
    page.write_text(worked_example_page(), encoding="utf-8")
    keep = os.environ.get("BPE_SCREENSHOTS")
    output = (Path(keep) if keep else tmp_path) / "trace-round-0.png"
    output.parent.mkdir(parents=True, exist_ok=True)
    picture = screenshot(page, output, "round-0", size=(1280, 900))
    assert _png_size(picture) == (1280, 900)
    assert picture.stat().st_size > 10_000  # a blank page compresses to far less


def test_chromium_is_there_where_the_page_tests_are_required() -> None:
    """`tox -e html` sets BPE_REQUIRE_CHROMIUM: there a missing browser fails the run instead of skipping it."""
    if os.environ.get("BPE_REQUIRE_CHROMIUM") and chromium_path() is None:
        pytest.fail("BPE_REQUIRE_CHROMIUM is set but no Chromium was found (Debian package 'chromium')")
