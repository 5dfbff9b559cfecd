"""Where the specification's files are: ``specs/`` of the repository, shipped in the wheel.

``specs/`` (normative text, protocol, profiles, JSON schemas, vectors) stays at the top of the
repository, the one copy anyone edits. The build maps it onto the package ``bpe_conformance._specs``
(``[tool.setuptools] package-dir`` in ``pyproject.toml``), so an installed wheel, an editable install
and a checkout all find the same files here through :mod:`importlib.resources`.

>>> spec_file("bpe.md").name, spec_file("schema", "protocol").is_dir()
('bpe.md', True)
>>> "BPE-TRAIN-TIE" in read_spec_text("bpe.md")
True
>>> checkout_root() is None or (checkout_root() / "pyproject.toml").is_file()
True
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

__all__ = ["SPECS_PACKAGE", "checkout_root", "read_spec_text", "spec_file", "spec_root"]

SPECS_PACKAGE = "bpe_conformance._specs"
# An uninstalled tree on sys.path (mutmut's copy of the checkout, PYTHONPATH=.) has no bpe_conformance._specs
# package to import, but has specs/ beside conformance/.
_CHECKOUT_SPECS = Path(__file__).resolve().parents[2] / "specs"


def spec_root() -> Path:
    """The directory holding ``bpe.md``, ``schema/`` and ``vectors/``.

    A wheel is always unpacked on install, so the resources are real files; a :class:`Path` lets the
    vector commands write there and error messages name a file a user can open.
    """
    try:
        root = importlib.resources.files(SPECS_PACKAGE)
    except ModuleNotFoundError:
        root = _CHECKOUT_SPECS
    # Resolved: in a checkout the package is reached through the link conformance/_specs -> ../specs, and
    # callers find the repository's other files beside the real specs/.
    path = Path(str(root)).resolve()
    if not path.is_dir():
        raise FileNotFoundError(f"the specification files are missing: {path} (reinstall bpe-conformance)")
    return path


def spec_file(*parts: str) -> Path:
    """``specs/<parts>``, e.g. ``spec_file("schema", "report.schema.json")``."""
    return spec_root().joinpath(*parts)


def read_spec_text(*parts: str) -> str:
    """The UTF-8 text of ``specs/<parts>``."""
    return spec_file(*parts).read_text(encoding="utf-8")


def checkout_root() -> Path | None:
    """The repository this package runs from (a checkout, an unpacked sdist, an editable install), or None.

    An installed wheel has no repository around it: the commands that regenerate the repository's own files
    (``zoo gallery``, ``vectors generate``, ``matrix``) write there by default only when this is not None,
    and otherwise ask where to write, so that nothing is ever written inside site-packages.
    """
    root = spec_root().parent
    if (root / "pyproject.toml").is_file() and (root / "conformance").is_dir() and (root / "reference").is_dir():
        return root
    return None
