"""What a worker tells the coordinator: one JSON object per line on the worker's stdout.

``ready`` (the implementation is open), ``progress`` (examples run so far, per check: cumulative, so a
lost line loses nothing), ``round`` (a check's round ended: seed, budget, outcome), ``finding`` (a
round failed: the result, with its shrunk counterexample), ``fatal`` (the worker cannot go on: why),
``done`` (the worker stopped: ``deadline``, ``signal`` or ``exhausted``).

>>> from bpe_conformance.results.outcomes import CheckResult, Outcome
>>> result = CheckResult("tie-break", "BPE-TRAIN-TIE", ("BPE-TRAIN-TIE",), "ties", Outcome.FAIL, "m", 3, 0.5,
...                      counterexample={"inputs": {"documents": ["ab"]}, "actual": (1, 2)})
>>> decode_event(encode_event("finding", result=result_record(result)))["result"]["counterexample"]
{'inputs': {'documents': ['ab']}, 'actual': [1, 2]}
>>> result_from_record(result_record(result)) == CheckResult(**{**result.__dict__,
...     "counterexample": {"inputs": {"documents": ["ab"]}, "actual": [1, 2]}})
True
"""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import TYPE_CHECKING, Any

from bpe_conformance.reports.common import capped_for_json, to_json_safe
from bpe_conformance.results.outcomes import CheckResult, Outcome

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["EVENTS", "EventKind", "decode_event", "encode_event", "result_from_record", "result_record"]


class EventKind(str, enum.Enum):
    """What a worker tells the coordinator; the value is the ``event`` field of the JSON line."""

    READY = "ready"  # the implementation is open
    PROGRESS = "progress"  # examples run so far, per check (cumulative)
    ROUND = "round"  # one round of one check ended
    FINDING = "finding"  # a failure, shrunk and saved
    FATAL = "fatal"  # the worker cannot go on
    DONE = "done"  # the worker stopped, and why


EVENTS = tuple(kind.value for kind in EventKind)


def encode_event(kind: EventKind, **fields: Any) -> bytes:
    """One event as a line of ASCII JSON (lone surrogates survive as escapes).

    >>> encode_event(EventKind.DONE, worker=0, reason="deadline")
    b'{"event": "done", "worker": 0, "reason": "deadline"}\\n'
    """
    return (json.dumps({"event": EventKind(kind).value, **to_json_safe(fields)}, ensure_ascii=True) + "\n").encode(
        "ascii"
    )


def decode_event(line: bytes) -> JSONObject:
    """The event on ``line``; a ValueError for anything that is not one of :data:`EVENTS`."""
    try:
        event = json.loads(line)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"not a JSON line: {error}") from None
    if not isinstance(event, dict) or event.get("event") not in EVENTS:
        raise ValueError(f"not a worker event: {line[:80]!r}")
    return event


def result_record(result: CheckResult) -> JSONObject:
    """``result`` as JSON data, each string capped as the JSON report caps it."""
    record = to_json_safe(dataclasses.asdict(result))
    record["outcome"] = result.outcome.value
    return dict(capped_for_json(record))


def result_from_record(record: JSONObject) -> CheckResult:
    """The :class:`CheckResult` that :func:`result_record` wrote (tuples come back as tuples)."""
    return CheckResult(
        **{
            **record,
            "outcome": Outcome(record["outcome"]),
            "clauses": tuple(record["clauses"]),
            "advisories": tuple(record.get("advisories", ())),
        }
    )
