"""Gate a mutmut run: the share of mutants killed, and an explanation for every one that was not.

Reads the statistics ``mutmut export-cicd-stats`` writes (``mutants/mutmut-cicd-stats.json``) and
computes the score as killed / (total - skipped). A timeout or a "segfault" counts as killed: the
tests did not pass with that mutant in place (docs/mutation.md says why that is a detection). With
``--explained FILE`` it also asks ``mutmut results`` which mutants were not killed and requires each
of them to be listed in FILE with a reason, as a Markdown list item ``- `name`: reason``.

With ``--times DIR`` (mutmut's ``mutants/`` folder) it also prints, per mutated module, how many mutants were
run, the seconds their runs took (from the fork server's ``Completed`` lines in ``DIR/mutmut-debug.log*``, which
``log_to_file = true`` writes, else from the ``.meta`` files) and the seconds their tests are estimated to take
(from the ``.meta`` files), costliest first, so that the next slow module is visible.

Exit status: 0 when the gate passes, 1 when the score is below ``--min-score`` or a mutant is not
explained, 2 when the statistics, the results or the explanations cannot be read.

>>> stats = MutationStats(killed=90, survived=4, total=100, no_tests=0, skipped=2, suspicious=0, timeout=3, segfault=1)
>>> round(mutation_score(stats), 2)
95.92
>>> parse_results("    bpe_conformance.reference.counting.x_count_pairs__mutmut_3: survived\\n")
{'bpe_conformance.reference.counting.x_count_pairs__mutmut_3': 'survived'}
>>> logged_durations(["... DEBUG: Completed pkg.mod.x_f__mutmut_1: exit=1 (0.412s)", "... other line"])
{'pkg.mod.x_f__mutmut_1': 0.412}
>>> module_time_table([ModuleTime("bpe_conformance.reference.counting", 12, 30.0, 24.0)])[-1]
'| `bpe_conformance.reference.counting` | 12 | 30 | 24 | 2.00 |'
>>> explained_mutants("- `a.x_f__mutmut_1`: `<` and `<=` agree because the index never equals the length")
{'a.x_f__mutmut_1': '`<` and `<=` agree because the index never equals the length'}
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = [
    "COUNTED_AS_KILLED",
    "NOT_KILLED",
    "GateError",
    "ModuleTime",
    "MutationStats",
    "explained_mutants",
    "logged_durations",
    "main",
    "module_time_table",
    "module_times",
    "mutation_score",
    "not_killed",
    "parse_results",
    "read_explanations",
    "read_stats",
    "run_results",
    "summary",
    "unexplained",
]

# Statuses of `mutmut results` that a test run did not detect, so each needs an explanation.
NOT_KILLED = ("survived", "no tests", "suspicious")
# Statistics counted as detections besides "killed": the tests did not pass with the mutant in place.
COUNTED_AS_KILLED = ("timeout", "segfault")

_RESULT_LINE = re.compile(r"^\s*(?P<name>\S+): (?P<status>[a-z][a-z ]*[a-z])\s*$")
_EXPLANATION_LINE = re.compile(r"^\s*[-*]\s+`(?P<name>[^`\s]+__mutmut_\d+)`\s*:\s*(?P<reason>.*?)\s*$")


class GateError(Exception):
    """The statistics, the results or the explanations cannot be read; the message says which and why."""


@dataclass(frozen=True)
class MutationStats:
    """The counts of ``mutmut export-cicd-stats`` that the score is made of."""

    killed: int
    survived: int
    total: int
    no_tests: int
    skipped: int
    suspicious: int
    timeout: int
    segfault: int

    @property
    def tested(self) -> int:
        """Mutants that count: all but the skipped ones."""
        return self.total - self.skipped

    @property
    def detected(self) -> int:
        """Killed, plus the timeouts and segfaults that count as killed."""
        return self.killed + self.timeout + self.segfault

    @property
    def unaccounted(self) -> int:
        """Mutants in the total with none of the statuses above (not checked, interrupted)."""
        return self.total - sum(int(getattr(self, field.name)) for field in fields(self) if field.name != "total")


def read_stats(path: str | Path) -> MutationStats:
    """Parse the statistics file; a missing, non-JSON or incomplete file is a :class:`GateError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GateError(
            f"{path}: no such statistics file (run `mutmut export-cicd-stats` after `mutmut run`)"
        ) from None
    except OSError as error:
        raise GateError(f"{path}: cannot read the statistics file: {error.strerror}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise GateError(f"{path}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    if not isinstance(document, dict):
        raise GateError(f"{path}: must hold a JSON object of counts, not {type(document).__name__}")
    counts = {}
    for field in fields(MutationStats):
        value = document.get(field.name)
        if field.name not in document:
            raise GateError(f"{path}: the count {field.name!r} is missing")
        if type(value) is not int or value < 0:
            raise GateError(f"{path}: the count {field.name!r} must be a non-negative integer, got {value!r}")
        counts[field.name] = value
    stats = MutationStats(**counts)
    if stats.unaccounted < 0:
        raise GateError(f"{path}: the counts add up to more than the total {stats.total}")
    if stats.tested <= 0:
        raise GateError(f"{path}: no mutant was tested (total {stats.total}, skipped {stats.skipped})")
    return stats


def mutation_score(stats: MutationStats) -> float:
    """Percentage of the tested mutants (total - skipped) that were detected."""
    return 100.0 * stats.detected / stats.tested


def summary(stats: MutationStats) -> str:
    """A few lines that say what the score is made of."""
    lines = [
        f"mutation score: {mutation_score(stats):.2f}% "
        f"({stats.detected} of {stats.tested} tested mutants detected; {stats.total} mutants, {stats.skipped} skipped)",
        f"  killed {stats.killed}, timeout {stats.timeout} and segfault {stats.segfault} (counted as killed)",
        f"  survived {stats.survived}, no tests {stats.no_tests}, suspicious {stats.suspicious}",
    ]
    if stats.unaccounted:
        lines.append(f"  {stats.unaccounted} mutants were not checked (an interrupted run?)")
    return "\n".join(lines)


def parse_results(text: str) -> dict[str, str]:
    """Mutant name -> status from the ``name: status`` lines of ``mutmut results``; other lines are ignored."""
    results = {}
    for line in text.splitlines():
        match = _RESULT_LINE.match(line)
        if match:
            results[match["name"]] = match["status"]
    return results


def run_results(command: Sequence[str]) -> dict[str, str]:
    """Run ``mutmut results`` (or ``command``) and parse what it prints."""
    try:
        completed = subprocess.run(list(command), capture_output=True, text=True, check=False)
    except OSError as error:
        raise GateError(f"cannot run {shlex.join(command)!r}: {error.strerror}") from None
    if completed.returncode != 0:
        raise GateError(
            f"{shlex.join(command)!r} exited with {completed.returncode}: {completed.stderr.strip()[-500:]}"
        )
    return parse_results(completed.stdout)


def not_killed(results: dict[str, str]) -> dict[str, str]:
    """The mutants whose status is one of :data:`NOT_KILLED`."""
    return {name: status for name, status in results.items() if status in NOT_KILLED}


def explained_mutants(markdown: str) -> dict[str, str]:
    """Mutant name -> reason from the list items ``- `name`: reason`` of a Markdown text.

    Only names of mutants (``module.x_function__mutmut_N``) count, so other list items of the same
    page, such as ``- `tests/adapters/thirdparty/`: ...``, are not taken for explanations.
    """
    return {match["name"]: match["reason"] for match in map(_EXPLANATION_LINE.match, markdown.splitlines()) if match}


def read_explanations(path: str | Path) -> dict[str, str]:
    """:func:`explained_mutants` of a file; a missing file is a :class:`GateError`."""
    try:
        return explained_mutants(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise GateError(f"{path}: cannot read the explanations: {error.strerror}") from None


def unexplained(survivors: dict[str, str], explanations: dict[str, str]) -> list[str]:
    """Survivors without an entry, or with an entry that gives no reason, sorted."""
    return sorted(name for name in survivors if not explanations.get(name, "").strip())


@dataclass(frozen=True)
class ModuleTime:
    """What one mutated module cost: its mutants that ran, the seconds their runs took, the seconds estimated.

    ``seconds`` is what mutmut measured per mutant. Its fork server (``process_isolation = "forkserver"``)
    records 0 for every one in the ``.meta`` files but logs the real duration when ``log_to_file`` is on
    (:func:`logged_durations`). ``estimated`` is the sum over the module's mutants of the durations of the
    tests each would run, measured in the statistics run (what a surviving mutant costs; a killed one stops at
    its first failing test).
    """

    module: str
    mutants: int
    seconds: float
    estimated: float = 0.0


_COMPLETED = re.compile(r"Completed (\S+): exit=-?\d+ \((\d+(?:\.\d+)?)s\)")


def logged_durations(lines: Iterable[str]) -> dict[str, float]:
    """Each mutant's seconds from the fork server's ``Completed NAME: exit=N (Ts)`` log lines; a mutant run
    again (a resumed run appends to the log) counts with its last run."""
    durations = {}
    for line in lines:
        found = _COMPLETED.search(line)
        if found:
            durations[found.group(1)] = float(found.group(2))
    return durations


def _read_logged_durations(root: Path) -> dict[str, float]:
    # The rotating handler's backups (.3 oldest) before the current file, so that the last run wins.
    logs = sorted(root.glob("mutmut-debug.log.*"), key=lambda path: path.suffix, reverse=True)
    durations: dict[str, float] = {}
    for log in [*logs, root / "mutmut-debug.log"]:
        try:
            durations.update(logged_durations(log.read_text(encoding="utf-8", errors="replace").splitlines()))
        except FileNotFoundError:
            continue
        except OSError as error:
            raise GateError(f"{log}: cannot read it: {error.strerror or error}") from None
    return durations


def module_times(mutants_dir: str | Path) -> list[ModuleTime]:
    """Per module, from the ``durations_by_key`` and ``estimated_durations_by_key`` of mutmut's ``.meta`` files
    under ``mutants_dir``, costliest first. A mutant that was not run (no tests, not reached) is not counted.
    """
    root = Path(mutants_dir)
    metas = sorted(root.rglob("*.py.meta"))
    if not metas:
        raise GateError(f"{root}: no mutmut .meta files (run `mutmut run` first)")
    logged = _read_logged_durations(root)
    times = []
    for meta in metas:
        try:
            document = json.loads(meta.read_text(encoding="utf-8"))
            durations = document.get("durations_by_key") or {}
            estimates = document.get("estimated_durations_by_key") or {}
        except (OSError, json.JSONDecodeError, AttributeError) as error:
            raise GateError(f"{meta}: not a mutmut .meta file: {error}") from None
        module = ".".join(meta.relative_to(root).with_suffix("").with_suffix("").parts)
        estimated = sum(float(estimates.get(name, 0.0)) for name in durations)
        seconds = sum(logged.get(name, float(recorded)) for name, recorded in durations.items())
        times.append(ModuleTime(module, len(durations), seconds, estimated))
    ran = (time for time in times if time.mutants)
    return sorted(ran, key=lambda time: (-max(time.seconds, time.estimated), time.module))


def module_time_table(times: Sequence[ModuleTime]) -> list[str]:
    """A Markdown table of :func:`module_times`: module, mutants run, seconds measured and estimated."""
    lines = [
        "| module | mutants run | seconds measured | seconds estimated | estimated per mutant |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| `{time.module}` | {time.mutants} | {time.seconds:.0f} | {time.estimated:.0f} | "
        f"{time.estimated / time.mutants:.2f} |"
        for time in times
    ]
    return lines


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mutation_gate",
        description="Fail when too few mutants are killed, or when a surviving mutant is not explained.",
    )
    parser.add_argument("stats", help="the JSON written by `mutmut export-cicd-stats`")
    parser.add_argument("--min-score", type=float, default=None, help="lowest acceptable score, in percent")
    parser.add_argument(
        "--explained", metavar="FILE", help="Markdown file that must list every surviving mutant with a reason"
    )
    parser.add_argument(
        "--results-command",
        default="mutmut results",
        help="command printing `name: status` lines (default: %(default)s)",
    )
    parser.add_argument(
        "--times",
        metavar="DIR",
        help="print the seconds of test runs per mutated module, from mutmut's DIR/**/*.meta and DIR/mutmut-debug.log*",
    )
    return parser


def _check_explanations(path: str, command: str) -> bool:
    survivors = not_killed(run_results(shlex.split(command)))
    explanations = read_explanations(path)
    missing = unexplained(survivors, explanations)
    stale = sorted(set(explanations) - set(survivors))
    print(f"explained: {len(survivors) - len(missing)} of {len(survivors)} mutants not killed are listed in {path}")
    for name in stale:
        print(f"  note: {name} is listed in {path} but was not among the mutants left alive")
    for name in missing:
        print(f"  UNEXPLAINED {name} ({survivors[name]}): kill it with a test or list it with its reason")
    return not missing


def main(argv: Sequence[str] | None = None) -> int:
    """Print the summary and return the exit status (see the module docstring)."""
    args = _parser().parse_args(argv)
    if args.min_score is not None and not 0 <= args.min_score <= 100:
        print(f"mutation_gate: error: --min-score must be between 0 and 100, got {args.min_score}", file=sys.stderr)
        return 2
    try:
        stats = read_stats(args.stats)
        print(summary(stats))
        passed = True
        if args.min_score is not None:
            score = mutation_score(stats)
            passed = score >= args.min_score
            print(f"gate: {score:.2f}% {'>=' if passed else '<'} {args.min_score:g}%: {'pass' if passed else 'FAIL'}")
        if args.times is not None:
            print("\n".join(module_time_table(module_times(args.times))))
        if args.explained is not None:
            passed = _check_explanations(args.explained, args.results_command) and passed
    except GateError as error:
        print(f"mutation_gate: error: {error}", file=sys.stderr)
        return 2
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
