"""The terminal view of a run: live progress, the summary table, failures, clauses checked.

On a terminal a rich progress bar shows the check being run; otherwise (CI logs, pipes) each
check prints one plain line when it ends. Markup is off everywhere: messages and counterexamples
come from the implementation and may contain anything, brackets included.

Every line fits the console: the terminal's width, or :data:`PLAIN_WIDTH` columns when the output is
not a terminal (``$COLUMNS`` overrides both). A failure's text is printed once, in its details; the
per-check lines and the table only name the outcome.
"""

from __future__ import annotations

import json
import os
import shlex
import textwrap
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from bpe_conformance.reports.advisories import ADVISORIES_SHOWN, advisory_lines
from bpe_conformance.reports.common import (
    Verdict,
    clause_examples,
    counterexample_lines,
    failures,
    hypothesis_note,
    implementation_label,
    plural,
    printable,
    reproduce_command,
    root_cause_lines,
    shown_message,
    verdict,
    verdict_line,
)
from bpe_conformance.reports.grouping import Refusal, is_refusal_only, refusals
from bpe_conformance.results.outcomes import CheckResult, Outcome, SuiteResult
from bpe_conformance.settings import HYPOTHESIS_VERSION

if TYPE_CHECKING:
    from collections.abc import Iterator

    from bpe_conformance.checks.base import Check
    from bpe_conformance.results.implementation import ImplementationRecord

__all__ = [
    "ADVISORIES_SHOWN",
    "OUTCOME_STYLES",
    "PLAIN_WIDTH",
    "LiveView",
    "RunHeader",
    "advisory_lines",
    "clause_lines",
    "failure_lines",
    "header_lines",
    "live_view",
    "make_console",
    "print_wide",
    "render_header",
    "render_summary",
    "result_line",
    "summary_table",
    "wrap_command",
    "wrap_detail",
    "wrap_verdict",
]

OUTCOME_STYLES = {
    Outcome.PASS: "green",
    Outcome.FAIL: "bold red",
    Outcome.ERROR: "magenta",
    Outcome.TIMEOUT: "yellow",
    Outcome.CRASH: "bold magenta",
    Outcome.MEMORY_LIMIT: "bold yellow",
    Outcome.SKIP: "cyan",
}
# A counterexample can be megabytes of ids; the JSON report keeps it whole, the terminal shows the start.
MAX_VALUE_CHARS = 2000
PLAIN_WIDTH = 100
_REPRODUCE = "  reproduce: "
_UNBOUNDED = 100_000
_EXAMPLES_NOTE = (
    "examples: the inputs a check tried (hypothesis draws and shrink steps, or its fixed cases). "
    "A clause's count adds up the checks that ran and report it, so a check with several clauses counts "
    "toward each."
)


# Narrower than this, wrapped lines (a reproduce command, an indented detail) cannot be laid out.
MIN_COLUMNS = 20


def _columns_unusable() -> bool:
    """True when ``$COLUMNS`` is set but is no width (``0``, negative, too narrow, not a number)."""
    value = os.environ.get("COLUMNS")
    return value is not None and not (value.strip().isdigit() and int(value) >= MIN_COLUMNS)


def make_console(stream: IO[str] | None = None, width: int | None = None) -> Console:
    """A console without markup or highlighting; :data:`PLAIN_WIDTH` columns when not a terminal.

    An unusable ``$COLUMNS`` (``COLUMNS=0`` once ended a run in a traceback) counts as none.
    """
    if width is None and _columns_unusable():
        width = PLAIN_WIDTH
    console = Console(file=stream, markup=False, highlight=False, emoji=False, width=width)
    if width is None and not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(file=stream, markup=False, highlight=False, emoji=False, width=PLAIN_WIDTH)
    return console


def print_wide(console: Console, renderable: Any) -> None:
    """Print a table unwrapped when the output is a log or a pipe; a terminal keeps its own width."""
    if console.is_terminal:
        console.print(renderable)
        return
    natural = console.measure(renderable, options=console.options.update_width(_UNBOUNDED)).maximum
    width = console.width
    console.width = max(width, natural)  # print(width=...) can only narrow the console, never widen it
    try:
        console.print(renderable)
    finally:
        console.width = width


def _print_table(console: Console, table: Table) -> None:
    """A table at the console's width; in a log or a pipe without the padding rich adds to each line."""
    if console.is_terminal:
        console.print(table)
        return
    with console.capture() as captured:
        console.print(table)
    for line in captured.get().splitlines():
        console.print(Text(line.rstrip()), overflow="ignore", crop=False)


def _outcome_text(outcome: Outcome) -> Text:
    return Text(outcome.value, style=OUTCOME_STYLES[outcome])


def result_line(result: CheckResult, index: int, total: int) -> Text:
    """One finished check: position, outcome, name, clause, examples and time; a skip's reason.

    A failure's message is left for its details after the table, so it is printed once.
    """
    width = len(str(total))
    line = Text(f"[{index + 1:>{width}}/{total}] ")
    line.append(f"{result.outcome.value:<7}", style=OUTCOME_STYLES[result.outcome])
    line.append(f" {result.check} [{result.clause}] {plural(result.examples, 'example')}, {result.seconds:.2f} s")
    if result.outcome is Outcome.SKIP:
        line.append(f": {shown_message(result.message)}")
    return line


class LiveView:
    """Receives ``on_start``/``on_result`` from :func:`bpe_conformance.running.suite.run_suite` and shows them."""

    def __init__(self, console: Console, total: int, progress: Progress | None, quiet: bool) -> None:
        self.console = console
        self.total = total
        self.progress = progress
        self.quiet = quiet
        self.finished = 0
        self.task = progress.add_task("starting", total=total) if progress is not None else None

    def on_start(self, check: Check, index: int, total: int) -> None:  # noqa: ARG002 - the RunObserver signature
        """Name the check now running on the progress bar."""
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, description=f"{check.name} [{check.clause}]")

    def on_result(self, result: CheckResult) -> None:
        """Print the finished check's line (above the bar on a terminal) and advance."""
        if not self.quiet:
            target = self.progress.console if self.progress is not None else self.console
            target.print(result_line(result, self.finished, self.total))
        self.finished += 1
        if self.progress is not None and self.task is not None:
            self.progress.advance(self.task)


@contextmanager
def live_view(console: Console, total: int, quiet: bool = False) -> Iterator[LiveView]:
    """A :class:`LiveView`, with a progress bar only when ``console`` is an interactive terminal."""
    if quiet or not console.is_terminal:
        yield LiveView(console, total, None, quiet)
        return
    columns = (
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        yield LiveView(console, total, progress, quiet)


@dataclass(frozen=True)
class RunHeader:
    """How the checks are about to run, as the header's settings line shows it (None shows as None).

    ``effort`` is the effort with whatever the front end adds on its line (the profile, the vocabulary).
    """

    checks: int
    isolation: str | None = None
    seed: int | None = None
    effort: str | None = None


def header_lines(implementation: ImplementationRecord, header: RunHeader, harness: str) -> list[str]:
    """The header as short lines: the harness, the implementation, how the checks run."""
    spec = printable(str(implementation.spec or "bundled reference"))
    language = printable(implementation.language)  # the handshake's: the implementation's own words
    checks = plural(header.checks, "check")
    return [
        f"{harness} · hypothesis {HYPOTHESIS_VERSION}",
        f"implementation: {implementation_label(implementation)}, {language}, {spec}",
        f"{checks} · {header.isolation} · seed {header.seed} · effort {header.effort}",
    ]


def render_header(console: Console, implementation: ImplementationRecord, header: RunHeader, harness: str) -> None:
    """What is about to run, so a log always says which implementation, seed and effort it shows."""
    for line in header_lines(implementation, header, harness):
        console.print(Text(line, style="bold"))


def _summary_table(suite: SuiteResult, with_time: bool = True) -> Table:
    # No message column: a failure's text is in its details below, a skip's reason on its line above.
    # Names and clause ids never wrap or shorten.
    table = Table(
        title="Conformance results",
        title_justify="left",
        expand=False,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
    )
    results = suite.results
    table.add_column("check", no_wrap=True, min_width=max([5, *(len(result.check) for result in results)]))
    table.add_column("clause", no_wrap=True, min_width=max([6, *(len(result.clause) for result in results)]))
    table.add_column("outcome", no_wrap=True, min_width=len("timeout"))
    table.add_column("examples", justify="right", no_wrap=True)
    if with_time:
        table.add_column("time", justify="right", no_wrap=True)
    for result in results:
        row: list[str | Text] = [result.check, result.clause, _outcome_text(result.outcome), str(result.examples)]
        table.add_row(*row, *([f"{result.seconds:.2f} s"] if with_time else []))
    return table


def summary_table(console: Console, suite: SuiteResult) -> Table:
    """The results table; without its time column when the console is too narrow for it (80 columns)."""
    table = _summary_table(suite)
    if console.measure(table, options=console.options.update_width(_UNBOUNDED)).maximum > console.width:
        table = _summary_table(suite, with_time=False)
    return table


def failure_lines(result: CheckResult, reproduce: str) -> list[str]:
    """The clause, the minimal counterexample and the ``reproduce`` command of one failed check."""
    lines = [f"{result.outcome.value.upper()} {result.check} [{result.clause}]", f"  {shown_message(result.message)}"]
    lines += [f"  {line}" for line in counterexample_lines(result.counterexample, MAX_VALUE_CHARS)]
    lines.append(f"  reproduce: {reproduce}")
    return lines


def refusal_lines(refusal: Refusal) -> list[str]:
    """The lines under a refusal's header: what it means, the input, and the checks it blocked."""
    return [
        "  an input the profile accepts, refused with an input error (one finding, shown once)",
        f"  inputs: {json.dumps(refusal.inputs, ensure_ascii=False)[:MAX_VALUE_CHARS]}",
        f"  blocked: {', '.join(refusal.checks)} (each went on to its other examples)",
    ]


def clause_lines(suite: SuiteResult, width: int) -> list[str]:
    """``Clauses checked (N): A (k examples), B (...)``, wrapped between clauses to lines of ``width``.

    >>> from bpe_conformance.results.outcomes import CheckResult, Outcome, SuiteResult
    >>> result = CheckResult("c", "BPE-TRAIN-TIE", ("BPE-TRAIN-TIE", "BPE-TRAIN-STOP"), "", Outcome.PASS, "", 3, 0.1)
    >>> suite = SuiteResult({}, [result], 0, "dev", 0.1, "1")
    >>> clause_lines(suite, 40)
    ['Clauses checked (2):', '  BPE-TRAIN-TIE (3 examples),', '  BPE-TRAIN-STOP (3 examples)']
    >>> clause_lines(suite, 80)
    ['Clauses checked (2): BPE-TRAIN-TIE (3 examples), BPE-TRAIN-STOP (3 examples)']
    """
    examples = clause_examples(suite)
    if not examples:
        return ["Clauses checked: none"]
    entries = [f"{clause} ({plural(count, 'example')})" for clause, count in examples.items()]
    lines = [f"Clauses checked ({len(examples)}):"]
    for position, entry in enumerate(entries):
        piece = entry + ("," if position < len(entries) - 1 else "")
        if len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
        elif len(piece) + 2 <= width:
            lines.append("  " + piece)
        else:  # a clause wider than the console: let it wrap on its own words
            lines += textwrap.wrap(piece, width, initial_indent="  ", subsequent_indent="  ")
    return lines


def render_summary(console: Console, suite: SuiteResult, quiet: bool = False) -> None:
    """Each failure in detail, the advisories, the clauses checked and the verdict; ``quiet``: the verdict line."""
    style = "bold green" if suite.succeeded else "bold red"
    if quiet:  # the verdict line, whole: a script reads one line
        console.print(Text(verdict_line(suite), style=style), soft_wrap=True)
        return
    # No results table: each check's line, printed as it finished, already holds the table's facts.
    console.print()
    for line in textwrap.wrap(_EXAMPLES_NOTE, console.width):
        console.print(Text(line, style="dim"))
    failed = [result for result in failures(suite) if not is_refusal_only(result)]
    refused = refusals(suite.results)
    if failed or refused:
        console.print()
        console.print(Text(f"Failures ({len(failed) + len(refused)})", style="bold red"))
    for refusal in refused:  # one refusal, shown once, with the checks it blocked
        console.print()
        console.print(
            Text(
                f"REFUSED {refusal.operation} raised {shown_message(refusal.error)}",
                style=OUTCOME_STYLES[Outcome.ERROR],
            )
        )
        for line in refusal_lines(refusal):
            for piece in wrap_detail(line, console.width):
                console.print(Text(piece, overflow="fold"))
    for result in failed:
        console.print()
        reproduce = reproduce_command(suite, result.check) + hypothesis_note(result.check, suite.hypothesis_version)
        header, *rest = failure_lines(result, reproduce)
        console.print(Text(header, style=OUTCOME_STYLES[result.outcome]))
        for line in rest:
            wrap = wrap_command if line.startswith(_REPRODUCE) else wrap_detail
            for piece in wrap(line, console.width):
                console.print(Text(piece, overflow="fold"))
    for line in root_cause_lines(suite):  # consequences of one deviation, grouped under its root clause
        for piece in wrap_detail(f"root cause {line}", console.width):
            console.print(Text(piece, style="bold", overflow="fold"))
    for line in advisory_lines(suite):
        for piece in wrap_detail(line, console.width):
            console.print(Text(piece, style="yellow" if not piece.startswith(" ") else "", overflow="fold"))
    console.print()
    for line in clause_lines(suite, console.width):
        console.print(Text(line))
    for line in wrap_verdict(verdict(suite), console.width):
        console.print(Text(line, style=style, overflow="fold"))


def wrap_verdict(parts: Verdict, width: int) -> list[str]:
    """The verdict line, or where it is too wide, the outcome counts and each level's verdict on lines of their own.

    >>> wrap_verdict(Verdict("FAILED: 1 fail in 1.0 s (x)", ("algorithm: 1 deviation", "interface: not run")), 40)
    ['FAILED: 1 fail in 1.0 s (x)', '  algorithm: 1 deviation', '  interface: not run']
    """
    if len(parts.line) <= width:
        return [parts.line]
    if len(parts.outcome) <= width and all(len(level) + 2 <= width for level in parts.levels):
        return [parts.outcome, *(f"  {level}" for level in parts.levels)]
    return wrap_detail(parts.line, width)


def wrap_command(line: str, width: int) -> list[str]:
    r"""A ``reproduce:`` line cut between shell words, each cut marked `` \``: it still pastes as one command.

    >>> for piece in wrap_command("reproduce: run --impl 'cmd:node a.mjs' --seed 0  # hypothesis 6", 32):
    ...     print(piece)
    reproduce: run --impl \
        'cmd:node a.mjs' --seed 0
        # hypothesis 6
    """
    label, _, rest = line.partition(": ")
    command, hash_, note = rest.partition("  # ")
    words = [shlex.quote(word) for word in shlex.split(command)]
    lines = [f"{label}:"]
    for word in words:
        if len(lines[-1]) + 1 + len(word) + 2 <= width or lines[-1].endswith(":"):
            lines[-1] += " " + word
        else:
            lines[-1] += " \\"
            lines.append("    " + word)
    if hash_:
        comment = f"# {note}"
        if len(lines[-1]) + 2 + len(comment) <= width:
            lines[-1] += "  " + comment
        else:
            lines.append("    " + comment)
    return lines


def wrap_detail(line: str, width: int) -> list[str]:
    """``line`` cut to ``width``; continuations indented two columns past the line's own indent.

    >>> wrap_detail("  inputs: [1, 2, 3, 4]", 14)
    ['  inputs: [1,', '    2, 3, 4]']
    """
    indent = len(line) - len(line.lstrip(" "))
    return textwrap.wrap(
        line, width, subsequent_indent=" " * (indent + 2), break_on_hyphens=False, replace_whitespace=False
    ) or [line]
