"""One deviation, one entry: failures with the same localised root grouped, with the checks that saw it.

Every training and encoding check fails on the divergence its own example provokes, under the clause
localisation gives it (:mod:`bpe_conformance.diagnosis.localisation`), so one bug is often seen by many
checks. A group is keyed by that clause when it was localised (or when the failure carries no
localisation), and by the whole ``unlocalised: first seen as ...`` label when it was not, so an
unlocalised symptom is never merged into a localised deviation that happens to share its clause.

>>> from bpe_conformance.results.outcomes import Outcome
>>> def failed(check, clause, own, localisation=None):
...     example = None if localisation is None else {"inputs": {}, "localisation": localisation}
...     return CheckResult(check, clause, (own,), "", Outcome.FAIL, "", 1, 0.0, counterexample=example)
>>> tie = {"localised": True, "clause": "BPE-TRAIN-TIE", "label": "BPE-TRAIN-TIE"}
>>> [(d.label, d.owner, d.checks) for d in deviations([failed("greedy", "BPE-TRAIN-TIE", "BPE-TRAIN-GREEDY", tie),
...                                                    failed("tie", "BPE-TRAIN-TIE", "BPE-TRAIN-TIE", tie)])]
[('BPE-TRAIN-TIE', 'tie', ('tie', 'greedy'))]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.results.outcomes import CheckResult, Outcome

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["Deviation", "Refusal", "deviations", "is_refusal_only", "localisation_label", "refusals"]


@dataclass(frozen=True)
class Deviation:
    """Failures with one root: its clause, how it reads (the clause, or the unlocalised label), the checks.

    ``owner`` is the check that reports it as its own clause (the first that failed when none does);
    ``checks`` starts with the owner.
    """

    clause: str
    label: str
    localised: bool
    owner: str
    checks: tuple[str, ...]

    @property
    def consequences(self) -> tuple[str, ...]:
        """The checks that saw the same deviation besides its owner."""
        return self.checks[1:]


def localisation_label(result: CheckResult) -> tuple[str, bool]:
    """The root a failure is grouped under and whether it was localised (no localisation counts as given)."""
    localisation = (result.counterexample or {}).get("localisation")
    if not isinstance(localisation, dict) or localisation.get("localised", True):
        return result.clause, True
    return str(localisation.get("label", result.clause)), False


def deviations(results: Sequence[CheckResult]) -> list[Deviation]:
    """The failed checks grouped by their localised root, in the order the roots were first seen."""
    groups: dict[str, list[CheckResult]] = {}
    for result in results:
        if result.outcome is Outcome.FAIL:
            groups.setdefault(localisation_label(result)[0], []).append(result)
    found = []
    for label, members in groups.items():
        clause, localised = members[0].clause, localisation_label(members[0])[1]
        owner = next((result for result in members if result.clauses[0] == clause), members[0])
        checks = (owner.check, *(result.check for result in members if result is not owner))
        found.append(Deviation(clause=clause, label=label, localised=localised, owner=owner.check, checks=checks))
    return found


@dataclass(frozen=True)
class Refusal:
    """One input the profile accepts that the implementation refused, with every check it blocked."""

    operation: str
    error: str
    inputs: JSONObject
    checks: tuple[str, ...]


def is_refusal_only(result: CheckResult) -> bool:
    """The check's only finding is a refusal: its other examples showed no deviation."""
    return bool((result.counterexample or {}).get("refused"))


def refusals(results: Sequence[CheckResult]) -> list[Refusal]:
    """The refusals of a run, one per distinct error, each with the checks that met it, in order first seen.

    >>> from bpe_conformance.results.outcomes import Outcome
    >>> record = {"operation": "train", "error": "ValueError: empty", "inputs": {}, "key": "train raised ..."}
    >>> def refused(check):
    ...     example = {"inputs": {}, "refused": True, "refusals": [record]}
    ...     return CheckResult(check, "X", ("X",), "", Outcome.ERROR, "", 1, 0.0, counterexample=example)
    >>> [(r.error, r.checks) for r in refusals([refused("a"), refused("b")])]
    [('ValueError: empty', ('a', 'b'))]
    """
    groups: dict[str, tuple[JSONObject, list[str]]] = {}
    for result in results:
        if result.outcome.counts_as_success:
            continue
        for record in (result.counterexample or {}).get("refusals", ()):
            _, checks = groups.setdefault(str(record["key"]), (record, []))
            if result.check not in checks:
                checks.append(result.check)
    return [
        Refusal(str(record["operation"]), str(record["error"]), dict(record["inputs"]), tuple(checks))
        for record, checks in groups.values()
    ]
