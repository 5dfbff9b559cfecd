"""docs/matrix.md from a crafted matrix document: every text in it stays text.

The document is schema-valid and every field an implementation (or whoever wrote the file) controls
holds Markdown and HTML that would do something if written raw: a heading, a link, an image, a
``<script>``, a pipe that adds a column, a backtick that ends a code span, a newline. The Markdown is
parsed as GitHub renders it (CommonMark and tables, markdown-it) and must show each text as it was.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

from markdown_it import MarkdownIt

from bpe_conformance.matrix.page import render_page
from bpe_conformance.matrix.record import dumps_matrix, read_matrix
from bpe_conformance.matrix.render import code_span, markdown_text, render_markdown
from tests.matrix.fabricated import fabricated_document

if TYPE_CHECKING:
    from pathlib import Path

CRAFTED = (
    "# owned\n> quote | a | b [click](javascript:alert(1)) ![i](http://x/i.png) "
    "<script>alert(1)</script> `x` *em* ~~s~~"
)
COMMAND = "bpe-conformance run x; rm -rf ~"


def _crafted(tmp_path: Path) -> dict[str, Any]:
    """A fabricated document with the crafted text in every free-text field, read back as `matrix --from` does."""
    document = copy.deepcopy(fabricated_document(tie_cell="fail"))
    row = document["implementations"][1]
    for field in ("label", "name", "version", "language", "identified"):
        row[field] = f"{field} {CRAFTED}"
    cell = row["cells"]["tie-break"]
    cell["message"] = CRAFTED
    cell["counterexample"] = {"inputs": {"documents": [CRAFTED, "``a``"]}, "expected": [CRAFTED], "actual": "`"}
    cell["reproduce"] = COMMAND
    document["not_installed"] = [CRAFTED, "1. numbered"]
    document["generated_by"]["command"] = COMMAND
    path = tmp_path / "crafted.json"
    path.write_text(dumps_matrix(document), encoding="utf-8")
    return read_matrix(path, "--from")


def _tokens(markdown: str) -> list[Any]:
    return MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough").parse(markdown)


def _flat(tokens: list[Any]) -> list[Any]:
    return [inner for token in tokens for inner in [token, *(token.children or [])]]


def test_a_crafted_document_renders_as_text_only(tmp_path: Path) -> None:
    markdown = render_markdown(_crafted(tmp_path))
    kinds = {token.type for token in _flat(_tokens(markdown))}
    for active in ("html_inline", "html_block", "link_open", "image", "blockquote_open", "s_open"):
        assert active not in kinds, active
    headings = [
        markdown.splitlines()[token.map[0]] for token in _tokens(markdown) if token.type == "heading_open" and token.map
    ]
    assert not any("owned" in heading and heading.startswith("# ") for heading in headings)
    assert COMMAND not in markdown


def test_every_table_row_keeps_its_columns(tmp_path: Path) -> None:
    document = _crafted(tmp_path)
    tokens = _tokens(render_markdown(document))
    widths = []
    row: list[str] = []
    for token in tokens:
        if token.type == "tr_open":
            row = []
        elif token.type in ("th_open", "td_open"):
            row.append("")
        elif token.type == "tr_close":
            widths.append(len(row))
    columns = 2 + len(document["implementations"])
    assert widths.count(columns) >= len(document["checks"]) + 3  # header, version, profile, identified, checks
    assert set(widths) <= {columns, 5}  # the matrix, and the failure table's five columns


def test_the_crafted_texts_are_shown_as_they_were(tmp_path: Path) -> None:
    document = _crafted(tmp_path)
    text = "".join(
        token.content for token in _flat(_tokens(render_markdown(document))) if token.type in ("text", "code_inline")
    )
    flat = " ".join(CRAFTED.split())
    assert f"version {flat}" in text
    assert f"identified {flat}" in text
    assert flat in text
    inputs = {"documents": [CRAFTED, "``a``"]}
    assert json.dumps(inputs, ensure_ascii=False) in text


def test_the_page_neither_runs_nor_offers_a_crafted_command(tmp_path: Path) -> None:
    page = render_page(_crafted(tmp_path))
    assert COMMAND not in page
    assert "bpe-conformance matrix --seed" in page
    assert page.count("<script") == 2  # the page's own data and script, nothing the document said


def test_markdown_text_and_code_span_keep_what_they_are_given() -> None:
    parser = MarkdownIt("commonmark", {"html": True})
    for text in (CRAFTED, "1. a", "- b", "+ c", "= d", "\\`e\\`", "a\\|b", "&amp; stays"):
        (paragraph,) = [token for token in parser.parse(f"* {markdown_text(text, line_start=True)}") if token.children]
        shown = paragraph.children or []
        assert paragraph.content
        assert "".join(child.content for child in shown) == " ".join(text.split())
        (span,) = [token for token in parser.parse(code_span(text)) if token.children]
        inside = span.children or []
        assert [child.type for child in inside] == ["code_inline"]
        assert inside[0].content == " ".join(text.split())
