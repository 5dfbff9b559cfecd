"""``bpe-conformance run --vocabulary PATH``: a vocabulary-bound encoder judged in production configuration.

The vocabulary file is read and validated before the implementation starts; a Python implementation is
run in-process unless ``--isolation process`` is asked for, a ``cmd:`` one in its own process, where it gets
the vocabulary over the protocol (``specs/protocol.md`` 3.4); the header and every report name the
vocabulary's file, size and SHA-256.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING

from bpe_conformance.adapters import COMMAND_PREFIX
from bpe_conformance.cli.commands.run import _report_paths, _write_reports, config_from_args
from bpe_conformance.errors import HarnessError
from bpe_conformance.reference.production_encoders import REFERENCE_ENCODERS
from bpe_conformance.reports.terminal import RunHeader, live_view, make_console, render_header, render_summary
from bpe_conformance.running import suite
from bpe_conformance.running.production import production_checks, production_setup_for, run_production_suite

if TYPE_CHECKING:
    import argparse

__all__ = ["handle_production", "production_isolation"]


def production_isolation(impl: str | None, isolation: str | None) -> str:
    """The isolation asked for; by default a ``cmd:`` implementation's own process, else in-process.

    A Python encoder stays in-process unless ``--isolation process`` is given (as before the protocol could
    carry a vocabulary): in its own process it is sent the whole vocabulary again after every reset.

    >>> production_isolation("cmd:node enc.mjs", None), production_isolation("m:C", None)
    ('process', 'inprocess')
    >>> production_isolation("m:C", "process")
    'process'
    """
    if isolation is not None:
        return isolation
    return "process" if impl is not None and impl.strip().startswith(COMMAND_PREFIX) else "inprocess"


def _bundled_reference(profile: str | None) -> str:
    """The reference encoder of ``--profile`` (needed: the bundled reference declares no production profile)."""
    if profile not in REFERENCE_ENCODERS:
        raise HarnessError(
            f"--vocabulary without --impl runs the bundled reference: name its profile with --profile "
            f"({', '.join(REFERENCE_ENCODERS)})"
        )
    return f"bpe_conformance.reference.production_encoders:{REFERENCE_ENCODERS[profile].__name__}"


def handle_production(args: argparse.Namespace) -> int:
    """Read the vocabulary, bind it, run the production checks and write the reports asked for."""
    config = config_from_args(args)
    if args.list_checks:
        for check in production_checks(config.patterns, config.level):
            print(f"{check.name:<32} {check.level:<10} {', '.join(check.clauses):<40} {check.summary}")
        return 0
    if args.impl is not None and not args.impl.strip():
        raise HarnessError("--impl is empty (an unset variable?); leave it out to test the bundled reference")
    reports = _report_paths(args)
    if args.skip_file is not None or args.database is not None:
        raise HarnessError("--vocabulary runs the production checks, which take no --skip-file or --database yet")
    config = dataclasses.replace(config, isolation=production_isolation(config.impl, config.isolation))
    checks = production_checks(config.patterns, config.level)
    if not checks:
        raise HarnessError(f"no production checks selected (--level {config.level} leaves none of those chosen)")
    console = make_console()
    subject = suite.open_subject(
        config.impl or _bundled_reference(config.profile), config.isolation_used, config.timeout
    )
    try:
        setup = production_setup_for(config.profile, subject.info.profile, args.vocabulary)
        if not args.quiet:
            shown = RunHeader(
                checks=len(checks),
                isolation=config.isolation_used,
                seed=config.seed,
                effort=f"{config.effort} · {setup.describe()}",
            )
            record = dataclasses.replace(
                suite.implementation_record(subject, config.impl, config.isolation_used), profile=setup.profile.name
            )
            render_header(console, record, shown, f"{suite.HARNESS_NAME} {suite.harness_version()}")
        with live_view(console, len(checks), quiet=args.quiet) as view:
            run = run_production_suite(config, subject, setup, checks, view.on_start, view.on_result)
    finally:
        subject.close()
    unwritten = _write_reports(run, reports)
    render_summary(console, run, quiet=args.quiet)
    if unwritten:  # after the verdict, as run does
        raise HarnessError("; ".join(unwritten))
    if args.quiet:
        console.print(setup.describe())
    if run.nothing_checked:
        reasons = "; ".join(sorted({result.message for result in run.results}))
        print(
            f"{suite.HARNESS_NAME}: nothing was checked: every selected check was skipped ({reasons[:300]})",
            file=sys.stderr,
        )
    return run.exit_code
