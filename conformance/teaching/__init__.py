"""Teaching what correct means: the reference's traces and the specification's clauses, shown to a reader.

Owns :mod:`~bpe_conformance.teaching.labels` (how ids, pieces, counts and the reasons of a round are
written), :mod:`~bpe_conformance.teaching.training_view` and :mod:`~bpe_conformance.teaching.encoding_view`
(the terminal views of ``bpe-conformance trace``), :mod:`~bpe_conformance.teaching.page` (the same trace as
one self-contained HTML page, ``trace --html``) and :mod:`~bpe_conformance.teaching.clause_view` (a clause
in document order, with the checks, vectors and zoo members that stand behind it: ``explain``), and
:mod:`~bpe_conformance.teaching.gallery` (the bug-zoo gallery, ``docs/bug-zoo.md``: what each member breaks,
what the harness found and why it is a bug).

What a trace records is the reference's business (``reference/trace.py``,
``reference/encoding_trace.py``); this package only presents it. It may read the specification, the
checks, the vectors, the zoo and the report helpers; only the command line imports it.
"""
