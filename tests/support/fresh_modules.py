"""Fresh copies of modules, for tests of tables a module builds at import.

mutmut forks its test processes after the modules are imported, so a table a function builds at import
(the validation cases, the vector checks, the checks' strategies, the diagnosis's bug models) is the
unmutated one there; a fresh copy runs those functions again, under the mutant (docs/mutation.md).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["fresh_copy"]


def fresh_copy(name: str, *, stand_in: bool = False) -> ModuleType:
    """A new copy of module ``name`` with its top-level code run again.

    The imported module is loaded first: dataclasses resolve their annotations through sys.modules.
    With ``stand_in`` the copy replaces it in sys.modules while it runs and after, so modules copied
    later bind this copy; the caller puts the original back.
    """
    importlib.import_module(name)
    spec = importlib.util.find_spec(name)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    if stand_in:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
