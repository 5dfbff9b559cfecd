"""A comparison as JSON (``specs/schema/compare.schema.json``) and as lines for the terminal.

Pairs are shown with the pieces of their two ids (bytes decoded as UTF-8, an undecodable byte as
``\\xNN``), so ``(258, 32)`` reads as ``'in' + ' '``; an id that names no piece (a boundary id, an id
not made yet) shows as ``?`` (``null`` in JSON).
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING

from bpe_conformance.adapters.limits import DEFAULT_MEMORY_LIMIT
from bpe_conformance.compare.comparison import (
    DEFAULT_TIMEOUT,
    SPLIT_DIAGNOSIS_SKIPPED,
    Comparison,
    EncodeResult,
    RuleSource,
    TextSource,
)
from bpe_conformance.compare.state import Divergence, first_difference
from bpe_conformance.errors import HarnessError
from bpe_conformance.files import write_output
from bpe_conformance.reference.dialects import profile_pieces
from bpe_conformance.running.suite import HARNESS_NAME, harness_version
from bpe_conformance.spec.resources import spec_file

if TYPE_CHECKING:
    from pathlib import Path

    from bpe_conformance.compare.shrink import ShrinkResult
    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "REPORT_VERSION",
    "SCHEMA_PATH",
    "build_report",
    "exit_code",
    "report_lines",
    "reproduce_command",
    "verdict_line",
    "write_report",
]

REPORT_VERSION = 1
SCHEMA_PATH = spec_file("schema", "compare.schema.json")
EXIT_AGREE, EXIT_DIFFER = 0, 1

Pair = tuple[int, int]


def exit_code(comparison: Comparison) -> int:
    """0 when everything agreed, 1 on any divergence or failure of the implementation."""
    return EXIT_AGREE if comparison.agree else EXIT_DIFFER


def _piece(pieces: list[bytes], token_id: int, boundary: bool) -> str | None:
    if not 0 <= token_id < len(pieces) or (boundary and token_id in (256, 257)):
        return None
    return pieces[token_id].decode("utf-8", errors="backslashreplace")


def _side(pair: Pair | None, count: int | None, divergence: Divergence, boundary: bool) -> JSONObject | None:
    if pair is None:
        return None
    return {
        "pair": list(pair),
        "count": count,
        "pieces": [_piece(divergence.pieces, part, boundary) for part in pair],
    }


def divergence_record(divergence: Divergence, boundary: bool) -> JSONObject:
    """The ``first_divergence`` object of the report."""
    judgement = divergence.judgement
    return {
        "round": judgement.round,
        "expected": _side(judgement.expected, judgement.expected_count, divergence, boundary),
        "actual": _side(judgement.actual, judgement.actual_count, divergence, boundary),
        "candidates": [_side(pair, count, divergence, boundary) for pair, count in judgement.top_counts],
        "diagnosis": judgement.kind.description,
        "clause": judgement.clause,
        "cause": judgement.cause,
        "confirmed": judgement.confirmed,
        "examined": divergence.examined,
    }


def reproduce_command(comparison: Comparison, corpus: str, merges: int) -> str:
    """The ``compare`` command that trains on every document of ``corpus`` (a shrunk ``.jsonl``) and diverges."""
    request = comparison.request
    words = ["bpe-conformance", "compare", "--impl", request.impl, "--corpus", corpus, "--encode", corpus]
    words += ["--merges", str(merges), "--profile", request.profile.name]
    if request.isolation != "process":
        words += ["--isolation", request.isolation]
    if request.timeout != DEFAULT_TIMEOUT:
        words += ["--timeout", f"{request.timeout:g}"]
    if request.limits is not None:
        words += request.limits.options(default_memory=DEFAULT_MEMORY_LIMIT)
    return shlex.join(words)


def _shrink_record(comparison: Comparison, shrink: ShrinkResult, path: str | None) -> JSONObject:
    boundary = comparison.request.profile.boundary_ids
    return {
        "path": path,
        "documents": len(shrink.documents),
        "bytes": sum(len(document.encode("utf-8")) for document in shrink.documents),
        "merges": shrink.merges,
        "attempts": shrink.attempts,
        "complete": shrink.complete,
        "seconds": round(shrink.seconds, 3),
        "command": None if path is None else reproduce_command(comparison, path, shrink.merges),
        "first_divergence": None if shrink.divergence is None else divergence_record(shrink.divergence, boundary),
    }


def _split_record(comparison: Comparison) -> JSONObject | None:
    """The ``split`` object: the pattern both sides trained behind, and the first divergent round's two rules.

    Behind a split no state is judged (:data:`SPLIT_DIAGNOSIS_SKIPPED`), so the round and the two
    rules there are all the report says of a divergence, with the reason.
    """
    split = comparison.request.split
    if split is None:
        return None
    expected, actual = comparison.training.reference, comparison.training.implementation
    rank = None if actual is None else first_difference(expected, actual)
    profile = comparison.request.profile
    pieces = profile_pieces(expected[: rank or 0], profile)

    def rule(rules: list[Pair]) -> JSONObject | None:
        if rank is None or rank >= len(rules):
            return None
        pair = rules[rank]
        return {"pair": list(pair), "pieces": [_piece(pieces, part, profile.boundary_ids) for part in pair]}

    return {
        "name": split.name,
        "pattern_source": split.pattern_source,
        "reference_engine": "word-count",
        "first_divergent_round": rank,
        "expected": None if actual is None else rule(expected),
        "actual": None if actual is None else rule(actual),
        "diagnosis": None if rank is None else SPLIT_DIAGNOSIS_SKIPPED,
    }


def _encode_record(encode: EncodeResult) -> JSONObject:
    return {
        "source": encode.source.value,
        "rules": encode.rules.value,
        "texts": encode.texts,
        "bytes": encode.bytes,
        "agree": encode.agree,
        "differing": encode.differing,
        "first_difference": encode.first_difference,
    }


def build_report(comparison: Comparison) -> JSONObject:
    """The report as JSON-ready data."""
    request, training, corpus = comparison.request, comparison.training, comparison.corpus
    boundary = request.profile.boundary_ids
    failure = comparison.failure
    shrink = comparison.shrink
    return {
        "report_version": REPORT_VERSION,
        "harness": {"name": HARNESS_NAME, "version": harness_version()},
        "implementation": comparison.implementation.compare_json(),
        "profile": request.profile.name,
        "config": {
            "corpus": list(request.corpus),
            "encode": None if request.encode is None else list(request.encode),
            "merges": request.merges,
            "timeout": request.timeout,
            "isolation": request.isolation,
            "shrink": request.shrink,
            **({} if request.limits is None else {"limits": request.limits.to_json()}),
        },
        "corpus": {
            "documents": corpus.documents,
            "bytes": corpus.bytes,
            "training_documents": corpus.training_documents,
            "training_bytes": corpus.training_bytes,
            "held_back": corpus.held_back,
        },
        "agree": comparison.agree,
        "exit_code": exit_code(comparison),
        "merges_compared": comparison.merges_compared,
        "training": {
            "agree": None if training.implementation is None else training.implementation == training.reference,
            "reference_rules": len(training.reference),
            "implementation_rules": None if training.implementation is None else len(training.implementation),
            "reference_seconds": round(training.reference_seconds, 3),
            "implementation_seconds": round(training.implementation_seconds, 3),
        },
        "first_divergence": None
        if comparison.divergence is None
        else divergence_record(comparison.divergence, boundary),
        "encode": None if comparison.encode is None else _encode_record(comparison.encode),
        "failure": None if failure is None else failure.as_dict(),
        "shrink": None if shrink is None else _shrink_record(comparison, shrink, request.shrink),
        "split": _split_record(comparison),
        "seconds": round(comparison.seconds, 3),
    }


def write_report(report: JSONObject, path: str | Path) -> None:
    """Write a :func:`build_report` as indented, ASCII-only JSON; HarnessError when the file cannot be written."""
    text = json.dumps(report, indent=2, ensure_ascii=True, allow_nan=False) + "\n"
    try:
        write_output(path, text, encoding="ascii")
    except OSError as error:
        raise HarnessError(f"cannot write {str(path)!r}: {error.strerror or error}") from None


# --- the terminal ---


def _pair_text(record: JSONObject | None) -> str:
    if record is None:
        return "no rule"
    return f"{_rule_text(record)}, count {record['count']}"


def _rule_text(record: JSONObject | None) -> str:
    if record is None:
        return "no rule"
    pieces = " + ".join("?" if piece is None else repr(piece) for piece in record["pieces"])
    first, second = record["pair"]
    return f"({first}, {second}) {pieces}"


def _divergence_lines(record: JSONObject, indent: str = "  ") -> list[str]:
    lines = [
        f"{indent}expected: {_pair_text(record['expected'])}",
        f"{indent}actual:   {_pair_text(record['actual'])}",
        f"{indent}top candidates in the reference's state at that round:",
    ]
    lines += [f"{indent}  {_pair_text(candidate)}" for candidate in record["candidates"]]
    lines.append(f"{indent}diagnosis: {record['diagnosis']} [{record['clause']}]")
    lines.append(f"{indent}cause: {record['cause']}")
    return lines


def _encode_lines(record: JSONObject) -> list[str]:
    source = TextSource(record["source"]).description
    rules = RuleSource(record["rules"]).description
    head = f"encoding: {record['texts']} texts ({record['bytes']} bytes) {source}, with {rules}"
    if record["texts"] == 0 and record["agree"]:
        return [f"{head}: nothing to encode (give --encode PATH)"]
    if record["differing"] == 0:
        return [f"{head}: {'ids identical' if record['agree'] else 'stopped by the failure below'}"]
    difference = record["first_difference"]
    return [
        f"{head}: {record['differing']} of {record['texts']} texts differ",
        f"  first: text {difference['text']} ({difference['origin']}), id {difference['position']} "
        f"(byte {difference['byte_offset']}) of {difference['expected_length']} expected, "
        f"{difference['actual_length']} made",
        f"  expected ids from {difference['context_start']}: {difference['expected']}",
        f"  actual ids from {difference['context_start']}:   {difference['actual']}",
        f"  expected text there: {difference['context']!r}",
    ]


def _shrink_lines(record: JSONObject) -> list[str]:
    where = record["path"] or "(not written)"
    state = "" if record["complete"] else ", stopped by --shrink-seconds before the search ended"
    lines = [
        f"shrunk: {record['documents']} documents, {record['bytes']} bytes, max_merges {record['merges']} "
        f"({record['attempts']} attempts in {record['seconds']:.1f} s{state}) -> {where}"
    ]
    if record["first_divergence"] is not None:
        lines.append(f"  there, round {record['first_divergence']['round']}:")
        lines += _divergence_lines(record["first_divergence"], "    ")
    if record["command"]:
        lines.append(f"  reproduce: {record['command']}")
    return lines


def report_lines(report: JSONObject) -> list[str]:
    """The report for a terminal or a log, verdict last."""
    implementation, corpus, training = report["implementation"], report["corpus"], report["training"]
    lines = [
        f"{HARNESS_NAME} {report['harness']['version']} compare",
        f"implementation: {implementation['name']} {implementation['version']} ({implementation['language']}), "
        f"{implementation['spec']}, {implementation['isolation']}",
        f"profile: {report['profile']}"
        + (
            ""
            if implementation["declared_profile"] == report["profile"]
            else f" (--profile; the implementation declares {implementation['declared_profile']})"
        ),
        f"corpus: {corpus['documents']} documents, {corpus['bytes']} bytes; trained on "
        f"{corpus['training_documents']} ({corpus['training_bytes']} bytes), {corpus['held_back']} held back to encode",
        f"training, max_merges {report['config']['merges']}: reference {training['reference_rules']} rules in "
        f"{training['reference_seconds']:.2f} s, implementation "
        + (
            "failed"
            if training["implementation_rules"] is None
            else f"{training['implementation_rules']} rules in {training['implementation_seconds']:.2f} s"
        ),
    ]
    split = report.get("split")
    if split is not None:
        lines.insert(
            3,
            f"split: {split['name']} ({split['pattern_source']}), both sides train and encode "
            "behind it; the reference with the word-count engine",
        )
    divergence = report["first_divergence"]
    if divergence is not None:
        lines += ["", f"first divergence at round {divergence['round']} (the rules before it agree)"]
        lines += _divergence_lines(divergence)
    elif split is not None and split["first_divergent_round"] is not None:
        lines += ["", f"first divergence at round {split['first_divergent_round']} (the rules before it agree)"]
        lines += [f"  expected: {_rule_text(split['expected'])}", f"  actual:   {_rule_text(split['actual'])}"]
        lines.append(f"  diagnosis: {split['diagnosis']}")
    elif training["agree"]:
        lines.append(f"rules: all {report['merges_compared']} identical")
    if report["encode"] is not None:
        lines += _encode_lines(report["encode"])
    if report["failure"] is not None:
        failure = report["failure"]
        lines.append(f"implementation failure: {failure['outcome']} in {failure['operation']}: {failure['message']}")
    if report["shrink"] is not None:
        lines += _shrink_lines(report["shrink"])
    elif report["config"]["shrink"] is not None:
        lines.append(f"shrunk: nothing, {_nothing_shrunk(report)}")
    return [*lines, "", verdict_line(report)]


def _nothing_shrunk(report: JSONObject) -> str:
    if report.get("split") is not None:
        return "not under a split pattern"
    if report["training"]["implementation_rules"] is None:
        return "the implementation failed to train"
    return "the rules agree (shrinking looks for a smaller corpus with the same training divergence)"


def verdict_line(report: JSONObject) -> str:
    """One line: AGREED, DIVERGED or FAILED, with what and where."""
    name, seconds = report["implementation"]["name"], report["seconds"]
    split = report.get("split")
    behind = "" if split is None else f", split {split['name']}"
    tail = f"(implementation {name}, profile {report['profile']}{behind}, {seconds:.1f} s)"
    failure, encode, divergence = report["failure"], report["encode"], report["first_divergence"]
    # Behind a split the first divergent round is known but not judged: its round is in the split record.
    round_ = divergence["round"] if divergence is not None else (split or {}).get("first_divergent_round")
    if report["agree"]:
        texts = 0 if encode is None else encode["texts"]
        return f"AGREED: {report['merges_compared']} rules and {texts} encoded texts identical {tail}"
    found = []
    if round_ is not None:
        found.append(f"training diverges at round {round_} of {report['config']['merges']}")
    if encode is not None and encode["differing"]:
        found.append(f"encoding differs on {encode['differing']} of {encode['texts']} texts")
    if failure is not None:
        found.append(f"the implementation's {failure['operation']} ended in {failure['outcome']}")
    word = "DIVERGED" if round_ is not None or (encode is not None and encode["differing"]) else "FAILED"
    return f"{word}: {'; '.join(found)} {tail}"
