"""Running a suite: a configuration checked once into a :class:`RunPlan`, then run into a :class:`SuiteResult`.

The public API is :class:`RunConfig` (what a run is asked), :class:`RunPlan` (that configuration checked:
selection, level, skip file, profile, database, effort), the :class:`OpenedRun` it opens,
:class:`RunObserver` (told as each check starts and ends), :class:`SuiteResult` (which knows its exit
code) and :class:`RunInterrupted` (a signal stopped the run; it carries the results so far). Every front
end (``run``, ``fuzz`` and its workers, ``matrix``, the pytest plugin) uses only these.

Inside: :mod:`~bpe_conformance.running.runner` (one check and its outcome; the harness is never taken
down), :mod:`~bpe_conformance.running.suite` (selection, profile, skip files), :mod:`~bpe_conformance.running.plan`
(the plan and the run), :mod:`~bpe_conformance.running.skipfile` (declared deviations) and
:mod:`~bpe_conformance.running.database` (the example database). Imports the checks, the adapters, the
dialects and the results; the reports, the zoo proof, the matrix, the plugin and the CLI import it.
"""

from bpe_conformance.results.outcomes import SuiteResult
from bpe_conformance.running.plan import CallbackObserver, OpenedRun, RunObserver, RunPlan
from bpe_conformance.running.suite import HARNESS_NAME, RunConfig, RunInterrupted

__all__ = [
    "HARNESS_NAME",
    "CallbackObserver",
    "OpenedRun",
    "RunConfig",
    "RunInterrupted",
    "RunObserver",
    "RunPlan",
    "SuiteResult",
]
