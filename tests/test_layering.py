"""Imports flow one way: each package of ``conformance/`` imports only packages of lower layers.

The installed package is ``bpe_conformance`` (``conformance/``), with the executable specification as
``bpe_conformance.reference`` (``reference/``), the lowest layer of all.

``docs/architecture.md`` draws the same layers. A package may import itself and anything below it,
never a package of its own layer or above, so no change can make a lower layer depend on a higher
one without failing here. The executable specification (``reference/``) imports nothing of the
harness, and each zoo member imports only the zoo's own helpers: members are self-contained copies.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import pytest

from tests import ROOT

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

# Lowest first. Top-level modules count as packages of their own (``errors`` is conformance/errors.py).
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "settings", "spec", "results", "inputs"}),
    frozenset({"files", "adapters", "vectors"}),
    frozenset({"dialects"}),
    frozenset({"diagnosis"}),
    frozenset({"checks"}),
    frozenset({"running"}),
    frozenset({"reports", "zoo", "matrix", "compare"}),
    frozenset({"teaching", "fuzzing"}),
    frozenset({"plugin", "cli"}),
    frozenset({"__main__"}),
)
RANK = {unit: rank for rank, units in enumerate(LAYERS) for unit in units}
PACKAGE = "bpe_conformance"
# The executable specification: below every layer, so any package may import it.
REFERENCE = f"{PACKAGE}.reference"
# What a zoo member may import of the harness: the zoo's base classes and witnesses, nothing else.
ZOO_MEMBER_IMPORTS = frozenset({"bpe_conformance.zoo.base", "bpe_conformance.zoo.witness"})
ZOO_NOT_MEMBERS = frozenset({"__init__", "base", "witness", "proof", "controls"})


def unit_of(path: Path) -> str:
    """The package (or top-level module) of ``conformance/`` a source file belongs to.

    >>> from pathlib import Path
    >>> unit_of(Path("conformance/checks/common.py")), unit_of(Path("conformance/errors.py"))
    ('checks', 'errors')
    """
    parts = path.relative_to("conformance").with_suffix("").parts
    return "conformance" if parts == ("__init__",) else parts[0]


def imported_modules(source: str) -> Iterator[str]:
    """Every absolute module name ``source`` imports; ``from bpe_conformance import checks`` counts as both.

    >>> sorted(imported_modules("import os\\nfrom bpe_conformance import checks\\nfrom bpe_conformance.zoo import x"))
    ['bpe_conformance', 'bpe_conformance.checks', 'bpe_conformance.zoo', 'bpe_conformance.zoo.x', 'os']
    """
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            if node.module in {PACKAGE, f"{PACKAGE}.zoo"}:
                yield from (f"{node.module}.{alias.name}" for alias in node.names)


def layering_violations(unit: str, source: str) -> list[str]:
    """The imports of ``source`` (a file of ``unit``) that reach its own layer or a higher one.

    >>> layering_violations("checks", "from bpe_conformance.running.suite import run_suite")
    ['checks imports running (layer 5, not below its own layer 4)']
    >>> layering_violations("checks", "from bpe_conformance.adapters.subject import Subject")
    []
    """
    found = []
    for module in imported_modules(source):
        parts = module.split(".")
        if parts[0] != PACKAGE or len(parts) < 2 or parts[1] == unit or module.startswith(REFERENCE):
            continue
        target = parts[1]
        if target not in RANK:
            found.append(f"{unit} imports {target}, which is in no layer")
        elif RANK[target] >= RANK[unit]:
            found.append(f"{unit} imports {target} (layer {RANK[target]}, not below its own layer {RANK[unit]})")
    return found


def _sources(directory: str) -> list[Path]:
    return sorted(path.relative_to(ROOT) for path in (ROOT / directory).rglob("*.py"))


def test_every_package_of_the_harness_is_in_exactly_one_layer() -> None:
    """A new package must be placed in a layer before it can be imported by anything."""
    units = {unit_of(path) for path in _sources("conformance")} - {"conformance"}
    assert (ROOT / "conformance" / "reference").is_symlink()
    assert units == set(RANK), f"not in a layer: {sorted(units - set(RANK))}; gone: {sorted(set(RANK) - units)}"


@pytest.mark.parametrize("path", _sources("conformance"), ids=str)
def test_imports_flow_from_higher_layers_to_lower_ones(path: Path) -> None:
    unit = unit_of(path)
    if unit == "conformance":
        return
    assert layering_violations(unit, (ROOT / path).read_text(encoding="utf-8")) == [], path


@pytest.mark.parametrize("path", _sources("reference"), ids=str)
def test_the_reference_imports_nothing_of_the_harness(path: Path) -> None:
    imported = set(imported_modules((ROOT / path).read_text(encoding="utf-8")))
    harness = {m for m in imported if m.split(".")[0] == PACKAGE and not m.startswith(REFERENCE)}
    assert harness <= {PACKAGE}, path  # "from bpe_conformance import reference" names the package itself
    assert not {m for m in imported if m.split(".")[0] in {"conformance", "reference"}}, path  # the old names


@pytest.mark.parametrize(
    "path", [path for path in _sources("conformance/zoo") if path.stem not in ZOO_NOT_MEMBERS], ids=str
)
def test_each_zoo_member_imports_only_the_zoos_own_helpers(path: Path) -> None:
    imported = {m for m in imported_modules((ROOT / path).read_text(encoding="utf-8")) if m.startswith(PACKAGE)}
    assert imported <= ZOO_MEMBER_IMPORTS | {"bpe_conformance.zoo"}, (path, sorted(imported - ZOO_MEMBER_IMPORTS))


def test_an_upward_import_is_caught() -> None:
    """The test can fail: an import of a higher layer, of the same layer, or of an unknown package is named."""
    assert layering_violations("adapters", "import bpe_conformance.checks.base") == [
        "adapters imports checks (layer 4, not below its own layer 1)"
    ]
    assert layering_violations("reports", "from bpe_conformance.zoo import proof") != []
    unknown = layering_violations("inputs", "from bpe_conformance.nowhere import x")
    assert unknown == ["inputs imports nowhere, which is in no layer"]
