"""What a campaign shows: a header, each distinct failure as it is found, live progress, the summary.

On a terminal a live table (elapsed and remaining time, per check examples, examples per second and
failures) stays at the bottom while failures print above it; in a log or a pipe a status line is printed
every :data:`STATUS_EVERY_SECONDS`. ``--quiet`` prints only the summary. A failure is printed as ``run``
prints it (:func:`bpe_conformance.reports.terminal.failure_lines`), with a ``reproduce:`` line that replays it
from the campaign's database.
"""

from __future__ import annotations

import datetime
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from bpe_conformance.fuzzing.campaign import Campaign, Observer
from bpe_conformance.fuzzing.durations import format_duration
from bpe_conformance.fuzzing.records import CampaignConfig, CampaignResult, CheckTally, StopReason
from bpe_conformance.reports.common import hypothesis_note, plural, printable, render_value, run_command
from bpe_conformance.reports.terminal import (
    OUTCOME_STYLES,
    RunHeader,
    failure_lines,
    header_lines,
    print_wide,
    wrap_command,
    wrap_detail,
)
from bpe_conformance.settings import HYPOTHESIS_VERSION

if TYPE_CHECKING:
    from collections.abc import Iterator

    from bpe_conformance.fuzzing.findings import Finding
    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.results.implementation import ImplementationRecord

__all__ = [
    "STATUS_EVERY_SECONDS",
    "CampaignView",
    "campaign_header",
    "campaign_view",
    "render_campaign_summary",
    "reproduce_line",
    "status_line",
    "verdict",
]

STATUS_EVERY_SECONDS = 30.0
_SHOWN_INPUT_CHARS = 160


def _grouped(number: int) -> str:
    return f"{number:,}".replace(",", " ")


def _examples(count: int) -> str:
    return f"{_grouped(count)} example{'' if count == 1 else 's'}"


def _rate(examples: int, seconds: float) -> str:
    return f"{examples / seconds:,.1f}".replace(",", " ") if seconds > 0 else "0"


def reproduce_line(config: CampaignConfig, check: str) -> str:
    """``bpe-conformance run`` replaying ``check``'s saved failure from the campaign's database.

    >>> config = CampaignConfig("m:T", "process", 10.0, None, "all", (), ("tie-break",), 2, 60.0, "db", 1)
    >>> reproduce_line(config, "tie-break").split("  #")[0]
    'bpe-conformance run --impl m:T --database db --check tie-break'
    """
    record: JSONObject = {
        "impl": config.impl,
        "isolation": config.isolation,
        "timeout": config.timeout,
        "profile": config.profile,
        "database": config.database,
    }
    if config.isolation == "process":
        record["limits"] = config.limits.record().to_json()
    return run_command(record, "dev", check, None) + hypothesis_note(check, HYPOTHESIS_VERSION)


def campaign_header(implementation: ImplementationRecord, config: CampaignConfig, harness: str) -> list[str]:
    """What is about to run: harness, implementation, the campaign's shape, and where failures are kept."""
    harness_line, implementation_line, _ = header_lines(implementation, RunHeader(len(config.checks)), harness)
    until = datetime.datetime.now() + datetime.timedelta(seconds=config.seconds)
    limit = f" · at most {plural(config.max_failures, 'failure')}" if config.max_failures else ""
    return [
        harness_line,
        implementation_line,
        f"fuzz: {plural(len(config.checks), 'check')} · {plural(config.jobs, 'worker')} · {config.isolation} · "
        f"seed {config.seed} · {format_duration(config.seconds)} (until {until:%H:%M:%S}){limit} · "
        f"profile {implementation.profile}",
        f"database: {config.database} (failures saved there are replayed first)",
    ]


def status_line(campaign: Campaign) -> str:
    """``[0:01:30] 12 345 examples (137.2/s) · 1 failure · 8m 30s left · 2 workers``.

    Past the deadline, workers finish the round in progress: a failure being shrunk, or a call waiting
    for its ``--timeout``.
    """
    elapsed = campaign.elapsed()
    examples = campaign.examples()
    left = campaign.remaining()
    when = f"{format_duration(left)} left" if left > 0 else "past the deadline: the workers end their last rounds"
    return (
        f"[{datetime.timedelta(seconds=round(elapsed))}] {_examples(examples)} ({_rate(examples, elapsed)}/s)"
        f" · {plural(len(campaign.book.findings), 'failure')} · {when} · {plural(campaign.running_workers(), 'worker')}"
    )


def _tally_table(tallies: list[CheckTally], seconds: float, title: str, with_rounds: bool) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("check", no_wrap=True)
    table.add_column("clause", no_wrap=True)
    table.add_column("examples", justify="right", no_wrap=True)
    table.add_column("per s", justify="right", no_wrap=True)
    if with_rounds:
        table.add_column("rounds", justify="right", no_wrap=True)
    table.add_column("failures", justify="right", no_wrap=True)
    for tally in tallies:
        failures = Text(str(tally.failures), style="bold red" if tally.failures else "")
        rounds = [str(tally.rounds)] if with_rounds else []
        table.add_row(
            tally.check, tally.clause, _grouped(tally.examples), _rate(tally.examples, seconds), *rounds, failures
        )
    return table


def _finding_lines(finding: Finding, config: CampaignConfig) -> list[str]:
    lines = failure_lines(finding.result, reproduce_line(config, finding.result.check))
    lines[0] += f" (after {format_duration(finding.found_after)}, worker {finding.worker}, seed {finding.seed})"
    return lines


def _print_lines(console: Console, lines: list[str], style: str) -> None:
    header, *rest = lines
    console.print(Text(header, style=style))
    for line in rest:
        wrap = wrap_command if line.startswith("  reproduce: ") else wrap_detail
        for piece in wrap(line, console.width):
            console.print(Text(piece, overflow="fold"))


class CampaignView(Observer):
    """The live display of a campaign (see the module's docstring)."""

    def __init__(self, console: Console, config: CampaignConfig, quiet: bool, live: Live | None) -> None:
        self.console = console
        self.config = config
        self.quiet = quiet
        self.live = live
        self.last_status = time.monotonic()

    @property
    def _out(self) -> Console:
        return self.live.console if self.live is not None else self.console

    def on_finding(self, campaign: Campaign, finding: Finding) -> None:  # noqa: ARG002 - the campaign observer's signature
        """Print the failure now, with its reproduce line."""
        if self.quiet:
            return
        self._out.print()
        _print_lines(self._out, _finding_lines(finding, self.config), OUTCOME_STYLES[finding.result.outcome])

    def on_problem(self, campaign: Campaign, message: str) -> None:  # noqa: ARG002 - the campaign observer's signature
        """Print a worker's trouble (death, restart) on one line."""
        if not self.quiet:
            for piece in wrap_detail(printable(message), self._out.width):
                self._out.print(Text(piece, style="yellow"))

    def on_tick(self, campaign: Campaign) -> None:
        """Refresh the live table, or print a status line when one is due."""
        if self.quiet:
            return
        if self.live is not None:
            title = status_line(campaign)
            tallies = list(campaign.tallies.values())
            self.live.update(Group(_tally_table(tallies, campaign.elapsed(), title, with_rounds=False)))
        elif time.monotonic() - self.last_status >= STATUS_EVERY_SECONDS:
            self.last_status = time.monotonic()
            self.console.print(Text(status_line(campaign)))


@contextmanager
def campaign_view(console: Console, config: CampaignConfig, quiet: bool) -> Iterator[CampaignView]:
    """A :class:`CampaignView`, with a live table only on an interactive terminal."""
    if quiet or not console.is_terminal:
        yield CampaignView(console, config, quiet, None)
        return
    with Live(
        Text("starting the workers"), console=console, refresh_per_second=4, transient=True, vertical_overflow="crop"
    ) as live:
        yield CampaignView(console, config, quiet, live)


def verdict(result: CampaignResult) -> str:
    """``FAILED: 2 distinct failures ...`` or ``PASSED: no failure ...``, with the campaign's numbers."""
    found = len(result.findings)
    head = f"FAILED: {plural(found, 'distinct failure')}" if found else "PASSED: no failure"
    if result.stop_reason is StopReason.INTERRUPTED:
        head = f"INTERRUPTED: {plural(found, 'distinct failure') if found else 'no failure'} so far"
    elif result.lost_failures:
        saved = f"{plural(found, 'distinct failure')} saved and " if found else ""
        head = (
            f"FAILED: {saved}{plural(result.lost_failures, 'failure')} found but NOT SAVED, the example database "
            "failed (printed above in full)"
        )
    elif not found and result.error:
        head = "ERROR: no failure found, but the campaign could not go on"
    return (
        f"{head} in {format_duration(result.seconds)}: {_examples(result.examples)} "
        f"({_rate(result.examples, result.seconds)}/s) over {plural(len(result.tallies), 'check')}, "
        f"{plural(result.config.jobs, 'worker')}; {result.stop_reason.description} "
        f"(implementation {result.implementation.name}, seed {result.config.seed})"
    )


def _summary_of_finding(finding: Finding, config: CampaignConfig) -> list[str]:
    result = finding.result
    inputs = render_value((result.counterexample or {}).get("inputs"))
    if len(inputs) > _SHOWN_INPUT_CHARS:
        inputs = inputs[:_SHOWN_INPUT_CHARS] + "..."
    again = f", found {finding.times_found} times" if finding.times_found > 1 else ""
    return [
        f"{result.outcome.value.upper()} {result.check} [{result.clause}] inputs: {printable(inputs)}{again}",
        f"  reproduce: {reproduce_line(config, result.check)}",
    ]


def render_campaign_summary(console: Console, result: CampaignResult, quiet: bool = False) -> None:
    """The per-check table (unless ``quiet``), each distinct failure with its reproduce line, and the verdict."""
    if not quiet:
        console.print()
        print_wide(console, _tally_table(result.tallies, result.seconds, "Fuzz campaign", with_rounds=True))
        for name, reason in result.config.skipped.items():
            for piece in wrap_detail(f"not fuzzed: {name}: {printable(reason)}", console.width):
                console.print(Text(piece, style="cyan"))
    if result.findings:
        if not quiet:
            console.print()
        console.print(Text(f"Failures ({len(result.findings)})", style="bold red"))
        for finding in result.findings:
            _print_lines(console, _summary_of_finding(finding, result.config), OUTCOME_STYLES[finding.result.outcome])
    if result.error:
        for piece in wrap_detail(printable(result.error), console.width):
            console.print(Text(piece, style="bold magenta"))
    style = "bold red" if result.findings or result.error else "bold green"
    for piece in wrap_detail(verdict(result), console.width):
        console.print(Text(piece, style=style))
