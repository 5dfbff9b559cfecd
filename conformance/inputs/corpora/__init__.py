"""Deterministic adversarial corpora: the inputs behind the known-answer vectors.

One seed gives the same cases on every machine: :mod:`~conformance.inputs.corpora.training` (worked
examples, counting builders, and the list of every builder), :mod:`~conformance.inputs.corpora.text`
(scripts, emoji, normalization), :mod:`~conformance.inputs.corpora.loading` (rule lists for
``load``), :mod:`~conformance.inputs.corpora.invalid` (rejected calls) and
:mod:`~conformance.inputs.corpora.base` (alphabets, seeded text, ``TrainingCase``). Imports only
the reference; :mod:`conformance.vectors.generate` imports it.
"""
