"""Known-answer vectors of every profile: reading and validating the files, replaying them, generating them.

Owns :mod:`~bpe_conformance.vectors.files` (the committed files under ``specs/vectors`` for strict and
``specs/vectors/<profile>`` for every other profile, schema-checked), :mod:`~bpe_conformance.vectors.replay`
(replaying a vector against any implementation), :mod:`~bpe_conformance.vectors.generate` (answers computed
by the reference, under each profile, from :mod:`bpe_conformance.inputs.corpora`) and
:mod:`~bpe_conformance.vectors.output` (the files' exact text, written and checked byte for byte). Imports
the spec resources, the inputs and the reference; the vector checks and the CLI import it.
"""
