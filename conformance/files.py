"""File arguments of the command line: read only what can be read, and say why not in one line.

>>> read_text_file("/dev/zero", "--file")
Traceback (most recent call last):
...
bpe_conformance.errors.HarnessError: --file '/dev/zero' is not a regular file
>>> writable_path("/nonexistent/x.json", "--json")
Traceback (most recent call last):
...
bpe_conformance.errors.HarnessError: --json /nonexistent/x.json: directory '/nonexistent' does not exist
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from bpe_conformance.errors import HarnessError

__all__ = [
    "MAX_TEXT_FILE_BYTES",
    "TEMPORARY_PREFIX",
    "read_text_file",
    "writable_path",
    "write_atomically",
    "write_report",
]

# The name of a file being written beside its destination starts with this (so readers can skip it).
TEMPORARY_PREFIX = ".bpe-conformance-"

# Skip files and documents for `trace` are small; a file far larger is a mistake (or /dev/zero).
MAX_TEXT_FILE_BYTES = 64 * 1024 * 1024


def read_text_file(path: str | os.PathLike[str], what: str, max_bytes: int = MAX_TEXT_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file ``path``; HarnessError naming ``what`` otherwise.

    Only a regular file is opened (a FIFO would block, ``/dev/zero`` never ends), and at most
    ``max_bytes`` of it is read.
    """
    shown = repr(str(path))
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise HarnessError(f"{what} {shown} is not a regular file")
        with open(path, "rb") as stream:
            data = stream.read(max_bytes + 1)
    except OSError as error:
        raise HarnessError(f"cannot read {what} {shown}: {error.strerror or error}") from None
    if len(data) > max_bytes:
        raise HarnessError(f"{what} {shown} is larger than {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise HarnessError(f"{what} {shown} is not UTF-8 text: {error}") from None


def writable_path(value: str | os.PathLike[str], option: str) -> Path:
    """``value`` as a path a report can be written to: its directory exists and it is not a directory.

    Checked before the work that produces the report, so a typo costs nothing.
    """
    path = Path(value)
    if not path.parent.is_dir():
        raise HarnessError(f"{option} {value}: directory {str(path.parent)!r} does not exist")
    if path.is_dir():
        raise HarnessError(f"{option} {value}: is a directory, not a file")
    return path


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` or leave it as it was; :class:`OSError` when the write failed.

    The bytes go to a temporary file beside ``path`` (same filesystem, so the rename is atomic), are
    flushed and fsynced, and only then renamed over ``path``: a full disk or a kill mid-write never
    leaves a truncated file, and an earlier file stays whole.
    """
    destination = Path(path)
    descriptor, temporary = tempfile.mkstemp(prefix=TEMPORARY_PREFIX, suffix=".tmp", dir=destination.parent)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, destination)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(destination.parent)


def _sync_directory(directory: Path) -> None:
    """fsync ``directory`` so the rename itself survives a crash (not possible everywhere: then skipped)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def write_report(path: str | os.PathLike[str], text: str, option: str, encoding: str = "utf-8") -> None:
    """Write the report ``text`` to ``path`` atomically; a :class:`HarnessError` naming ``option`` if it failed."""
    try:
        write_atomically(path, text.encode(encoding))
    except OSError as error:
        raise HarnessError(f"cannot write {option} {os.fspath(path)}: {error.strerror or error}") from None
