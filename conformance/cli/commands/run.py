"""``bpe-conformance run``: every check (or those chosen) against an implementation, then reports.

Without ``--impl`` the bundled reference runs in-process, which is how CI proves the suite itself.
Exit 0 only when every check passed or was skipped by the skip file; 1 when any failed, errored,
timed out, crashed or ran out of its memory limit; 2 on usage or harness errors.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters.signals import deferred_signals
from bpe_conformance.cli.arguments import add_limit_arguments, add_timeout_argument, limits_from, whole_number_at_least
from bpe_conformance.errors import HarnessError
from bpe_conformance.files import STDOUT, writable_path
from bpe_conformance.reference.profiles import PROFILES
from bpe_conformance.reports.check_list import check_list_json, check_list_lines
from bpe_conformance.reports.json_report import write_json_report
from bpe_conformance.reports.junit import write_junit
from bpe_conformance.reports.markdown import write_markdown
from bpe_conformance.reports.terminal import RunHeader, live_view, make_console, render_header, render_summary
from bpe_conformance.running import HARNESS_NAME, OpenedRun, RunConfig, RunInterrupted, RunPlan, SuiteResult

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console

__all__ = ["config_from_args", "handle", "register"]

_REPORT_WRITERS = (("json", write_json_report), ("junit", write_junit), ("markdown", write_markdown))

_EPILOG = """\
skip file format: one check name or clause id per line; text after '#' is the reason, e.g.
  tie-break            # we break ties by first occurrence
  BPE-DECODE-STRICT    # our decode replaces invalid UTF-8
A check name skips that check. A clause id skips the checks whose primary clause it is, and turns
any other check's failure on that clause into a skip. An entry matching nothing is an error.

exit codes: 0 every check passed or was skipped by declaration; 1 a check failed, errored,
timed out, crashed or ran out of its memory limit, or every check was skipped (nothing was
checked); 2 usage or harness error; 130, 143, 129 interrupted by SIGINT, SIGTERM, SIGHUP (the
reports asked for hold the checks that finished)."""


def register(subparsers: Any) -> None:
    """Add the ``run`` parser."""
    parser = subparsers.add_parser(
        "run",
        help="run the conformance checks against an implementation",
        description=__doc__.replace("``", "") if __doc__ else None,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--impl",
        metavar="SPEC",
        help="implementation to test: module:attr, cmd:<command line>, reference or reference-literal "
        "(default: the bundled reference, in-process)",
    )
    parser.add_argument("--thorough", action="store_true", help="many more examples per check (profile 'thorough')")
    parser.add_argument(
        "--seed", type=whole_number_at_least(0), default=0, metavar="N", help="hypothesis seed (default 0)"
    )
    add_timeout_argument(parser)
    parser.add_argument(
        "--isolation",
        choices=RunConfig.ISOLATIONS,
        help="run the implementation in its own process or in the harness's (default: process for --impl, "
        "inprocess for the bundled reference)",
    )
    parser.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="PATTERN",
        help="run only checks whose name or clause id matches (fnmatch-style; repeatable)",
    )
    parser.add_argument(
        "--level",
        choices=RunConfig.LEVELS,
        default="all",
        help="run only the checks of one conformance level of specs/bpe.md: algorithm (what the seed defines) "
        "or interface (argument validation, error families); the exit code reflects only those (default all)",
    )
    parser.add_argument("--skip-file", metavar="PATH", help="checks the implementation knowingly fails (see below)")
    parser.add_argument(
        "--database",
        metavar="DIR|URL",
        help="keep hypothesis's example database in this directory, or in the Redis database "
        "redis://HOST:PORT[/DB], and replay the failures saved there first, such as those a fuzz campaign "
        "found (default: none; nothing is written unless asked)",
    )
    parser.add_argument(
        "--profile",
        metavar="PROFILE",
        help="judge under this dialect profile of specs/profiles.md instead of the one the implementation "
        f"declares ({', '.join(PROFILES)}), "
        "or a custom one: base+field=value+... (strict+tie=first-seen+min_count=1) or a .toml/.json profile file",
    )
    parser.add_argument(
        "--vocabulary",
        metavar="PATH",
        help="judge a vocabulary-bound encoder in production configuration (profiles gpt2, cl100k, o200k): a "
        ".tiktoken rank file, a tokenizer.json, or ENCODER.json,VOCAB.bpe; runs the production checks",
    )
    parser.add_argument(
        "--json", metavar="PATH", help="write the JSON report (specs/schema/report.schema.json); - for stdout"
    )
    parser.add_argument("--junit", metavar="PATH", help="write a JUnit XML report")
    parser.add_argument("--markdown", metavar="PATH", help="write a Markdown report")
    parser.add_argument("--quiet", action="store_true", help="print only the final verdict line")
    parser.add_argument(
        "--list-checks", action="store_true", help="list the selected checks and exit (with --json PATH or -: as JSON)"
    )
    parser.add_argument("--fail-fast", action="store_true", help="stop after the first check that does not pass")
    parser.add_argument(
        "--write-skip-file",
        metavar="PATH",
        help="after the run, write a skip file naming every check that did not pass (for --skip-file)",
    )
    add_limit_arguments(parser)
    parser.set_defaults(handler=handle)


def config_from_args(args: argparse.Namespace) -> RunConfig:
    """The :class:`RunConfig` the parsed arguments ask for."""
    return RunConfig(
        impl=args.impl,
        isolation=args.isolation,
        timeout=args.timeout,
        effort=RunPlan.default_effort(args.thorough),
        seed=args.seed,
        patterns=tuple(args.check),
        skip_file=args.skip_file,
        profile=args.profile,
        level=args.level,
        database=args.database,
        limits=limits_from(args),
    )


def _report_paths(args: argparse.Namespace) -> list[tuple[Path, Any]]:
    # Checked before the run: a typo in a report path must not cost a whole run, nor overwrite an input.
    inputs = [("--skip-file", args.skip_file)] if args.skip_file else []
    return [
        (writable_path(getattr(args, option), f"--{option}", inputs, stdout_allowed=option == "json"), writer)
        for option, writer in _REPORT_WRITERS
        if getattr(args, option) is not None
    ]


def _list_checks(args: argparse.Namespace, plan: RunPlan) -> int:
    checks = list(plan.checks)
    if args.json is None:
        print("\n".join(check_list_lines(checks)))
    elif args.json == "-":
        sys.stdout.write(check_list_json(checks))
    else:
        path = writable_path(args.json, "--json")
        try:
            path.write_text(check_list_json(checks), encoding="utf-8")
        except OSError as error:
            raise HarnessError(f"cannot write --json {str(path)!r}: {error.strerror or error}") from None
    return 0


def _show_header(console: Console, opened: OpenedRun) -> None:
    config = opened.plan.config
    shown = RunHeader(
        checks=len(opened.plan.checks),
        isolation=config.isolation_used,
        seed=config.seed,
        # The header has no profile field of its own; it follows the effort on the same line.
        effort=f"{config.effort} · profile {opened.subject.info.profile}",
    )
    render_header(console, opened.implementation, shown, opened.plan.harness)


def handle(args: argparse.Namespace) -> int:
    """Run the selected checks, show the results and write the reports asked for."""
    if args.vocabulary is not None:  # production configuration: its own checks (run_production.py)
        from bpe_conformance.cli.commands.run_production import handle_production

        return handle_production(args)
    if args.impl is not None and not args.impl.strip():
        raise HarnessError("--impl is empty (an unset variable?); leave it out to test the bundled reference")
    plan = RunPlan.build(config_from_args(args), fail_fast=args.fail_fast)
    if args.list_checks:
        return _list_checks(args, plan)
    reports = _report_paths(args)
    skip_file = writable_path(args.write_skip_file, "--write-skip-file") if args.write_skip_file else None
    console = make_console(sys.stderr if args.json == STDOUT else None)  # --json -: stdout is the JSON's
    interrupted: RunInterrupted | None = None
    with plan.open() as opened:
        if not args.quiet:
            _show_header(console, opened)
        try:
            with live_view(console, len(plan.checks), quiet=args.quiet) as view:
                run = opened.run(view)
        except RunInterrupted as stopped:  # SIGINT, SIGTERM or SIGHUP: report what finished
            interrupted, run = stopped, stopped.suite
    with deferred_signals():  # a signal now still gets every report and the verdict
        unwritten = _write_reports(run, reports)
        render_summary(console, run, quiet=args.quiet)
    if unwritten:  # after the verdict: a report that failed (a full disk) costs neither the others nor it
        raise HarnessError("; ".join(unwritten))
    _tell_the_rest(plan, run, skip_file, args.write_skip_file)
    if interrupted is not None:
        raise interrupted
    return run.exit_code


def _write_reports(run: SuiteResult, reports: list[tuple[Path, Any]]) -> list[str]:
    """Write every report (each atomically); why each one that failed was not written."""
    unwritten = []
    for path, writer in reports:
        try:
            writer(run, path)
        except OSError as error:
            unwritten.append(f"cannot write report {str(path)!r}: {error.strerror or error}")
    return unwritten


def _tell_the_rest(plan: RunPlan, run: SuiteResult, skip_file: Path | None, skip_file_as_given: str | None) -> None:
    """What the summary does not say: checks fail-fast left, the skip file written, nothing checked."""
    if run.not_run:
        print(f"{HARNESS_NAME}: --fail-fast: stopped at the first failure; {len(run.not_run)} checks not run")
    if skip_file is not None:
        count = plan.write_skip_file(run, skip_file)
        # Named as the user gave it (the path itself is made absolute before an implementation can chdir).
        print(f"{HARNESS_NAME}: wrote {skip_file_as_given} ({count} checks that did not pass)")
    if run.nothing_checked:
        reasons = sorted({result.message for result in run.results})
        print(
            f"{HARNESS_NAME}: nothing was checked: all {len(run.results)} selected checks were skipped "
            f"({'; '.join(reasons)[:300]})",
            file=sys.stderr,
        )
