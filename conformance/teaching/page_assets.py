"""The style sheet and the script of the walk-through page, inlined into it so the page needs nothing else.

The script only chooses which state (start, a round, the stop, an encoding) is shown: the content is
all in the HTML, so without scripts every state is simply shown one after the other. A state is
chosen by the URL fragment (``#round-1``), the slider, the step buttons or the arrow keys, and the
fragment follows the choice, so every state has an address.
"""

from __future__ import annotations

__all__ = ["SCRIPT", "STYLE"]

STYLE = """
:root { --ink: #1d2330; --muted: #5b6475; --line: #d5dae3; --paper: #ffffff; --soft: #f4f6fa;
        --new: #1f7a4d; --new-bg: #e3f5ea; --hit: #b35c00; --hit-bg: #fff0dc; --tie: #6b3fa0; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
       background: var(--soft); }
header { background: var(--paper); border-bottom: 1px solid var(--line); padding: 14px 24px 10px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 0 0 8px; }
h3 { font-size: 15px; margin: 14px 0 6px; color: var(--muted); font-weight: 600; }
.summary, .note { color: var(--muted); margin: 0; }
.controls { display: none; align-items: center; gap: 10px; margin-top: 10px; flex-wrap: wrap; }
.js .controls { display: flex; }
.controls button { font: inherit; padding: 4px 12px; border: 1px solid var(--line); border-radius: 6px;
                   background: var(--soft); cursor: pointer; }
.controls button:disabled { opacity: .4; cursor: default; }
.controls input[type=range] { flex: 1 1 240px; max-width: 520px; }
#position { font-weight: 600; min-width: 16em; }
main { padding: 16px 24px 40px; }
section.state { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 16px 20px;
                margin-bottom: 16px; }
.why { margin: 4px 0 10px; }
.mono, td.pair, .ids { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
table.counts { border-collapse: collapse; margin: 6px 0 10px; }
table.counts th, table.counts td { border-bottom: 1px solid var(--line); padding: 3px 10px; text-align: left; }
table.counts td.count { text-align: right; font-variant-numeric: tabular-nums; }
tr.winner td { background: var(--new-bg); font-weight: 600; }
tr.tie td.mark { color: var(--tie); font-weight: 600; }
.doc { margin: 8px 0 12px; }
.doc-label { color: var(--muted); font-size: 13px; margin-bottom: 2px; }
.row { display: flex; flex-wrap: wrap; gap: 4px; align-items: stretch; margin: 2px 0; }
.row-label { width: 4.5em; color: var(--muted); font-size: 12px; align-self: center; }
.encoding .row-label { width: auto; min-width: 16em; flex: none; padding-right: 8px; white-space: nowrap;
                       font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.tok { display: inline-flex; flex-direction: column; align-items: center; min-width: 2.6em; padding: 2px 6px;
       border: 1px solid var(--line); border-radius: 5px; background: var(--paper); }
.tok b { font: 600 14px ui-monospace, "DejaVu Sans Mono", monospace; }
.tok i { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; font-style: normal; color: var(--muted);
         white-space: pre; }
.tok.hit { border-color: var(--hit); background: var(--hit-bg); }
.tok.new { border-color: var(--new); background: var(--new-bg); }
.tok.new b { color: var(--new); }
.tok.boundary { border-style: dashed; }
.tok.more { border-style: dotted; color: var(--muted); justify-content: center; }
.tok.partial i { color: var(--tie); font-style: italic; }
.replaced { display: inline-flex; gap: 2px; padding: 2px; border: 2px solid var(--hit); border-radius: 7px; }
.result { margin: 6px 0; }
.contrast { border-left: 4px solid var(--hit); padding: 6px 12px; background: var(--hit-bg); margin: 10px 0; }
.legend { display: flex; gap: 14px; flex-wrap: wrap; font-size: 13px; color: var(--muted); margin-top: 6px; }
.legend .tok { min-width: 0; padding: 0 6px; }
.legend .replaced { padding: 0 2px; }
"""

SCRIPT = """
(function () {
  var states = Array.prototype.slice.call(document.querySelectorAll("section.state"));
  if (!states.length) { return; }
  document.documentElement.classList.add("js");
  var slider = document.getElementById("slider");
  var previous = document.getElementById("previous");
  var next = document.getElementById("next");
  var position = document.getElementById("position");
  var current = 0;
  slider.max = String(states.length - 1);
  function indexOf(id) {
    for (var k = 0; k < states.length; k++) { if (states[k].getAttribute("data-state") === id) { return k; } }
    return -1;
  }
  function show(index, remember) {
    current = Math.max(0, Math.min(states.length - 1, index));
    for (var k = 0; k < states.length; k++) { states[k].hidden = k !== current; }
    var state = states[current];
    var name = state.getAttribute("data-state");
    slider.value = String(current);
    slider.setAttribute("value", String(current));
    previous.disabled = current === 0;
    next.disabled = current === states.length - 1;
    position.textContent = state.getAttribute("data-title") + " (" + (current + 1) + " of " + states.length + ")";
    document.body.setAttribute("data-current", name);
    if (remember && location.hash !== "#" + name) {
      try { history.replaceState(null, "", "#" + name); } catch (error) { location.hash = name; }
    }
  }
  function fromFragment() {
    var wanted = decodeURIComponent(location.hash.replace(/^#/, ""));
    var found = indexOf(wanted);
    return found < 0 ? 0 : found;
  }
  previous.addEventListener("click", function () { show(current - 1, true); });
  next.addEventListener("click", function () { show(current + 1, true); });
  slider.addEventListener("input", function () { show(Number(slider.value), true); });
  document.addEventListener("keydown", function (event) {
    if (event.target && event.target.tagName === "INPUT") { return; }
    if (event.key === "ArrowLeft") { show(current - 1, true); }
    if (event.key === "ArrowRight") { show(current + 1, true); }
  });
  window.addEventListener("hashchange", function () { show(fromFragment(), false); });
  show(fromFragment(), false);
})();
"""
