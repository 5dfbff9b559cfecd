"""The conformance harness: checks, strategies, adapters, runner, reports, CLI and pytest plugin.

The names a program embedding the harness needs are here, each loaded on first use (importing
``bpe_conformance.reference`` runs this module, and the reference must stay light: no hypothesis, no rich):

* connecting an implementation: :class:`Subject`, :class:`ImplementationInfo`, :func:`load_implementation`;
* running the suite: :class:`RunConfig`, :class:`RunPlan`, :class:`RunObserver`, :class:`SuiteResult`,
  :class:`CheckResult`, :class:`Outcome`, :class:`RunInterrupted`;
* the errors: :class:`HarnessError`, :class:`Violation`, :class:`ImplementationRaised`, :class:`MalformedResult`,
  :class:`CallAborted`, :class:`CallTimeout`, :class:`ImplementationCrashed`, :class:`DatabaseUnavailable`;
* ``strategies``, the hypothesis strategies the checks draw from; ``plugin``, the pytest plugin.

>>> import bpe_conformance
>>> result = bpe_conformance.RunPlan.build(bpe_conformance.RunConfig(patterns=("tie-break",))).run()
>>> result.exit_code, [check.outcome.value for check in result.results]
(0, ['pass'])
"""

from __future__ import annotations

import importlib
from typing import Any

# name -> the module that defines it (a module's own name: the module itself).
_PUBLIC = {
    "Subject": "bpe_conformance.adapters.subject",
    "ImplementationInfo": "bpe_conformance.adapters.subject",
    "load_implementation": "bpe_conformance.adapters",
    "RunConfig": "bpe_conformance.running",
    "RunPlan": "bpe_conformance.running",
    "RunObserver": "bpe_conformance.running",
    "RunInterrupted": "bpe_conformance.running",
    "SuiteResult": "bpe_conformance.results.outcomes",
    "CheckResult": "bpe_conformance.results.outcomes",
    "Outcome": "bpe_conformance.results.outcomes",
    "HarnessError": "bpe_conformance.errors",
    "Violation": "bpe_conformance.errors",
    "ImplementationRaised": "bpe_conformance.errors",
    "MalformedResult": "bpe_conformance.errors",
    "CallAborted": "bpe_conformance.errors",
    "CallTimeout": "bpe_conformance.errors",
    "ImplementationCrashed": "bpe_conformance.errors",
    "DatabaseUnavailable": "bpe_conformance.errors",
    "strategies": "bpe_conformance.inputs.strategies",
    "plugin": "bpe_conformance.plugin",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    """Load a public name on first use (then it is an ordinary attribute of the package)."""
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(_PUBLIC[name])
    value = module if module.__name__.rpartition(".")[2] == name else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, with the module's own attributes."""
    return sorted({*globals(), *__all__})
