"""docs/matrix.html: one self-contained page, checked as written and as headless Chromium renders it.

The Chromium tests render the page (the fabricated matrix and the committed docs/matrix.html) and read
the DOM after its script ran: every implementation has its column, every ``fail`` cell is there and
shown, a fragment (``#level=...&profile=...&cell=...``) filters the view or opens a cell, and a
screenshot is drawn. They skip, saying why, where Chromium is not installed (``tox -e matrix-html``).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any, cast

from bpe_conformance.matrix.page import displayed, render_page
from bpe_conformance.matrix.record import read_matrix
from bpe_conformance.matrix.render import failing_cells
from tests import ROOT
from tests.matrix.fabricated import HOSTILE, fabricated_document
from tests.support.browser import render_dom, requires_chromium, screenshot

if TYPE_CHECKING:
    from pathlib import Path

VOID = {"meta", "br", "img", "input", "link", "hr", "col", "source", "wbr"}


class _Element:
    def __init__(self, tag: str, attributes: dict[str, str | None], parent: _Element | None) -> None:
        self.tag, self.attributes, self.parent = tag, attributes, parent
        self.text: list[str] = []

    @property
    def shown(self) -> bool:
        """Neither it nor any element around it has the ``hidden`` attribute."""
        node: _Element | None = self
        while node is not None:
            if "hidden" in node.attributes:
                return False
            node = node.parent
        return True

    def all_text(self, elements: list[_Element]) -> str:
        inside = [element for element in elements if element is self or self in element.ancestors()]
        return " ".join(part for element in inside for part in element.text)

    def ancestors(self) -> list[_Element]:
        found, node = [], self.parent
        while node is not None:
            found.append(node)
            node = node.parent
        return found


class _Dom(HTMLParser):
    """Every element of a page with its attributes, its parent and its own text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[_Element] = []
        self._open: list[_Element] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = _Element(tag, dict(attrs), self._open[-1] if self._open else None)
        self.elements.append(element)
        if tag not in VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1].text.append(data)

    def select(self, tag: str, **attributes: str) -> list[_Element]:
        wanted = {name.replace("_", "-"): value for name, value in attributes.items()}
        return [
            element
            for element in self.elements
            if element.tag == tag and all(element.attributes.get(name) == value for name, value in wanted.items())
        ]

    def by_id(self, identifier: str) -> _Element:
        (element,) = [element for element in self.elements if element.attributes.get("id") == identifier]
        return element


def _write(tmp_path: Path, document: dict[str, Any]) -> Path:
    page = tmp_path / "matrix.html"
    page.write_text(render_page(document), encoding="utf-8")
    return page


def _fail_keys(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(row["label"], check["name"]) for row, check, _ in failing_cells(document)}


def _dom_fail_keys(dom: _Dom, shown_only: bool = True) -> set[tuple[str | None, str | None]]:
    cells = dom.select("td", data_cell="fail")
    return {
        (cell.attributes["data-impl"], cell.attributes["data-check"]) for cell in cells if cell.shown or not shown_only
    }


# --- the page as written -----------------------------------------------------------------------------------------


def test_the_page_is_self_contained_and_escapes_what_implementations_said() -> None:
    """No network: no external script, style, image or link; a message holding markup stays text."""
    document = fabricated_document(tie_cell="fail")
    page = render_page(document)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page, re.IGNORECASE)
    assert "<link" not in page
    assert "@import" not in page
    assert "url(" not in page
    assert page.count("<script") == 2
    assert page.count("</script>") == 2
    assert "alert" in page
    data = re.search(r'<script type="application/json" id="matrix-data">(.*?)</script>', page, re.DOTALL)
    assert data is not None
    held = json.loads(data.group(1))
    assert held == displayed(document)
    assert held != document
    message = held["implementations"][1]["cells"]["tie-break"]["message"]
    assert message.endswith(HOSTILE.replace("\udc80", "\\udc80"))  # the lone surrogate as its escape, as text
    page.encode("utf-8")


def test_the_page_lists_every_implementation_and_every_fail_cell_without_its_script() -> None:
    document = fabricated_document(tie_cell="fail")
    dom = _Dom(render_page(document))
    headers = {element.attributes["data-impl"] for element in dom.select("th") if "data-impl" in element.attributes}
    assert headers == {row["label"] for row in document["implementations"]}
    assert _dom_fail_keys(dom) == _fail_keys(document)
    assert _fail_keys(document) == {("dialect-two", "tie-break"), ("dialect-two", "decode-strict")}
    sections = dom.select("section", **{"class": "failure"})
    assert {(s.attributes["data-impl"], s.attributes["data-check"]) for s in sections} == _fail_keys(document)
    for row in document["implementations"]:
        for check in document["checks"]:
            (cell,) = dom.select("td", data_impl=row["label"], data_check=check["name"])
            assert cell.attributes["data-cell"] == row["cells"][check["name"]]["cell"]
            assert cell.attributes["data-version"] == row["version"]


def test_rows_are_grouped_by_level_then_by_clause() -> None:
    document = fabricated_document()
    dom = _Dom(render_page(document))
    rows = [row for row in dom.select("tr") if "data-clause" in row.attributes]
    order = [(row.attributes["data-level"], row.attributes["data-clause"]) for row in rows]
    levels = [level for level, _ in order]
    rank: list[str | None] = ["algorithm", "interface"]
    assert levels == sorted(levels, key=rank.index)
    for level in ("algorithm", "interface"):
        clauses = [clause for row_level, clause in order if row_level == level]
        assert all(
            clauses.index(clause) == position or clauses[position - 1] == clause
            for position, clause in enumerate(clauses)
        ), clauses  # each clause's checks are adjacent
    assert len(rows) == len(document["checks"])


# --- the page in headless Chromium -------------------------------------------------------------------------------


@requires_chromium
def test_chromium_shows_every_implementation_and_every_fail_cell(tmp_path: Path) -> None:
    document = fabricated_document(tie_cell="fail")
    dom = _Dom(render_dom(_write(tmp_path, document)))
    headers = {e.attributes["data-impl"] for e in dom.select("th") if "data-impl" in e.attributes and e.shown}
    assert headers == {row["label"] for row in document["implementations"]}
    assert _dom_fail_keys(dom) == _fail_keys(document)
    assert dom.by_id("detail").attributes.get("hidden") is not None
    assert dom.select("body")[0].attributes.get("data-level") == "all"  # the script ran


@requires_chromium
def test_a_fragment_filters_by_level_and_profile_and_opens_a_cell(tmp_path: Path) -> None:
    document = fabricated_document(tie_cell="fail")
    page = _write(tmp_path, document)
    dom = _Dom(render_dom(page, "level=interface&profile=largest-pair&cell=dialect-two/tie-break"))
    shown_rows = {
        row.attributes["data-level"] for row in dom.select("tr") if "data-clause" in row.attributes and row.shown
    }
    assert shown_rows == {"interface"}
    shown_columns = {e.attributes["data-impl"] for e in dom.select("th") if "data-impl" in e.attributes and e.shown}
    assert shown_columns == {"dialect-two"}
    assert _dom_fail_keys(dom) == {("dialect-two", "decode-strict")}  # the algorithm level's fail is filtered out
    assert _dom_fail_keys(dom, shown_only=False) == _fail_keys(document)  # ... but still on the page
    panel = dom.by_id("detail")
    assert panel.shown
    said = panel.all_text(dom.elements)
    cell = document["implementations"][1]["cells"]["tie-break"]
    for fact in ("tie broken the other way", "ties go to the largest pair", cell["reproduce"], "2.0.1"):
        assert fact in said, fact
    (selected,) = [e for e in dom.select("td") if "selected" in cast("str", e.attributes.get("class", ""))]
    assert selected.attributes["data-key"] == "dialect-two/tie-break"


@requires_chromium
def test_the_committed_page_renders_every_implementation_and_fail_cell(tmp_path: Path) -> None:
    """docs/matrix.html, from docs/matrix.json: each row's column and each fail cell, also in a filtered view."""
    document = read_matrix(ROOT / "docs" / "matrix.json", "docs/matrix.json")
    page = ROOT / "docs" / "matrix.html"
    dom = _Dom(render_dom(page))
    headers = [e.attributes["data-impl"] for e in dom.select("th") if "data-impl" in e.attributes and e.shown]
    assert headers == [row["label"] for row in document["implementations"]]
    assert _dom_fail_keys(dom) == _fail_keys(document)
    interface = _Dom(render_dom(page, "level=interface"))
    expected = {
        (label, check)
        for label, check in _fail_keys(document)
        if next(c for c in document["checks"] if c["name"] == check)["level"] == "interface"
    }
    assert _dom_fail_keys(interface) == expected
    picture = screenshot(page, tmp_path / "matrix.png", "level=interface", size=(1400, 900))
    assert picture.stat().st_size > 10_000


@requires_chromium
def test_a_wide_matrix_stays_drawable(tmp_path: Path) -> None:
    """Any number of rows: forty implementations still give one page with every column and fail cell."""
    document = fabricated_document(tie_cell="fail")
    template = document["implementations"][1]
    document["implementations"] = [
        {**json.loads(json.dumps(template)), "label": f"impl-{number:02d}"} for number in range(40)
    ]
    dom = _Dom(render_dom(_write(tmp_path, document)))
    assert len([e for e in dom.select("th") if "data-impl" in e.attributes and e.shown]) == 40
    assert _dom_fail_keys(dom) == _fail_keys(document)
    assert len(_fail_keys(document)) == 80
