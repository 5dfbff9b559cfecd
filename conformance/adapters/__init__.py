"""Turning an ``--impl`` string into a :class:`~bpe_conformance.adapters.subject.Subject`.

* ``module:attr`` — a Python class or zero-argument callable with the plug-in contract, found on
  ``sys.path`` (the current directory included); run in its own process through
  ``python -m bpe_conformance.adapters.host`` (``isolation="process"``, the default) or in the harness's
  process (``isolation="inprocess"``: faster, but a hang or a segfault takes the harness down).
* ``cmd:<command line>`` — any program speaking ``specs/protocol.md``; always its own process.
* ``reference`` and ``reference-literal`` — the bundled ``reference:Tokenizer`` and
  ``reference:LiteralTokenizer``.

>>> subject = load_implementation("reference", isolation="inprocess")
>>> subject.info.name, subject.train(["abab", "acac"], 32)
('reference', [(97, 98), (97, 99)])
>>> load_implementation("bpe_conformance.reference:NoSuchClass", isolation="inprocess")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
bpe_conformance.errors.HarnessError: ...:NoSuchClass: module 'bpe_conformance.reference' has no attribute 'NoSuchClass'
"""

from __future__ import annotations

import importlib
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters.limits import DEFAULT_LIMITS, ProcessLimits
from bpe_conformance.adapters.python import InProcessSubject, describe_python_implementation
from bpe_conformance.adapters.subprocess import DEFAULT_TIMEOUT, ProcessSubject
from bpe_conformance.errors import HarnessError, ImplementationRaised

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.adapters.subject import Subject

__all__ = [
    "ISOLATIONS",
    "SHORTCUTS",
    "create_instance",
    "host_command",
    "host_environment",
    "load_implementation",
    "resolve_factory",
    "split_spec",
]

SHORTCUTS = {
    "reference": "bpe_conformance.reference:Tokenizer",
    "reference-literal": "bpe_conformance.reference:LiteralTokenizer",
}
ISOLATIONS = ("process", "inprocess")
COMMAND_PREFIX = "cmd:"
_PROJECT_ROOT = Path(__file__).resolve().parents[2]
_SPEC_FORMS = "'module:attr', 'cmd:<command line>', 'reference' or 'reference-literal'"


def split_spec(spec: str) -> tuple[str, str]:
    """``"package.module:Attr.inner"`` as ``("package.module", "Attr.inner")``.

    >>> split_spec("bpe_conformance.reference:Tokenizer")
    ('bpe_conformance.reference', 'Tokenizer')
    >>> try:
    ...     split_spec("reference")
    ... except HarnessError as error:
    ...     print(error)
    reference: an implementation is 'module:attr', 'cmd:<command line>', 'reference' or 'reference-literal'
    """
    module_name, _, attribute = spec.partition(":")
    names = [*module_name.split("."), *attribute.split(".")]
    if not attribute or not all(name.isidentifier() for name in names):
        raise HarnessError(f"{spec}: an implementation is {_SPEC_FORMS}")
    return module_name, attribute


def _ensure_cwd_importable() -> None:
    # `python -m` puts the current directory first on sys.path; console scripts do not.
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)


def _import(spec: str, module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            raise HarnessError(
                f"{spec}: no module named {error.name!r} on the Python path (current directory {os.getcwd()})"
            ) from None
        raise HarnessError(f"{spec}: importing {module_name!r} failed: {error}") from None
    except Exception as error:  # noqa: BLE001 - the module itself is broken; say how
        raise HarnessError(f"{spec}: importing {module_name!r} raised {type(error).__name__}: {error}") from None


def resolve_factory(spec: str) -> Callable[[], Any]:
    """The class or zero-argument callable named by ``module:attr``; :class:`HarnessError` if there is none."""
    module_name, attribute = split_spec(spec)
    _ensure_cwd_importable()
    module = _import(spec, module_name)
    target, walked = module, module_name
    for name in attribute.split("."):
        if not hasattr(target, name):
            kind = "module" if target is module else "object"
            raise HarnessError(f"{spec}: {kind} {walked!r} has no attribute {name!r}")
        target, walked = getattr(target, name), f"{walked}.{name}"
    if not callable(target):
        shown = repr(target) if len(repr(target)) <= 60 else f"{repr(target)[:60]}..."
        raise HarnessError(f"{spec}: {attribute} is not a class or a zero-argument callable (it is {shown})")
    factory: Callable[[], Any] = target
    return factory


def create_instance(factory: Callable[[], Any], spec: str) -> Any:
    """``factory()``, checked to have the plug-in contract; :class:`HarnessError` otherwise."""
    try:
        instance = factory()
    except Exception as error:  # noqa: BLE001 - any failure to build the implementation is a setup problem
        raise HarnessError(f"{spec}: calling it raised {type(error).__name__}: {error}") from None
    try:
        describe_python_implementation(factory, instance, spec)
    except (TypeError, ValueError) as error:
        raise HarnessError(str(error)) from None
    return instance


def host_command(spec: str) -> list[str]:
    """The command that serves the Python implementation ``spec`` over the protocol."""
    return [sys.executable, "-m", "bpe_conformance.adapters.host", spec]


def host_environment() -> dict[str, str]:
    """The environment of a Python child of the harness: it imports what the harness imports, and the cwd."""
    # The child must import both the implementation (from the current directory) and this package,
    # and whatever the harness itself can import (a directory a test or the plugin put on sys.path).
    entries = [os.getcwd(), str(_PROJECT_ROOT)]
    existing = os.environ.get("PYTHONPATH")
    if existing:
        entries.append(existing)
    entries.extend(entry for entry in sys.path if entry and os.path.isdir(entry) and entry not in entries)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(entries)}


def _command_subject(spec: str, timeout: float, limits: ProcessLimits) -> Subject:
    try:
        argv = shlex.split(spec[len(COMMAND_PREFIX) :])
    except ValueError as error:
        raise HarnessError(f"{spec}: cannot split the command line: {error}") from None
    if not argv:
        raise HarnessError(f"{spec}: the command line is empty")
    if shutil.which(argv[0]) is None:
        raise HarnessError(f"{spec}: executable {argv[0]!r} not found (or not executable)")
    return ProcessSubject(argv, timeout=timeout, label=spec, limits=limits)


def _python_subject(spec: str, isolation: str, timeout: float, limits: ProcessLimits) -> Subject:
    if isolation == "process":
        split_spec(spec)
        return ProcessSubject(
            host_command(spec),
            timeout=timeout,
            env=host_environment(),
            label=spec,
            limits=limits,
            required_env=("PYTHONPATH",),  # how the host finds this package and the implementation
        )
    factory = resolve_factory(spec)
    try:
        return InProcessSubject(factory, label=spec)
    except ImplementationRaised as error:
        raise HarnessError(f"{spec}: calling it raised {error.kind}: {error.message}") from None
    except (TypeError, ValueError) as error:
        raise HarnessError(str(error)) from None


def load_implementation(
    spec: str, *, isolation: str = "process", timeout: float = DEFAULT_TIMEOUT, limits: ProcessLimits = DEFAULT_LIMITS
) -> Subject:
    """The subject for ``spec``; every mistake in it is a :class:`HarnessError` saying what is wrong.

    ``limits`` (memory, environment, working directory) apply to an implementation in its own process;
    in process there is nothing to apply them to.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise HarnessError(f"an implementation is {_SPEC_FORMS}; got {spec!r}")
    if isolation not in ISOLATIONS:
        raise HarnessError(f"isolation must be one of {', '.join(ISOLATIONS)}, not {isolation!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise HarnessError(f"timeout must be a positive number of seconds, not {timeout!r}")
    spec = spec.strip()
    if spec.startswith(COMMAND_PREFIX):
        if isolation != "process":
            raise HarnessError(
                f"{spec!r} always runs in its own process: isolation {isolation!r} does not apply to cmd:"
            )
        return _command_subject(spec, timeout, limits)
    return _python_subject(SHORTCUTS.get(spec, spec), isolation, timeout, limits)
