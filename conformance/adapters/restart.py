"""Another instance of the implementation under test, in a fresh process with another hash seed.

BPE-PROP-DETERMINISM holds "in every run, process, platform and hash seed". Inside one process a
trainer whose ties follow the iteration order of a ``set`` of strings answers the same every time; only
a second process with another ``PYTHONHASHSEED`` shows it. :func:`fresh_process` starts one, the way the
subject itself was started: the same command for a process subject (``cmd:`` or the Python host), the
Python host for an in-process subject whose factory is importable by name. Its environment is the
subject's with ``PYTHONHASHSEED`` set and, when asked, its variables in the reverse order (a program that
reads the environment in order must not depend on it).

>>> from bpe_conformance.adapters.python import InProcessSubject
>>> from bpe_conformance.reference import Tokenizer
>>> importable_spec(Tokenizer)
'bpe_conformance.reference.tokenizer:Tokenizer'
>>> with fresh_process(InProcessSubject(Tokenizer), hash_seed=1, reverse_environment=True) as other:
...     other.train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> restart_problem(InProcessSubject(lambda: Tokenizer()))
'its factory <lambda> cannot be imported by name, so it cannot be started in another process'
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from bpe_conformance.adapters import host_command, host_environment, resolve_factory
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.errors import HarnessError

if TYPE_CHECKING:
    from bpe_conformance.adapters.subject import Subject

__all__ = ["fresh_process", "importable_spec", "restart_problem"]


def importable_spec(factory: Any) -> str | None:
    """``module:qualname`` naming ``factory``, when importing that gives back the very same object."""
    module, qualname = getattr(factory, "__module__", None), getattr(factory, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    spec = f"{module}:{qualname}"
    try:
        return spec if resolve_factory(spec) is factory else None
    except HarnessError:
        return None


def _factory(subject: InProcessSubject) -> Any:
    return subject._factory  # the subject's own recipe; nothing else can make another instance


def restart_problem(subject: Subject) -> str | None:
    """Why ``subject`` cannot be started again in another process, or None when it can."""
    if isinstance(subject, ProcessSubject):
        return None
    if isinstance(subject, InProcessSubject):
        factory = _factory(subject)
        if importable_spec(factory) is None:
            name = getattr(factory, "__qualname__", repr(factory))
            return f"its factory {name} cannot be imported by name, so it cannot be started in another process"
        return None
    return f"a {type(subject).__name__} cannot be started in another process"


def _environment(base: dict[str, str], hash_seed: int, reverse: bool) -> dict[str, str]:
    items = [(name, value) for name, value in base.items() if name != "PYTHONHASHSEED"]
    items.append(("PYTHONHASHSEED", str(hash_seed)))
    return dict(reversed(items) if reverse else items)


def fresh_process(subject: Subject, *, hash_seed: int, reverse_environment: bool = False) -> ProcessSubject:
    """A new process running what ``subject`` runs, under ``PYTHONHASHSEED=hash_seed``; close it when done.

    A :class:`HarnessError` when the subject cannot be restarted (:func:`restart_problem`) or the new
    process does not start.
    """
    problem = restart_problem(subject)
    if problem is not None:
        raise HarnessError(problem)
    if isinstance(subject, ProcessSubject):
        argv, cwd, env = subject.argv, subject._cwd, subject._env
        timeout, label = subject.timeout, subject.label
    else:
        assert isinstance(subject, InProcessSubject)
        spec = importable_spec(_factory(subject))
        assert spec is not None
        argv, cwd, env, timeout, label = host_command(spec), None, host_environment(), 10.0, spec
    environment = _environment(dict(os.environ if env is None else env), hash_seed, reverse_environment)
    return ProcessSubject(
        argv, cwd=cwd, env=environment, timeout=timeout, label=f"{label} (PYTHONHASHSEED={hash_seed})"
    )
