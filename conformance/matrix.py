"""The real-world conformance matrix: every installed implementation, judged strict and under its own profile.

Each implementation runs the whole suite twice with the same seed: under ``strict`` and under
the profile it declares. A cell is ``pass`` (passes both), ``dialect`` (fails strict, passes
its declared profile: a documented difference), ``fail`` (fails under its own profile: a bug
or an undeclared difference) or ``skip`` (capability not declared, or the clause does not
apply under its profile). :func:`render_matrix` writes ``docs/matrix.md``; every ``fail`` is
listed under the table with its counterexample and the command that reproduces it.

>>> cell(declared="pass", strict="fail"), cell(declared="fail", strict="fail"), cell(declared="skip", strict="pass")
('dialect', 'fail', 'skip')
>>> [row.label for row in ROWS][:2]
['reference', 'node-fixture']
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from conformance.adapters import load_implementation, resolve_factory
from conformance.adapters.python import InProcessSubject
from conformance.adapters.thirdparty import ADAPTERS, LIBRARIES
from conformance.checks.base import LEVELS, Check
from conformance.commands.identify import identify_spec
from conformance.errors import HarnessError
from conformance.outcomes import CheckResult, Outcome
from conformance.subject import CAPABILITIES, ImplementationInfo, Subject
from conformance.suite import RunConfig, catalogue, run_suite

__all__ = [
    "CELLS",
    "ROWS",
    "Failure",
    "MatrixRow",
    "RowResult",
    "cell",
    "failure_command",
    "level_tally",
    "parse_failures",
    "render_matrix",
    "run_matrix",
    "run_row",
]

CELLS = ("pass", "fail", "dialect", "skip")
NODE_FIXTURE = "cmd:node tests/fixtures/node/bpe.mjs"
FAILURES_HEADING = "## Failures under the declared profile"


@dataclass(frozen=True)
class MatrixRow:
    """One implementation of the matrix: its label, ``--impl`` spec and the module it needs (if any)."""

    label: str
    spec: str
    library: str | None = None
    isolation: str = "process"


ROWS: tuple[MatrixRow, ...] = (
    MatrixRow("reference", "reference:Tokenizer", isolation="inprocess"),
    MatrixRow("node-fixture", NODE_FIXTURE),
    *(MatrixRow(name, spec, LIBRARIES[name]) for name, spec in ADAPTERS.items()),
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
    counterexample: dict[str, Any] | None
    level: str = "algorithm"


@dataclass
class RowResult:
    """Both runs of one implementation, and its identified profile."""

    row: MatrixRow
    name: str
    version: str
    profile: str
    identified: str
    cells: dict[str, str] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)


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
    spec = f"'{failure.spec}'" if " " in failure.spec else failure.spec
    return f"bpe-conformance run --impl {spec} --profile {failure.profile} --check {failure.check} --seed {seed}"


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


def open_row(row: MatrixRow, timeout: float) -> Subject:
    """The subject of ``row``; an encode-only Python class falls back to an in-process subject."""
    try:
        return load_implementation(row.spec, isolation=row.isolation, timeout=timeout)
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


def run_row(row: MatrixRow, seed: int, effort: str = "dev", timeout: float = 10.0) -> RowResult:
    """Run the suite on ``row`` under strict and under its declared profile; identify its profile."""
    checks = catalogue()
    subject = open_row(row, timeout)
    try:
        declared = subject.info.profile
        runs = {}
        for profile in dict.fromkeys(("strict", declared)):
            config = RunConfig(impl=row.spec, isolation=row.isolation, seed=seed, effort=effort, profile=profile)
            subject.reset()
            runs[profile] = _outcomes(run_suite(config, subject, checks).results)
        info = subject.info
    finally:
        subject.close()
    report = identify_spec(row.spec)
    result = RowResult(row, info.name, info.version, declared, ", ".join(report.matches) or f"none ({report.closest})")
    for check in checks:
        own, strict = runs[declared][check.name], runs["strict"][check.name]
        result.cells[check.name] = cell(own.outcome.value, strict.outcome.value)
        if own.outcome not in (Outcome.PASS, Outcome.SKIP):
            result.failures.append(_failure(row, declared, own))
    return result


def installed(row: MatrixRow) -> bool:
    """Whether the library ``row`` needs can be imported here."""
    return row.library is None or importlib.util.find_spec(row.library) is not None


def run_matrix(
    seed: int, effort: str = "dev", rows: Iterable[MatrixRow] = ROWS, say: Callable[[str], None] = print
) -> tuple[list[RowResult], list[str]]:
    """Every installed row's result, and one line for each row skipped because its library is missing."""
    results, missing = [], []
    for row in rows:
        if not installed(row):
            line = f"{row.label}: skipped, {row.library} is not installed (pip install '.[impl-{row.label}]')"
            missing.append(line)
            say(line)
            continue
        say(f"{row.label}: running the suite under strict and its declared profile ...")
        result = run_row(row, seed, effort)
        failed = sum(1 for value in result.cells.values() if value == "fail")
        say(f"{row.label}: profile {result.profile}, identified {result.identified}, {failed} failing checks")
        results.append(result)
    return results, missing


def _one_line(message: str) -> str:
    """A message on one line; a crash's stderr tail (which varies run to run) is cut to its last line.

    >>> _one_line("train: died; stderr tail:\\n  File x\\n    call()\\nPanicException: boom")
    'train: died; stderr tail: ... PanicException: boom'
    """
    head, marker, tail = message.partition("stderr tail:")
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    if marker and lines:
        return f"{head}{marker} ... {lines[-1]}"
    return " ".join(message.split())


def _compact(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 400 else text[:400] + " ..."


def level_tally(cells: dict[str, str], checks: list[Check], level: str) -> str:
    """How many of one level's checks a row fails: ``"0 fail"``, ``"3 fail"``.

    >>> from conformance.checks.base import Check
    >>> two = [Check("a", "X", "", print, cases=list), Check("b", "X", "", print, cases=list, level="interface")]
    >>> level_tally({"a": "fail", "b": "fail"}, two, "algorithm")
    '1 fail'
    >>> level_tally({"a": "pass", "b": "skip"}, two, "interface")
    '0 fail'
    """
    failed = sum(1 for check in checks if check.level == level and cells[check.name] == "fail")
    return f"{failed} fail"


def _table(results: list[RowResult]) -> list[str]:
    """One table, the algorithm level first and the interface level after it, so neither hides the other."""
    checks = catalogue()
    header = ["check", "clause", *(result.row.label for result in results)]
    lines = [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join("---" for _ in header) + " |",
        "| *version* | | " + " | ".join(result.version for result in results) + " |",
        "| *declared profile* | | " + " | ".join(result.profile for result in results) + " |",
        "| *identified as* | | " + " | ".join(result.identified for result in results) + " |",
    ]
    for level in LEVELS:
        tallies = [level_tally(result.cells, checks, level) for result in results]
        lines.append(f"| **{level} level** | | " + " | ".join(f"**{tally}**" for tally in tallies) + " |")
        for check in checks:
            if check.level == level:
                cells = [result.cells[check.name] for result in results]
                lines.append(f"| {check.name} | {check.clause} | " + " | ".join(cells) + " |")
    return lines


def _failure_section(results: list[RowResult], seed: int) -> list[str]:
    failures = [failure for result in results for failure in result.failures]
    lines = [FAILURES_HEADING, ""]
    if not failures:
        return [*lines, "None: every implementation passes every applicable check under its own profile.", ""]
    lines += ["| implementation | check | clause | profile | seed |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {f.implementation} | {f.check} | {f.clause} | {f.profile} | {seed} |" for f in failures]
    lines.append("")
    for failure in failures:
        example = failure.counterexample or {}
        lines += [
            f"### {failure.implementation}: {failure.check} "
            f"({failure.clause}, {failure.outcome}, {failure.level} level)",
            "",
            _one_line(failure.message),
            "",
            f"* inputs: `{_compact(example.get('inputs'))}`",
            f"* expected: `{_compact(example.get('expected'))}`",
            f"* actual: `{_compact(example.get('actual'))}`",
            f"* reproduce: `{failure_command(failure, seed)}`",
            "",
        ]
    return lines


def render_matrix(results: list[RowResult], missing: list[str], seed: int, effort: str) -> str:
    """``docs/matrix.md``: the table, the skipped libraries and every failure with its reproduction."""
    lines = [
        "# Conformance matrix",
        "",
        f"Generated by `bpe-conformance matrix --seed {seed}` (effort `{effort}`). Each implementation runs "
        "every check twice with the same seed: under `strict` and under the profile it declares "
        "(`specs/profiles.md`).",
        "",
        "* `pass`: passes under its profile and under strict.",
        "* `dialect`: fails strict, passes its declared profile: a documented difference.",
        "* `fail`: fails under its own profile: a bug or an undeclared difference (see `docs/findings.md`).",
        "* `skip`: the capability is not declared, or the clause does not apply under its profile.",
        "",
        "The checks of the two conformance levels of `specs/bpe.md` are shown apart: the `algorithm` level "
        "(what the seed defines) first, then the `interface` level (argument validation, error families), "
        "each with its count of failing checks per implementation. Using the other of `ValueError`/`TypeError` "
        "is an advisory, never a `fail`.",
        "",
        *_table(results),
        "",
    ]
    if missing:
        lines += ["Not installed, so not in the table:", "", *(f"* {line}" for line in missing), ""]
    text = "\n".join([*lines, *_failure_section(results, seed)]).rstrip() + "\n"
    # Counterexamples may hold lone surrogates, which UTF-8 cannot store: written as \udc80.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


_FAILURE_ROW = re.compile(
    r"^\| (?P<impl>[\w-]+) \| (?P<check>[\w-]+) \| (?P<clause>BPE-[A-Z-]+) \| (?P<profile>[\w-]+) \| (?P<seed>\d+) \|$"
)


def parse_failures(markdown: str) -> set[tuple[str, str, str, str, int]]:
    """``(implementation, check, clause, profile, seed)`` for every row of the failure table of ``markdown``."""
    _, _, section = markdown.partition(FAILURES_HEADING)
    found = set()
    for line in section.splitlines():
        match = _FAILURE_ROW.match(line.strip())
        if match:
            found.add((match["impl"], match["check"], match["clause"], match["profile"], int(match["seed"])))
    return found
