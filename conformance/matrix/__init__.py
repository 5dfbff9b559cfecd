"""The real-world matrix: every installed third-party library run through the suite and tabulated.

Owns :mod:`~conformance.matrix.run` (one row per library, judged under its declared profile and
under ``strict``) and :mod:`~conformance.matrix.render` (the Markdown page and its failure list).
Imports the running suite, the adapters and the dialects; only the CLI imports it.
"""
