"""The inputs the checks and the vectors are made of: hypothesis strategies and seeded corpora.

Owns :mod:`~bpe_conformance.inputs.strategies` (exported strategies, for the checks' property tests and
for yours) and :mod:`bpe_conformance.inputs.corpora` (the deterministic cases behind the known-answer
vectors). Imports only the reference; the checks, the vectors and the diagnosis import it.
"""
