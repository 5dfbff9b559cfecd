"""Fuzz campaigns: the checks run for a set time on every core, every failure kept in an example database.

``bpe-conformance fuzz`` starts :mod:`~bpe_conformance.fuzzing.campaign`'s coordinator, which runs one
worker process per ``--jobs`` (:mod:`~bpe_conformance.fuzzing.worker`, ``python -m
bpe_conformance.fuzzing.worker``). Each worker opens its own implementation (in its own process, as ``run``
does) and runs the selected checks round-robin (:mod:`~bpe_conformance.fuzzing.schedule`) with fresh seeds
and growing example counts through the same runner as ``run``, so hypothesis shrinks every failure and
saves it in the example database (:mod:`bpe_conformance.running.database`: a directory, or Redis for several
machines) under the same key ``run`` and the pytest plugin replay from. Workers report over JSON lines
(:mod:`~bpe_conformance.fuzzing.messages`); the coordinator keeps each distinct failure once
(:mod:`~bpe_conformance.fuzzing.findings`), records what it was asked and what it found
(:mod:`~bpe_conformance.fuzzing.records`), shows the campaign live (:mod:`~bpe_conformance.fuzzing.display`) and
writes the JSON summary (:mod:`~bpe_conformance.fuzzing.report`, ``specs/schema/fuzz.schema.json``).
Durations such as ``90s``, ``10m``, ``2h`` are read by :mod:`~bpe_conformance.fuzzing.durations`.

It sits above ``running/`` and ``reports/`` (it reuses the runner, the suite's selection and the
terminal's failure text) and below the front ends (``cli/``); nothing below imports it.
"""
