"""Fuzz campaign throughput (``--jobs 2`` against ``--jobs 1``, side by side) and where a worker's time goes.

``python -m bench.fuzz throughput`` runs ``bpe-conformance fuzz`` with ``--jobs 1`` and ``--jobs 2``
alternately (``--repeats`` pairs, same implementation, seed and duration) against an implementation that
passes every check, so every second is spent searching, and prints examples per second, CPU seconds and
examples per CPU second of each run, the machine's load average around it, and the ratios. On a shared
machine the CPU-time figures are the steadier: ``--jobs 2`` can only double the wall-clock rate when two
cores are free.

``python -m bench.fuzz profile`` runs one worker's loop in this process under cProfile and splits its
time: the implementation (the adapter, and for process isolation the wait for the other process's
answer), the reference (the spec's answer the checks compare with), hypothesis (drawing and shrinking),
the harness (checks, runner, diagnosis, fuzzing), and the rest (stdlib), each builtin counted for the
code that called it.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["categorize", "main", "measure_campaign", "profile_worker"]

REPO = Path(__file__).resolve().parent.parent
CATEGORIES = ("implementation", "reference", "hypothesis", "harness", "other")


def measure_campaign(
    impl: str, jobs: int, duration: str, seed: int, checks: list[str], isolation: str | None, directory: Path
) -> dict[str, Any]:
    """Run one campaign in a child process; its summary's numbers and the load average before and after."""
    summary_path = directory / f"fuzz-{jobs}-{time.monotonic_ns()}.json"
    command = [
        sys.executable,
        "-m",
        "conformance",
        "fuzz",
        "--impl",
        impl,
        "--jobs",
        str(jobs),
        "--duration",
        duration,
        "--seed",
        str(seed),
        "--database",
        str(directory / f"db-{jobs}"),
        "--json",
        str(summary_path),
        "--quiet",
        *[word for check in checks for word in ("--check", check)],
    ]
    if isolation:
        command += ["--isolation", isolation]
    load_before = os.getloadavg()[0]
    completed = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    load_after = os.getloadavg()[0]
    if completed.returncode not in (0, 1):
        raise SystemExit(f"fuzz --jobs {jobs} exited {completed.returncode}: {completed.stderr.strip()}")
    summary = json.loads(summary_path.read_text())["summary"]
    return {
        "jobs": jobs,
        "examples": summary["examples"],
        "seconds": summary["seconds"],
        "examples_per_second": summary["examples_per_second"],
        "cpu_seconds": summary["cpu_seconds"],
        "examples_per_cpu_second": summary["examples"] / summary["cpu_seconds"] if summary["cpu_seconds"] else 0.0,
        "failures": summary["failures"],
        "load_before": load_before,
        "load_after": load_after,
    }


def throughput(args: argparse.Namespace) -> dict[str, Any]:
    """Alternate ``--jobs 1`` and ``--jobs 2`` runs and print each, then the ratios of the sums."""
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as directory:
        for repeat in range(args.repeats):
            for jobs in (1, 2) if repeat % 2 == 0 else (2, 1):
                run = measure_campaign(
                    args.impl, jobs, args.duration, args.seed, args.check, args.isolation, Path(directory)
                )
                runs.append(run)
                print(
                    f"--jobs {jobs}: {run['examples']:>7} examples in {run['seconds']:6.1f} s = "
                    f"{run['examples_per_second']:7.1f}/s; {run['cpu_seconds']:6.1f} CPU s = "
                    f"{run['examples_per_cpu_second']:6.1f} examples/CPU s; load {run['load_before']:.2f} -> "
                    f"{run['load_after']:.2f}",
                    flush=True,
                )
    totals = {}
    for jobs in (1, 2):
        mine = [run for run in runs if run["jobs"] == jobs]
        examples = sum(run["examples"] for run in mine)
        totals[jobs] = {
            "examples_per_second": examples / sum(run["seconds"] for run in mine),
            "examples_per_cpu_second": examples / sum(run["cpu_seconds"] for run in mine),
        }
    wall = totals[2]["examples_per_second"] / totals[1]["examples_per_second"]
    cpu = totals[2]["examples_per_cpu_second"] / totals[1]["examples_per_cpu_second"]
    print(f"\nexamples per second, --jobs 2 / --jobs 1: {wall:.2f}x (wall clock)")
    print(f"examples per CPU second, --jobs 2 / --jobs 1: {cpu:.2f}x (1.00x: a second worker costs no overhead)")
    print(f"cores: {os.cpu_count()}, load average now: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    return {"runs": runs, "wall_ratio": wall, "cpu_ratio": cpu}


def _category(filename: str) -> str | None:
    path = filename.replace(os.sep, "/")
    if "/conformance/adapters/" in path or "/conformance/zoo/" in path:
        return "implementation"
    if "/reference/" in path:
        return "reference"
    if "/hypothesis/" in path:
        return "hypothesis"
    if "/conformance/" in path:
        return "harness"
    return None


def categorize(stats: pstats.Stats, depth: int = 6) -> dict[str, float]:
    """Own time per category; a function of no category (stdlib, builtins) counts for its callers' categories."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    totals = dict.fromkeys(CATEGORIES, 0.0)

    def attribute(function: Any, seconds: float, level: int) -> None:
        category = _category(function[0])
        if category is not None:
            totals[category] += seconds
            return
        callers = table.get(function, (0, 0, 0, 0, {}))[4]
        weights = {caller: entry[2] for caller, entry in callers.items() if entry[2] > 0}
        if level >= depth or not weights:
            totals["other"] += seconds
            return
        whole = sum(weights.values())
        for caller, weight in weights.items():
            attribute(caller, seconds * weight / whole, level + 1)

    for function, (_, _, own, _, _) in table.items():
        attribute(function, own, 0)
    return totals


def profile_worker(args: argparse.Namespace) -> dict[str, float]:
    """One worker's loop under cProfile for ``--seconds``; prints the split and the top functions."""
    sys.path.insert(0, str(REPO))
    from hypothesis.configuration import set_hypothesis_home_dir

    from bpe_conformance.fuzzing.campaign import hypothesis_storage, warm_hypothesis_storage
    from bpe_conformance.fuzzing.worker import WorkerConfig, fuzz
    from bpe_conformance.running import suite

    # As a worker does: hypothesis's files in the campaign's storage (--cold: a fresh one, as every worker had
    # before the storage was shared).
    storage = Path(tempfile.mkdtemp(prefix="bench-fuzz-cold-")) if args.cold else hypothesis_storage()
    if not args.cold:
        warm_hypothesis_storage(storage)
    set_hypothesis_home_dir(storage)

    # The fixed-case checks (known-answer vectors, argument tables) run once per campaign, not per round:
    # left out here, so the profile shows the steady state of a long campaign.
    checks = [check for check in suite.select(tuple(args.check)) if check.strategy is not None]
    isolation = args.isolation or suite.RunConfig(impl=args.impl).isolation_used
    config = WorkerConfig(
        worker=0,
        workers=1,
        generation=0,
        seconds=args.seconds,
        campaign_seed=args.seed,
        checks=tuple(check.name for check in checks),
        impl=args.impl,
        isolation=isolation,
    )
    subject = suite.judged_subject(suite.open_subject(args.impl, isolation, config.timeout), None)
    examples: list[int] = []

    def emit(kind: str, **fields: Any) -> None:
        if kind == "progress":
            examples[:] = [sum(fields["examples"].values())]

    profiler = cProfile.Profile()
    try:
        profiler.runcall(fuzz, config, subject, checks, emit, None)
    finally:
        subject.close()
    stats = pstats.Stats(profiler)
    totals = categorize(stats)
    whole = sum(totals.values())
    print(f"one worker, {args.impl} ({isolation}), {args.seconds:g} s: {examples[0] if examples else 0} examples")
    for category in CATEGORIES:
        print(f"  {category:<15} {totals[category]:7.2f} s  {100 * totals[category] / whole:5.1f}%")
    stats.sort_stats("tottime").print_stats(args.top)
    return totals


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.fuzz throughput|profile``."""
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("throughput", "profile"))
    parser.add_argument("--impl", default="reference", help="implementation (default: reference, in its own process)")
    parser.add_argument("--isolation", choices=("process", "inprocess"))
    parser.add_argument("--check", action="append", default=[], help="checks to fuzz (default: all)")
    parser.add_argument("--duration", default="20s", help="each campaign's --duration (throughput)")
    parser.add_argument("--repeats", type=int, default=2, help="pairs of --jobs 1/--jobs 2 runs (throughput)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the profiled worker runs (profile)")
    parser.add_argument("--cold", action="store_true", help="profile with an empty hypothesis storage (profile)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--json", type=Path, help="write the measurements here")
    args = parser.parse_args(argv)
    measured: Any = throughput(args) if args.what == "throughput" else profile_worker(args)
    if args.json:
        args.json.write_text(json.dumps(measured, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
