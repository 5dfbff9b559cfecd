"""``bpe-conformance run --vocabulary PATH``: a vocabulary-bound encoder judged in production configuration.

The vocabulary file is read and validated before the implementation starts, a Python implementation is
run in-process (the protocol cannot hand over a vocabulary yet), and the header and every report name
the vocabulary's file, size and SHA-256.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from bpe_conformance.cli.commands.run import _exit_code, _write_reports
from bpe_conformance.errors import HarnessError
from bpe_conformance.reports.terminal import live_view, make_console, render_header, render_summary
from bpe_conformance.running import suite
from bpe_conformance.running.production import production_checks, production_setup_for, run_production_suite
from bpe_conformance.running.suite import HARNESS_NAME, RunConfig

__all__ = ["handle_production"]


def handle_production(args: argparse.Namespace, config: RunConfig, reports: list[tuple[Path, Any]]) -> int:
    """Read the vocabulary, bind it, run the production checks and write the reports asked for."""
    if config.isolation == "process":
        raise HarnessError("--vocabulary runs a Python implementation in-process; --isolation process cannot be used")
    if args.skip_file is not None or args.database is not None:
        raise HarnessError("--vocabulary runs the production checks, which take no --skip-file or --database yet")
    config = dataclasses.replace(config, isolation="inprocess")
    checks = production_checks(config.patterns, config.level)
    if not checks:
        raise HarnessError(f"no production checks selected (--level {config.level} leaves none of those chosen)")
    console = make_console()
    subject = suite.open_subject(config.impl, "inprocess", config.timeout)
    try:
        setup = production_setup_for(config.profile, subject.info.profile, args.vocabulary)
        if not args.quiet:
            shown = {
                **dataclasses.asdict(config),
                "isolation": "inprocess",
                "checks": [check.name for check in checks],
                "effort": f"{config.effort} · {setup.describe()}",
            }
            record = suite.implementation_record(subject, config.impl)
            render_header(
                console, {**record, "profile": setup.profile.name}, shown, f"{HARNESS_NAME} {suite.harness_version()}"
            )
        with live_view(console, len(checks), quiet=args.quiet) as view:
            run = run_production_suite(config, subject, setup, checks, view.on_start, view.on_result)
    finally:
        subject.close()
    _write_reports(run, reports)
    render_summary(console, run, quiet=args.quiet)
    if args.quiet:
        console.print(setup.describe())
    return _exit_code(run)
