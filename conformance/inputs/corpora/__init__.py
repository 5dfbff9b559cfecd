"""Deterministic adversarial corpora: the inputs behind the known-answer vectors.

One seed gives the same cases on every machine: :mod:`~bpe_conformance.inputs.corpora.training` (worked
examples, counting builders, and the list of every builder), :mod:`~bpe_conformance.inputs.corpora.text`
(scripts, emoji, normalization), :mod:`~bpe_conformance.inputs.corpora.loading` (rule lists for
``load``), :mod:`~bpe_conformance.inputs.corpora.invalid` (rejected calls) and
:mod:`~bpe_conformance.inputs.corpora.base` (alphabets, seeded text, ``TrainingCase``). Imports only
the reference; :mod:`bpe_conformance.vectors.generate` imports it.
"""
