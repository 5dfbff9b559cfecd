"""``mutmut`` with each mutant's tests taken from one collection kept open in the fork server.

Usage: ``python tools/mutation_run.py run --max-children 2`` (any ``mutmut`` command line; tox's ``mutation``
environment runs this).

mutmut 3.8 runs a mutant's tests with ``pytest.main`` in a process forked from its fork server. That parses the
configuration, loads the plugins and collects every test file the mutant's tests live in, again for each
mutant: 0.2 to 0.3 s before the first test runs, which is most of the time of a mutant its fastest test kills
(docs/mutation.md, "Where the time goes"). Here the fork server configures pytest and collects the whole
selection once, in a session it keeps open (``ForkServerWarmup.COLLECT`` already imported everything, then let
the session go). A mutant's process picks its tests from that session by node id and hands them to pytest's own
run loop: the same options (``-x``, the per-test timeouts and the order ``conftest.py`` gives them), the same
fixtures, the same exit statuses (1 when a test failed or errored, 0 when every test passed, 5 when the hooks
left no test to run, pytest's internal error 3 when the loop itself broke). A node id the session does not hold
fails the mutant's command as ``pytest.main``'s usage error does. ``tests/test_mutation_run.py`` compares the
two ways of running a selection.

After collecting, the fork server moves everything it holds to the garbage collector's permanent generation
(``gc.freeze``): pytest's end-of-session hooks collect garbage several times, and in a process forked from a
server holding the whole collection each full collection walked (and copied, page by page) hundreds of megabytes
that no mutant changes: 0.12 s of the 0.17 s of a mutant its first test kills.

Three more changes of what mutmut does, each for a reason it cannot know:

- mutmut's statistics run (every test of the selection traced, to learn which tests reach which function) runs
  in one process. Here the selection is dealt into parts, each run in a process of its own, as many at a time as
  mutants are (``--max-children``), and their statistics are merged as mutmut merges its one child's.
- mutmut runs every test once more, unmutated, after its statistics run ("clean tests"), to make sure they pass.
  When the statistics of this very invocation ran the whole selection (they stop the run unless every test
  passed), that second run is skipped: it would run the same tests on the same code.
- A test marked ``mutation_scope("package.or.module", ...)`` is run only for the mutants of those modules: its
  subject is that code, and the code it merely passes through has tests of its own. mutmut learns which tests
  reach which function from the statistics run; the marked tests are taken out of the other functions' lists
  there (:func:`narrowed`), so mutmut neither runs them nor counts on them for those mutants. A scope that names
  no mutated code stops the run: a misspelt one would otherwise quietly take the test away from every mutant.

Anything else (the forced-fail run, a mutmut other than 3.8) runs mutmut's own code unchanged.
"""

from __future__ import annotations

import functools
import gc
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest
from _pytest.config import _prepareconfig
from _pytest.main import Session

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

__all__ = [
    "SCOPE_MARKER",
    "Collected",
    "UnknownTests",
    "collect_once",
    "in_scope",
    "install",
    "main",
    "narrowed",
    "run_collected",
    "run_forked",
    "split_selection",
    "unknown_scopes",
]

SUPPORTED_MUTMUT = "3.8."
RUN_OPTIONS = ["-x", "-q", "-p", "no:randomly", "-p", "no:random-order"]  # what mutmut passes for a mutant
SCOPE_MARKER = "mutation_scope"


class UnknownTests(Exception):
    """Node ids the open session does not hold (``pytest.main`` would stop with its usage error)."""


@dataclass
class Collected:
    """An open session and its items by node id (relative to the directory it was collected in)."""

    session: Session
    items: dict[str, pytest.Item]
    directory: str


def collect_once(arguments: Sequence[str], directory: str) -> Collected | None:
    """Configure pytest with ``arguments`` in ``directory`` and collect, leaving the session open; None when the
    collection had errors (the caller then runs ``pytest.main`` as before, which reports them)."""
    previous = os.getcwd()
    os.chdir(directory)
    try:
        config = _prepareconfig(list(arguments))
        config._do_configure()
        session = Session.from_config(config)
        config.hook.pytest_sessionstart(session=session)
        config.hook.pytest_collection(session=session)
    finally:
        os.chdir(previous)
    if session.testsfailed:
        # Not kept: unconfigure it (its output capture stopped among the rest), so that the fork server holds no
        # configured pytest beside the pytest.main runs. No test ran, so no fixture is left to tear down.
        config._ensure_unconfigure()
        return None
    collected = Collected(session, {item.nodeid: item for item in session.items}, os.path.abspath(directory))
    # What the processes forked from here inherit is never garbage to them: out of the collector's way (module
    # docstring).
    gc.collect()
    gc.freeze()
    return collected


def run_collected(collected: Collected, tests: Iterable[str]) -> int:
    """Run ``tests`` (node ids) from the open session as ``pytest.main`` would run them; its exit status.

    Meant for a process forked after :func:`collect_once`, which runs one selection and exits: the session ends
    here (its fixtures torn down, pytest unconfigured), and the process is left in the collection's directory.
    """
    wanted = list(dict.fromkeys(tests))
    missing = [node for node in wanted if node not in collected.items]
    if missing:
        raise UnknownTests(missing)
    os.chdir(collected.directory)
    session = collected.session
    config = session.config
    _restart_output_capture(config)
    session.items = [collected.items[node] for node in wanted]
    # The statuses of pytest.main's wrap_session: -x stops the loop by raising Failed once a test has failed.
    status: int = pytest.ExitCode.OK
    try:
        config.hook.pytest_collection_modifyitems(session=session, config=config, items=session.items)
        session.testscollected = len(session.items)  # after the hooks, which may deselect, as in pytest
        config.hook.pytest_runtestloop(session=session)
        if session.testsfailed:
            status = pytest.ExitCode.TESTS_FAILED
        elif not session.testscollected:
            status = pytest.ExitCode.NO_TESTS_COLLECTED
    except session.Failed:
        status = pytest.ExitCode.TESTS_FAILED
    except (KeyboardInterrupt, pytest.exit.Exception) as stop:
        returncode = getattr(stop, "returncode", None)
        status = returncode if returncode is not None else pytest.ExitCode.INTERRUPTED
    except BaseException:  # noqa: BLE001 - as in pytest.main, any other error of the run loop is an internal error
        status = pytest.ExitCode.INTERNAL_ERROR
    finally:
        # Tears down the session's fixtures (processes, servers, directories) as pytest.main's end does.
        config.hook.pytest_sessionfinish(session=session, exitstatus=status)
        config._ensure_unconfigure()
    return int(status)


def _restart_output_capture(config: pytest.Config) -> None:
    """Give this process capture files of its own; the fork server's are shared by every process it forks."""
    capture = config.pluginmanager.getplugin("capturemanager")
    if capture is None or not capture.is_globally_capturing():
        return
    capture.stop_global_capturing()
    capture.start_global_capturing()
    capture.suspend_global_capture()


def in_scope(function: str, scope: str) -> bool:
    """Whether mutmut's ``function`` (its mangled name) lies in ``scope``, a module or a package.

    >>> in_scope("pkg.checks.vectors.x_verify", "pkg.checks"), in_scope("pkg.checks.vectors.xǁCǁrun", "pkg.checks")
    (True, True)
    >>> in_scope("pkg.checks_extra.x_verify", "pkg.checks"), in_scope("pkg.reference.x_train", "pkg.checks")
    (False, False)
    """
    return function.startswith(scope + ".")


def narrowed(
    tests_by_function: Mapping[str, Iterable[str]], scopes: Mapping[str, Sequence[str]]
) -> dict[str, set[str]]:
    """Each function's tests, less the tests whose ``scopes`` (by node id) hold none of the function's modules.

    >>> tests = {"pkg.checks.x_verify": {"t::near", "t::unit"}, "pkg.reference.x_train": {"t::near", "t::engine"}}
    >>> sorted(narrowed(tests, {"t::near": ["pkg.checks"]})["pkg.reference.x_train"])
    ['t::engine']
    >>> sorted(narrowed(tests, {"t::near": ["pkg.checks"]})["pkg.checks.x_verify"])
    ['t::near', 't::unit']
    """
    return {
        function: {
            test for test in tests if test not in scopes or any(in_scope(function, scope) for scope in scopes[test])
        }
        for function, tests in tests_by_function.items()
    }


def unknown_scopes(functions: Iterable[str], scopes: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """The scopes, by test, that hold none of ``functions`` (a misspelt module would take the test from all).

    >>> unknown_scopes(["pkg.checks.x_verify"], {"t::near": ["pkg.checks", "pkg.diagnosys"]})
    {'t::near': ['pkg.diagnosys']}
    """
    names = list(functions)
    unknown = {
        test: [scope for scope in test_scopes if not any(in_scope(name, scope) for name in names)]
        for test, test_scopes in scopes.items()
    }
    return {test: missing for test, missing in unknown.items() if missing}


def split_selection(selection: Sequence[str], parts: int) -> list[list[str]]:
    """``selection`` (test files and node ids) dealt in turn into at most ``parts`` parts, none empty.

    >>> split_selection(["a.py", "b.py", "c.py", "d.py", "e.py"], 2)
    [['a.py', 'c.py', 'e.py'], ['b.py', 'd.py']]
    >>> split_selection(["a.py"], 4)
    [['a.py']]
    """
    dealt = [list(selection[start :: max(1, parts)]) for start in range(max(1, parts))]
    return [part for part in dealt if part]


def run_forked(jobs: Sequence[Callable[[], Any]], at_once: int) -> list[Any]:
    """Each job's result, in order, each job run in a forked process, ``at_once`` of them at a time.

    A job's result comes back pickled through a file (a pipe would have to be read while the child writes). A job
    that raises, or a child that dies, raises :class:`ChildProcessError` naming it, after every child has ended.
    Only its own children are waited for.
    """
    results: dict[int, Any] = {}
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mutation-run-") as directory:
        running: dict[int, int] = {}  # pid: job index
        waiting = list(range(len(jobs)))
        try:
            while waiting or running:
                while waiting and len(running) < max(1, at_once):
                    index = waiting.pop(0)
                    pid = os.fork()
                    if pid == 0:  # pragma: no cover - the child reports through its file and exits
                        _run_job(jobs[index], os.path.join(directory, f"{index}.pickle"))
                    running[pid] = index
                pid, status = _one_ended(running)
                index = running.pop(pid)
                outcome = os.path.join(directory, f"{index}.pickle")
                if os.waitstatus_to_exitcode(status) != 0 or not os.path.exists(outcome):
                    failures.append(f"job {index}: its process ended with status {os.waitstatus_to_exitcode(status)}")
                    continue
                with open(outcome, "rb") as stored:
                    ok, value = pickle.load(stored)  # written by this very function's child
                if ok:
                    results[index] = value
                else:
                    failures.append(f"job {index}: {value}")
        finally:
            for pid in running:  # interrupted: no job outlives the run
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
    if failures:
        raise ChildProcessError("; ".join(failures))
    return [results[index] for index in range(len(jobs))]


def _one_ended(running: Mapping[int, int]) -> tuple[int, int]:
    """The pid and wait status of one of ``running``'s processes that has ended, waiting for one to end."""
    while True:
        for pid in running:
            ended, status = os.waitpid(pid, os.WNOHANG)
            if ended:
                return ended, status
        time.sleep(0.05)


def _run_job(job: Callable[[], Any], path: str) -> None:  # pragma: no cover - runs in a forked child
    """In the child: run ``job``, store ``(ok, result or error)`` at ``path``, and exit without cleaning up."""
    try:
        outcome = (True, job())
    except BaseException as error:  # noqa: BLE001 - whatever the job raised is reported by the parent
        outcome = (False, f"{type(error).__name__}: {error}\n{traceback.format_exc()}")
    try:
        with open(path, "wb") as stored:
            pickle.dump(outcome, stored)
    finally:
        os._exit(0)


@dataclass
class _ScopeRecorder:
    """A pytest plugin for the statistics run: each collected test's ``mutation_scope``, by mutmut's node id."""

    scopes: dict[str, list[str]] = field(default_factory=dict)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            marker = item.get_closest_marker(SCOPE_MARKER)
            if marker is not None:
                self.scopes[item.nodeid.removeprefix("mutants/")] = [str(scope) for scope in marker.args]


def install() -> bool:
    """Replace mutmut's fork-server warm-up and per-mutant run; False (nothing replaced) for another mutmut."""
    import mutmut
    from mutmut import __main__ as mutmut_main
    from mutmut.configuration import config
    from mutmut.models.results import StatsResult
    from mutmut.runners.harness import BadTestExecutionCommandsException, PytestRunner
    from mutmut.state import state

    version = getattr(mutmut, "__version__", "")
    if not version.startswith(SUPPORTED_MUTMUT):
        print(f"mutation_run: mutmut {version or '(unknown)'} is not {SUPPORTED_MUTMUT}x; running it unchanged")
        return False
    stock_run_tests = PytestRunner.run_tests
    collected: list[Collected] = []  # the fork server's, inherited by each process it forks

    def warm_up(runner: PytestRunner) -> None:
        selection = runner._pytest_add_cli_args_test_selection + runner._pytest_add_cli_args
        found = collect_once(["--rootdir=.", "--tb=native", *RUN_OPTIONS, *selection], "mutants")
        collected[:] = [found] if found is not None else []

    def run_tests(runner: PytestRunner, *, mutant_name: str | None, tests: Iterable[str]) -> int:
        wanted = list(tests)
        if not collected or not wanted or mutant_name is None:
            return int(stock_run_tests(runner, mutant_name=mutant_name, tests=wanted))
        try:
            return run_collected(collected[0], wanted)
        except UnknownTests as unknown:
            raise BadTestExecutionCommandsException(unknown.args[0]) from None

    stock_stats_collection = mutmut_main.run_stats_collection
    whole_selection_passed: list[bool] = []  # in mutmut's own process

    def run_stats_collection(runner: Any, tests: Iterable[str] | None = None) -> None:
        stock_stats_collection(runner, tests)  # exits the run unless every test passed
        whole_selection_passed[:] = [not tests]

    stock_get_runner = mutmut_main.get_mutant_runner

    def get_mutant_runner(*arguments: Any, **options: Any) -> Any:
        mutant_runner = stock_get_runner(*arguments, **options)
        stock_clean = mutant_runner.run_clean_tests
        workers = max(1, int(getattr(mutant_runner, "max_workers", 1)))

        def statistics_of(part: list[str]) -> dict[str, Any]:
            """In a child: mutmut's statistics run over ``part``, with each test's scope recorded beside them."""
            child_runner = mutant_runner.test_runner_class(**mutant_runner.test_runner_args)
            recorder = _ScopeRecorder()
            stock_execute = child_runner.execute_pytest

            def execute_pytest(params: list[str], **kwargs: Any) -> int:
                kwargs["plugins"] = [*kwargs.get("plugins", []), recorder]
                return int(stock_execute(params, **kwargs))

            child_runner.execute_pytest = execute_pytest
            status = child_runner.run_stats(tests=part)
            found = state()
            measured = StatsResult(
                exit_code=status,
                tests_by_mangled_function_name=dict(found.tests_by_mangled_function_name),
                duration_by_test=dict(found.duration_by_test),
                stats_time=found.stats_time or 0.0,
                function_dependencies=dict(found.function_dependencies),
            )
            return {"statistics": measured.to_dict(), "scopes": recorder.scopes}

        def collect_stats(tests: Iterable[str] | None) -> int:
            """mutmut's statistics run, the whole selection in parts run side by side, merged as mutmut merges."""
            wanted = list(tests or [])
            selection = list(config().pytest_add_cli_args_test_selection)
            parts = [wanted] if wanted or not selection else split_selection(selection, 2 * workers)
            found = state()
            status = 0
            scopes: dict[str, list[str]] = {}
            for result in run_forked([functools.partial(statistics_of, part) for part in parts], workers):
                measured = StatsResult.from_dict(result["statistics"])
                for function, function_tests in measured.tests_by_mangled_function_name.items():
                    found.tests_by_mangled_function_name[function] |= function_tests
                found.duration_by_test.update(measured.duration_by_test)
                found.stats_time = (found.stats_time or 0.0) + measured.stats_time
                for function, dependencies in measured.function_dependencies.items():
                    found.function_dependencies[function] = dependencies
                scopes.update(result["scopes"])
                status = status or measured.exit_code
            unknown = unknown_scopes(found.tests_by_mangled_function_name, scopes)
            for test, missing in unknown.items():
                print(f"mutation_run: {test}: {SCOPE_MARKER} names no mutated code: {', '.join(missing)}")
            if unknown:
                return int(pytest.ExitCode.USAGE_ERROR)
            for function, function_tests in narrowed(found.tests_by_mangled_function_name, scopes).items():
                found.tests_by_mangled_function_name[function] = function_tests
            return status

        mutant_runner.collect_stats = collect_stats

        def run_clean_tests(tests: Iterable[str]) -> int:
            if whole_selection_passed == [True]:
                print("    (skipped: the statistics run of this invocation ran every test unmutated, and they passed)")
                return 0
            return int(stock_clean(tests))

        mutant_runner.run_clean_tests = run_clean_tests
        return mutant_runner

    PytestRunner.warm_up = warm_up  # type: ignore[method-assign]
    PytestRunner.run_tests = run_tests  # type: ignore[method-assign]
    mutmut_main.run_stats_collection = run_stats_collection
    mutmut_main.get_mutant_runner = get_mutant_runner
    return True


def main(arguments: list[str] | None = None) -> Any:
    install()
    from mutmut.__main__ import cli

    return cli.main(args=arguments if arguments is not None else sys.argv[1:], prog_name="mutmut")


if __name__ == "__main__":
    main()
