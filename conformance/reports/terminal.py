"""The terminal view of a run: live progress, the summary table, failures, clauses checked.

On a terminal a rich progress bar shows the check being run; otherwise (CI logs, pipes) each
check prints one plain line when it ends. Markup is off everywhere: messages and counterexamples
come from the implementation and may contain anything, brackets included.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from conformance.checks.base import Check
from conformance.outcomes import CheckResult, Outcome, SuiteResult
from conformance.reports.common import (
    clause_examples,
    counterexample_lines,
    failures,
    implementation_label,
    plural,
    reproduce_command,
    shown_message,
    verdict_line,
)

__all__ = [
    "OUTCOME_STYLES",
    "LiveView",
    "failure_lines",
    "live_view",
    "make_console",
    "print_wide",
    "render_header",
    "render_summary",
    "result_line",
]

OUTCOME_STYLES = {
    Outcome.PASS: "green",
    Outcome.FAIL: "bold red",
    Outcome.ERROR: "magenta",
    Outcome.TIMEOUT: "yellow",
    Outcome.CRASH: "bold magenta",
    Outcome.SKIP: "cyan",
}
# A counterexample can be megabytes of ids; the JSON report keeps it whole, the terminal shows the start.
MAX_VALUE_CHARS = 2000
_PLAIN_WIDTH = 120
_UNBOUNDED = 100_000


def make_console(stream: IO[str] | None = None) -> Console:
    """A console without markup or highlighting; wider than rich's 80 columns when not a terminal."""
    console = Console(file=stream, markup=False, highlight=False, emoji=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(file=stream, markup=False, highlight=False, emoji=False, width=_PLAIN_WIDTH)
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


def _outcome_text(outcome: Outcome) -> Text:
    return Text(outcome.value, style=OUTCOME_STYLES[outcome])


def result_line(result: CheckResult, index: int, total: int) -> Text:
    """One finished check on one line: position, outcome, name, clause, examples and time."""
    width = len(str(total))
    line = Text(f"[{index + 1:>{width}}/{total}] ")
    line.append(f"{result.outcome.value:<7}", style=OUTCOME_STYLES[result.outcome])
    line.append(f" {result.check} [{result.clause}] {plural(result.examples, 'example')}, {result.seconds:.2f} s")
    if result.outcome is not Outcome.PASS:
        line.append(f": {shown_message(result.message)}")
    return line


class LiveView:
    """Receives ``on_start``/``on_result`` from :func:`conformance.suite.run_suite` and shows them."""

    def __init__(self, console: Console, total: int, progress: Progress | None, quiet: bool) -> None:
        self.console = console
        self.total = total
        self.progress = progress
        self.quiet = quiet
        self.finished = 0
        self.task = progress.add_task("starting", total=total) if progress is not None else None

    def on_start(self, check: Check, index: int, total: int) -> None:
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


def render_header(console: Console, implementation: dict[str, Any], config: dict[str, Any], harness: str) -> None:
    """What is about to run, so a log always says which implementation, seed and effort it shows."""
    spec = implementation.get("spec") or "bundled reference"
    where = f"{implementation.get('language')}, {spec}, {config.get('isolation')}"
    checks = plural(len(config.get("checks", [])), "check")
    console.print(
        Text(
            f"{harness} · {implementation_label(implementation)} ({where}) · {checks} · "
            f"seed {config.get('seed')} · effort {config.get('effort')}",
            style="bold",
        )
    )


def _summary_table(suite: SuiteResult) -> Table:
    table = Table(title="Conformance results", title_justify="left", expand=False)
    table.add_column("check", no_wrap=True)
    table.add_column("clause", no_wrap=True)
    table.add_column("outcome", no_wrap=True)
    table.add_column("examples", justify="right")
    table.add_column("seconds", justify="right")
    table.add_column("message", overflow="fold")
    for result in suite.results:
        table.add_row(
            result.check,
            result.clause,
            _outcome_text(result.outcome),
            str(result.examples),
            f"{result.seconds:.2f}",
            Text(shown_message(result.message)),
        )
    return table


def failure_lines(result: CheckResult, reproduce: str) -> list[str]:
    """The clause, the minimal counterexample and the ``reproduce`` command of one failed check."""
    lines = [f"{result.outcome.value.upper()} {result.check} [{result.clause}]", f"  {shown_message(result.message)}"]
    lines += [f"  {line}" for line in counterexample_lines(result.counterexample, MAX_VALUE_CHARS)]
    lines.append(f"  reproduce: {reproduce}")
    return lines


def _clauses_line(suite: SuiteResult) -> str:
    examples = clause_examples(suite)
    if not examples:
        return "Clauses checked: none"
    listed = ", ".join(f"{clause} ({plural(count, 'example')})" for clause, count in examples.items())
    return f"Clauses checked ({len(examples)}): {listed}"


def render_summary(console: Console, suite: SuiteResult, quiet: bool = False) -> None:
    """The summary table, each failure in detail, the clauses checked and the verdict."""
    style = "bold green" if suite.succeeded else "bold red"
    if quiet:
        console.print(Text(verdict_line(suite), style=style))
        return
    console.print()
    print_wide(console, _summary_table(suite))
    failed = failures(suite)
    if failed:
        console.print()
        console.print(Text(f"Failures ({len(failed)})", style="bold red"))
    for result in failed:
        console.print()
        header, *rest = failure_lines(result, reproduce_command(suite, result.check))
        console.print(Text(header, style=OUTCOME_STYLES[result.outcome]))
        for line in rest:
            console.print(Text(line), soft_wrap=True)
    console.print()
    console.print(Text(_clauses_line(suite)), soft_wrap=True)
    console.print(Text(verdict_line(suite), style=style))
