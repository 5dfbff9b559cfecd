"""Side-by-side benchmark of the literal and fast engines against HF tokenizers, rustbpe and tiktoken.

``python -m bench.run`` (or ``bpe-conformance bench``) builds the corpora, runs every engine in a
fresh subprocess, one at a time, and prints rich tables: training time, CPU time and peak memory,
whether the learned merges agree, encoder throughput and agreement, and the performance targets
of ``docs/performance.md`` with met / not met. Optional engines that are not installed are skipped
with a line saying so. ``--quick`` shrinks everything for a smoke run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.corpora import CORPORA, build, digest, truncate
from bench.engines import ENCODERS, TRAINERS, missing

__all__ = ["Scale", "add_arguments", "main", "run"]

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Scale:
    """A corpus size and a merge budget."""

    name: str
    corpus_bytes: int
    merges: int
    # Jobs of a few hundredths of a CPU second are timed several times in their process, best kept
    # (the same for every engine): one run of that size is mostly scheduler noise on a busy machine.
    runs: int = 1


SCALES = {
    # The small scales are what compare --shrink, the checks and a first corpus train on.
    "100KB": Scale("100KB", 100_000, 100, runs=15),
    "300KB": Scale("300KB", 300_000, 300, runs=7),
    "1MB": Scale("1MB", 1_000_000, 1_000, runs=3),
    "10MB": Scale("10MB", 10_000_000, 10_000),
    "100MB": Scale("100MB", 100_000_000, 32_000),
}
QUICK_SCALES = {
    "1MB": Scale("100KB", 100_000, 100, runs=15),
    "10MB": Scale("300KB", 300_000, 300, runs=7),
    "100MB": Scale("1MB", 1_000_000, 1_000, runs=3),
}
# The literal trainer needs minutes even at the small scale; it runs only there.
LITERAL_SCALES = ("1MB",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's options, shared by ``python -m bench.run`` and ``bpe-conformance bench``."""
    parser.add_argument(
        "--sizes",
        help="comma-separated scales: 100KB (100 merges), 300KB (300), 1MB (1 000), 10MB (10 000), 100MB "
        "(32 000); default all of them (with --quick: 1MB,10MB,100MB, which it shrinks)",
    )
    parser.add_argument(
        "--corpora", default="code,prose-en,prose-zh,mixed", help=f"comma-separated, from {','.join(CORPORA)}"
    )
    parser.add_argument("--trainers", default="literal,fast,fast-python,hf,rustbpe", help=f"from {','.join(TRAINERS)}")
    parser.add_argument("--encoders", default="literal,fast,fast-heap,tiktoken", help=f"from {','.join(ENCODERS)}")
    parser.add_argument(
        "--code-sizes", default="100KB,300KB,1MB,10MB", help="scales at which the code corpus is trained"
    )
    parser.add_argument("--prose-sizes", default="1MB", help="scales at which the prose corpora are trained")
    parser.add_argument("--mixed-sizes", default="100MB", help="scales at which the mixed corpus is trained")
    parser.add_argument(
        "--big-trainers",
        default="fast,rustbpe",
        help="trainers that run at 100MB (the others would take hours or more memory than the machine has)",
    )
    parser.add_argument("--encode-bytes", type=int, default=1_000_000, help="text encoded by fast and tiktoken")
    parser.add_argument("--literal-encode-bytes", type=int, default=32_768, help="text encoded by the literal encoder")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds before one engine's job is abandoned")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 100 KB/100, 300 KB/300 and (mixed) 1 MB/1 000 merges"
    )
    parser.add_argument("--json", type=Path, help="also write every measurement to this file")


def _split(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _run_job(job: dict, workdir: Path, timeout: float) -> dict:
    job_file = workdir / f"job-{len(list(workdir.glob('job-*')))}.json"
    job_file.write_text(json.dumps(job))
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    load_before = os.getloadavg()[0]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bench.worker", str(job_file)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=environment,
            cwd=REPO,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s", "timeout_s": timeout, "load": load_before}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1], "load": load_before}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "load": load_before}


def _corpus_file(workdir: Path, corpus: str, limit: int, cache: dict, digests: dict | None = None) -> Path:
    key = (corpus, limit)
    if key not in cache:
        path = workdir / f"corpus-{corpus}-{limit}.json"
        documents = build(corpus, limit)
        path.write_text(json.dumps(documents))
        cache[key] = path
        if digests is not None:
            digests[f"{corpus} {limit}"] = {"documents": len(documents), "sha256": digest(documents)}
    return cache[key]


def _corpus_sizes(args, corpus: str) -> list[str]:
    own = {"code": args.code_sizes, "mixed": args.mixed_sizes}.get(corpus, args.prose_sizes)
    return [size for size in _split(own) if size in _split(args.sizes)]


def _training_jobs(args, scales: dict[str, Scale]) -> list[tuple[str, Scale, str]]:
    jobs = []
    for corpus in _split(args.corpora):
        for size in _corpus_sizes(args, corpus):
            for trainer in _split(args.trainers):
                if trainer == "literal" and size not in LITERAL_SCALES:
                    continue
                if size == "100MB" and trainer not in _split(args.big_trainers):
                    continue
                jobs.append((corpus, scales[size], trainer))
    return jobs


def run(args: argparse.Namespace, say=print) -> dict:
    """Run every requested job; return all measurements (``say`` reports progress)."""
    scales = QUICK_SCALES if args.quick else SCALES
    if args.sizes is None:
        args.sizes = ",".join(scales)
    unknown = [name for name in _split(args.sizes) if name not in scales]
    if unknown:
        raise ValueError(f"unknown size {unknown[0]!r}; choose from {', '.join(scales)}")
    results: dict = {"machine": machine_facts(), "training": [], "encoding": [], "skipped": [], "corpora": {}}
    cache: dict = {}
    with tempfile.TemporaryDirectory(prefix="bpe-bench-") as directory:
        workdir = Path(directory)
        for engine in {*_split(args.trainers), *_split(args.encoders)}:
            if missing(engine):
                results["skipped"].append(missing(engine))
        rules_file = None
        for corpus, scale, trainer in _training_jobs(args, scales):
            if missing(trainer):
                continue
            try:
                corpus_file = _corpus_file(workdir, corpus, scale.corpus_bytes, cache, results["corpora"])
            except ValueError as error:
                results["skipped"].append(f"{corpus}: {error}")
                continue
            out = workdir / f"rules-{corpus}-{scale.name}-{trainer}.json"
            say(f"training {trainer:<12} on {corpus} {scale.name} / {scale.merges} merges ...")
            job = {
                "kind": "train",
                "engine": trainer,
                "corpus_file": str(corpus_file),
                "merges": scale.merges,
                "runs": scale.runs,
            }
            measured = _run_job({**job, "rules_out": str(out)}, workdir, args.timeout)
            measured.update(corpus=corpus, scale=scale.name, corpus_bytes=scale.corpus_bytes, merges=scale.merges)
            results["training"].append({"engine": trainer, **measured})
            if trainer == "fast" and corpus == "code" and "error" not in measured:
                rules_file = out  # the largest code scale trained last wins
        if rules_file is not None and _split(args.encoders):
            results["encoding"] = _encoding_jobs(args, workdir, rules_file, cache, say, results["corpora"])
    return results


def _encoding_jobs(args, workdir: Path, rules_file: Path, cache: dict, say, digests: dict) -> list[dict]:
    rules_count = len(json.loads(rules_file.read_text()))
    full = _corpus_file(workdir, "code", args.encode_bytes, cache, digests)
    sample = workdir / "encode-sample.json"
    sample.write_text(json.dumps(truncate(json.loads(full.read_text()), args.literal_encode_bytes)))
    rows = []
    for encoder in _split(args.encoders):
        if missing(encoder):
            continue
        texts = [("sample", sample, args.literal_encode_bytes)]
        if encoder == "fast-heap":
            texts = []
        if encoder != "literal":
            texts.append(("full", full, args.encode_bytes))
        for label, path, size in texts:
            say(f"encoding {encoder:<10} {size} bytes with {rules_count} rules ...")
            job = {"kind": "encode", "engine": encoder, "corpus_file": str(path), "rules_file": str(rules_file)}
            measured = _run_job(job, workdir, args.timeout)
            rows.append({"engine": encoder, "text": label, "text_bytes": size, "rules": rules_count, **measured})
    return rows


def machine_facts() -> dict:
    """What the numbers depend on: cores, Python, library versions, load when the run started."""
    facts = {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average": os.getloadavg(),
    }
    for module in ("numpy", "tokenizers", "rustbpe", "tiktoken"):
        try:
            from importlib.metadata import version

            facts[module] = version(module)
        except Exception:  # noqa: BLE001 - a library whose version cannot be read is not usable here
            facts[module] = "not installed"
    return facts


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: run the benchmark and print the report."""
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return execute(parser.parse_args(argv))


def execute(args: argparse.Namespace) -> int:
    """Run with parsed arguments, print the tables, optionally save JSON; 0 unless nothing could run."""
    from rich.console import Console

    from bench.report import print_report

    console = Console()
    if not console.is_terminal:
        console = Console(width=160)  # a file or pipe would otherwise wrap the tables at 80 columns
    results = run(args, say=lambda line: console.print(f"[dim]{line}[/dim]"))
    print_report(results, console)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
        console.print(f"measurements written to {args.json}")
    return 0 if results["training"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
