"""The specification as the harness reads it: the documents shipped as package data, and the clause registry.

Owns :mod:`~bpe_conformance.spec.resources` (``specs/`` inside an installed wheel, through
``importlib.resources``) and :mod:`~bpe_conformance.spec.clauses` (every clause id of ``specs/bpe.md``
with its level and text). Imports nothing else of the harness; everything else may import it.
"""
