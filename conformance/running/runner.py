"""Run checks against a subject and turn whatever happens into a named outcome.

Hypothesis searches and shrinks; this module only classifies how a search ended:
``Violation`` → fail, ``ImplementationRaised``/``MalformedResult`` → error, ``CallTimeout`` →
timeout, ``ImplementationCrashed`` → crash (the subject is restarted before the next check),
an undeclared capability or a skip-list entry → skip.
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import hypothesis
from hypothesis import Phase, given, settings
from hypothesis.errors import Flaky, HypothesisException

from bpe_conformance.checks.setup import set_up_level, set_up_message
from bpe_conformance.errors import CallAborted, ImplementationRaised, MalformedResult, Violation
from bpe_conformance.reference.profiles import get_profile
from bpe_conformance.results.advisories import collecting
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running.database import DatabaseUnavailable

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from hypothesis.database import ExampleDatabase

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.checks.base import Check
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["Attempt", "check_settings", "classify", "refusal_record", "run_check", "run_checks", "shown_input"]


@dataclass
class Attempt:
    """What one check saw while hypothesis drove it: how many examples, and the last violation.

    ``refusals`` are the examples the implementation refused with an input error (ValueError or
    TypeError) although the profile accepts them: each is recorded once, and the check goes on to its
    other examples instead of stopping there.
    """

    examples: int = 0
    last_violation: Violation | None = None
    last_input: Any = None
    notes: list[str] = field(default_factory=list)
    refusals: list[tuple[ImplementationRaised, Any]] = field(default_factory=list)

    def refused(self, raised: ImplementationRaised, example: Any) -> None:
        """Record a refusal, once per distinct error."""
        if all(str(raised) != str(seen) for seen, _ in self.refusals):
            self.refusals.append((raised, example))


def check_settings(base: settings, check: Check, database: ExampleDatabase | None = None) -> settings:
    """Per-check settings: the profile's budget scaled by the check's, one bug per check.

    No example database unless one is given (``run --database``): the harness writes nothing unasked.

    The explain phase is dropped: it re-runs a failing example many times to annotate lines of
    *our* check code, which says nothing about the implementation and multiplies the cost of a failure.
    """
    return settings(
        base,
        max_examples=max(1, round(base.max_examples * check.budget)),
        database=database,
        report_multiple_bugs=False,
        deadline=None,
        phases=[phase for phase in base.phases if phase is not Phase.explain],
    )


def _verify_once(check: Check, subject: Subject, attempt: Attempt, example: Any) -> bool:
    """Judge one example; False when the implementation refused it (recorded), so the caller moves on."""
    attempt.examples += 1
    attempt.last_input = example
    try:
        check.verify(subject, example)
    except Violation as violation:
        attempt.last_violation = violation
        raise
    except ImplementationRaised as raised:
        # A check's examples are inputs its profile accepts (a check of rejection judges raising itself):
        # a ValueError or TypeError here is a refusal, one finding, not the end of the check.
        if not raised.is_input_error:
            raise
        attempt.refused(raised, example)
        subject.reset()
        return False
    return True


def _run_search(
    check: Check, subject: Subject, attempt: Attempt, base: settings, seed: int, database: ExampleDatabase | None
) -> None:
    assert check.strategy is not None

    def property_under_test(example: Any) -> None:
        if not _verify_once(check, subject, attempt, example):
            hypothesis.reject()  # refused: recorded; let the search try the check's other examples

    # Every check runs this one function; the check's name keeps their saved examples apart in a database
    # (the attribute hypothesis's own pytest plugin sets to tell parametrized cases apart).
    property_under_test._hypothesis_internal_add_digest = check.name.encode()  # type: ignore[attr-defined]
    test = given(check.strategy())(property_under_test)
    # seed() before settings(): seed() also switches the database off, and the settings must win.
    test = hypothesis.seed(seed)(test)
    check_settings(base, check, database)(test)()


def shown_input(case: Any) -> JSONObject:
    """The input a report names for an error: a known-answer vector by its id, anything else by its repr.

    >>> shown_input({"id": "train-1", "clauses": ["BPE-TRAIN-TIE"], "documents": ["ab"] * 500})
    {'vector': 'train-1'}
    >>> shown_input(["ab", "cd"])
    {'example': "['ab', 'cd']"}
    """
    if isinstance(case, dict) and isinstance(case.get("id"), str) and "clauses" in case:
        return {"vector": case["id"]}
    return {"example": repr(case)}


def _run_cases(check: Check, subject: Subject, attempt: Attempt, cases: Iterable[Any]) -> None:
    for case in cases:
        _verify_once(check, subject, attempt, case)  # a refused case is recorded; the next one still runs


def refusal_record(raised: ImplementationRaised, example: Any) -> JSONObject:
    """What a report says of one refusal: the call, the error, the input (its key groups the checks it blocked)."""
    return {
        "operation": raised.operation,
        "error": f"{raised.kind}: {raised.message}",
        "inputs": shown_input(example),
        "key": str(raised),
    }


def _refusal_result(check: Check, attempt: Attempt, started: float) -> CheckResult:
    raised, example = attempt.refusals[0]
    others = attempt.examples - len(attempt.refusals)
    message = (
        f"refused an input the profile accepts: {raised}; the check went on: "
        f"{plural(others, 'other example')} judged, no deviation"
    )
    records = [refusal_record(error, refused) for error, refused in attempt.refusals]
    counterexample = {"inputs": shown_input(example), "refused": True, "refusals": records}
    return _result(check, Outcome.ERROR, message, attempt, started, counterexample=counterexample)


def _with_refusals(result: CheckResult, attempt: Attempt) -> CheckResult:
    """``result`` carrying the refusals its check met before it ended (so the report groups them)."""
    if not attempt.refusals or result.outcome is Outcome.PASS:
        return result
    records = [refusal_record(error, refused) for error, refused in attempt.refusals]
    return dataclasses.replace(result, counterexample={**(result.counterexample or {}), "refusals": records})


def plural(count: int, noun: str) -> str:
    """``1 example``, ``2 examples``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _result(
    check: Check, outcome: Outcome, message: str, attempt: Attempt, started: float, **extra: Any
) -> CheckResult:
    return CheckResult(
        check=check.name,
        clause=extra.pop("clause", check.clause),
        clauses=check.clauses,
        summary=check.summary,
        outcome=outcome,
        message=message,
        examples=attempt.examples,
        seconds=round(time.monotonic() - started, 3),
        level=check.level,
        **extra,
    )


def classify(check: Check, error: BaseException, attempt: Attempt, started: float) -> CheckResult:
    """The outcome for a search that ended by raising ``error``."""
    if isinstance(error, Violation):
        set_up = set_up_level(check, error.clause)
        if set_up is not None:  # the check's set-up departed: the set-up's level reports it, not this one
            message = set_up_message(check, error.clause, set_up, error.message)
            return _result(check, Outcome.SKIP, message, attempt, started)
        return _result(
            check,
            Outcome.FAIL,
            error.message,
            attempt,
            started,
            clause=error.clause,
            counterexample=error.counterexample(),
        )
    if isinstance(error, Flaky) and attempt.last_violation is not None:
        violation = attempt.last_violation
        return _result(
            check,
            Outcome.FAIL,
            f"{violation.message} (not reproducible on a second call: the implementation is nondeterministic)",
            attempt,
            started,
            clause=violation.clause,
            counterexample=violation.counterexample(),
        )
    if isinstance(error, CallAborted):
        return _result(
            check,
            Outcome(error.outcome),
            f"{error.operation}: {error.detail}",
            attempt,
            started,
            counterexample={"inputs": error.inputs or shown_input(attempt.last_input)},
        )
    if isinstance(error, (ImplementationRaised, MalformedResult)):
        return _result(
            check,
            Outcome.ERROR,
            str(error),
            attempt,
            started,
            counterexample={"inputs": shown_input(attempt.last_input)},
        )
    if isinstance(error, HypothesisException):
        if attempt.refusals:  # every example (or too many) refused: the refusal is the finding
            return _refusal_result(check, attempt, started)
        return _result(check, Outcome.ERROR, f"hypothesis could not run this check: {error}", attempt, started)
    summary = "".join(traceback.format_exception_only(type(error), error)).strip()
    return _result(
        check,
        Outcome.ERROR,
        f"unexpected exception while checking: {summary}",
        attempt,
        started,
        counterexample={"inputs": shown_input(attempt.last_input)},
    )


def _unsaved(failure: str, check: Check, attempt: Attempt) -> str:
    """``failure`` with the check and the example it was judging when its database write failed.

    Hypothesis writes right after a failing example: that failure, in no database now, is said to be NOT
    SAVED and printed in full, so it is not lost with its entry.
    """
    violation = attempt.last_violation
    failing = (
        f"; the failure it found was NOT SAVED, here it is in full: {violation} with inputs {violation.inputs!r}"
        if violation is not None
        else ""
    )
    return f"{failure}; check {check.name}, example not saved: {attempt.last_input!r}{failing}"


def run_check(
    check: Check, subject: Subject, base: settings, seed: int = 0, database: ExampleDatabase | None = None
) -> CheckResult:
    """Run one check; never raises for anything the implementation does.

    Advisory notes go into the result; ``database`` replays saved failures first.
    """
    with collecting() as notes:
        result = _run_check(check, subject, base, seed, database)
    return dataclasses.replace(result, advisories=tuple(notes)) if notes else result


def _run_check(
    check: Check, subject: Subject, base: settings, seed: int, database: ExampleDatabase | None
) -> CheckResult:
    started = time.monotonic()
    attempt = Attempt()
    missing = check.missing_capabilities(subject.info.capabilities)
    if missing:
        return _result(check, Outcome.SKIP, f"capability not declared: {', '.join(missing)}", attempt, started)
    reason = None if check.unavailable is None else check.unavailable(subject)
    if reason is not None:
        return _result(check, Outcome.SKIP, f"skipped: {reason}", attempt, started)
    try:
        return _search_or_cases(check, subject, base, seed, database, attempt, started)
    finally:
        if check.finish is not None:
            check.finish(subject)


def _search_or_cases(
    check: Check,
    subject: Subject,
    base: settings,
    seed: int,
    database: ExampleDatabase | None,
    attempt: Attempt,
    started: float,
) -> CheckResult:
    try:
        if check.strategy is None:
            _run_cases(check, subject, attempt, check.fixed_cases(get_profile(subject.info.profile)))
        else:
            _run_search(check, subject, attempt, base, seed, database)
    except CallAborted as aborted:
        subject.reset()
        return classify(check, aborted, attempt, started)
    except DatabaseUnavailable as failure:
        # The harness's own storage failed: no verdict on the implementation, but what the check was
        # looking at when the write failed (hypothesis writes right after a failing example) is printed
        # in full, so a failure found is never lost with its database entry.
        lost = attempt.last_violation is not None
        raise DatabaseUnavailable(_unsaved(str(failure), check, attempt), lost_failure=lost) from failure
    except Exception as error:  # noqa: BLE001 - whatever the check or the implementation raised becomes an outcome, never a traceback
        return _with_refusals(classify(check, error, attempt, started), attempt)
    if attempt.refusals:
        return _refusal_result(check, attempt, started)
    return _result(check, Outcome.PASS, f"{attempt.examples} examples", attempt, started)


def run_checks(
    checks: list[Check],
    subject: Subject,
    base: settings,
    seed: int = 0,
    skipped: dict[str, str] | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
    database: ExampleDatabase | None = None,
) -> list[CheckResult]:
    """Run ``checks`` in order; ``skipped`` maps check names to the reason they are skipped."""
    results = []
    for check in checks:
        if skipped and check.name in skipped:
            result = _result(check, Outcome.SKIP, f"skipped: {skipped[check.name]}", Attempt(), time.monotonic())
        else:
            result = run_check(check, subject, base, seed, database)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results
