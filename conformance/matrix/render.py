"""``docs/matrix.md``: the matrix's table, the libraries not installed, and every failure with its reproduction.

Rendered from the matrix document (:mod:`bpe_conformance.matrix.record`), like ``docs/matrix.html``. Every
text of the document is inert in Markdown (:func:`markdown_text`, :func:`code_span`): an implementation's
name, version or message, or a crafted document, cannot add a heading, a link, HTML or a table column.

>>> sorted(parse_failures(FAILURES_HEADING + "\\n| hf | tie-break | BPE-TRAIN-TIE | strict | 0 |\\n"))
[('hf', 'tie-break', 'BPE-TRAIN-TIE', 'strict', 0)]
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from bpe_conformance.checks.base import LEVELS
from bpe_conformance.matrix.production_render import production_markdown
from bpe_conformance.matrix.record import generating_command, matrix_document
from bpe_conformance.results.text import printable

if TYPE_CHECKING:
    from bpe_conformance.matrix.run import RowResult
    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "FAILURES_HEADING",
    "cell_values",
    "code_span",
    "failing_cells",
    "level_tally",
    "markdown_text",
    "parse_failures",
    "render_markdown",
    "render_matrix",
]

FAILURES_HEADING = "## Failures under the declared profile"
# Marks that start inline Markdown (emphasis, code, links, tables, strikethrough); escaped wherever they are.
_INLINE_MARKS = re.compile(r"([\\`*_\[\]|~])")
# What makes a line a block of its own (heading, quote, list, rule) where a text starts a line.
_BLOCK_START = re.compile(r"^(?:[#>+=-]|\d+(?=[.)]))")


def markdown_text(value: object, *, line_start: bool = False) -> str:
    """``value`` as Markdown text that shows exactly it: one line, HTML as entities, Markdown's marks escaped.

    ``line_start``: the text begins a line (a list item's), where ``#``, ``>``, ``-`` or ``1.`` would
    start a block of their own.

    >>> markdown_text("<script>x</script> | [a](javascript:b) *c*")
    '&lt;script&gt;x&lt;/script&gt; \\\\| \\\\[a\\\\](javascript:b) \\\\*c\\\\*'
    >>> markdown_text("# heading", line_start=True), markdown_text("0.23.3")
    ('\\\\# heading', '0.23.3')
    """
    text = printable(" ".join(str(value).split()))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _INLINE_MARKS.sub(r"\\\1", text)
    if line_start and _BLOCK_START.match(text):
        text = "\\" + text if not text[0].isdigit() else _BLOCK_START.sub(lambda match: match.group() + "\\", text)
    return text


def code_span(value: object) -> str:
    """``value`` as an inline code span (on one line) that no backtick inside it can close.

    >>> code_span("a`b"), code_span("plain")
    ('`` a`b ``', '`plain`')
    """
    text = printable(" ".join(str(value).split()))
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    marks = "`" * (longest + 1)
    if not text:
        return "` `"
    return f"{marks} {text} {marks}" if longest else f"{marks}{text}{marks}"


def _one_line(message: str) -> str:
    """A message on one line; a crash's stderr tail (which varies run to run) is cut to its last line.

    >>> _one_line("train: died; stderr tail:\\n  File x\\n    call()\\nPanicException: boom")
    'train: died; stderr tail: ... PanicException: boom'
    """
    head, marker, tail = message.partition("stderr tail:")
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    if marker and lines:
        return f"{head}{marker} ... {lines[-1]}"
    return " ".join(message.split())


def _compact(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 400 else text[:400] + " ..."


def level_tally(cells: dict[str, str], levels: dict[str, str], level: str) -> str:
    """How many of one level's checks a row fails: ``"0 fail"``, ``"3 fail"``; ``levels`` maps check to level.

    >>> level_tally({"a": "fail", "b": "fail"}, {"a": "algorithm", "b": "interface"}, "algorithm")
    '1 fail'
    >>> level_tally({"a": "pass", "b": "skip"}, {"a": "algorithm", "b": "interface"}, "interface")
    '0 fail'
    """
    failed = sum(1 for name, value in cells.items() if value == "fail" and levels.get(name) == level)
    return f"{failed} fail"


def cell_values(implementation: JSONObject) -> dict[str, str]:
    """An implementation's cells of a matrix document, check name to ``pass``/``fail``/``dialect``/``skip``."""
    return {name: record["cell"] for name, record in implementation["cells"].items()}


def shown_cell(record: JSONObject, check: dict[str, str]) -> str:
    """A cell as the table shows it: a ``fail`` whose failure names another clause than the row's says which.

    A check fails on any divergence its example provokes, under the clause the experiments localised it to
    (or the symptom's, unlocalised): a tie bug seen by the stop-rule check is a failure of the tie clause, and
    a bare ``fail`` in the stop-rule row would say the stop rule is broken.

    >>> shown_cell({"cell": "fail", "clause": "BPE-TRAIN-TIE"}, {"clause": "BPE-TRAIN-STOP"})
    'fail (BPE-TRAIN-TIE)'
    >>> shown_cell({"cell": "fail", "clause": "BPE-TRAIN-STOP"}, {"clause": "BPE-TRAIN-STOP"})
    'fail'
    """
    if record["cell"] == "fail" and record.get("clause") not in (None, check["clause"]):
        return f"fail ({markdown_text(record['clause'])})"
    return markdown_text(record["cell"])


def _table(document: JSONObject) -> list[str]:
    """One table, the algorithm level first and the interface level after it, so neither hides the other."""
    rows, checks = document["implementations"], document["checks"]
    levels = {check["name"]: check["level"] for check in checks}
    header = ["check", "clause", *(markdown_text(row["label"]) for row in rows)]
    lines = [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join("---" for _ in header) + " |",
        "| *version* | | " + " | ".join(markdown_text(row["version"]) for row in rows) + " |",
        "| *declared profile* | | " + " | ".join(markdown_text(row["profile"]) for row in rows) + " |",
        "| *identified as* | | " + " | ".join(markdown_text(row["identified"]) for row in rows) + " |",
    ]
    for level in LEVELS:
        tallies = [level_tally(cell_values(row), levels, level) for row in rows]
        lines.append(f"| **{level} level** | | " + " | ".join(f"**{tally}**" for tally in tallies) + " |")
        for check in checks:
            if check["level"] == level:
                cells = [shown_cell(row["cells"][check["name"]], check) for row in rows]
                named = f"| {markdown_text(check['name'])} | {markdown_text(check['clause'])} | "
                lines.append(named + " | ".join(cells) + " |")
    return lines


def failing_cells(document: JSONObject) -> list[tuple[JSONObject, dict[str, str], JSONObject]]:
    """``(implementation, check, cell)`` for every ``fail`` cell, in row order, then the suite's check order."""
    return [
        (row, check, row["cells"][check["name"]])
        for row in document["implementations"]
        for check in document["checks"]
        if row["cells"].get(check["name"], {}).get("cell") == "fail"
    ]


def _failure_section(document: JSONObject) -> list[str]:
    failures, seed = failing_cells(document), document["seed"]
    lines = [FAILURES_HEADING, ""]
    if not failures:
        return [*lines, "None: every implementation passes every applicable check under its own profile.", ""]
    lines += ["| implementation | check | clause | profile | seed |", "| --- | --- | --- | --- | --- |"]
    lines += [
        "| "
        + " | ".join(markdown_text(field) for field in (row["label"], check["name"], cell["clause"], row["profile"]))
        + f" | {int(seed)} |"
        for row, check, cell in failures
    ]
    lines.append("")
    for row, check, cell in failures:
        example = cell.get("counterexample") or {}
        named = ", ".join(markdown_text(field) for field in (cell["clause"], cell["outcome"], check["level"]))
        lines += [
            f"### {markdown_text(row['label'])}: {markdown_text(check['name'])} ({named} level)",
            "",
            markdown_text(_one_line(cell["message"]), line_start=True),
            "",
            f"* inputs: {code_span(_compact(example.get('inputs')))}",
            f"* expected: {code_span(_compact(example.get('expected')))}",
            f"* actual: {code_span(_compact(example.get('actual')))}",
            f"* reproduce: {code_span(cell['reproduce'])}",
            "",
        ]
    return lines


def render_markdown(document: JSONObject) -> str:
    """``docs/matrix.md`` from a matrix document: the table, the skipped libraries, every failure."""
    seed, effort, missing = document["seed"], document["effort"], document["not_installed"]
    lines = [
        "# Conformance matrix",
        "",
        f"Generated by `{generating_command(seed, production='production' in document)}` (effort {code_span(effort)}). "
        "Each implementation runs every check twice with the same seed: under `strict` and under the profile it "
        "declares (`specs/profiles.md`).",
        "",
        "* `pass`: passes under its profile and under strict.",
        "* `dialect`: fails strict, passes its declared profile: a documented difference.",
        "* `fail`: fails under its own profile: a bug or an undeclared difference (see `docs/findings.md`). "
        "`fail (CLAUSE)`: the check saw a departure from another clause than its row's (a tie bug seen by "
        "the stop-rule check, say): the row's own clause is not what is broken.",
        "* `skip`: the capability is not declared, or the clause does not apply under its profile.",
        "",
        "The checks of the two conformance levels of `specs/bpe.md` are shown apart: the `algorithm` level "
        "(what the seed defines) first, then the `interface` level (argument validation, error families), "
        "each with its count of failing checks per implementation. Using the other of `ValueError`/`TypeError` "
        "is an advisory, never a `fail`.",
        "",
        *_table(document),
        "",
    ]
    if missing:
        lines += [
            "Not installed, so not in the table:",
            "",
            *(f"* {markdown_text(line, line_start=True)}" for line in missing),
            "",
        ]
    text = "\n".join([*lines, *_failure_section(document), *production_markdown(document)]).rstrip() + "\n"
    # Counterexamples may hold lone surrogates, which UTF-8 cannot store: written as \udc80.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def render_matrix(results: list[RowResult], missing: list[str], seed: int, effort: str) -> str:
    """``docs/matrix.md`` for ``results``: :func:`render_markdown` of their :func:`matrix_document`."""
    return render_markdown(matrix_document(results, missing, seed, effort))


_FAILURE_ROW = re.compile(
    r"^\| (?P<impl>[\w-]+) \| (?P<check>[\w-]+) \| (?P<clause>BPE-[A-Z-]+) \| (?P<profile>[\w-]+) \| (?P<seed>\d+) \|$"
)


def parse_failures(markdown: str) -> set[tuple[str, str, str, str, int]]:
    """``(implementation, check, clause, profile, seed)`` for every row of the failure table of ``markdown``."""
    _, _, section = markdown.partition(FAILURES_HEADING)
    found = set()
    for line in section.splitlines():
        match = _FAILURE_ROW.match(line.strip())
        if match:
            found.add((match["impl"], match["check"], match["clause"], match["profile"], int(match["seed"])))
    return found
