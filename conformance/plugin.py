"""An opt-in pytest plugin: the conformance checks as test items in an implementer's own test run.

    pytest -p bpe_conformance.plugin --bpe-impl mypkg:Tokenizer --bpe-only
    pytest -p bpe_conformance.plugin --bpe-impl "cmd:node bpe.mjs" --bpe-check "train-*" --bpe-seed 3

Without ``--bpe-impl`` the plugin only registers its options: it collects nothing and changes
nothing. With it, one item per check is added, named ``<check>[<clause>]`` (so ``-k BPE-TRAIN-TIE``
selects by clause), after the project's own tests; ``--bpe-only`` collects nothing else (no test file
of the project is even imported) and keeps hypothesis's files out of the working directory.

Each item runs the check the way ``bpe-conformance run`` does, with the same hypothesis profile (the
CLI's default effort, or ``--bpe-thorough``), the same judging profile and the same seed, so the
``bpe-conformance run`` line printed with a failure reproduces it. The implementation is loaded once,
while collecting: one that cannot be loaded is a single usage error, not one failure per check.
A check whose capability the implementation does not declare, or whose clause its profile relaxes, is
skipped.
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

import pytest
from hypothesis.database import ExampleDatabase

from bpe_conformance.adapters.subject import Subject
from bpe_conformance.checks.base import Check
from bpe_conformance.errors import HarnessError
from bpe_conformance.reports.common import hypothesis_note
from bpe_conformance.reports.terminal import failure_lines
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running import suite
from bpe_conformance.running.database import open_database
from bpe_conformance.running.runner import run_checks
from bpe_conformance.running.suite import DEFAULT_TIMEOUT, ISOLATIONS
from bpe_conformance.settings import HYPOTHESIS_VERSION, keep_storage_out_of_cwd

__all__ = [
    "ConformanceFailure",
    "ConformanceItem",
    "ConformanceSuite",
    "add_conformance_items",
    "pytest_addoption",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_ignore_collect",
    "pytest_report_header",
    "reproduce_commands",
]

SUITE_NODE = "bpe-conformance"


class ConformanceFailure(Exception):
    """A check ended in fail, error, timeout or crash; carries the runner's result."""

    def __init__(self, result: CheckResult, reproduce: list[str]) -> None:
        super().__init__(f"[{result.clause}] {result.check}: {result.outcome.value}: {result.message}")
        self.result = result
        self.reproduce = reproduce


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive, finite number of seconds, got {text!r}")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--bpe-*`` options; nothing else happens unless ``--bpe-impl`` is given."""
    group = parser.getgroup("bpe-conformance", "byte-level BPE conformance checks (bpe_conformance.plugin)")
    group.addoption(
        "--bpe-impl",
        metavar="SPEC",
        default=None,
        help="implementation to check (module:attr, cmd:<command line>, reference); enables the plugin",
    )
    group.addoption(
        "--bpe-check",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only checks whose name or clause id matches (fnmatch-style; repeatable)",
    )
    group.addoption(
        "--bpe-isolation",
        choices=ISOLATIONS,
        default="process",
        help="run the implementation in its own process (default) or in pytest's",
    )
    group.addoption(
        "--bpe-timeout",
        type=_positive_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"limit per call, process isolation only (default {DEFAULT_TIMEOUT:g})",
    )
    group.addoption("--bpe-seed", type=int, default=0, metavar="N", help="hypothesis seed (default 0)")
    group.addoption("--bpe-thorough", action="store_true", help="many more examples per check (profile 'thorough')")
    group.addoption(
        "--bpe-database",
        metavar="DIR|URL",
        default=None,
        help="hypothesis's example database (a directory, or redis://HOST:PORT[/DB]): failures saved "
        "there, such as those a fuzz campaign found, are replayed first",
    )
    group.addoption(
        "--bpe-only", action="store_true", help="collect only the conformance checks, none of the project's own tests"
    )


def reproduce_commands(config: pytest.Config, check: str) -> list[str]:
    """A pytest command and the equivalent CLI command that re-run only ``check``."""
    impl, seed = config.getoption("bpe_impl"), str(config.getoption("bpe_seed"))
    isolation, timeout = config.getoption("bpe_isolation"), config.getoption("bpe_timeout")
    extra_pytest, extra_cli = [], []
    if config.getoption("bpe_thorough"):
        extra_pytest.append("--bpe-thorough")
        extra_cli.append("--thorough")
    if isolation != "process":
        extra_pytest += ["--bpe-isolation", isolation]
        extra_cli += ["--isolation", isolation]
    if timeout != DEFAULT_TIMEOUT:
        extra_pytest += ["--bpe-timeout", f"{timeout:g}"]
        extra_cli += ["--timeout", f"{timeout:g}"]
    database = config.getoption("bpe_database")
    if database is not None:
        extra_pytest += ["--bpe-database", database]
        extra_cli += ["--database", database]
    pytest_words = [
        "pytest",
        "-p",
        "bpe_conformance.plugin",
        "--bpe-impl",
        impl,
        "--bpe-only",
        *extra_pytest,
        "--bpe-check",
        check,
        "--bpe-seed",
        seed,
    ]
    cli_words = ["bpe-conformance", "run", "--impl", impl, *extra_cli, "--check", check, "--seed", seed]
    note = hypothesis_note(check, HYPOTHESIS_VERSION)
    return [shlex.join(pytest_words) + note, shlex.join(cli_words) + note]


class ConformanceSuite(pytest.Collector):
    """Holds the implementation under test, opened at the first check and closed after the last."""

    def __init__(self, *, checks: list[Check], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.checks = checks
        self._subject: Subject | None = None
        self.inapplicable: dict[str, str] = {}
        # hypothesis's example database (--bpe-database): saved failures are replayed first.
        self.database: ExampleDatabase | None = None

    def collect(self) -> list[pytest.Item]:
        """One :class:`ConformanceItem` per check."""
        return [
            ConformanceItem.from_parent(self, name=f"{check.name}[{check.clause}]", check=check)
            for check in self.checks
        ]

    def open(self) -> None:
        """Load the implementation, judged by the profile it declares; raises :class:`HarnessError`."""
        options = self.config.getoption
        subject = suite.open_subject(options("bpe_impl"), options("bpe_isolation"), options("bpe_timeout"))
        self.config.add_cleanup(self.teardown)
        self._subject = subject
        self._subject = suite.judged_subject(subject, None)
        self.inapplicable = suite.inapplicable_checks(self.checks, self._subject)

    def subject(self) -> Subject:
        """The implementation :meth:`open` loaded."""
        if self._subject is None:
            raise HarnessError("the implementation is not loaded (it is stopped after the last check)")
        return self._subject

    def teardown(self) -> None:
        """Stop the implementation (its process, with process isolation)."""
        subject, self._subject = self._subject, None
        if subject is not None:
            subject.close()


class ConformanceItem(pytest.Item):
    """One check of the suite against the implementation named by ``--bpe-impl``."""

    def __init__(self, *, check: Check, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.extra_keyword_matches.update((*check.clauses, check.level))  # `-k interface` selects a level
        self.user_properties += [("clause", check.clause), ("level", check.level)]

    def runtest(self) -> None:
        """Run the check; skips become pytest skips, every other non-pass a :class:`ConformanceFailure`."""
        run_item(self)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """The clause, counterexample and reproduce commands instead of a traceback into the harness."""
        return describe_failure(self, excinfo) or super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        """Where pytest says the item lives: the suite node, by check name and clause."""
        return self.path, None, f"{SUITE_NODE}::{self.name}"


def run_item(item: ConformanceItem) -> None:
    """Body of :meth:`ConformanceItem.runtest`, kept undecorated and outside the class for mutation testing."""
    node = item.parent
    assert isinstance(node, ConformanceSuite)
    effort = "thorough" if item.config.getoption("bpe_thorough") else suite.default_effort()
    base = suite.base_settings(effort)
    seed = item.config.getoption("bpe_seed")
    (result,) = run_checks([item.check], node.subject(), base, seed, node.inapplicable, database=node.database)
    item.user_properties.append(("examples", result.examples))
    if result.outcome is Outcome.SKIP:
        pytest.skip(result.message)
    if not result.outcome.counts_as_success:
        raise ConformanceFailure(result, reproduce_commands(item.config, item.check.name))


def describe_failure(item: ConformanceItem, excinfo: pytest.ExceptionInfo[BaseException]) -> str | None:
    """The text pytest shows for a failed item; None for exceptions the plugin does not own."""
    error = excinfo.value
    if isinstance(error, ConformanceFailure):
        pytest_command, cli_command = error.reproduce
        lines = failure_lines(error.result, pytest_command)
        return "\n".join([*lines, f"  or: {cli_command}"])
    if isinstance(error, HarnessError):
        return f"bpe-conformance could not run {item.check.name}: {error}"
    return None


def add_conformance_items(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Append one item per selected check when ``--bpe-impl`` is given; otherwise do nothing."""
    if config.getoption("bpe_impl") is None:
        return
    try:
        checks = suite.select(config.getoption("bpe_check"))
    except HarnessError as error:
        raise pytest.UsageError(f"--bpe-check: {error}") from None
    try:
        database = open_database(config.getoption("bpe_database"), "--bpe-database")
    except HarnessError as error:
        raise pytest.UsageError(str(error)) from None
    node = ConformanceSuite.from_parent(session, name=SUITE_NODE, nodeid=SUITE_NODE, checks=checks)
    node.database = database
    try:
        node.open()
    except HarnessError as error:
        raise pytest.UsageError(f"--bpe-impl: {error}") from None
    collected = node.collect()
    # Reported like any collected node, so pytest's "collected N items" counts the checks too.
    reported: list[pytest.Item | pytest.Collector] = list(collected)
    config.hook.pytest_collectreport(report=pytest.CollectReport(node.nodeid, "passed", None, reported))
    items.extend(collected)


def pytest_configure(config: pytest.Config) -> None:
    """With ``--bpe-only`` the session is the harness's: hypothesis's files go to a temporary directory."""
    if config.getoption("bpe_impl") is not None and config.getoption("bpe_only"):
        keep_storage_out_of_cwd()


def pytest_ignore_collect(collection_path: Any, config: pytest.Config) -> bool | None:
    """With ``--bpe-only``, every path of the project: its own tests are neither imported nor run."""
    if config.getoption("bpe_impl") is not None and config.getoption("bpe_only"):
        return True
    return None


@pytest.hookimpl(tryfirst=True)  # before -k/-m deselection, so those select conformance items too
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Add the conformance items (see :func:`add_conformance_items`)."""
    add_conformance_items(session, config, items)


def pytest_report_header(config: pytest.Config) -> str | None:
    """Name the implementation under test in pytest's header, when there is one."""
    impl = config.getoption("bpe_impl")
    return None if impl is None else f"bpe-conformance: checking {impl} ({config.getoption('bpe_isolation')})"
