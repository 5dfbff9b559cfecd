"""A full disk for fault tests: a 64 KiB tmpfs mounted in a test's directory and filled to the last byte.

Mounting needs root (``tox -e faults`` runs these tests where it is available); elsewhere the test is
skipped with the reason, never passed without having run.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path


@contextlib.contextmanager
def full_tmpfs(mount_point: Path, options: str = "", prepare: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """Mount a 64 KiB tmpfs at ``mount_point``, let ``prepare`` write its files, fill it up, yield it, unmount it.

    ``options="ro"`` mounts it read-only instead (nothing to fill).
    """
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs (a full disk) needs root: run tox -e faults as root")
    mount_point.mkdir(parents=True, exist_ok=True)
    mount_options = ",".join(["size=64k", *([options] if options else [])])
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", mount_options, "tmpfs", str(mount_point)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip() or mounted.returncode}")
    try:
        if prepare is not None:
            prepare(mount_point)
        if "ro" not in options.split(","):
            _fill(mount_point)
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def _fill(directory: Path) -> None:
    """Write until the filesystem says it is full: pages first, then single bytes for the last one."""
    descriptor = os.open(directory / ".filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for chunk in (b"\0" * 4096, b"\0"):
            while True:
                try:
                    os.write(descriptor, chunk)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(descriptor)
