"""Run a Python implementation in the harness's own process (fast; no timeouts, no crash isolation).

>>> from bpe_conformance.reference import Tokenizer
>>> subject = InProcessSubject(Tokenizer)
>>> subject.train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> subject.encode(5)
Traceback (most recent call last):
...
bpe_conformance.errors.ImplementationRaised: encode raised TypeError: text must be a str, not int
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters.signals import HANDLED_SIGNALS, stops_the_run
from bpe_conformance.adapters.subject import (
    CAPABILITIES,
    ImplementationInfo,
    Subject,
    as_ids,
    as_rules,
    as_text,
    declaration_problem,
)
from bpe_conformance.errors import ImplementationRaised, MalformedResult, exception_ancestors

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = ["InProcessSubject", "describe_python_implementation"]

_CONTRACT_METHODS = ("train", "encode", "decode")
_MAX_DECLARATION_CHARS = 200


def describe_python_implementation(factory: Callable[[], Any], instance: Any, label: str) -> ImplementationInfo:
    """Read the optional ``name``/``version``/``profile``/``capabilities``/``split`` attributes of an implementation."""
    declared = getattr(instance, "capabilities", None)
    if declared is None:
        required = set(_CONTRACT_METHODS)
        capabilities = {method for method in CAPABILITIES if callable(getattr(instance, method, None))}
    else:
        # An encode-only implementation (tiktoken-style) declares {"load", "encode", "decode"}.
        capabilities = set(declared)
        unknown = capabilities - CAPABILITIES
        if unknown:
            raise ValueError(f"{label} declares unknown capabilities {sorted(unknown)}; known: {sorted(CAPABILITIES)}")
        required = capabilities
    in_contract_order = [method for method in (*_CONTRACT_METHODS, "load") if method in required]
    missing = [method for method in in_contract_order if not callable(getattr(instance, method, None))]
    if missing:
        raise TypeError(f"{label} does not implement the plug-in contract: missing {', '.join(missing)}")
    info = ImplementationInfo(
        name=str(getattr(instance, "name", getattr(factory, "__name__", label))),
        version=str(getattr(instance, "version", "unknown")),
        language="python",
        capabilities=frozenset(capabilities),
        profile=str(getattr(instance, "profile", "strict")),
        split=getattr(instance, "split", None),
    )
    for field in ("name", "version", "profile", "split"):
        if field == "split" and info.split is None:
            continue
        problem = declaration_problem(field, getattr(info, field), _MAX_DECLARATION_CHARS)
        if problem:
            raise ValueError(f"{label} declares a {problem}")
    return info


def _text(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # noqa: BLE001 - a broken __str__ is the implementation's too
        return f"<unprintable {type(error).__name__}>"


class ExitCalled(BaseException):
    """An in-process implementation called ``os._exit``: refused, so the harness is not ended without a verdict.

    A ``BaseException``, so the implementation's own ``except Exception`` cannot swallow it.
    """

    def __init__(self, status: object = 0) -> None:
        super().__init__(f"os._exit({status!r}) called in the harness's process")


def _refuse_exit(status: object = 0) -> None:
    raise ExitCalled(status)


# Taken at import, before any implementation: the guard always puts this one back, even when calls in two
# threads (compare trains in one) end out of order.
_REAL_EXIT = os._exit


@contextlib.contextmanager
def _harness_guarded() -> Iterator[None]:
    """While the implementation runs: ``os._exit`` raises; afterwards the harness's signal handlers are restored.

    An implementation in this process could end it with ``os._exit(0)`` (exit 0, no verdict, no report)
    or replace the handlers that turn SIGTERM into a clean stop. What it can still do (patch the
    harness's modules, call the C ``_exit``) the README says: only process isolation guards against it.
    """
    in_main_thread = threading.current_thread() is threading.main_thread()
    handlers = {signum: signal.getsignal(signum) for signum in HANDLED_SIGNALS} if in_main_thread else {}
    os._exit = _refuse_exit  # type: ignore[assignment]
    try:
        yield
    finally:
        os._exit = _REAL_EXIT
        for signum, handler in handlers.items():
            if signal.getsignal(signum) is not handler and handler is not None:
                signal.signal(signum, handler)


def _call(operation: str, method: Callable[..., Any], *args: Any) -> Any:
    """``method(*args)``; whatever it raises is the implementation's answer, judged by the check.

    That includes ``SystemExit``, ``GeneratorExit``, a pyo3 ``PanicException``, a refused ``os._exit``
    and a ``KeyboardInterrupt`` no signal caused: none of them may end the run without a verdict. Only
    the user's own interruption (:func:`bpe_conformance.adapters.signals.stops_the_run`) goes on up.
    """
    try:
        with _harness_guarded():
            return method(*args)
    except Exception as error:  # any exception is the implementation's answer, judged by the check
        raise ImplementationRaised(
            operation, type(error).__name__, _text(error), exception_ancestors(type(error))
        ) from error
    except BaseException as error:
        if stops_the_run(error):
            raise
        raise ImplementationRaised(
            operation, type(error).__name__, _text(error), exception_ancestors(type(error))
        ) from None


class InProcessSubject(Subject):
    """Calls ``factory()``'s methods directly; a hang or a segfault here takes the harness with it."""

    def __init__(self, factory: Callable[[], Any], label: str | None = None) -> None:
        self._factory = factory
        self._label: str = label or str(getattr(factory, "__qualname__", repr(factory)))
        self._instance = self._new_instance()
        self.info = describe_python_implementation(factory, self._instance, self._label)

    def _new_instance(self) -> Any:
        return _call("create", self._factory)

    def reset(self) -> None:
        self._instance = self._new_instance()

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return as_rules("train", _call("train", self._instance.train, documents, max_merges))

    def encode(self, text: str) -> list[int]:
        return as_ids("encode", _call("encode", self._instance.encode, text))

    def decode(self, ids: list[int]) -> str:
        return as_text("decode", _call("decode", self._instance.decode, ids))

    def load(self, rules: list[tuple[int, int]]) -> None:
        if not callable(getattr(self._instance, "load", None)):
            raise MalformedResult("load", "nothing: the implementation has no load method")
        _call("load", self._instance.load, rules)
