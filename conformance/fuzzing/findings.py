"""Distinct failures of a campaign: one per check × outcome × clause × minimal counterexample.

Workers with different seeds, and the replay of a database other workers write to, find the same bug
again and again; a campaign reports it once, when first found, and counts how often it came back.

>>> from bpe_conformance.results.outcomes import CheckResult, Outcome
>>> def failed(inputs, clause="BPE-TRAIN-TIE"):
...     return CheckResult("tie-break", clause, (clause,), "", Outcome.FAIL, "", 5, 0.1,
...                        counterexample={"inputs": inputs, "actual": [1]})
>>> book = FindingBook()
>>> book.add(failed({"documents": ["ab"]}), worker=0, seed=1, found_after=2.0) is not None
True
>>> book.add(failed({"documents": ["ab"]}), worker=1, seed=9, found_after=3.0) is None  # the same again
True
>>> book.add(failed({"documents": ["ba"]}), worker=1, seed=9, found_after=4.0) is not None
True
>>> len(book.findings), book.findings[0].times_found
(2, 2)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.reports.common import to_json_safe

if TYPE_CHECKING:
    from bpe_conformance.results.outcomes import CheckResult

__all__ = ["Finding", "FindingBook", "finding_key"]


def finding_key(result: CheckResult) -> tuple[str, str, str, str]:
    """What makes a failure distinct: the check, the outcome, the clause and the minimal inputs.

    A refusal (an input the profile accepts, refused) is one finding whichever check and example met it:
    its key is the refused call and error.
    """
    counterexample = result.counterexample or {}
    if counterexample.get("refused") and counterexample.get("refusals"):
        return "", result.outcome.value, "refused", str(counterexample["refusals"][0].get("key", ""))
    inputs = counterexample.get("inputs")
    canonical = json.dumps(to_json_safe(inputs), sort_keys=True, ensure_ascii=True)
    return result.check, result.outcome.value, result.clause, canonical


@dataclass
class Finding:
    """A distinct failure: the first result that showed it, who found it, when, and how often it recurred."""

    result: CheckResult
    worker: int
    seed: int
    found_after: float
    times_found: int = 1


class FindingBook:
    """The campaign's distinct failures, in the order they were found."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self._by_key: dict[tuple[str, str, str, str], Finding] = {}

    def add(self, result: CheckResult, worker: int, seed: int, found_after: float) -> Finding | None:
        """Record ``result``; the new :class:`Finding` when it is distinct, None when seen before."""
        key = finding_key(result)
        known = self._by_key.get(key)
        if known is not None:
            known.times_found += 1
            return None
        finding = Finding(result, worker, seed, round(found_after, 3))
        self._by_key[key] = finding
        self.findings.append(finding)
        return finding

    def failures_of(self, check: str) -> int:
        """How many distinct failures ``check`` has."""
        return sum(1 for finding in self.findings if finding.result.check == check)
