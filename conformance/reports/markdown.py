"""A readable Markdown summary: the table of checks, then each failure with its counterexample.

>>> table_cell("a | b\\nc")
'a \\\\| b c'
>>> fence("no backticks"), fence("has ``` inside")
('```', '````')
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bpe_conformance.files import write_output
from bpe_conformance.reports.common import (
    SHOWN_MESSAGE_CHARS,
    clause_examples,
    counterexample_lines,
    failures,
    implementation_label,
    plural,
    printable,
    reproduce_command,
    shown_message,
    verdict_line,
)
from bpe_conformance.reports.grouping import is_refusal_only, refusals
from bpe_conformance.running.suite import HARNESS_NAME

if TYPE_CHECKING:
    from pathlib import Path

    from bpe_conformance.results.implementation import ImplementationRecord
    from bpe_conformance.results.outcomes import CheckResult, SuiteResult

__all__ = ["fence", "render_markdown", "table_cell", "write_markdown"]

_TABLE_HEADER = ("Check", "Level", "Clause", "Outcome", "Examples", "Seconds", "Message")


def table_cell(text: str) -> str:
    """``text`` fit for one cell of a Markdown table: pipes escaped, HTML inert, on one line.

    Markdown passes raw HTML through, so an implementation's ``<script>`` in its name or a message
    would reach whoever renders the report; as entities it shows as text.

    >>> table_cell("a|b <script>&")
    'a\\\\|b &lt;script&gt;&amp;'
    """
    inert = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(inert.replace("|", "\\|").split())


def _field(implementation: ImplementationRecord, name: str) -> str:
    """An implementation-controlled field (the handshake's ``language``, say), inert in Markdown."""
    return table_cell(printable(str(getattr(implementation, name))))


def _spec(implementation: ImplementationRecord) -> str:
    return _code(str(implementation.spec or "bundled reference"))


def _code(text: str) -> str:
    """``text`` as an inline code span no backtick inside it can close."""
    marks = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return f"{marks} {printable(text)} {marks}" if "`" in text else f"`{printable(text)}`"


def fence(text: str) -> str:
    """A code fence longer than any run of backticks inside ``text``."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _row(cells: tuple[str, ...] | list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _result_row(result: CheckResult) -> str:
    outcome = result.outcome.value if result.outcome.counts_as_success else f"**{result.outcome.value}**"
    return _row(
        [
            f"`{result.check}`",
            result.level,
            result.clause,
            outcome,
            str(result.examples),
            f"{result.seconds:.2f}",
            table_cell(shown_message(result.message)),
        ]
    )


def _failure_section(suite: SuiteResult, result: CheckResult) -> list[str]:
    lines = [
        f"### `{result.check}` ({result.clause}): {result.outcome.value}",
        "",
        table_cell(shown_message(result.message)),
        "",
    ]
    if result.counterexample:
        body = "\n".join(counterexample_lines(result.counterexample, SHOWN_MESSAGE_CHARS))
        lines += [f"{fence(body)}text", body, fence(body), ""]
    command = reproduce_command(suite, result.check)
    lines += ["Reproduce:", "", f"{fence(command)}sh", command, fence(command), ""]
    return lines


def _vocabulary_lines(suite: SuiteResult) -> list[str]:
    vocabulary = suite.config.vocabulary  # run --vocabulary only
    if vocabulary is None:
        return []
    return [
        f"- Vocabulary: `{table_cell(vocabulary.source)}` ({vocabulary.size} pieces, "
        f"{len(vocabulary.special_tokens)} specials, sha256 `{vocabulary.sha256}`)"
    ]


def render_markdown(suite: SuiteResult) -> str:
    """The whole report as Markdown text."""
    implementation = suite.implementation
    lines = [
        f"# {HARNESS_NAME} report: {table_cell(printable(str(implementation.name)))}",
        "",
        f"**{verdict_line(suite)}**",
        "",
        f"- Harness: {HARNESS_NAME} {suite.harness_version} (hypothesis {suite.hypothesis_version or 'unknown'})",
        f"- Implementation: {table_cell(implementation_label(implementation))} ({_field(implementation, 'language')}, "
        f"profile {_field(implementation, 'profile')}, spec {_spec(implementation)})",
        f"- Seed {suite.seed}, effort {suite.effort}, started {suite.started_at or 'unknown'}",
        *_vocabulary_lines(suite),
        "",
        _row(_TABLE_HEADER),
        _row(["---"] * len(_TABLE_HEADER)),
        *(_result_row(result) for result in suite.results),
        "",
    ]
    failed = [result for result in failures(suite) if not is_refusal_only(result)]
    refused = refusals(suite.results)
    if failed or refused:
        lines += ["## Failures", ""]
        for refusal in refused:  # one refusal, shown once, with the checks it blocked
            lines += [
                f"### REFUSED `{refusal.operation}` raised {table_cell(shown_message(refusal.error))}",
                "",
                "An input the profile accepts, refused with an input error (one finding, shown once); each check it "
                "blocked went on to its other examples.",
                "",
                f"- Inputs: `{table_cell(printable(str(refusal.inputs)))}`",
                f"- Blocked: {', '.join(f'`{check}`' for check in refusal.checks)}",
                "",
            ]
        for result in failed:
            lines += _failure_section(suite, result)
    noted = [(result, note) for result in suite.results for note in result.advisories]
    if noted:
        lines += ["## Advisories (a SHOULD not followed; never a failure)", ""]
        lines += [f"- `{result.check}` ({result.clause}): {table_cell(printable(note))}" for result, note in noted]
        lines.append("")
    examples = clause_examples(suite)
    lines += ["## Clauses checked", ""]
    lines += [f"- {clause}: {plural(count, 'example')}" for clause, count in examples.items()] or ["- none"]
    return "\n".join(lines) + "\n"


def write_markdown(suite: SuiteResult, path: str | Path) -> None:
    """Write :func:`render_markdown` to ``path`` (UTF-8)."""
    write_output(path, render_markdown(suite))
