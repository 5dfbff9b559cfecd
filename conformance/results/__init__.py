"""What a check produces: its outcome and the advisory notes it records.

Owns :mod:`~bpe_conformance.results.outcomes` (the named outcomes and ``CheckResult``) and
:mod:`~bpe_conformance.results.advisories` (SHOULD-level notes, never failures). Imports nothing of the
harness; the checks, the runner, the reports and the CLI import it.
"""
