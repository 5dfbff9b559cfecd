"""Replaying a known-answer vector against an implementation of the plug-in contract.

Every vector runs against a fresh object from the factory. Each disagreement becomes a
:class:`Mismatch` naming the vector, its clauses, the operation and its input, and what was expected
against what came back; an optional operation the object lacks (``load``, ``dumps``,
``decode_bytes``, ...) is recorded once per vector as skipped rather than as a failure.

>>> from bpe_conformance.reference import Tokenizer
>>> vector = load_vectors()["training.json"][0]
>>> replay_vector(Tokenizer, vector)
[]
>>> class BytesOnly(Tokenizer):
...     def encode(self, text):
...         return list(text.encode("utf-8"))
>>> found = replay_vector(BytesOnly, vector)[0]
>>> found.operation, found.input, found.expected, found.actual
('encode', {'text': 'abac'}, [258, 259], [97, 98, 97, 99])
>>> format_mismatch(found).endswith('encode {"text": "abac"}: expected [258, 259], got [97, 98, 97, 99]')
True
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bpe_conformance.errors import ImplementationRaised, error_families, exception_ancestors
from bpe_conformance.inputs.unrepresentable import restore
from bpe_conformance.vectors.files import load_vectors, vector_kind

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["Mismatch", "call_operation", "error_families_of", "format_mismatch", "replay_all", "replay_vector"]


@dataclass(frozen=True)
class Mismatch:
    """One disagreement with a vector (or, when ``skipped``, a check the object could not take part in).

    ``advisory``: not a disagreement but a SHOULD not followed (the other of the two error families).
    """

    vector_id: str
    clauses: tuple[str, ...]
    operation: str
    input: Any
    expected: Any
    actual: Any
    skipped: bool = False
    advisory: bool = False


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr)


def _plain(value: Any) -> Any:
    return [_plain(item) for item in value] if isinstance(value, (list, tuple)) else value


def _raised(error: BaseException) -> str:
    # What the implementation raised, in its own words; never the harness's wrapper around it.
    if isinstance(error, ImplementationRaised):
        return f"raised {error.kind}: {error.message}"
    return f"raised {type(error).__name__}: {error}"


@dataclass
class _Replay:
    """The vector being replayed and what was found so far."""

    vector: Mapping[str, Any]
    found: list[Mismatch] = field(default_factory=list)


def _record(
    replay: _Replay,
    operation: str,
    given: Any,
    expected: Any,
    actual: Any,
    skipped: bool = False,
    advisory: bool = False,
) -> None:
    vector = replay.vector
    replay.found.append(
        Mismatch(vector["id"], tuple(vector["clauses"]), operation, given, expected, actual, skipped, advisory)
    )


def _expect(replay: _Replay, operation: str, given: Any, expected: Any, call: Callable[..., Any], *args: Any) -> bool:
    """Record a mismatch unless ``call(*args)`` returns ``expected``; False when it raised."""
    try:
        actual = _plain(call(*args))
    except Exception as error:  # noqa: BLE001 - whatever the implementation raises is its answer
        _record(replay, operation, given, expected, _raised(error))
        return False
    if _canonical(actual) != _canonical(expected):
        _record(replay, operation, given, expected, actual)
    return True


def _attempt(replay: _Replay, operation: str, given: Any, call: Callable[..., Any], *args: Any) -> bool:
    try:
        call(*args)
    except Exception as error:  # noqa: BLE001 - a valid input must be accepted
        _record(replay, operation, given, "no error", _raised(error))
        return False
    return True


def _optional(replay: _Replay, instance: Any, name: str) -> Any:
    """The method or attribute ``name``, or None after recording (once per vector) that it was skipped."""
    if hasattr(instance, name):
        return getattr(instance, name)
    if not any(item.skipped and item.operation == name for item in replay.found):
        _record(replay, name, {}, f"an implementation with {name}", "absent", skipped=True)
    return None


def _value(instance: Any, name: str) -> Any:
    value = getattr(instance, name)
    return value() if callable(value) else value


def _hex(decode_to_bytes: Callable[[list[int]], bytes], ids: list[int]) -> str:
    return bytes(decode_to_bytes(list(ids))).hex()


def _expect_model(replay: _Replay, instance: Any) -> None:
    # A dialect profile's vectors have no digest: it is defined in strict's numbering only.
    for name in (name for name in ("vocab_size", "digest") if name in replay.vector):
        if _optional(replay, instance, name) is not None:
            _expect(replay, name, {}, replay.vector[name], _value, instance, name)


def _expect_encodings(replay: _Replay, instance: Any, operation: str = "encode") -> None:
    # Only a profile with boundary ids (strict) has document_ids.
    with_boundaries = any("document_ids" in encoding for encoding in replay.vector["encodings"])
    encode_whole = _optional(replay, instance, "encode_document") if with_boundaries else None
    for encoding in replay.vector["encodings"]:
        text, ids, document_ids = encoding["text"], encoding["ids"], encoding.get("document_ids")
        _expect(replay, operation, {"text": text}, ids, instance.encode, text)
        if encode_whole is not None and document_ids is not None:
            _expect(replay, "encode_document", {"text": text}, document_ids, encode_whole, text)
        for given in (ids,) if document_ids is None else (ids, document_ids):
            _expect(replay, "decode", {"ids": given}, text, instance.decode, list(given))


def _replay_training(factory: Callable[[], Any], replay: _Replay) -> None:
    instance, vector = factory(), replay.vector
    given = {"documents": vector["documents"], "max_merges": vector["max_merges"]}
    if not _expect(
        replay, "train", given, vector["rules"], instance.train, list(vector["documents"]), vector["max_merges"]
    ):
        return
    _expect_model(replay, instance)
    _expect_encodings(replay, instance)
    # After the held-out texts: encoding must not have changed the model, and training ends where encode does.
    for document, sequence in zip(vector["documents"], vector["sequences"], strict=True):
        _expect(replay, "encode", {"text": document}, sequence, instance.encode, document)


def _loaded(replay: _Replay, load: Callable[..., Any]) -> bool:
    """``load`` the vector's rules; False (recorded) when it raised. A ``refusable`` list may be refused with an
    input error: the vector is then skipped, as a piece-rank encoder keeps one rank per piece."""
    rules = replay.vector["rules"]
    try:
        load(list(map(tuple, rules)))
    except Exception as error:  # noqa: BLE001 - a valid rule list must be accepted, unless the vector says it may be refused
        if replay.vector.get("refusable") and error_families_of(error):
            _record(
                replay,
                "load",
                {"rules": rules},
                "adopted, or refused (two rules make one piece)",
                _raised(error),
                skipped=True,
            )
        else:
            _record(replay, "load", {"rules": rules}, "no error", _raised(error))
        return False
    return True


def _replay_load(factory: Callable[[], Any], replay: _Replay) -> None:
    instance, vector = factory(), replay.vector
    load = _optional(replay, instance, "load")
    if load is None or not _loaded(replay, load):
        return
    _expect_model(replay, instance)
    serialized = vector.get("serialized")  # strict's numbering only
    if serialized is not None and _optional(replay, instance, "dumps") is not None:
        _expect(replay, "dumps", {}, serialized, instance.dumps)
    _expect_encodings(replay, instance)
    for item in vector["decodings"]:
        _expect(replay, "decode", {"ids": item["ids"]}, item["text"], instance.decode, list(item["ids"]))
    decode_to_bytes = _optional(replay, instance, "decode_bytes")
    for item in vector["byte_decodings"] if decode_to_bytes is not None else []:
        _expect(replay, "decode_bytes", {"ids": item["ids"]}, item["hex"], _hex, decode_to_bytes, item["ids"])
    if serialized is None:
        return
    fresh = factory()  # the canonical file alone must carry the model
    if _optional(replay, fresh, "loads") is not None and _attempt(
        replay, "loads", {"text": serialized}, fresh.loads, serialized
    ):
        _expect_encodings(replay, fresh, "encode after loads")


def call_operation(instance: Any, operation: str, arguments: Mapping[str, Any]) -> Any:
    """Call ``operation`` of the plug-in contract on ``instance`` with a copy of a vector's JSON ``arguments``.

    A ``$unrepresentable`` marker is rebuilt first (bytes, a set, NaN, ...): the vector means that value.
    """
    given = restore(copy.deepcopy(dict(arguments)))
    if operation == "train":
        return instance.train(given["documents"], given["max_merges"])
    if operation == "encode":
        return instance.encode(given["text"])
    if operation == "decode":
        return instance.decode(given["ids"])
    if operation == "load":  # JSON has no tuples; a well-formed rule is passed as the contract's tuple
        rules = given["rules"]
        return instance.load(
            [tuple(rule) if isinstance(rule, list) else rule for rule in rules] if isinstance(rules, list) else rules
        )
    raise ValueError(f"unknown vector operation {operation!r}")


def error_families_of(error: BaseException) -> frozenset[str]:
    """The input-error families of ``error``: its classes, or the kind and ancestors a harness error carries.

    >>> sorted(error_families_of(UnicodeEncodeError("utf-8", "\\ud800", 0, 1, "surrogates not allowed")))
    ['ValueError']
    >>> sorted(error_families_of(KeyError(300)))
    []
    """
    if isinstance(error, ImplementationRaised):
        return error.families
    return error_families(type(error).__name__, exception_ancestors(type(error)))


def _judge_rejection(replay: _Replay, operation: str, arguments: Any, error: Exception, preferred: str) -> None:
    """A rejection in the preferred family is right; in the other an advisory; in neither a mismatch."""
    families = error_families_of(error)
    if not families:
        _record(replay, operation, arguments, f"{preferred} or the other input-error family", _raised(error))
    elif preferred not in families:
        _record(replay, operation, arguments, preferred, _raised(error), advisory=True)
    elif not str(error).strip():
        _record(replay, operation, arguments, "a message naming what was wrong", "no message")


def _set_up(replay: _Replay, instance: Any) -> bool:
    """Adopt the setup rules: through load when there is one, else by training on the setup documents.

    These are valid calls: an implementation that refuses them, or trains other rules, deviates at the
    algorithm level, which the training and load vectors report. So a refused set-up only skips the
    vector, and other trained rules are no mismatch here (the probe is judged against its own answer).
    Without load or train, the vector is skipped too.
    """
    setup = replay.vector["setup"]
    arguments: tuple[Any, ...]
    if hasattr(instance, "load"):
        operation, given, call = "setup: load", {"rules": setup["rules"]}, instance.load
        arguments = (list(map(tuple, setup["rules"])),)
    elif _optional(replay, instance, "train") is not None:
        given = {"documents": setup["documents"], "max_merges": setup["max_merges"]}
        operation, call, arguments = "setup: train", instance.train, (list(setup["documents"]), setup["max_merges"])
    else:
        return False
    try:
        call(*arguments)
    except Exception as error:  # noqa: BLE001 - a valid call refused: the algorithm level's finding, not this vector's
        _record(replay, operation, given, "no error", _raised(error), skipped=True)
        return False
    return True


def _replay_invalid(factory: Callable[[], Any], replay: _Replay) -> None:
    instance, vector = factory(), replay.vector
    operation, arguments, error_kind = vector["operation"], vector["arguments"], vector["error"]
    if not _set_up(replay, instance) or _optional(replay, instance, operation) is None:
        return
    probe = vector["probe"]
    # The model must be unchanged by the rejected call: the probe is judged against the implementation's
    # own answer before it. Whether that answer is the specification's is the algorithm level's question
    # (the training and load vectors ask it), never a deviation of this interface vector.
    try:
        before = _plain(instance.encode(probe["text"]))
    except Exception:  # noqa: BLE001 - encoding valid text failed before the bad call: nothing here to compare with
        before = None
    try:
        returned = call_operation(instance, operation, arguments)
    except Exception as error:  # noqa: BLE001 - the rejection under test
        _judge_rejection(replay, operation, arguments, error, error_kind)
    else:
        _record(replay, operation, arguments, error_kind, f"returned {_plain(returned)!r}")
    if before is None:
        return
    _expect(
        replay,
        f"encode after rejected {operation}",
        {"text": probe["text"]},
        before,
        instance.encode,
        probe["text"],
    )


_REPLAYERS = {"train": _replay_training, "load": _replay_load, "invalid": _replay_invalid}


def replay_vector(factory: Callable[[], Any], vector: Mapping[str, Any]) -> list[Mismatch]:
    """Run one vector against ``factory()`` (a fresh object with the plug-in contract); [] when it agrees."""
    replay = _Replay(vector)
    _REPLAYERS[vector_kind(vector)](factory, replay)
    return replay.found


def replay_all(factory: Callable[[], Any], files: Mapping[str, list[JSONObject]] | None = None) -> list[Mismatch]:
    """Every vector of every file (default: the committed ones), mismatches and skips in file order."""
    chosen = load_vectors() if files is None else files
    return [item for name in sorted(chosen) for vector in chosen[name] for item in replay_vector(factory, vector)]


def _short(value: Any, limit: int = 80) -> str:
    text = _canonical(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def format_mismatch(item: Mismatch) -> str:
    """One line: vector, clauses, operation and input, then expected against actual."""
    head = f"{item.vector_id} [{', '.join(item.clauses)}] {item.operation} {_short(item.input)}"
    if item.skipped:
        return f"{head}: skipped ({item.expected} needed)"
    if item.advisory:
        return f"{head}: advisory: {item.expected} is preferred, got {_short(item.actual)}"
    return f"{head}: expected {_short(item.expected)}, got {_short(item.actual)}"
