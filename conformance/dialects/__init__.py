"""Dialects: which profile an implementation is judged under, and which profiles explain it.

Owns :mod:`~bpe_conformance.dialects.context` (the profile of a run and the reference bound to it),
:mod:`~bpe_conformance.dialects.answer_bounds` (limits on what an answer may imply before anything is
built from it) and :mod:`~bpe_conformance.dialects.identify` (probing an implementation against every
profile). Imports the reference, the adapters and :mod:`bpe_conformance.errors`; the diagnosis, the
checks, the suite and the CLI import it.
"""
