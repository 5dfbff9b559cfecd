"""Known-answer vectors: reading and validating the files, replaying them, and generating them.

Owns :mod:`~conformance.vectors.files` (the committed files under ``specs/vectors``, schema-checked),
:mod:`~conformance.vectors.replay` (replaying a vector against any implementation) and
:mod:`~conformance.vectors.generate` (answers computed by the reference from
:mod:`conformance.inputs.corpora`). Imports the spec resources, the inputs and the reference; the
vector checks and the CLI import it.
"""
