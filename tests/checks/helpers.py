"""What the tests of the checks share: the checks by name, the violation a check raises, small dialects."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any

import pytest

from conformance.adapters.python import InProcessSubject
from conformance.checks import ALL_CHECKS
from conformance.dialects.probes import ProfileModel
from conformance.errors import Violation
from reference import LiteralTokenizer

CHECKS = {check.name: check for check in ALL_CHECKS}


LOW = "低" * 30


def violation_of(check_name: str, implementation: type, example: dict[str, Any]) -> Violation:
    with pytest.raises(Violation) as caught:
        CHECKS[check_name].verify(InProcessSubject(implementation), example)
    return caught.value


def dialect(profile: Any, **overrides: Any) -> type:
    """An implementation that follows ``profile`` exactly (the profile's literal reference), with overrides."""

    class Dialect:
        def __init__(self) -> None:
            self.model = ProfileModel(profile)

        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            return self.model.train(documents, max_merges)

        def encode(self, text: str) -> list[int]:
            return self.model.encode(text)

        def decode(self, ids: list[int]) -> str:
            return self.model.decode(ids)

    Dialect.profile = profile.name
    for name, method in overrides.items():
        setattr(Dialect, name, method)
    return Dialect


def trains_to(rules: list[tuple[int, int]]) -> type:
    """An implementation whose train returns ``rules`` whatever the documents."""
    return type("TrainsTo", (LiteralTokenizer,), {"train": lambda self, documents, max_merges: list(rules)})



def fresh(name: str) -> ModuleType:
    """A new copy of module ``name`` with its top-level code run again (it is not put in sys.modules).

    mutmut forks its test processes after the modules are imported, so a table a function builds at import
    (the validation cases, the vector checks, the decoding strategies) is the unmutated one there; a fresh
    copy runs those functions again, under the mutant (docs/mutation.md).
    """
    importlib.import_module(name)  # its dataclasses resolve names through sys.modules
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_inapplicable(reason: str | None, profile: str, settings: str, why: str) -> None:
    """A skipped check's reason names the profile, the parameters that make the clause moot, and why."""
    assert reason is not None
    assert reason.startswith(f"not applicable under profile {profile} ("), reason
    assert f"({settings}: " in reason, reason
    assert reason.endswith(f": {why})"), reason
