"""The real-world matrix: every installed third-party library run through the suite and tabulated.

Owns :mod:`~bpe_conformance.matrix.run` (one row per library, judged under its declared profile and
under ``strict``), :mod:`~bpe_conformance.matrix.record` (the matrix as one JSON document, kept as
``docs/matrix.json``), :mod:`~bpe_conformance.matrix.render` (the Markdown page and its failure list) and
:mod:`~bpe_conformance.matrix.page` (the self-contained HTML page), both rendered from that document, and
:mod:`~bpe_conformance.matrix.diff` (the cells that changed between two documents). Imports the running
suite, the checks' levels, the adapters and the dialects; only the CLI imports it.
"""
