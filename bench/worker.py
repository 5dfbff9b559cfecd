"""Run one benchmark job in this (fresh) process and print its measurements as JSON.

``python -m bench.worker JOB.json`` loads the corpus named in the job, then measures only the
job itself: wall time, CPU time of the whole process (all threads: user + system, from
``getrusage``) and peak memory. Peak memory is the rise of the resident set above its level
just before the job: on Linux the kernel's high-water mark (``VmHWM``) is reset first through
``/proc/self/clear_refs``, so the corpus loading does not hide the job's own peak; elsewhere it
falls back to the ``ru_maxrss`` delta. The method used is reported with the number. A job with
``runs`` > 1 is measured that many times in the process and the run with the least CPU time kept.
"""

from __future__ import annotations

import hashlib
import json
import resource
import sys
import time
from pathlib import Path

from bench.engines import preload, prepare_encoder, train_with

__all__ = ["best_of", "main", "measure"]

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kib(field: str) -> int | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return _status_kib("VmHWM") is not None


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(job):
    """Call ``job()`` and return ``(result, measurements)``."""
    resident_before = _status_kib("VmRSS")
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    reset = resident_before is not None and _reset_peak()
    wall, cpu = time.perf_counter(), _cpu_seconds()
    result = job()
    wall, cpu = time.perf_counter() - wall, _cpu_seconds() - cpu
    if reset:
        peak_kib, method = _status_kib("VmHWM") - resident_before, "VmHWM rise after clear_refs reset"
    else:
        peak_kib, method = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - maxrss_before, "ru_maxrss delta"
    return result, {"wall_s": wall, "cpu_s": cpu, "peak_bytes": max(peak_kib, 0) * 1024, "memory_method": method}


def _ids_digest(ids: list[int]) -> str:
    return hashlib.sha256(json.dumps(ids).encode()).hexdigest()[:16]


def best_of(runs: int, job):
    """``measure(job)`` ``runs`` times: the last result, the times of the run with the least CPU time,
    and the highest peak of all (later runs reuse memory the first one made the process hold).

    The first run also pays one-time costs (first use of numpy's routines, memory the process has not
    touched yet), which later runs do not.
    """
    timings = []
    for _ in range(max(1, runs)):
        result, measured = measure(job)
        timings.append(measured)
    best = min(timings, key=lambda measured: measured["cpu_s"])
    peak = max(timings, key=lambda measured: measured["peak_bytes"])
    return result, {**best, "peak_bytes": peak["peak_bytes"], "runs": max(1, runs)}


def _run_train(job: dict, documents: list[str]) -> dict:
    (pieces, rules), measured = best_of(
        job.get("runs", 1), lambda: train_with(job["engine"], documents, job["merges"], job.get("profile"))
    )
    if rules is not None and job.get("rules_out"):
        Path(job["rules_out"]).write_text(json.dumps(rules))
    return {**measured, "pieces": [piece.hex() for piece in pieces], "rules": rules}


def _run_encode(job: dict, documents: list[str]) -> dict:
    rules = [tuple(rule) for rule in json.loads(Path(job["rules_file"]).read_text())]
    encoder, prepared = measure(lambda: prepare_encoder(job["engine"], rules))
    ids, measured = measure(lambda: encoder(documents))
    return {
        **measured,
        "prepare_s": prepared["cpu_s"],
        "tokens": sum(len(sequence) for sequence in ids),
        "digests": [_ids_digest(sequence) for sequence in ids],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the job file named on the command line; print one JSON object."""
    job = json.loads(Path((argv or sys.argv[1:])[0]).read_text())
    documents = json.loads(Path(job["corpus_file"]).read_text())
    preload(job["engine"])
    run = _run_train if job["kind"] == "train" else _run_encode
    print(json.dumps(run(job, documents)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
