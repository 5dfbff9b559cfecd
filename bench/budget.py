"""What ``compare --impl reference`` spends at scale: the reference's share of one comparison, measured.

``python -m bench.budget`` builds the mixed corpus (100 MB by default), holds back every tenth
document as ``compare`` does when no ``--encode`` texts are given, and runs, each in a fresh
process like ``bench.run``: :func:`bpe_conformance.reference.fast_profiles.fast_train_profile` on the other nine
tenths under each named profile (32 000 merges, a progress callback counting rounds), then the
fast encoder on the held-back tenth with the strict profile's rules. It prints CPU and wall
seconds, peak memory and the load average, and the total against the ten-minute budget. The
implementation's own training and encoding, and the command's reading and reporting, come on top.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from bench.corpora import build, digest
from bench.run import _run_job

__all__ = ["main"]

BUDGET_S = 600.0


def main(argv: list[str] | None = None) -> int:
    """Measure the reference's training and encoding at the ``compare`` scale; print one table."""
    parser = argparse.ArgumentParser(prog="python -m bench.budget", description=__doc__.splitlines()[0])
    parser.add_argument("--corpus-bytes", type=int, default=100_000_000)
    parser.add_argument("--merges", type=int, default=32_000)
    parser.add_argument("--profiles", default="strict,rustbpe", help="comma-separated profile names")
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--json", type=Path, help="also write the measurements to this file")
    args = parser.parse_args(argv)

    from rich.console import Console
    from rich.table import Table

    console = Console(width=140)
    documents = build("mixed", args.corpus_bytes)
    trained, held = [d for i, d in enumerate(documents) if i % 10 != 9], documents[9::10]
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bpe-budget-") as directory:
        workdir = Path(directory)
        (workdir / "train.json").write_text(json.dumps(trained))
        (workdir / "held.json").write_text(json.dumps(held))
        rules_file = None
        for profile in [name.strip() for name in args.profiles.split(",") if name.strip()]:
            console.print(f"[dim]fast_train_profile under {profile}: {args.merges} merges ...[/dim]")
            out = workdir / f"rules-{profile}.json"
            job = {"kind": "train", "engine": "fast", "profile": profile, "merges": args.merges}
            job.update(corpus_file=str(workdir / "train.json"), rules_out=str(out))
            measured = _run_job(job, workdir, args.timeout)
            measured.pop("pieces", None)
            learned = len(measured.pop("rules", None) or [])
            rows.append({"step": f"train ({profile})", "rules": learned, **measured})
            if profile == "strict" and "error" not in measured:
                rules_file = out
        if rules_file is not None:
            console.print("[dim]encoding the held-back tenth ...[/dim]")
            job = {"kind": "encode", "engine": "fast", "corpus_file": str(workdir / "held.json")}
            measured = _run_job({**job, "rules_file": str(rules_file)}, workdir, args.timeout)
            measured.pop("digests", None)
            rows.append({"step": "encode held-back tenth (strict rules)", **measured})
    sizes = {
        "trained_bytes": sum(len(document.encode()) for document in trained),
        "held_bytes": sum(len(document.encode()) for document in held),
        "documents": len(documents),
        "sha256": digest(documents),
        "nproc": os.cpu_count(),
    }
    table = Table(
        title=f"compare --impl reference: the reference's share, mixed corpus {args.corpus_bytes:,} B "
        f"({sizes['trained_bytes']:,} B trained, {sizes['held_bytes']:,} B encoded), {args.merges:,} merges"
    )
    for column in ("step", "CPU s", "wall s", "peak MB", "load", "result"):
        table.add_column(column, justify="left" if column in ("step", "result") else "right")
    for row in rows:
        if "error" in row:
            table.add_row(row["step"], "", "", "", f"{row['load']:.1f}", row["error"])
            continue
        result = f"{row['rules']:,} rules" if "rules" in row else f"{row['tokens']:,} tokens"
        table.add_row(
            row["step"],
            f"{row['cpu_s']:.1f}",
            f"{row['wall_s']:.1f}",
            f"{row['peak_bytes'] / 1e6:,.0f}",
            f"{row['load']:.1f}",
            result,
        )
    console.print(table)
    total = sum(row.get("cpu_s", 0.0) for row in rows)
    console.print(f"corpus: {sizes['documents']:,} documents, sha256 {sizes['sha256']}")
    console.print(f"reference total: {total:.1f} CPU s of the {BUDGET_S:.0f} s budget ({total / BUDGET_S:.0%})")
    if args.json:
        args.json.write_text(json.dumps({"sizes": sizes, "rows": rows, "total_cpu_s": total}, indent=1))
    return 0 if rows and all("error" not in row for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
