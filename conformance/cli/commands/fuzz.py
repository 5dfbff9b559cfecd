"""``bpe-conformance fuzz``: a time-boxed campaign on every core, every failure kept in an example database.

Each worker runs the selected checks round-robin with fresh seeds and growing example counts against
its own implementation process; every failure is shrunk, saved in the database, and printed once with a
reproduce line. ``run --database`` (and the pytest plugin's ``--bpe-database``) replays what a campaign
saved before generating anything new. Exit 0 when nothing failed, 1 when anything did, 2 on usage or
harness errors, 130/143/129 when interrupted (after printing the summary so far).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters.signals import deferred_signals
from bpe_conformance.cli.arguments import add_limit_arguments, add_timeout_argument, limits_from, whole_number_at_least
from bpe_conformance.errors import HarnessError
from bpe_conformance.files import STDOUT, writable_path
from bpe_conformance.fuzzing.campaign import Campaign
from bpe_conformance.fuzzing.display import campaign_header, campaign_view, render_campaign_summary
from bpe_conformance.fuzzing.durations import parse_duration
from bpe_conformance.fuzzing.records import CampaignConfig, CampaignInterrupted
from bpe_conformance.fuzzing.report import write_summary
from bpe_conformance.reference.profiles import PROFILES
from bpe_conformance.reports.terminal import make_console
from bpe_conformance.running import RunConfig, RunPlan

if TYPE_CHECKING:
    from bpe_conformance.checks.base import Check
    from bpe_conformance.results.implementation import ImplementationRecord

__all__ = ["campaign_config", "default_jobs", "duration_argument", "handle", "register"]

DEFAULT_DURATION = "10m"

_EPILOG = """\
durations: a number and a unit, s, m or h: 90s, 10m, 2h, 1h30m.

database: a directory, or redis://HOST:PORT[/DB] for workers on several machines sharing one
(pip install 'bpe-conformance[redis]'). Without --database, a directory per implementation under
$XDG_CACHE_HOME/bpe-conformance/examples (or ~/.cache/...), printed at the start. Failures saved there
are replayed first by the next campaign, by `bpe-conformance run --database`, and by the pytest plugin's
--bpe-database.

exit codes: 0 no failure found; 1 at least one distinct failure; 2 usage or harness error (a bad
option, an unreachable database, no worker could run); 130, 143, 129 interrupted by SIGINT, SIGTERM,
SIGHUP (the summary and --json hold the campaign so far; the database keeps every failure saved)."""


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def duration_argument(text: str) -> float:
    """A ``--duration`` value in seconds; argparse shows the error on one line."""
    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def register(subparsers: Any) -> None:
    """Add the ``fuzz`` parser."""
    parser = subparsers.add_parser(
        "fuzz",
        help="fuzz an implementation for a set time on every core, keeping every failure found",
        description=__doc__.replace("``", "") if __doc__ else None,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--impl",
        metavar="SPEC",
        help="implementation to fuzz: module:attr, cmd:<command line>, reference or reference-literal "
        "(default: the bundled reference)",
    )
    parser.add_argument(
        "--duration",
        type=duration_argument,
        default=parse_duration(DEFAULT_DURATION),
        metavar="DURATION",
        help=f"how long to fuzz: 90s, 10m, 2h (default {DEFAULT_DURATION})",
    )
    parser.add_argument(
        "--jobs",
        type=whole_number_at_least(1),
        default=default_jobs(),
        metavar="N",
        help=f"worker processes (default: the cores available, {default_jobs()} here)",
    )
    parser.add_argument(
        "--database",
        metavar="DIR|URL",
        help="where failures are saved and replayed from: a directory or redis://HOST:PORT[/DB] "
        "(default: a directory per implementation under the user's cache dir)",
    )
    parser.add_argument(
        "--profile",
        metavar="PROFILE",
        help=f"judge under this dialect profile instead of the declared one ({', '.join(PROFILES)}), "
        "or a custom one: base+field=value+... (strict+tie=first-seen+min_count=1) or a .toml/.json profile file",
    )
    parser.add_argument(
        "--level",
        choices=RunConfig.LEVELS,
        default="all",
        help="fuzz only the checks of one conformance level (default all)",
    )
    parser.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="PATTERN",
        help="fuzz only checks whose name or clause id matches (fnmatch-style; repeatable)",
    )
    parser.add_argument(
        "--json", metavar="PATH", help="write the JSON summary (specs/schema/fuzz.schema.json); - for stdout"
    )
    parser.add_argument(
        "--max-failures",
        type=whole_number_at_least(1),
        metavar="N",
        help="stop after N distinct failures (default: run until the deadline)",
    )
    parser.add_argument(
        "--seed",
        type=whole_number_at_least(0),
        metavar="N",
        help="campaign seed; each round derives its own (default: a fresh one, printed)",
    )
    parser.add_argument(
        "--isolation",
        choices=RunConfig.ISOLATIONS,
        help="run each worker's implementation in its own process or in the worker "
        "(default: process for --impl, inprocess for the bundled reference)",
    )
    add_timeout_argument(parser)
    add_limit_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="print only the final summary")
    parser.set_defaults(handler=handle)


def _fuzzable(plan: RunPlan) -> tuple[ImplementationRecord, dict[str, str]]:
    """The implementation's record, and the checks that cannot run against it (with why)."""
    with plan.open() as opened:
        skipped = dict(opened.skipped)
        capabilities = opened.subject.info.capabilities
        for check in plan.checks:
            missing = sorted(check.requires - capabilities)
            if missing and check.name not in skipped:
                skipped[check.name] = f"capability not declared: {', '.join(missing)}"
        return opened.implementation, skipped


def campaign_config(args: argparse.Namespace) -> tuple[CampaignConfig, list[Check], ImplementationRecord, RunPlan]:
    """Check every option, load the implementation once, and say what the campaign will run."""
    if args.impl is not None and not args.impl.strip():
        raise HarnessError("--impl is empty (an unset variable?); leave it out to fuzz the bundled reference")
    database = args.database if args.database is not None else RunPlan.default_database(args.impl)
    run_config = RunConfig(
        impl=args.impl,
        isolation=args.isolation,
        timeout=args.timeout,
        effort=RunPlan.default_effort(),
        patterns=tuple(args.check),
        profile=args.profile,
        level=args.level,
        database=database,
        limits=limits_from(args),
    )
    if args.database is None:  # the documented cache directory is made with its parents; a --database is not
        _make_cache_directory(Path(database).parent)
    plan = RunPlan.build(run_config)
    implementation, skipped = _fuzzable(plan)
    # Only an implementation that loads gets a database: a directory is created, a Redis server asked for PING;
    # an unreachable one fails here, before any worker starts.
    try:
        plan.open_database()
    except HarnessError as error:
        if args.database is not None:
            raise
        raise HarnessError(f"{error} (the default database; choose another with --database)") from None
    fuzzed = [check for check in plan.checks if check.name not in skipped]
    if not fuzzed:
        reasons = "; ".join(sorted(set(skipped.values())))
        raise HarnessError(f"nothing to fuzz: every selected check is skipped for this implementation ({reasons})")
    config = CampaignConfig(
        impl=args.impl,
        isolation=run_config.isolation_used,
        timeout=args.timeout,
        profile=plan.config.profile,
        level=args.level,
        patterns=tuple(args.check),
        checks=tuple(check.name for check in fuzzed),
        jobs=args.jobs,
        seconds=args.duration,
        database=database,
        seed=args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big"),
        limits=run_config.limits,
        max_failures=args.max_failures,
        effort=run_config.effort,
        skipped=skipped,
    )
    return config, fuzzed, implementation, plan


def _make_cache_directory(directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise HarnessError(f"cannot create {str(directory)!r}: {error.strerror or error}") from None


def handle(args: argparse.Namespace) -> int:
    """Run the campaign, show it, write the summary asked for."""
    summary_path = writable_path(args.json, "--json", stdout_allowed=True) if args.json is not None else None
    config, checks, implementation, plan = campaign_config(args)
    console = make_console(sys.stderr if args.json == STDOUT else None)  # --json -: stdout is the JSON's
    if not args.quiet:
        for line in campaign_header(implementation, config, plan.harness):
            console.print(line, style="bold", markup=False, highlight=False)
    interrupted: CampaignInterrupted | None = None
    with campaign_view(console, config, args.quiet) as view:
        campaign = Campaign(config, checks, implementation, plan.harness_version, view)
        try:
            result = campaign.run()
        except CampaignInterrupted as stopped:
            interrupted, result = stopped, stopped.result
    unwritten = None
    with deferred_signals():  # a signal now still gets the summary file and the verdict
        if summary_path is not None:
            try:
                write_summary(result, summary_path)
            except OSError as error:
                unwritten = f"cannot write {str(summary_path)!r}: {error.strerror or error}"
        render_campaign_summary(console, result, quiet=args.quiet)
    if unwritten is not None:  # after the verdict, so a full disk costs neither it nor the findings shown
        raise HarnessError(unwritten)
    if interrupted is not None:
        raise interrupted
    return result.exit_code
