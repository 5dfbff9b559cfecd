"""Fuzz campaigns: the checks run for a set time on every core, every failure kept in an example database.

``bpe-conformance fuzz`` starts :mod:`~conformance.fuzzing.campaign`'s coordinator, which runs one
worker process per ``--jobs`` (:mod:`~conformance.fuzzing.worker`, ``python -m
conformance.fuzzing.worker``). Each worker opens its own implementation (in its own process, as ``run``
does) and runs the selected checks round-robin (:mod:`~conformance.fuzzing.schedule`) with fresh seeds
and growing example counts through the same runner as ``run``, so hypothesis shrinks every failure and
saves it in the example database (:mod:`conformance.running.database`: a directory, or Redis for several
machines) under the same key ``run`` and the pytest plugin replay from. Workers report over JSON lines
(:mod:`~conformance.fuzzing.messages`); the coordinator keeps each distinct failure once
(:mod:`~conformance.fuzzing.findings`), records what it was asked and what it found
(:mod:`~conformance.fuzzing.records`), shows the campaign live (:mod:`~conformance.fuzzing.display`) and
writes the JSON summary (:mod:`~conformance.fuzzing.report`, ``specs/schema/fuzz.schema.json``).
Durations such as ``90s``, ``10m``, ``2h`` are read by :mod:`~conformance.fuzzing.durations`.

It sits above ``running/`` and ``reports/`` (it reuses the runner, the suite's selection and the
terminal's failure text) and below the front ends (``cli/``); nothing below imports it.
"""
