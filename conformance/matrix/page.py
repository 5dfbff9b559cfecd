"""``docs/matrix.html``: the matrix as one self-contained page to browse (no network: inline CSS and script).

Rows are the checks, grouped by conformance level and then by clause; columns are the
implementations, with their version and declared profile. Each cell is coloured by its outcome and
carries the library version; a click opens what the run said: the message, the counterexample, the
diagnosis of a training divergence, and the one-line reproduce command. Filters by level and by
declared profile live in the URL fragment (``#level=interface&profile=minbpe&cell=minbpe/stop-rule``),
so every view, an open cell included, can be linked to. The table and the list of failures are plain
HTML, readable without the script.

>>> from bpe_conformance.matrix.run import MatrixRow, RowResult
>>> from bpe_conformance.matrix.record import matrix_document
>>> from bpe_conformance.running.suite import catalogue
>>> row = RowResult(MatrixRow("demo", "pkg.mod:Tok"), "demo", "1.0", "strict", "strict")
>>> row.cells = {check.name: "pass" for check in catalogue()}
>>> page = render_page(matrix_document([row], [], seed=0, effort="dev"))
>>> page.startswith("<!DOCTYPE html>") and 'data-impl="demo"' in page and "http" not in page.split("<body")[0]
True
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import TYPE_CHECKING, Any

from bpe_conformance.checks.base import LEVELS
from bpe_conformance.matrix.production_render import production_html
from bpe_conformance.matrix.render import FAILURES_HEADING, cell_values, failing_cells, level_tally

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["displayed", "render_page"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_LABELS = {"pass": "pass", "dialect": "dialect", "fail": "fail", "skip": "skip"}

_STYLE = """
:root { --pass: #d9f2dc; --pass-ink: #1b5e20; --dialect: #dce8fb; --dialect-ink: #0d47a1;
        --fail: #f9d2d2; --fail-ink: #8b0000; --skip: #eeeeee; --skip-ink: #616161; --line: #d0d0d0; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1a1a1a; }
header, main > section, footer { padding: 0 20px; }
h1 { font-size: 22px; margin: 16px 0 4px; }
h2 { font-size: 18px; margin: 24px 0 8px; }
p.meta { color: #555; margin: 0 0 8px; }
code, pre { font: 12.5px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.legend span, .cell b { display: inline-block; padding: 1px 6px; border-radius: 3px; font-weight: 600; }
.legend { margin: 6px 0 10px; }
.legend span { margin-right: 10px; }
.pass { background: var(--pass); color: var(--pass-ink); }
.dialect { background: var(--dialect); color: var(--dialect-ink); }
.fail { background: var(--fail); color: var(--fail-ink); }
.skip { background: var(--skip); color: var(--skip-ink); }
form.filters { display: flex; gap: 18px; align-items: center; margin: 8px 0 12px; flex-wrap: wrap; }
form.filters label { font-weight: 600; }
form.filters select { font: inherit; padding: 2px 4px; }
.scroll { overflow: auto; max-height: 78vh; border: 1px solid var(--line); margin: 0 20px; }
table.matrix { border-collapse: separate; border-spacing: 0; }
table.matrix th, table.matrix td { border-bottom: 1px solid var(--line); border-right: 1px solid var(--line);
  padding: 3px 6px; white-space: nowrap; }
table.matrix thead th { position: sticky; top: 0; background: #fafafa; z-index: 2; vertical-align: bottom;
  text-align: center; font-weight: 600; }
table.matrix thead th small { display: block; font-weight: 400; color: #555; }
table.matrix th.clause, table.matrix th.check { position: sticky; background: #fff; z-index: 1; text-align: left; }
table.matrix th.clause { left: 0; min-width: 170px; font-weight: 400; color: #444; vertical-align: top; }
table.matrix thead th.clause, table.matrix thead th.check { vertical-align: bottom; font-weight: 600; color: #1a1a1a; }
table.matrix th.check { left: 170px; min-width: 210px; }
table.matrix thead th.clause, table.matrix thead th.check { z-index: 3; background: #fafafa; }
tr.level th { background: #f1f1f1; text-align: left; font-size: 13px; }
tr.level td { background: #f1f1f1; text-align: center; font-weight: 600; font-size: 12px; }
td.cell { padding: 0; text-align: center; }
td.cell button { all: unset; cursor: pointer; display: block; width: 100%; padding: 3px 6px; }
td.cell button:focus-visible { outline: 2px solid #333; outline-offset: -2px; }
td.cell button small { display: block; font-size: 10px; opacity: .75; }
td.cell.selected { box-shadow: inset 0 0 0 2px #222; }
#detail { position: fixed; right: 16px; bottom: 16px; width: min(640px, calc(100vw - 32px)); max-height: 70vh;
  overflow: auto; background: #fff; border: 1px solid #999; border-radius: 6px; padding: 12px 16px;
  box-shadow: 0 6px 24px rgba(0,0,0,.25); z-index: 10; }
#detail h3 { margin: 0 0 6px; font-size: 16px; }
#detail h4 { margin: 10px 0 4px; font-size: 14px; }
#detail .close { float: right; font: inherit; cursor: pointer; }
#detail pre, section.failure pre { background: #f6f6f6; padding: 6px 8px; overflow: auto; max-height: 220px;
  white-space: pre-wrap; word-break: break-word; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 6px 0; }
dl.facts dt { font-weight: 600; color: #444; }
dl.facts dd { margin: 0; }
section.failure { border-top: 1px solid var(--line); padding: 6px 0; }
section.failure h3 { font-size: 15px; margin: 6px 0; }
"""

_SCRIPT = """
(function () {
  const data = JSON.parse(document.getElementById("matrix-data").textContent);
  const rows = new Map(data.implementations.map((row) => [row.label, row]));
  const checks = new Map(data.checks.map((check) => [check.name, check]));
  const form = document.querySelector("form.filters");
  const panel = document.getElementById("detail");

  function state() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    return { level: params.get("level") || "all", profile: params.get("profile") || "all",
             cell: params.get("cell") || "" };
  }
  function setState(next) {
    const params = new URLSearchParams();
    if (next.level !== "all") params.set("level", next.level);
    if (next.profile !== "all") params.set("profile", next.profile);
    if (next.cell) params.set("cell", next.cell);
    const fragment = params.toString();
    history.replaceState(null, "", fragment ? "#" + fragment : location.pathname + location.search);
    apply();
  }
  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  }
  function json(value) { return JSON.stringify(value); }
  function facts(pairs) {
    const list = element("dl", undefined, "facts");
    for (const [name, value] of pairs) {
      if (value === undefined || value === null || value === "") continue;
      list.append(element("dt", name), element("dd", String(value)));
    }
    return list;
  }
  function example(title, counterexample) {
    const part = document.createElement("div");
    if (!counterexample) return part;
    part.append(element("h4", title));
    const divergence = counterexample.divergence;
    if (divergence) {
      part.append(facts([["diagnosis", divergence.diagnosis], ["cause", divergence.cause],
                         ["confirmed", divergence.confirmed], ["round", divergence.round],
                         ["clause", divergence.clause]]));
    }
    for (const key of ["inputs", "expected", "actual"]) {
      if (key in counterexample) part.append(element("div", key), element("pre", json(counterexample[key])));
    }
    return part;
  }
  function showDetail(key) {
    const [label, name] = key.split("/");
    const row = rows.get(label), check = checks.get(name);
    const cell = row && check && row.cells[name];
    document.querySelectorAll("td.cell.selected").forEach((node) => node.classList.remove("selected"));
    if (!cell) { panel.hidden = true; return; }
    const selected = document.querySelector(`td.cell[data-key="${CSS.escape(key)}"]`);
    if (selected) selected.classList.add("selected");
    panel.replaceChildren();
    const close = element("button", "close ✕", "close");
    close.type = "button";
    close.addEventListener("click", () => setState({ ...state(), cell: "" }));
    panel.append(close, element("h3", `${row.label} ${row.version}: ${check.name}`));
    const verdict = element("p");
    verdict.append(element("b", cell.cell, cell.cell), ` under profile ${row.profile} ` +
      `(${check.level} level, ${check.clause})`);
    panel.append(verdict, facts([["declared run", cell.outcome], ["strict run", cell.strict_outcome],
                                 ["clause", cell.clause], ["message", cell.message]]));
    if (cell.reproduce) panel.append(element("div", "reproduce"), element("pre", cell.reproduce, "reproduce"));
    if (cell.counterexample) panel.append(example("counterexample", cell.counterexample));
    if (cell.strict) {
      panel.append(element("h4", "why it fails strict (the declared profile allows it)"),
                   facts([["clause", cell.strict.clause], ["message", cell.strict.message]]));
      if (cell.strict.counterexample) panel.append(example("strict counterexample", cell.strict.counterexample));
      panel.append(element("div", "reproduce under strict"), element("pre", cell.strict.reproduce, "reproduce"));
    }
    panel.hidden = false;
  }
  function apply() {
    const current = state();
    form.elements.level.value = current.level;
    form.elements.profile.value = current.profile;
    document.querySelectorAll("[data-level]").forEach((node) => {
      node.hidden = current.level !== "all" && node.dataset.level !== current.level;
    });
    document.querySelectorAll("[data-profile]").forEach((node) => {
      node.hidden = current.profile !== "all" && node.dataset.profile !== current.profile;
    });
    document.body.dataset.level = current.level;
    document.body.dataset.profile = current.profile;
    if (current.cell) showDetail(current.cell); else { panel.hidden = true; showDetail(""); }
  }
  form.addEventListener("change", () => setState({ level: form.elements.level.value,
                                                   profile: form.elements.profile.value, cell: state().cell }));
  document.querySelector("table.matrix").addEventListener("click", (event) => {
    const button = event.target.closest("td.cell button");
    if (button) setState({ ...state(), cell: button.parentElement.dataset.key });
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !panel.hidden) setState({ ...state(), cell: "" });
  });
  window.addEventListener("hashchange", apply);
  apply();
})();
"""


def _shown(text: str) -> str:
    """A lone surrogate (which UTF-8 cannot hold, and a page must not put in its DOM) as its escape, ``\\udc80``."""
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _text(value: Any) -> str:
    """Escaped for HTML, lone surrogates shown as their escapes."""
    return escape(_shown(str(value)))


def displayed(value: Any) -> Any:
    """``value`` with every lone surrogate in its texts replaced by its escape: what the page's script holds.

    >>> displayed({"actual": ["a\\udc80"]})
    {'actual': ['a\\\\udc80']}
    """
    if isinstance(value, str):
        return _shown(value)
    if isinstance(value, dict):
        return {_shown(key): displayed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [displayed(item) for item in value]
    return value


def _data_json(document: JSONObject) -> str:
    """The document for the script; every ``<`` escaped, so no text in it can end the script element."""
    return json.dumps(displayed(document), ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _grouped_checks(document: JSONObject, level: str) -> list[list[dict[str, str]]]:
    """One level's checks, grouped by clause in the order each clause first appears in the suite."""
    groups: dict[str, list[dict[str, str]]] = {}
    for check in document["checks"]:
        if check["level"] == level:
            groups.setdefault(check["clause"], []).append(check)
    return list(groups.values())


def _header(rows: list[JSONObject]) -> str:
    cells = "".join(
        f'<th data-profile="{_text(row["profile"])}" data-impl="{_text(row["label"])}" scope="col" '
        f'title="{_text(row["spec"])}">{_text(row["label"])}<small>{_text(row["version"])}</small>'
        f"<small>profile {_text(row['profile'])}</small></th>"
        for row in rows
    )
    corner = '<th class="clause" scope="col">clause</th><th class="check" scope="col">check</th>'
    return f"<thead><tr>{corner}{cells}</tr></thead>"


def _cell(row: JSONObject, check: dict[str, str]) -> str:
    record = row["cells"].get(check["name"])
    profile, label = _text(row["profile"]), _text(row["label"])
    if record is None:
        return f'<td data-profile="{profile}" data-impl="{label}">—</td>'
    value = record["cell"]
    title = f"{row['label']} {row['version']} · {check['name']}: {value} ({record['clause']})"
    return (
        f'<td class="cell {value}" data-profile="{profile}" data-impl="{label}" data-check="{_text(check["name"])}" '
        f'data-cell="{value}" data-version="{_text(row["version"])}" data-key="{label}/{_text(check["name"])}">'
        f'<button type="button" title="{_text(title)}">{_LABELS[value]}<small>{_text(row["version"])}</small>'
        "</button></td>"
    )


def _body(document: JSONObject) -> str:
    rows = document["implementations"]
    levels = {check["name"]: check["level"] for check in document["checks"]}
    parts = []
    for level in LEVELS:
        tallies = "".join(
            f'<td data-profile="{_text(row["profile"])}">{level_tally(cell_values(row), levels, level)}</td>'
            for row in rows
        )
        heading = f'<th colspan="2" scope="rowgroup">{level} level</th>'
        lines = [f'<tr class="level" data-level="{level}">{heading}{tallies}</tr>']
        for group in _grouped_checks(document, level):
            for index, check in enumerate(group):
                clause = f'<th class="clause" rowspan="{len(group)}" scope="rowgroup">{check["clause"]}</th>'
                name = f'<th class="check" scope="row" title="{_text(check["summary"])}">{_text(check["name"])}</th>'
                cells = "".join(_cell(row, check) for row in rows)
                lines.append(
                    f'<tr data-level="{level}" data-clause="{check["clause"]}">{clause if index == 0 else ""}'
                    f"{name}{cells}</tr>"
                )
        parts.append(f'<tbody data-level="{level}">{"".join(lines)}</tbody>')
    return "".join(parts)


def _failures(document: JSONObject) -> str:
    failures = failing_cells(document)
    if not failures:
        return "<p>None: every implementation passes every applicable check under its own profile.</p>"
    sections = []
    for row, check, cell in failures:
        example = cell.get("counterexample") or {}
        divergence = example.get("divergence") or {}
        facts = [("message", cell["message"])] + [
            (key, divergence[key])
            for key in ("diagnosis", "cause", "confirmed")
            if divergence.get(key) not in (None, "")
        ]
        shown = "".join(f"<dt>{key}</dt><dd>{_text(value)}</dd>" for key, value in facts)
        parts = "".join(
            f"<div>{key}</div><pre>{_text(json.dumps(example[key], ensure_ascii=False))}</pre>"
            for key in ("inputs", "expected", "actual")
            if key in example
        )
        sections.append(
            f'<section class="failure" id="failure-{_text(row["label"])}--{_text(check["name"])}" '
            f'data-impl="{_text(row["label"])}" data-check="{_text(check["name"])}" data-level="{check["level"]}" '
            f'data-profile="{_text(row["profile"])}">'
            f"<h3>{_text(row['label'])} {_text(row['version'])}: {_text(check['name'])} "
            f"({_text(cell['clause'])}, {_text(cell['outcome'])}, {check['level']} level)</h3>"
            f'<dl class="facts">{shown}</dl>{parts}<div>reproduce</div><pre>{_text(cell["reproduce"])}</pre></section>'
        )
    return "".join(sections)


def _options(values: list[str]) -> str:
    return "".join(f'<option value="{_text(value)}">{_text(value)}</option>' for value in values)


def render_page(document: JSONObject) -> str:
    """The whole page for a matrix document: one file, nothing fetched."""
    rows = document["implementations"]
    generated = document["generated_by"]
    profiles = sorted({row["profile"] for row in rows})
    missing = "".join(f"<li>{_text(line)}</li>" for line in document["not_installed"])
    fails = len(failing_cells(document))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bpe-conformance matrix: {len(rows)} implementations</title>
<style>{_STYLE}</style>
</head>
<body>
<header>
<h1>Conformance matrix</h1>
<p class="meta">{len(rows)} implementations × {len(document["checks"])} checks, {fails} failing cells.
Generated by <code>{_text(generated["command"])}</code> (effort {_text(document["effort"])},
bpe-conformance {_text(generated["harness_version"])}, hypothesis {_text(generated["hypothesis_version"])}).
Each implementation runs every check twice with the same seed: under <code>strict</code> and under the profile
it declares.</p>
<p class="legend"><span class="pass">pass</span>under its profile and strict
<span class="dialect">dialect</span>fails strict, passes its declared profile
<span class="fail">fail</span>fails under its own profile
<span class="skip">skip</span>not declared, or not applicable under its profile</p>
<form class="filters">
<label>level <select name="level">{_options(["all", *LEVELS])}</select></label>
<label>declared profile <select name="profile">{_options(["all", *profiles])}</select></label>
<span>Click a cell for what the run said, its counterexample and the command that reproduces it.</span>
</form>
</header>
<main>
<div class="scroll"><table class="matrix">{_header(rows)}{_body(document)}</table></div>
<aside id="detail" hidden aria-live="polite"></aside>
<section>
<h2>{FAILURES_HEADING.lstrip("# ")}</h2>
{_failures(document)}
{f"<h2>Not installed, so not in the table</h2><ul>{missing}</ul>" if missing else ""}
</section>
{production_html(document)}
</main>
<script type="application/json" id="matrix-data">{_data_json(document)}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""
