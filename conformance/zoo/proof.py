"""Proving the harness against the bug zoo: run the checks on a member or control and summarise.

A member is *proven* when the harness rejects it under its own clause: some failure names exactly its
``clause`` (the clause of its bug, localised by experiments for training, encoding, decoding and loading
failures). A failure under one of its ``also`` clauses is shown as information (the verdict, the JSON
record's ``reported_clauses``) but proves nothing: a member told only the clause of a symptom sends its
reader to the wrong code. A control is proven when every check of the suite passes. The quick proof runs
only the checks that may report a claimed clause, those of its own clause first, and stops at the first
failure under its own clause; the full proof runs every check.

>>> from bpe_conformance.zoo import by_name
>>> member = by_name("ties-to-largest-pair")
>>> claimed_clauses(member), area(member), area(by_name("zoo-base"))
(('BPE-TRAIN-TIE', 'BPE-PROP-DETERMINISM'), 'training', 'controls')
>>> [check.name for check in relevant_checks(member)][:2]
['tie-break', 'determinism']
>>> proof = quick_proof(member)
>>> proven(proof), verdict(proof)
(True, 'rejected with BPE-TRAIN-TIE by tie-break')
>>> matching_failure(proof).counterexample["divergence"]["diagnosis"]
'tie broken the other way'
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.running.suite import effort_settings

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    from bpe_conformance.checks.base import Check
    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "DEFAULT_EFFORT",
    "DEFAULT_SEED",
    "Proof",
    "Tally",
    "area",
    "as_record",
    "claimed_clauses",
    "failures",
    "full_proof",
    "headline",
    "is_member",
    "matching_failure",
    "outcome_by_check",
    "own_clause_failure",
    "own_clause_line",
    "prove",
    "prove_all",
    "proven",
    "quick_proof",
    "relevant_checks",
    "reported_clauses",
    "tally",
    "verdict",
]

# The gallery and the tests must see the same examples wherever they run, so these never follow $CI.
DEFAULT_EFFORT = "dev"
DEFAULT_SEED = 0


@dataclass(frozen=True)
class Proof:
    """What the harness said about one implementation: every check that ran, in the order it ran.

    ``complete`` says every check it was given ran: False when it stopped at the first failure under the
    member's own clause.
    """

    name: str
    area: str
    claimed: tuple[str, ...]
    results: tuple[CheckResult, ...]
    complete: bool
    effort: str
    seed: int


@dataclass(frozen=True)
class Tally:
    """How many members were rejected under their own clause and how many controls were accepted.

    ``members_own_clause`` counts the members rejected under exactly their own clause (since the proof
    requires it, the same as ``members_rejected``); ``other_clause`` names the members rejected only under
    one of their ``also`` clauses (or not at all).
    """

    members_rejected: int
    members: int
    controls_accepted: int
    controls: int
    unproven: tuple[str, ...]
    members_own_clause: int = 0
    other_clause: tuple[str, ...] = ()


def is_member(implementation: type) -> bool:
    """True for a zoo member (it names the clause it breaks), False for a control."""
    return isinstance(getattr(implementation, "clause", None), str)


def claimed_clauses(implementation: type) -> tuple[str, ...]:
    """The member's ``clause`` then its ``also``; nothing for a control."""
    if not is_member(implementation):
        return ()
    return (implementation.clause, *implementation.also)  # type: ignore[attr-defined]


def area(implementation: type) -> str:
    """The zoo module a member lives in (corpus, counting, ..., state); ``controls`` for a control."""
    if not is_member(implementation):
        return "controls"
    return implementation.__module__.rsplit(".", 1)[-1]


def _priority(check: Check, claimed: tuple[str, ...]) -> int:
    # A check about the member's own clause first, then one about a clause it also breaks, then a
    # check that may merely report one of them (the known-answer vectors report every clause).
    if check.clause == claimed[0]:
        return 0
    return 1 if check.clause in claimed else 2


def relevant_checks(implementation: type, checks: Sequence[Check] = ALL_CHECKS) -> list[Check]:
    """The checks that may report a clause the member claims, most specific first; all checks for a control."""
    claimed = claimed_clauses(implementation)
    if not claimed:
        return list(checks)
    chosen = [check for check in checks if set(check.clauses) & set(claimed)]
    return sorted(chosen, key=lambda check: _priority(check, claimed))  # stable: suite order within a rank


def _matches(result: CheckResult, claimed: tuple[str, ...]) -> bool:
    return result.outcome is Outcome.FAIL and result.clause in claimed


def _own(result: CheckResult, claimed: tuple[str, ...]) -> bool:
    return bool(claimed) and result.outcome is Outcome.FAIL and result.clause == claimed[0]


@contextlib.contextmanager
def _without_local_constants() -> Iterator[None]:
    """Stop hypothesis from mixing literals of the harness's own source files into the examples it draws.

    Recent hypothesis versions draw, now and then, a literal found in any loaded module outside
    site-packages. Which harness modules are loaded, and whether the package is installed editable,
    would then change the examples and shrunk counterexamples of a fixed seed: the zoo proof and its
    gallery must not depend on what else a process imported. Versions without this pool are unaffected.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a hypothesis without this module has no local constants
        yield
        return
    original = getattr(providers, "_get_local_constants", None)
    constants, cache = getattr(providers, "Constants", None), getattr(providers, "CONSTANTS_CACHE", None)
    if original is None or constants is None or cache is None:
        yield
        return
    empty = constants()
    providers._get_local_constants = lambda: empty
    cache.cache.clear()  # drawn pools are cached per choice type; drop those built with the local constants
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.cache.clear()


def prove(
    implementation: type,
    checks: Sequence[Check],
    *,
    effort: str = DEFAULT_EFFORT,
    seed: int = DEFAULT_SEED,
    stop_at_match: bool = False,
) -> Proof:
    """Run ``checks`` in order on one in-process instance, as ``bpe-conformance run`` does.

    With ``stop_at_match``, stop after the first failure under the member's own clause. The examples
    depend only on the checks, the effort and the seed (see :func:`_without_local_constants`).
    """
    effort_budget = effort_settings(effort)
    claimed = claimed_clauses(implementation)
    subject = InProcessSubject(implementation, label=str(implementation.name))  # type: ignore[attr-defined]
    results: list[CheckResult] = []
    with _without_local_constants():
        for check in checks:
            results.append(run_check(check, subject, effort_budget, seed))
            if stop_at_match and _own(results[-1], claimed):
                break
    return Proof(
        name=str(implementation.name),  # type: ignore[attr-defined]
        area=area(implementation),
        claimed=claimed,
        results=tuple(results),
        complete=len(results) == len(checks),
        effort=effort,
        seed=seed,
    )


def quick_proof(implementation: type, *, effort: str = DEFAULT_EFFORT, seed: int = DEFAULT_SEED) -> Proof:
    """A member: its relevant checks until one fails under its own clause. A control: every check."""
    return prove(implementation, relevant_checks(implementation), effort=effort, seed=seed, stop_at_match=True)


def full_proof(implementation: type, *, effort: str = DEFAULT_EFFORT, seed: int = DEFAULT_SEED) -> Proof:
    """Every check of the suite, in suite order, whatever fails."""
    return prove(implementation, ALL_CHECKS, effort=effort, seed=seed)


def _worker_context() -> multiprocessing.context.BaseContext:
    # Forked workers need not re-import the main module, which for `python -m bpe_conformance` would run the CLI again.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


# The members run in this process, where nothing else bounds their memory: one that sizes a table by
# max_merges (vocab-sized-by-request) met a budget past 2**31 and took 24 GB before the kernel killed the
# whole proof. Under this bound (the whole proof peaks near 1.3 GB resident) the allocation fails as a
# MemoryError, judged as the member's own answer.
MEMBER_ADDRESS_SPACE = 3 * 2**30


@contextlib.contextmanager
def bounded_address_space(limit: int = MEMBER_ADDRESS_SPACE) -> Iterator[None]:
    """Lower this process's soft address-space limit to ``limit`` (Linux; elsewhere nothing), then restore it.

    >>> with bounded_address_space():
    ...     try:
    ...         table = bytearray(16 * 2**30)
    ...     except MemoryError:
    ...         print("refused")
    refused
    """
    try:
        import resource
    except ImportError:  # not on this platform: nothing to bound
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    bounded = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    lowered = soft == resource.RLIM_INFINITY or soft > bounded
    if lowered:
        resource.setrlimit(resource.RLIMIT_AS, (bounded, hard))
    try:
        yield
    finally:
        if lowered:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _prove_one(task: tuple[type, bool, str, int]) -> Proof:
    implementation, full, effort, seed = task
    method = full_proof if full else quick_proof
    with bounded_address_space():
        return method(implementation, effort=effort, seed=seed)


def prove_all(
    implementations: Iterable[type],
    *,
    full: bool = False,
    effort: str = DEFAULT_EFFORT,
    seed: int = DEFAULT_SEED,
    jobs: int = 1,
    on_proof: Callable[[Proof], None] | None = None,
) -> list[Proof]:
    """A proof for each implementation, in the order given; ``jobs`` > 1 proves that many at once in processes.

    Each proof depends only on its implementation, the effort and the seed, so ``jobs`` never changes a result.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive int, got {jobs!r}")
    effort_settings(effort)  # an unknown effort fails here, before any worker starts
    tasks = [(implementation, full, effort, seed) for implementation in implementations]
    proofs: list[Proof] = []
    if jobs == 1:
        for task in tasks:
            proofs.append(_prove_one(task))
            if on_proof is not None:
                on_proof(proofs[-1])
        return proofs
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=_worker_context()) as pool:
        for proof in pool.map(_prove_one, tasks):
            proofs.append(proof)
            if on_proof is not None:
                on_proof(proof)
    return proofs


def failures(proof: Proof) -> list[CheckResult]:
    """The results that reject the implementation: fail, error, timeout, crash."""
    return [result for result in proof.results if not result.outcome.counts_as_success]


def reported_clauses(proof: Proof) -> list[str]:
    """The clauses of the failures, each once, in the order they were reported."""
    return list(dict.fromkeys(result.clause for result in failures(proof) if result.outcome is Outcome.FAIL))


def matching_failure(proof: Proof) -> CheckResult | None:
    """The failure that proves the member (with its minimal counterexample), if any.

    The first failure under the member's own clause, else the first under one of its ``also`` clauses:
    a verdict names the clause of the bug whenever some check reported it.
    """
    own = own_clause_failure(proof)
    if own is not None:
        return own
    return next((result for result in proof.results if _matches(result, proof.claimed)), None)


def own_clause_failure(proof: Proof) -> CheckResult | None:
    """The first failure naming exactly the member's own clause (its ``clause``, not an ``also``), if any."""
    if not proof.claimed:
        return None
    return next((result for result in proof.results if _own(result, proof.claimed)), None)


def outcome_by_check(proof: Proof) -> dict[str, str]:
    """Check name → outcome, for every check that ran."""
    return {result.check: result.outcome.value for result in proof.results}


def proven(proof: Proof) -> bool:
    """A member rejected under its own clause; a control with no failure at all."""
    if proof.claimed:
        return own_clause_failure(proof) is not None
    return not failures(proof)


def verdict(proof: Proof) -> str:
    """One line: how the harness judged the implementation.

    >>> from bpe_conformance.zoo import by_name
    >>> verdict(quick_proof(by_name("accepts-bool-ids")))
    'rejected with BPE-INPUT-IDS by ids-validation'
    """
    found = failures(proof)
    if not proof.claimed:
        if not found:
            return f"accepted: {len(proof.results)} checks passed"
        return "FALSE POSITIVE: " + ", ".join(f"{result.check} {result.outcome.value}" for result in found)
    match = own_clause_failure(proof)
    if match is not None:
        return f"rejected with {match.clause} by {match.check}"
    if found:
        reported = ", ".join(f"{result.clause} ({result.check})" for result in found)
        return f"rejected only under other clauses: {reported}"
    return f"NOT REJECTED: {len(proof.results)} checks passed"


def tally(proofs: Iterable[Proof]) -> Tally:
    """Count members rejected under their own clause and controls accepted; list the others by name."""
    proofs = list(proofs)
    members = [proof for proof in proofs if proof.claimed]
    controls = [proof for proof in proofs if not proof.claimed]
    return Tally(
        members_rejected=sum(1 for proof in members if proven(proof)),
        members=len(members),
        controls_accepted=sum(1 for proof in controls if proven(proof)),
        controls=len(controls),
        unproven=tuple(proof.name for proof in proofs if not proven(proof)),
        members_own_clause=sum(1 for proof in members if own_clause_failure(proof) is not None),
        other_clause=tuple(proof.name for proof in members if own_clause_failure(proof) is None),
    )


def headline(counts: Tally) -> str:
    """The measured result in one line.

    >>> headline(Tally(65, 66, 5, 5, ("x",)))
    'rejected 65/66 members under their own clause, accepted 5/5 controls'
    """
    return (
        f"rejected {counts.members_rejected}/{counts.members} members under their own clause, "
        f"accepted {counts.controls_accepted}/{counts.controls} controls"
    )


def own_clause_line(counts: Tally) -> str:
    """The right-clause rate: members rejected under exactly their own clause (meaningful for a full proof).

    >>> own_clause_line(Tally(65, 66, 5, 5, ("x",), 60, ("x", "y")))
    'rejected 60/66 members under their own clause (the rest only under a clause they also break)'
    """
    return (
        f"rejected {counts.members_own_clause}/{counts.members} members under their own clause "
        "(the rest only under a clause they also break)"
    )


def as_record(proof: Proof) -> JSONObject:
    """A JSON-ready summary: verdict, outcome per check, clauses reported, the matching counterexample."""
    match = matching_failure(proof)
    return {
        "name": proof.name,
        "area": proof.area,
        "claimed": list(proof.claimed),
        "proven": proven(proof),
        "own_clause": own_clause_failure(proof) is not None,
        "verdict": verdict(proof),
        "outcomes": outcome_by_check(proof),
        "reported_clauses": reported_clauses(proof),
        "counterexample": None if match is None else match.counterexample,
        "effort": proof.effort,
        "seed": proof.seed,
    }
