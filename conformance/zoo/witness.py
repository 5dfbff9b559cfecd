"""Witnesses: tiny call sequences on which a zoo member's bug shows.

A witness is a frozen :class:`Witness`: the operation, its positional arguments, and ``setup``.

``setup`` (possibly empty) lists ``(operation, args)`` calls made first on the same instance; then
``operation`` is called with the positional ``args``. Running a witness records what every call
did: returned a value, rejected the input with ValueError/TypeError (which of the two is not
compared: the contract allows either), or crashed with any other exception.

>>> from bpe_conformance.zoo.base import ZooBase
>>> witness = make_witness("encode", "aaa", setup=[("load", [[(97, 97)]])])
>>> witness
Witness(operation='encode', args=('aaa',), setup=(('load', ([(97, 97)],)),))
>>> describe_witness(witness)
"load([(97, 97)]); encode('aaa')"
>>> [result.value for result in run_witness(ZooBase(), witness)]
[[[97, 97]], [258, 97]]
>>> run_witness(ZooBase(), make_witness("decode", [300]))[0].kind
'rejected'
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["CallResult", "Witness", "call", "describe_witness", "make_witness", "plain", "run_witness", "witness_steps"]


@dataclass(frozen=True)
class CallResult:
    """What one call did; ``error`` (the exception type's name) is shown but never compared."""

    kind: str
    value: Any = None
    error: str = field(default="", compare=False)


def plain(value: Any) -> Any:
    """``value`` with every tuple turned into a list, so ``(97, 98)`` and ``[97, 98]`` compare equal."""
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


@dataclass(frozen=True)
class Witness:
    """``operation(*args)`` on an instance after the ``setup`` calls, each ``(operation, args)``."""

    operation: str
    args: tuple[Any, ...]
    setup: tuple[tuple[str, tuple[Any, ...]], ...] = ()


def make_witness(operation: str, *args: Any, setup: Sequence[tuple[str, Sequence[Any]]] = ()) -> Witness:
    """The witness that calls ``operation(*args)`` after the ``setup`` calls."""
    return Witness(operation, args, tuple((step, tuple(step_args)) for step, step_args in setup))


def witness_steps(witness: Witness) -> list[tuple[str, list[Any]]]:
    """Every call of ``witness`` in order: the setup calls, then the operation."""
    steps = [(operation, list(args)) for operation, args in witness.setup]
    steps.append((witness.operation, list(witness.args)))
    return steps


def call(implementation: Any, operation: str, args: list[Any]) -> CallResult:
    """Call ``implementation.operation(*args)`` on a copy of ``args`` and record what it did."""
    method = getattr(implementation, operation)
    try:
        value = method(*copy.deepcopy(args))  # a copy, so no call can change the witness itself
    except (ValueError, TypeError) as error:
        return CallResult("rejected", error=type(error).__name__)
    except Exception as error:  # noqa: BLE001 - any other exception is an answer too: a crash
        return CallResult("crashed", type(error).__name__, error=type(error).__name__)
    return CallResult("returned", plain(value))


def run_witness(implementation: Any, witness: Witness) -> list[CallResult]:
    """Make every call of ``witness`` on ``implementation``, recording what each did."""
    return [call(implementation, operation, args) for operation, args in witness_steps(witness)]


def describe_witness(witness: Witness) -> str:
    """The calls as one line of Python-like text, for reports and the gallery."""
    return "; ".join(
        f"{operation}({', '.join(repr(argument) for argument in args)})" for operation, args in witness_steps(witness)
    )
