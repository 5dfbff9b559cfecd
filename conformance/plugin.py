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
from typing import TYPE_CHECKING, Any

import pytest

from bpe_conformance.adapters.limits import DEFAULT_MEMORY_LIMIT, ProcessLimits, format_size, memory_size, variable_name
from bpe_conformance.errors import HarnessError
from bpe_conformance.reference.profiles import PROFILES
from bpe_conformance.reports.common import hypothesis_note
from bpe_conformance.reports.terminal import failure_lines
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running import OpenedRun, RunConfig, RunPlan
from bpe_conformance.settings import HYPOTHESIS_VERSION, keep_storage_out_of_cwd

if TYPE_CHECKING:
    from bpe_conformance.checks.base import Check

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
    "pytest_runtest_makereport",
    "pytest_terminal_summary",
    "reproduce_commands",
    "run_config",
]

SUITE_NODE = "bpe-conformance"
DEFAULT_TIMEOUT = RunConfig.DEFAULT_TIMEOUT
# Advisories (a SHOULD not followed, a stale skip) of every item run, for the terminal summary.
_ADVISORIES = pytest.StashKey[list[tuple[str, str]]]()


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
        choices=RunConfig.ISOLATIONS,
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
        "--bpe-level",
        choices=RunConfig.LEVELS,
        default="all",
        help="only the checks of one conformance level: algorithm or interface (default all)",
    )
    group.addoption(
        "--bpe-profile",
        metavar="PROFILE",
        default=None,
        help=f"judge under this dialect profile instead of the declared one ({', '.join(PROFILES)}), "
        "or a custom one: base+field=value+... (strict+tie=first-seen+min_count=1) or a .toml/.json profile file",
    )
    group.addoption(
        "--bpe-skip-file",
        metavar="PATH",
        default=None,
        help="checks the implementation knowingly fails, as for bpe-conformance run --skip-file",
    )
    group.addoption(
        "--bpe-only", action="store_true", help="collect only the conformance checks, none of the project's own tests"
    )
    # The limits of bpe-conformance run (specs/protocol.md 5.2), for an implementation in its own process.
    group.addoption(
        "--bpe-memory-limit",
        type=memory_size,
        default=DEFAULT_MEMORY_LIMIT,
        metavar="SIZE",
        help="most memory the implementation's process may allocate, e.g. 512M; none for no limit "
        f"(default {format_size(DEFAULT_MEMORY_LIMIT)})",
    )
    group.addoption(
        "--bpe-clean-env", action="store_true", help="give the implementation a minimal environment (see run --help)"
    )
    group.addoption(
        "--bpe-env",
        action="append",
        default=[],
        type=variable_name,
        metavar="NAME",
        help="with --bpe-clean-env, pass this variable too",
    )
    group.addoption("--bpe-temp-cwd", action="store_true", help="run the implementation in a new temporary directory")


def _process_limits(config: pytest.Config) -> ProcessLimits:
    """The limits the ``--bpe-*`` limit options ask for, as ``run``'s ``limits_from`` reads its own."""
    return ProcessLimits(
        memory_bytes=config.getoption("bpe_memory_limit"),
        clean_env=config.getoption("bpe_clean_env"),
        passed_env=tuple(dict.fromkeys(config.getoption("bpe_env"))),
        temp_cwd=config.getoption("bpe_temp_cwd"),
    )


def _limit_options(config: pytest.Config) -> list[str]:
    """``run``'s limit options of a reproducing command, where not the defaults."""
    return _process_limits(config).record().options(default_memory=DEFAULT_MEMORY_LIMIT)


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
    for option in ("database", "profile", "skip_file"):
        value = config.getoption(f"bpe_{option}")
        if value is not None:
            extra_pytest += [f"--bpe-{option.replace('_', '-')}", value]
            extra_cli += [f"--{option.replace('_', '-')}", value]
    limits = _limit_options(config)
    extra_pytest += [word.replace("--", "--bpe-", 1) if word.startswith("--") else word for word in limits]
    extra_cli += limits
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


def run_config(config: pytest.Config) -> RunConfig:
    """The :class:`RunConfig` the ``--bpe-*`` options ask for: the one ``bpe-conformance run`` would use."""
    option = config.getoption
    return RunConfig(
        impl=option("bpe_impl"),
        isolation=option("bpe_isolation"),
        timeout=option("bpe_timeout"),
        effort=RunPlan.default_effort(option("bpe_thorough")),
        seed=option("bpe_seed"),
        patterns=tuple(option("bpe_check")),
        skip_file=option("bpe_skip_file"),
        profile=option("bpe_profile"),
        level=option("bpe_level"),
        database=option("bpe_database"),
        limits=_process_limits(config),
    )


class ConformanceSuite(pytest.Collector):
    """Holds the implementation under test, opened at the first check and closed after the last."""

    def __init__(self, *, plan: RunPlan, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.plan = plan
        self.checks = list(plan.checks)
        self._opened: OpenedRun | None = None

    def collect(self) -> list[pytest.Item]:
        """One :class:`ConformanceItem` per check."""
        return [
            ConformanceItem.from_parent(self, name=f"{check.name}[{check.clause}]", check=check)
            for check in self.checks
        ]

    def open(self) -> None:
        """Load the implementation, judged under the plan's profile; raises :class:`HarnessError`."""
        self._opened = self.plan.open()
        self.config.add_cleanup(self.teardown)

    def opened(self) -> OpenedRun:
        """The run :meth:`open` started."""
        if self._opened is None:
            raise HarnessError("the implementation is not loaded (it is stopped after the last check)")
        return self._opened

    def teardown(self) -> None:
        """Stop the implementation (its process, with process isolation)."""
        opened, self._opened = self._opened, None
        if opened is not None:
            opened.close()


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
    result = node.opened().run_check(item.check)
    item.user_properties += [("examples", result.examples), ("reported_clause", result.clause)]
    item.config.stash.setdefault(_ADVISORIES, []).extend((result.check, note) for note in result.advisories)
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
        plan = RunPlan.build(run_config(config), option_prefix="--bpe-")
    except HarnessError as error:
        raise pytest.UsageError(str(error)) from None
    node = ConformanceSuite.from_parent(session, name=SUITE_NODE, nodeid=SUITE_NODE, plan=plan)
    try:
        node.open()
    except HarnessError as error:
        raise pytest.UsageError(f"--bpe-impl: {error}") from None
    try:  # only an implementation that loads gets a database; an unreachable one is a usage error now
        node.opened().open_database()
    except HarnessError as error:
        raise pytest.UsageError(str(error)) from None
    collected = node.collect()
    # Reported like any collected node, so pytest's "collected N items" counts the checks too.
    reported: list[pytest.Item | pytest.Collector] = list(collected)
    config.hook.pytest_collectreport(report=pytest.CollectReport(node.nodeid, "passed", None, reported))
    items.extend(collected)


def pytest_configure(config: pytest.Config) -> None:
    """With ``--bpe-only`` the session is the harness's: hypothesis's files go to a temporary directory."""
    if config.getoption("bpe_impl") is not None and config.getoption("bpe_only"):
        keep_storage_out_of_cwd()


def pytest_ignore_collect(config: pytest.Config) -> bool | None:
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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Any:
    """A failure on another clause than the item's is shown under that clause (its header and id agree)."""
    report = yield
    reported = dict(item.user_properties).get("reported_clause") if isinstance(item, ConformanceItem) else None
    if isinstance(item, ConformanceItem) and report.failed and reported not in (None, item.check.clause):
        path, line, _ = report.location
        report.location = (path, line, f"{SUITE_NODE}::{item.check.name}[{reported}]")
    return report


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The advisories of the checks run (notes, never failures), once each, as ``bpe-conformance run`` shows them."""
    advisories = config.stash.get(_ADVISORIES, [])
    if not advisories:
        return
    terminalreporter.section("bpe-conformance advisories")
    for check, note in dict.fromkeys(advisories):
        terminalreporter.write_line(f"{check}: {note}")
