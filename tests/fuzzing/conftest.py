"""One hypothesis storage for every campaign of the session, and a way to make harnesses that use it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.fuzzing.helpers import Harness, MakeHarness

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(scope="session")
def hypothesis_storage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hypothesis-storage")


@pytest.fixture
def make_harness(tmp_path: Path, hypothesis_storage: Path) -> MakeHarness:
    """``make_harness(name)``: a :class:`Harness` in ``tmp_path / name`` (created), or ``tmp_path`` for ``""``."""

    def make(name: str = "") -> Harness:
        directory = tmp_path / name if name else tmp_path
        directory.mkdir(exist_ok=True)
        return Harness(directory, hypothesis_storage)

    return make
