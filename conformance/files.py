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
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_conformance.errors import HarnessError

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "LAUNCH_DIRECTORY",
    "MAX_JSON_DEPTH",
    "MAX_TEXT_FILE_BYTES",
    "STDOUT",
    "TEMPORARY_PREFIX",
    "loads_bounded",
    "read_text_file",
    "writable_path",
    "write_atomically",
    "write_output",
    "write_report",
]


def _launch_directory() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # started from a directory since removed
        return None


# The working directory when the harness started, taken before any implementation is loaded: one in
# process that changes directory cannot move a relative --database (reports: writable_path).
LAUNCH_DIRECTORY = _launch_directory()
# No input file of the harness nests deeper than a matrix document (about 8); far deeper is hostile.
MAX_JSON_DEPTH = 64
# A report path that means standard output.
STDOUT = "-"
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


def writable_path(
    value: str | os.PathLike[str],
    option: str,
    inputs: Iterable[tuple[str, str | os.PathLike[str]]] = (),
    *,
    stdout_allowed: bool = False,
) -> Path:
    """``value`` as a path a report can be written to, checked before the work that produces the report.

    Its directory exists and takes a new file (tried: a read-only filesystem refuses even root); the path
    is not a directory, a FIFO or a device (a report replaces a regular file or creates one); and it is
    none of the command's ``inputs`` (pairs of option and path), which the report would destroy. With
    ``stdout_allowed``, ``-`` is standard output (:func:`write_report` writes there).
    """
    if stdout_allowed and os.fspath(value) == STDOUT:
        return Path(STDOUT)
    path = Path(value)
    if not path.parent.is_dir():
        raise HarnessError(f"{option} {value}: directory {str(path.parent)!r} does not exist")
    try:
        mode: int | None = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise HarnessError(f"{option} {value}: is a directory, not a file")
    if mode is not None and not stat.S_ISREG(mode):
        raise HarnessError(f"{option} {value}: is not a regular file (a FIFO or a device); give a file path")
    for input_option, input_path in inputs:
        if _same_file(path, Path(input_path)):
            raise HarnessError(f"{option} {value}: is also {input_option}, which the report would overwrite")
    try:
        descriptor, probe = tempfile.mkstemp(prefix=TEMPORARY_PREFIX, suffix=".probe", dir=path.parent)
    except OSError as error:
        problem = error.strerror or error
        raise HarnessError(f"{option} {value}: cannot write in {str(path.parent)!r}: {problem}") from None
    os.close(descriptor)
    os.unlink(probe)
    # Absolute now, before any implementation is loaded: one that changes the working directory
    # (in process) cannot move the report.
    return Path(os.path.abspath(path))


def _same_file(one: Path, other: Path) -> bool:
    """True when ``one`` and ``other`` name the same file (a link, ``./x`` and ``x``), existing or not."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        return one.resolve() == other.resolve()


def _new_file_mode() -> int:
    """0o666 less the process's umask: the mode ``open(path, "w")`` would give a new file."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


# Read once, at import: reading the umask means setting it, which is not safe while other threads create files.
_NEW_FILE_MODE = _new_file_mode()


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` or leave it as it was; :class:`OSError` when the write failed.

    The bytes go to a temporary file beside ``path`` (same filesystem, so the rename is atomic), are
    flushed and fsynced, and only then renamed over ``path``: a full disk or a kill mid-write never
    leaves a truncated file, and an earlier file stays whole.
    """
    destination = Path(path)
    descriptor, temporary = tempfile.mkstemp(prefix=TEMPORARY_PREFIX, suffix=".tmp", dir=destination.parent)
    try:
        # mkstemp makes the file private (0600); a report gets the mode any new file would (umask applied).
        os.fchmod(descriptor, _NEW_FILE_MODE)
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


def write_output(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` with :func:`write_atomically` (``-``: standard output); OSError on failure."""
    if os.fspath(path) == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_atomically(path, text.encode(encoding))


def write_report(path: str | os.PathLike[str], text: str, option: str, encoding: str = "utf-8") -> None:
    """:func:`write_output`, with a failure as a one-line :class:`HarnessError` naming ``option`` and ``path``."""
    try:
        write_output(path, text, encoding)
    except OSError as error:
        raise HarnessError(f"cannot write {option} {os.fspath(path)!r}: {error.strerror or error}") from None


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _nesting(value: object, limit: int) -> bool:
    """True when ``value`` nests lists and dicts at most ``limit`` deep (iteratively: no recursion)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (list, dict)):
            if depth > limit:
                return False
            pending.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return True


def loads_bounded(text: str, what: str, max_depth: int = MAX_JSON_DEPTH) -> object:
    """``json.loads(text)`` for an input file, with its bounds as one-line :class:`HarnessError` naming ``what``.

    Refused: nesting deeper than ``max_depth`` (100 000 ``[`` once ended in a RecursionError), a number
    too long to convert, and ``NaN``/``Infinity`` (not JSON). Malformed JSON stays a
    :class:`json.JSONDecodeError`, for the caller to word.

    >>> loads_bounded("[[1]]", "--json-file", max_depth=1)
    Traceback (most recent call last):
    ...
    bpe_conformance.errors.HarnessError: --json-file nests arrays or objects more than 1 deep
    >>> loads_bounded("[NaN]", "--from")
    Traceback (most recent call last):
    ...
    bpe_conformance.errors.HarnessError: --from: NaN is not a JSON number
    """
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise HarnessError(f"{what} nests arrays or objects more than {max_depth} deep") from None
    except json.JSONDecodeError:
        raise
    except ValueError as error:  # a constant refused, or an integer beyond Python's conversion limit
        detail = str(error)
        if "integer string conversion" in detail:
            detail = "a number has too many digits (more than Python converts)"
        raise HarnessError(f"{what}: {detail}") from None
    if not _nesting(value, max_depth):
        raise HarnessError(f"{what} nests arrays or objects more than {max_depth} deep")
    return value
