"""Serve a Python implementation over the JSON-lines protocol: ``python -m bpe_conformance.adapters.host MODULE:ATTR``.

Running the implementation in its own process means a hang, a segfault or ``os._exit`` in it
costs one check, not the harness. Every exception it raises becomes a structured error carrying
the exception's type name, so ``ValueError``/``TypeError`` keep their meaning across the pipe. A value
JSON cannot carry (bytes, a set, NaN, ...) arrives as a ``$unrepresentable`` marker and is rebuilt
before the call (:func:`bpe_conformance.inputs.unrepresentable.restore`), so a check asks the same
question here as in process.

The protocol owns file descriptors 0 and 1: the implementation's ``print`` (and any C code writing
to fd 1) goes to stderr, where the harness keeps it for crash reports, and it reads an empty stdin.

>>> session = open_session("bpe_conformance.reference:Tokenizer")
>>> respond(session, {"id": 1, "op": "train", "documents": ["abab", "acac"], "max_merges": 32})
{'id': 1, 'ok': True, 'result': [[97, 98], [97, 99]]}
>>> respond(session, {"id": 2, "op": "encode", "text": 5})["error"]
{'type': 'TypeError', 'message': 'text must be a str, not int', 'ancestors': ['Exception', 'BaseException']}
>>> marked = {"$unrepresentable": "bytes", "repr": "b'ab'"}
>>> respond(session, {"id": 3, "op": "encode", "text": marked})["error"]["message"]
'text must be a str, not bytes'
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

from bpe_conformance.adapters import create_instance, resolve_factory
from bpe_conformance.adapters.protocol import (
    LOAD_VOCABULARY,
    MAX_DECLARATION_CHARS,
    OPERATIONS,
    PROTOCOL_VERSION,
    ProtocolError,
    build_error,
    build_result,
    decode_message,
    encode_message,
    handshake_result,
    request_problem,
    vocabulary_from_wire,
)
from bpe_conformance.adapters.python import describe_python_implementation
from bpe_conformance.adapters.subject import ImplementationInfo, declaration_problem
from bpe_conformance.errors import HarnessError, exception_ancestors
from bpe_conformance.inputs.unrepresentable import restore

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["Session", "guard_process_group", "main", "open_session", "respond", "serve", "take_protocol_streams"]

_CONTRACT_OPERATIONS = ("train", "load", "encode", "decode")
_WATCH_SECONDS = 0.2


@dataclass
class Session:
    """The hosted implementation: how to make one, the current instance, or why there is none."""

    spec: str
    factory: Callable[[], Any] | None = None
    instance: Any = None
    info: ImplementationInfo | None = None
    failure: str | None = None


def open_session(spec: str) -> Session:
    """Import and instantiate ``spec``; a failure is kept and reported in answer to the handshake."""
    try:
        factory = resolve_factory(spec)
        instance = create_instance(factory, spec)
        info = describe_python_implementation(factory, instance, spec)
    except HarnessError as error:
        # The harness names the implementation itself; do not say it twice.
        return Session(spec, failure=str(error).removeprefix(f"{spec}: "))
    return Session(spec, factory, instance, info)


def _error_text(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # noqa: BLE001 - a broken __str__ must not take the server down
        return f"<unprintable {type(error).__name__}>"


def _raised(request_id: int, error: BaseException) -> JSONObject:
    response = build_error(request_id, type(error).__name__, _error_text(error))
    response["error"]["ancestors"] = list(exception_ancestors(type(error)))  # its family: specs/protocol.md 3.2
    return response


def _handshake(session: Session, request_id: int, requested: object) -> JSONObject:
    if requested != PROTOCOL_VERSION or isinstance(requested, bool):
        return build_error(
            request_id, "ProtocolVersion", f"this host speaks protocol {PROTOCOL_VERSION}, not {requested!r}"
        )
    assert session.info is not None
    result = handshake_result(session.info)
    # Production configuration (specs/protocol.md 3.4): what the instance says about vocabularies.
    if callable(getattr(session.instance, LOAD_VOCABULARY, None)):
        result["capabilities"] = [*result["capabilities"], LOAD_VOCABULARY]
    built_in = getattr(session.instance, "vocabulary", None)
    # Only a name the handshake can carry (valid Unicode, short): any other str attribute of that name would
    # break the handshake of every run, not only of a production one, so it is left out (no built-in one).
    if (
        isinstance(built_in, str)
        and built_in
        and declaration_problem("vocabulary", built_in, MAX_DECLARATION_CHARS) is None
    ):
        result["vocabulary"] = built_in
    return build_result(request_id, result)


def _reset(session: Session, request_id: int) -> JSONObject:
    assert session.factory is not None
    try:
        session.instance = session.factory()
    except Exception as error:  # noqa: BLE001 - reported to the harness, which restarts the process
        return _raised(request_id, error)
    return build_result(request_id, None)


def _call_contract(session: Session, request_id: int, operation: str, arguments: list[Any]) -> JSONObject:
    method = getattr(session.instance, operation, None)
    if not callable(method):
        return build_error(request_id, "NotImplemented", f"{session.spec} has no {operation} method")
    try:
        result = method(*arguments)
    except BaseException as error:  # noqa: BLE001 - the implementation's answer, SystemExit included; the check judges it
        return _raised(request_id, error)
    # load's return value is not part of the contract (the reference returns the rules).
    return build_result(request_id, None if operation == "load" else result)


def _load_vocabulary(session: Session, request_id: int, pieces: Any, special_tokens: Any) -> JSONObject:
    method = getattr(session.instance, LOAD_VOCABULARY, None)
    if not callable(method):
        return build_error(request_id, "NotImplemented", f"{session.spec} has no {LOAD_VOCABULARY} method")
    try:
        ranks, specials = vocabulary_from_wire(pieces, special_tokens)
    except (TypeError, ValueError) as error:
        return build_error(request_id, "ProtocolError", f"a malformed {LOAD_VOCABULARY} request: {error}")
    try:
        method(ranks, specials)
    except BaseException as error:  # noqa: BLE001 - the implementation's answer, whatever it is; the harness reports it
        return _raised(request_id, error)
    return build_result(request_id, None)


def respond(session: Session, message: JSONObject) -> JSONObject:
    """The response to one well-formed request."""
    request_id, operation = message["id"], message["op"]
    if operation == "stop":
        return build_result(request_id, None)
    if session.failure is not None:
        return build_error(request_id, "SetupError", session.failure)
    if operation == "handshake":
        return _handshake(session, request_id, message["protocol"])
    if operation == "reset":
        return _reset(session, request_id)
    if operation in _CONTRACT_OPERATIONS:
        # A value JSON cannot carry arrives as a marker; rebuilt, the implementation sees what the check sent.
        arguments = [restore(message[name]) for name in OPERATIONS[operation]]
        return _call_contract(session, request_id, operation, arguments)
    if operation == LOAD_VOCABULARY:
        return _load_vocabulary(session, request_id, message["pieces"], message["special_tokens"])
    return build_error(request_id, "NotImplemented", f"unknown operation {operation!r}")


def _request_id(message: Any) -> int | None:
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def serve(session: Session, lines: Iterable[bytes], out: BinaryIO) -> int:
    """Answer each request line until ``stop`` or end of input; returns the exit status."""
    for line in lines:
        try:
            message = decode_message(line)
        except ProtocolError as error:
            response = build_error(None, "ProtocolError", str(error))
        else:
            problem = request_problem(message)
            response = (
                build_error(_request_id(message), "ProtocolError", problem) if problem else respond(session, message)
            )
        out.write(encode_message(response))
        out.flush()
        if response["ok"] and message["op"] == "stop":
            return 0
    return 0


def take_protocol_streams() -> tuple[BinaryIO, BinaryIO]:
    """Keep fds 0 and 1 for the protocol; from now on fd 1 is stderr and fd 0 is empty for everyone else."""
    protocol_in = os.fdopen(os.dup(0), "rb")
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    return protocol_in, protocol_out


def guard_process_group() -> bool:
    """Fork a watchdog that SIGKILLs this host's process group once the host is gone; True if forked.

    The harness starts the host as the leader of a group of its own, with a parent-death signal: a
    ``kill -9`` of the harness kills the host even mid-``train``, but not what the implementation
    started. The watchdog (forked before the implementation is imported, so from one thread, and
    holding none of the protocol's pipes) sees its parent change and kills the group, so nothing the
    implementation started in its group outlives the harness either. Not when the host leads no group
    of its own (started by hand from a shell): that group is the user's.
    """
    if not hasattr(os, "fork") or os.getpgrp() != os.getpid():
        return False
    host = os.getpid()
    if os.fork() != 0:
        return True
    try:  # the watchdog: nothing of the host's but the group
        empty = os.open(os.devnull, os.O_RDWR)
        for descriptor in (0, 1, 2):
            os.dup2(empty, descriptor)
        os.closerange(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024)
        while os.getppid() == host:
            time.sleep(_WATCH_SECONDS)
        os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(0)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m bpe_conformance.adapters.host``."""
    parser = argparse.ArgumentParser(
        prog="python -m bpe_conformance.adapters.host",
        description="Serve a Python implementation of the plug-in contract over the bpe-conformance protocol.",
    )
    parser.add_argument(
        "spec", help="MODULE:ATTR, a class or zero-argument callable (e.g. bpe_conformance.reference:Tokenizer)"
    )
    args = parser.parse_args(argv)
    guard_process_group()
    protocol_in, protocol_out = take_protocol_streams()
    return serve(open_session(args.spec), protocol_in, protocol_out)


if __name__ == "__main__":
    sys.exit(main())
