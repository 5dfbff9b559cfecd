"""JUnit XML, for CI systems that display test results: one testcase per check, classname = clause.

``fail`` becomes ``<failure>``; ``error``, ``timeout`` and ``crash`` become ``<error>`` whose ``type``
is the outcome; ``skip`` becomes ``<skipped>``. Characters XML 1.0 cannot hold (NUL, lone surrogates)
are written as ``\\x00``/``\\ud800`` escapes so the file always parses.

>>> xml_safe("a\\x00b\\ud800")
'a\\\\x00b\\\\ud800'
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from bpe_conformance.files import write_output
from bpe_conformance.reports.common import counterexample_lines, reproduce_command
from bpe_conformance.results.outcomes import CheckResult, Outcome, SuiteResult
from bpe_conformance.running.suite import HARNESS_NAME

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["build_junit", "junit_text", "write_junit", "xml_safe"]

_NOT_IN_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _escape_character(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_safe(text: str) -> str:
    """``text`` with every character XML 1.0 forbids replaced by a backslash escape."""
    return _NOT_IN_XML.sub(_escape_character, text)


def _details(suite: SuiteResult, result: CheckResult) -> str:
    lines = [f"[{result.clause}] {result.message}"]
    lines += counterexample_lines(result.counterexample)
    lines.append(f"reproduce: {reproduce_command(suite, result.check)}")
    return "\n".join(lines)


def _testcase(suite: SuiteResult, result: CheckResult) -> ET.Element:
    case = ET.Element(
        "testcase",
        {"classname": result.clause, "name": xml_safe(result.check), "time": f"{result.seconds:.3f}"},
    )
    message = xml_safe(result.message)
    if result.outcome is Outcome.SKIP:
        ET.SubElement(case, "skipped", {"message": message})
    elif result.outcome is Outcome.FAIL:
        ET.SubElement(case, "failure", {"message": message, "type": result.outcome.value}).text = xml_safe(
            _details(suite, result)
        )
    elif result.outcome is not Outcome.PASS:
        ET.SubElement(case, "error", {"message": message, "type": result.outcome.value}).text = xml_safe(
            _details(suite, result)
        )
    properties = ET.SubElement(case, "properties")
    shown = [("level", result.level), ("clauses", " ".join(result.clauses)), ("examples", str(result.examples))]
    shown += [("advisory", xml_safe(note)) for note in result.advisories]
    for name, value in shown:
        ET.SubElement(properties, "property", {"name": name, "value": value})
    return case


def _vocabulary_properties(suite: SuiteResult) -> list[tuple[str, object]]:
    vocabulary = suite.config.vocabulary  # run --vocabulary only
    if vocabulary is None:
        return []
    return [
        ("vocabulary", vocabulary.source),
        ("vocabulary_size", vocabulary.size),
        ("vocabulary_sha256", vocabulary.sha256),
    ]


def _junit_root(suite: SuiteResult) -> ET.Element:
    counts = {
        "tests": str(len(suite.results)),
        "failures": str(suite.count(Outcome.FAIL)),
        "errors": str(
            sum(
                suite.count(outcome)
                for outcome in (Outcome.ERROR, Outcome.TIMEOUT, Outcome.CRASH, Outcome.MEMORY_LIMIT)
            )
        ),
        "skipped": str(suite.count(Outcome.SKIP)),
        "time": f"{suite.seconds:.3f}",
    }
    root = ET.Element("testsuites", {"name": HARNESS_NAME, **counts})
    name = xml_safe(f"{HARNESS_NAME}: {suite.implementation.name}")
    testsuite = ET.SubElement(root, "testsuite", {"name": name, **counts, "timestamp": suite.started_at})
    properties = ET.SubElement(testsuite, "properties")
    for key, value in (
        ("harness_version", suite.harness_version),
        ("hypothesis_version", suite.hypothesis_version),
        ("implementation_version", suite.implementation.version),
        ("implementation_spec", suite.implementation.spec),
        ("seed", suite.seed),
        ("effort", suite.effort),
        *_vocabulary_properties(suite),
    ):
        ET.SubElement(properties, "property", {"name": key, "value": xml_safe(str(value))})
    for result in suite.results:
        testsuite.append(_testcase(suite, result))
    ET.indent(root)
    return root


def build_junit(suite: SuiteResult) -> ET.ElementTree:
    """The report as an element tree: ``<testsuites>`` holding one ``<testsuite>`` for the implementation."""
    return ET.ElementTree(_junit_root(suite))


def junit_text(suite: SuiteResult) -> str:
    """The JUnit XML document as text, with its XML declaration."""
    return ET.tostring(_junit_root(suite), encoding="unicode", xml_declaration=True) + "\n"


def write_junit(suite: SuiteResult, path: str | Path) -> None:
    """Write the JUnit XML report to ``path`` (UTF-8)."""
    write_output(path, junit_text(suite))
