"""Comparing an implementation with the reference on a real corpus: ``bpe-conformance compare``.

Owns :mod:`~bpe_conformance.compare.corpus` (reading files, directories and JSON-lines files, one document
at a time), :mod:`~bpe_conformance.compare.training` (training both sides at once, a failing call kept as a
named outcome), :mod:`~bpe_conformance.compare.state` (the reference's state at a round, and the judgement
of the first divergent round), :mod:`~bpe_conformance.compare.comparison` (the whole comparison: rules, then
encoded ids), :mod:`~bpe_conformance.compare.shrink` (a smaller corpus with the same first divergence),
:mod:`~bpe_conformance.compare.report` (the JSON report of ``specs/schema/compare.schema.json`` and the
terminal lines) and :mod:`~bpe_conformance.compare.progress` (the live display).

Imports the adapters, the dialects, the diagnosis, the checks' retrainer and the running suite's
helpers for a subject; only the CLI imports it.
"""
