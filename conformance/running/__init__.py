"""Running a suite: one check under its budget, then every selected check into a ``SuiteResult``.

Owns :mod:`~bpe_conformance.running.runner` (one check and its outcome; the harness is never taken
down), :mod:`~bpe_conformance.running.suite` (selection, profile, skip files, the whole run) and
:mod:`~bpe_conformance.running.skipfile` (declared deviations). Imports the checks, the adapters, the
dialects and the results; the reports, the zoo proof, the matrix, the plugin and the CLI import it.
"""
