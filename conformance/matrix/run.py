"""The real-world conformance matrix: every installed implementation, judged strict and under its own profile.

Each implementation runs the whole suite twice with the same seed: under ``strict`` and under
the profile it declares. A cell is ``pass`` (passes both), ``dialect`` (fails strict, passes
its declared profile: a documented difference), ``fail`` (fails under its own profile: a bug
or an undeclared difference) or ``skip`` (capability not declared, or the clause does not
apply under its profile). :func:`bpe_conformance.matrix.render.render_matrix` writes ``docs/matrix.md``
from the results.

>>> cell(declared="pass", strict="fail"), cell(declared="fail", strict="fail"), cell(declared="skip", strict="pass")
('dialect', 'fail', 'skip')
>>> [row.label for row in ROWS][:2]
['reference', 'node-fixture']
"""

from __future__ import annotations

import importlib.util
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters import load_implementation, resolve_factory
from bpe_conformance.adapters.limits import DEFAULT_LIMITS, ProcessLimits
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.adapters.subject import CAPABILITIES, ImplementationInfo, Subject
from bpe_conformance.adapters.thirdparty import ADAPTERS, LIBRARIES, NPM_ADAPTERS, npm_installed
from bpe_conformance.dialects.identify import IdentifyReport, identify_spec
from bpe_conformance.dialects.parameters import Status
from bpe_conformance.errors import HarnessError
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running import RunConfig, RunPlan

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "CELLS",
    "ROWS",
    "Failure",
    "MatrixRow",
    "RowResult",
    "cell",
    "failure_command",
    "reproduce_command",
    "run_matrix",
    "run_row",
]

CELLS = ("pass", "fail", "dialect", "skip")
NODE_FIXTURE = "cmd:node tests/fixtures/node/bpe.mjs"


@dataclass(frozen=True)
class MatrixRow:
    """One implementation of the matrix: its label, ``--impl`` spec and the module (or npm package) it needs."""

    label: str
    spec: str
    library: str | None = None
    isolation: str = "process"
    npm_package: str | None = None


ROWS: tuple[MatrixRow, ...] = (
    MatrixRow("reference", "bpe_conformance.reference:Tokenizer", isolation="inprocess"),
    MatrixRow("node-fixture", NODE_FIXTURE),
    *(MatrixRow(name, spec, LIBRARIES[name]) for name, spec in ADAPTERS.items()),
    *(MatrixRow(name, spec, npm_package=package) for name, (spec, package) in NPM_ADAPTERS.items()),
)


@dataclass(frozen=True)
class Failure:
    """A check an implementation fails under its own declared profile."""

    implementation: str
    spec: str
    profile: str
    check: str
    clause: str
    outcome: str
    message: str
    counterexample: JSONObject | None
    level: str = "algorithm"


@dataclass
class RowResult:
    """Both runs of one implementation, and its identified profile.

    ``results`` holds every check's result of the two runs, under ``"declared"`` and ``"strict"``
    (the pages show what each said); ``language`` is what the implementation declares.
    """

    row: MatrixRow
    name: str
    version: str
    profile: str
    identified: str
    cells: dict[str, str] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    language: str = "python"
    results: dict[str, dict[str, CheckResult]] = field(default_factory=dict)


def cell(declared: str, strict: str) -> str:
    """The matrix cell for a check's outcome under the declared profile and under strict."""
    if declared == "skip":
        return "skip"
    if declared != "pass":
        return "fail"
    return "pass" if strict in ("pass", "skip") else "dialect"


def failure_command(failure: Failure, seed: int) -> str:
    """The one command line that reproduces ``failure``.

    >>> print(failure_command(Failure("x", "cmd:node a.mjs", "strict", "tie-break", "", "", "", None), 3))
    bpe-conformance run --impl 'cmd:node a.mjs' --profile strict --check tie-break --seed 3
    """
    return reproduce_command(failure.spec, failure.profile, failure.check, seed)


def reproduce_command(spec: str, profile: str, check: str, seed: int) -> str:
    """``bpe-conformance run`` for one cell, every field shell-quoted (a matrix document may be crafted).

    >>> print(reproduce_command("x; rm -rf ~", "strict", "tie-break", 0))
    bpe-conformance run --impl 'x; rm -rf ~' --profile strict --check tie-break --seed 0
    """
    words = ["--impl", spec, "--profile", profile, "--check", check, "--seed", str(int(seed))]
    return "bpe-conformance run " + " ".join(shlex.quote(word) for word in words)


def _describe_capabilities(instance: Any) -> frozenset[str]:
    declared = getattr(instance, "capabilities", None)
    if declared is not None:
        return frozenset(declared) & CAPABILITIES
    return frozenset(name for name in CAPABILITIES if callable(getattr(instance, name, None)))


class _DeclaredCapabilitiesSubject(InProcessSubject):
    """In-process subject for an encode-only class (no ``train``), which the loader does not accept yet."""

    def __init__(self, factory: Callable[[], Any], label: str) -> None:
        self._factory = factory
        self._label = label
        self._instance = self._new_instance()
        self.info = ImplementationInfo(
            name=str(getattr(self._instance, "name", label)),
            version=str(getattr(self._instance, "version", "unknown")),
            capabilities=_describe_capabilities(self._instance),
            profile=str(getattr(self._instance, "profile", "strict")),
        )


def open_row(row: MatrixRow, timeout: float, limits: ProcessLimits = DEFAULT_LIMITS) -> Subject:
    """The subject of ``row``; an encode-only Python class falls back to an in-process subject."""
    try:
        return load_implementation(row.spec, isolation=row.isolation, timeout=timeout, limits=limits)
    except HarnessError as error:
        if "missing train" not in str(error):
            raise
        return _DeclaredCapabilitiesSubject(resolve_factory(row.spec), row.spec)


def _outcomes(results: Iterable[CheckResult]) -> dict[str, CheckResult]:
    return {result.check: result for result in results}


def _failure(row: MatrixRow, profile: str, result: CheckResult) -> Failure:
    return Failure(
        implementation=row.label,
        spec=row.spec,
        profile=profile,
        check=result.check,
        clause=result.clause,
        outcome=result.outcome.value,
        message=result.message,
        counterexample=result.counterexample,
        level=result.level,
    )


def run_row(
    row: MatrixRow, seed: int, effort: str = "dev", timeout: float = 10.0, limits: ProcessLimits = DEFAULT_LIMITS
) -> RowResult:
    """Run the suite on ``row`` under strict and under its declared profile; identify its profile."""
    subject = open_row(row, timeout, limits)
    try:
        declared = subject.info.profile
        runs = {}
        for profile in dict.fromkeys(("strict", declared)):
            config = RunConfig(impl=row.spec, isolation=row.isolation, seed=seed, effort=effort, profile=profile)
            plan = RunPlan.build(config)
            subject.reset()
            runs[profile] = _outcomes(plan.judge(subject).run().results)
        info = subject.info
    finally:
        subject.close()
    report = identify_spec(row.spec, limits=limits)
    result = RowResult(row, info.name, info.version, declared, identified_text(report))
    result.language, result.results = info.language, {"declared": runs[declared], "strict": runs["strict"]}
    for check in plan.checks:
        own, strict = runs[declared][check.name], runs["strict"][check.name]
        result.cells[check.name] = cell(own.outcome.value, strict.outcome.value)
        if own.outcome not in (Outcome.PASS, Outcome.SKIP):
            result.failures.append(_failure(row, declared, own))
    return result


def identified_text(report: IdentifyReport) -> str:
    """The *identified as* cell: the named profiles that explain every answer, else the custom profile the
    parameters make (``tinybpe+min_count=1``), else ``none`` with the closest profile and the parameters whose
    answers fit no documented value (issue 25: "none" only with the parameter that fits no value)."""
    if report.matches:
        return ", ".join(report.matches)
    parameters = report.parameters
    if parameters is None:
        return f"none ({report.closest})"
    if parameters.profile is not None:
        return parameters.profile
    why = [f"{finding.parameter} fits no value" for finding in parameters.findings if finding.status is Status.NO_VALUE]
    if parameters.unexplained:
        why.append("answers no parameter explains")
    return f"none ({report.closest}: {'; '.join(why)})" if why else f"none ({report.closest})"


def repository_script(row: MatrixRow) -> str | None:
    """The script a ``cmd:node SCRIPT`` row runs, a path relative to the repository checkout; None for others.

    >>> repository_script(ROWS[1]), repository_script(ROWS[0])
    ('tests/fixtures/node/bpe.mjs', None)
    """
    words = row.spec.removeprefix("cmd:").split()
    return words[1] if row.spec.startswith("cmd:") and len(words) == 2 and words[0] == "node" else None


def missing_script(row: MatrixRow) -> str | None:
    """Why ``row`` cannot run from here when its script is not where its spec says (None when it is)."""
    script = repository_script(row)
    if script is None or Path(script).is_file():
        return None
    # The wheel ships neither the Node fixture nor the npm adapters: both run from the checkout's root only.
    return f"{script} is not in the working directory (the wheel lacks it: run matrix from the checkout's root)"


def installed(row: MatrixRow) -> bool:
    """Whether the library ``row`` needs can be imported here (an npm package: installed beside its adapter)."""
    if row.npm_package is not None:
        return npm_installed(row.npm_package)
    return row.library is None or importlib.util.find_spec(row.library) is not None


def install_hint(row: MatrixRow) -> str:
    """How to install what ``row`` needs."""
    if row.npm_package is not None:
        return f"{row.npm_package} is not installed (tox -e impl-npm, or npm ci in conformance/adapters/thirdparty/npm)"
    return f"{row.library} is not installed (pip install '.[impl-{row.label}]')"


def run_matrix(
    seed: int,
    effort: str = "dev",
    rows: Iterable[MatrixRow] = ROWS,
    say: Callable[[str], None] = print,
    limits: ProcessLimits = DEFAULT_LIMITS,
) -> tuple[list[RowResult], list[str]]:
    """Every installed row's result, and one line for each row skipped because its library is missing."""
    results, missing = [], []
    for row in rows:
        absent = missing_script(row)
        if absent is not None or not installed(row):
            line = f"{row.label}: skipped, {absent or install_hint(row)}"
            missing.append(line)
            say(line)
            continue
        say(f"{row.label}: running the suite under strict and its declared profile ...")
        result = run_row(row, seed, effort, limits=limits)
        failed = sum(1 for value in result.cells.values() if value == "fail")
        say(f"{row.label}: profile {result.profile}, identified {result.identified}, {failed} failing checks")
        results.append(result)
    return results, missing
