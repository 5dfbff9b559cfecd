"""A run in production configuration: the vocabulary read and bound, then the production checks.

``run --vocabulary PATH`` (with a production ``--profile``, or one the implementation declares) reads and
validates the vocabulary, gives it to the implementation (:func:`bpe_conformance.dialects.production.bind_vocabulary`)
and runs :data:`bpe_conformance.checks.production.PRODUCTION_CHECKS`. Every report records the
vocabulary's file, size and SHA-256 (``config.vocabulary``).
"""

from __future__ import annotations

import dataclasses
import datetime
import fnmatch
import time
from typing import TYPE_CHECKING

from bpe_conformance.checks.production import PRODUCTION_CHECKS
from bpe_conformance.dialects.production import ProductionSetup, bind_vocabulary
from bpe_conformance.errors import HarnessError
from bpe_conformance.reference.pretokenization import SPLIT_PROFILES, PatternError
from bpe_conformance.reference.vocabulary import VocabularyError, read_vocabulary
from bpe_conformance.results.outcomes import CheckResult, SuiteResult, VocabularyRecord
from bpe_conformance.running.runner import run_checks
from bpe_conformance.running.skipfile import SkipPlan
from bpe_conformance.running.suite import (
    RunConfig,
    at_level,
    config_record,
    effort_settings,
    harness_version,
    implementation_record,
)
from bpe_conformance.settings import HYPOTHESIS_VERSION

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.checks.base import Check

__all__ = ["production_checks", "production_setup_for", "run_production_suite", "vocabulary_record"]


def production_setup_for(profile_name: str | None, declared: str, vocabulary_spec: str) -> ProductionSetup:
    """The profile (``--profile``, else the declared one) and the vocabulary file, both checked."""
    name = profile_name if profile_name is not None else declared
    if name not in SPLIT_PROFILES:
        raise HarnessError(
            f"--vocabulary needs a production profile ({', '.join(SPLIT_PROFILES)}); "
            f"{'--profile' if profile_name is not None else 'the implementation declares'} {name!r}"
        )
    profile = SPLIT_PROFILES[name]
    try:
        vocabulary = read_vocabulary(vocabulary_spec)
    except (VocabularyError, PatternError) as error:
        raise HarnessError(f"--vocabulary {error}") from None
    if not vocabulary.special_tokens:  # a rank file has no specials: they are the profile's
        vocabulary = type(vocabulary)(
            vocabulary.pieces, dict(profile.special_tokens), vocabulary.source, vocabulary.sha256
        )
    clash = [text for text, token_id in vocabulary.special_tokens.items() if token_id < vocabulary.size]
    if clash:
        raise HarnessError(
            f"--vocabulary {vocabulary.source}: {vocabulary.size} pieces, so profile {name}'s special token "
            f"{clash[0]!r} (id {vocabulary.special_tokens[clash[0]]}) would take a piece's id"
        )
    return ProductionSetup(profile, vocabulary)


def production_checks(patterns: Sequence[str], level: str) -> list[Check]:
    """The production checks whose name or clause matches a pattern (all without patterns), at ``level``."""
    chosen = [
        check
        for check in PRODUCTION_CHECKS
        if not patterns
        or any(fnmatch.fnmatchcase(label, pattern) for pattern in patterns for label in (check.name, *check.clauses))
    ]
    if patterns and not chosen:
        names = ", ".join(check.name for check in PRODUCTION_CHECKS)
        raise HarnessError(f"no production check matches {', '.join(patterns)} (the production checks: {names})")
    return at_level(chosen, level)


def vocabulary_record(setup: ProductionSetup) -> VocabularyRecord:
    """What every report says of the vocabulary: file, size, specials and SHA-256."""
    vocabulary = setup.vocabulary
    return VocabularyRecord(
        profile=setup.profile.name,
        source=vocabulary.source,
        size=vocabulary.size,
        special_tokens=tuple(vocabulary.special_tokens.items()),
        sha256=vocabulary.sha256,
    )


def run_production_suite(
    config: RunConfig,
    subject: Subject,
    setup: ProductionSetup,
    checks: list[Check],
    on_start: Callable[[Check, int, int], None] | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
) -> SuiteResult:
    """Bind the vocabulary, then run ``checks`` one at a time (no skip file: none names these checks yet)."""
    bound = bind_vocabulary(subject, setup)
    settings = effort_settings(config.effort)
    started_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    started = time.monotonic()
    results: list[CheckResult] = []
    for index, check in enumerate(checks):
        if on_start is not None:
            on_start(check, index, len(checks))
        results.extend(run_checks([check], bound, settings, config.seed))
        if on_result is not None:
            on_result(results[-1])
    return SuiteResult(
        implementation=implementation_record(bound, config.impl, config.isolation_used),
        results=results,
        seed=config.seed,
        effort=config.effort,
        seconds=round(time.monotonic() - started, 3),
        harness_version=harness_version(),
        started_at=started_at,
        # As any run records its configuration (no skip file: none names these checks yet), with the
        # vocabulary's profile and the vocabulary itself.
        config=dataclasses.replace(
            config_record(config, checks, SkipPlan()), profile=setup.profile.name, vocabulary=vocabulary_record(setup)
        ),
        hypothesis_version=HYPOTHESIS_VERSION,
    )
