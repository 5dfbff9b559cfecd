"""Reports of a conformance run: terminal, JSON (with a schema), JUnit XML and Markdown.

Every format is built from one :class:`bpe_conformance.results.outcomes.SuiteResult`.
"""

from bpe_conformance.reports.json_report import build_report, dumps_report, write_json_report
from bpe_conformance.reports.junit import build_junit, write_junit
from bpe_conformance.reports.markdown import render_markdown, write_markdown

__all__ = [
    "build_junit",
    "build_report",
    "dumps_report",
    "render_markdown",
    "write_json_report",
    "write_junit",
    "write_markdown",
]
