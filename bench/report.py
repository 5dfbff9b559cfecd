"""Rich tables for benchmark results, and the performance targets judged from them.

Ratios use CPU seconds (user + system of the engine's process, all threads), which another busy
process on the machine barely changes; wall seconds are shown beside them.

>>> agreement(["61", "6162", "63"], ["61", "6162", "64"])
{'same_prefix': 2, 'same_rank_percent': 66.7, 'common_percent': 66.7, 'compared': 3}
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

__all__ = ["agreement", "print_report", "targets"]


def agreement(ours: list[str], theirs: list[str]) -> dict:
    """How far two piece lists (hex, rank order) agree: common prefix, same piece at same rank, set overlap."""
    compared = min(len(ours), len(theirs))
    prefix = next((rank for rank in range(compared) if ours[rank] != theirs[rank]), compared)
    same_rank = sum(1 for rank in range(compared) if ours[rank] == theirs[rank])
    common = len(set(ours[:compared]) & set(theirs[:compared]))
    percent = (lambda count: round(100 * count / compared, 1)) if compared else (lambda _count: 0.0)
    return {
        "same_prefix": prefix,
        "same_rank_percent": percent(same_rank),
        "common_percent": percent(common),
        "compared": compared,
    }


def _find(rows: list[dict], **keys) -> dict | None:
    return next((row for row in rows if all(row.get(key) == value for key, value in keys.items())), None)


def _ok(row: dict | None) -> bool:
    return row is not None and "error" not in row


def _ratio(slow: dict | None, fast: dict | None, key: str = "cpu_s") -> float | None:
    if not (_ok(slow) and _ok(fast)) or not fast[key]:
        return None
    return slow[key] / fast[key]


def _fmt(value: float | None, digits: int = 2, suffix: str = "") -> str:
    return "—" if value is None else f"{value:,.{digits}f}{suffix}"


def _training_table(results: dict, corpus: str, scale: str) -> Table:
    rows = [row for row in results["training"] if row["corpus"] == corpus and row["scale"] == scale]
    fast = _find(rows, engine="fast")
    first = rows[0]
    runs = f", best of {first['runs']} runs in one process" if first.get("runs", 1) > 1 else ""
    table = Table(
        title=f"Training: {corpus}, {scale} ({first['corpus_bytes']:,} bytes), {first['merges']:,} merges{runs}"
    )
    for column in (
        "engine",
        "wall s",
        "CPU s",
        "peak MB",
        "B / corpus B",
        "merges",
        "CPU ×fast",
        "wall ×fast",
        "load",
        "agrees with fast",
    ):
        table.add_column(column, justify="left" if column in ("engine", "agrees with fast") else "right")
    for row in rows:
        if not _ok(row):
            table.add_row(row["engine"], row["error"], *[""] * 8)
            continue
        if row["engine"] == "fast" or not _ok(fast):
            verdict = "—"
        elif row.get("rules") is not None and fast.get("rules") is not None:
            verdict = "identical rules" if row["rules"] == fast["rules"] else "DIFFERENT RULES"
        else:
            match = agreement(fast["pieces"], row["pieces"])
            verdict = (
                f"first {match['same_prefix']} pieces same; {match['same_rank_percent']}% same rank; "
                f"{match['common_percent']}% in common"
            )
        table.add_row(
            row["engine"],
            _fmt(row["wall_s"]),
            _fmt(row["cpu_s"]),
            _fmt(row["peak_bytes"] / 1e6, 1),
            _fmt(row["peak_bytes"] / row["corpus_bytes"], 1),
            f"{len(row['pieces']):,}",
            _fmt(_ratio(row, fast), 2, "×"),
            _fmt(_ratio(row, fast, "wall_s"), 2, "×"),
            _fmt(row.get("load"), 1),
            verdict,
        )
    return table


def _encoding_table(results: dict) -> Table:
    rows = results["encoding"]
    literal = _find(rows, engine="literal", text="sample")
    fast_by_text = {row["text"]: row for row in rows if row["engine"] == "fast"}
    rules = rows[0]["rules"] if rows else 0
    table = Table(title=f"Encoding standard-library source with {rules:,} rules (document by document)")
    for column in (
        "engine",
        "text bytes",
        "wall s",
        "CPU s",
        "MB/s (CPU)",
        "tokens",
        "× literal MB/s",
        "load",
        "ids equal fast's",
    ):
        table.add_column(column, justify="left" if column in ("engine", "ids equal fast's") else "right")
    literal_speed = _speed(literal)
    for row in rows:
        if not _ok(row):
            table.add_row(row["engine"], f"{row['text_bytes']:,}", row["error"], *[""] * 6)
            continue
        fast = fast_by_text.get(row["text"])
        same = "—"
        if row["engine"] != "fast" and _ok(fast):
            equal = sum(1 for ours, theirs in zip(fast["digests"], row["digests"], strict=False) if ours == theirs)
            same = f"{equal}/{len(row['digests'])} documents"
        speed = _speed(row)
        table.add_row(
            row["engine"],
            f"{row['text_bytes']:,}",
            _fmt(row["wall_s"]),
            _fmt(row["cpu_s"]),
            _fmt(speed, 3),
            f"{row['tokens']:,}",
            _fmt(speed / literal_speed if speed and literal_speed else None, 1, "×"),
            _fmt(row.get("load"), 1),
            same,
        )
    return table


def _speed(row: dict | None) -> float | None:
    return row["text_bytes"] / row["cpu_s"] / 1e6 if _ok(row) and row["cpu_s"] else None


# Issue 30's targets: rustbpe / fast CPU by corpus size, and peak memory from 1 MB up.
RUSTBPE_FACTORS = ((100_000_000, 4.0), (10_000_000, 2.0), (0, 1.2))
PEAK_FROM_BYTES = 1_000_000
PEAK_BYTES_PER_BYTE = 20


def _rustbpe_factor(corpus_bytes: int) -> float:
    """How many times rustbpe's CPU time the fast trainer must beat at this size.

    >>> _rustbpe_factor(100_000), _rustbpe_factor(1_000_000), _rustbpe_factor(10_000_000), _rustbpe_factor(100_000_000)
    (1.2, 1.2, 2.0, 4.0)
    """
    return next(factor for floor, factor in RUSTBPE_FACTORS if corpus_bytes >= floor)


def _rustbpe_target(train: list[dict], corpus: str, scale: str, factor: float) -> tuple[str, str, bool | None] | None:
    them, fast = (
        _find(train, engine="rustbpe", corpus=corpus, scale=scale),
        _find(train, engine="fast", corpus=corpus, scale=scale),
    )
    if them is None or fast is None:
        return None
    wording = f"fast ≥ {factor:g}× rustbpe ({corpus} {scale}, CPU)"
    if not _ok(fast):
        return (wording, f"fast: {fast['error']}", False)
    if "timeout_s" in them:
        return (wording, f"rustbpe timed out after {them['timeout_s']:.0f} s; fast {fast['cpu_s']:.1f} s CPU", True)
    cpu, wall = _ratio(them, fast), _ratio(them, fast, "wall_s")
    same = "identical pieces" if them.get("pieces") == fast.get("pieces") else "pieces differ"
    label = f"rustbpe / fast: {_fmt(cpu, 2, '×')} CPU ({_fmt(wall, 2, '×')} wall); {same}"
    return (wording, label, None if cpu is None else cpu >= factor)


def targets(results: dict) -> list[tuple[str, str, bool | None]]:
    """Each target of docs/performance.md with the measured value and met (True), not met (False) or unknown (None)."""
    train = results["training"]
    checks: list[tuple[str, str, bool | None]] = []
    literal = _find(train, engine="literal", corpus="code")
    fast_small = None if literal is None else _find(train, engine="fast", corpus="code", scale=literal["scale"])
    if literal is not None and fast_small is not None:
        ratio = _ratio(literal, fast_small)
        same = _ok(literal) and _ok(fast_small) and literal["rules"] == fast_small["rules"]
        met = None if ratio is None else ratio >= 100 and same
        wall = _fmt(_ratio(literal, fast_small, "wall_s"), 0, "×")
        label = f"{_fmt(ratio, 0, '×')} CPU, {wall} wall, rules identical: {same}"
        checks.append((f"fast ≥ 100× literal, identical rules ({literal['scale']})", label, met))
    scales = sorted(
        {(row["corpus"], row["scale"]) for row in train}, key=lambda key: _find(train, scale=key[1])["corpus_bytes"]
    )
    for corpus, scale in scales:
        hf, fast = (
            _find(train, engine="hf", corpus=corpus, scale=scale),
            _find(train, engine="fast", corpus=corpus, scale=scale),
        )
        if corpus == "code" and hf is not None and _ok(fast):
            cpu = _ratio(hf, fast)
            checks.append(
                (
                    f"faster than HF tokenizers ({scale}, CPU)",
                    f"HF / fast: {_fmt(cpu, 1, '×')}",
                    None if cpu is None else cpu > 1,
                )
            )
    for corpus, scale in scales:
        corpus_bytes = _find(train, corpus=corpus, scale=scale)["corpus_bytes"]
        check = (
            _rustbpe_target(train, corpus, scale, _rustbpe_factor(corpus_bytes))
            if corpus in ("code", "mixed")
            else None
        )
        if check is not None:
            checks.append(check)
    for corpus, scale in scales:
        fast = _find(train, engine="fast", corpus=corpus, scale=scale)
        if _ok(fast) and fast["corpus_bytes"] >= PEAK_FROM_BYTES:
            per_byte = fast["peak_bytes"] / fast["corpus_bytes"]
            checks.append(
                (
                    f"peak memory ≤ {PEAK_BYTES_PER_BYTE} B per corpus byte ({corpus} {scale})",
                    f"{per_byte:.1f} B/B",
                    per_byte <= PEAK_BYTES_PER_BYTE,
                )
            )
    encoding = results["encoding"]
    literal_encode = _find(encoding, engine="literal", text="sample")
    fast_full, tiktoken_full = (
        _find(encoding, engine="fast", text="full"),
        _find(encoding, engine="tiktoken", text="full"),
    )
    if _ok(fast_full) and _ok(tiktoken_full):
        ratio = _speed(fast_full) / _speed(tiktoken_full)
        same = fast_full["digests"] == tiktoken_full["digests"]
        checks.append(
            (
                f"fast encoder ≥ 0.5× tiktoken ({fast_full['text_bytes']:,} B, {fast_full['rules']:,} rules), "
                "ids identical",
                f"{ratio:.2f}× tiktoken's MB/s (CPU); ids identical: {same}",
                ratio >= 0.5 and same,
            )
        )
    if _ok(literal_encode) and _ok(fast_full):
        ratio = _speed(fast_full) / _speed(literal_encode)
        checks.append(
            (
                f"fast encoder ≥ 20× literal ({fast_full['text_bytes']:,} B fast vs "
                f"{literal_encode['text_bytes']:,} B literal, {fast_full['rules']:,} rules)",
                f"{ratio:,.0f}× MB/s (CPU)",
                ratio >= 20,
            )
        )
    return checks


def print_report(results: dict, console: Console | None = None) -> None:
    """Print machine facts, skipped engines, every table and the targets."""
    console = console or Console()
    facts = results["machine"]
    console.print(", ".join(f"{key}: {value}" for key, value in facts.items()))
    for line in results["skipped"]:
        console.print(f"[yellow]skipped[/yellow] {line}")
    for name, corpus in results.get("corpora", {}).items():
        console.print(f"corpus {name}: {corpus['documents']:,} documents, sha256 {corpus['sha256']}")
    groups = dict.fromkeys((row["corpus"], row["scale"]) for row in results["training"])
    for corpus, scale in groups:
        console.print(_training_table(results, corpus, scale))
    if results["encoding"]:
        console.print(_encoding_table(results))
    table = Table(title="Targets")
    for column in ("target", "measured", "met"):
        table.add_column(column)
    for name, measured, met in targets(results):
        table.add_row(name, measured, {True: "[green]met[/green]", False: "[red]not met[/red]", None: "unknown"}[met])
    console.print(table)
