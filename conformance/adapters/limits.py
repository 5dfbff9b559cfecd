"""Limits for an implementation in its own process: memory, environment, working directory.

Set in the child between ``fork`` and ``exec`` (never in the harness itself); ``specs/protocol.md``
(resource limits) says what each does, what was measured, and why the defaults are what they are.

* ``memory_bytes``: ``RLIMIT_DATA`` (not ``RLIMIT_AS``: Node.js and wasm runtimes reserve huge address
  ranges and die under ``RLIMIT_AS`` although they use little memory). None switches it off.
* ``clean_env``: the implementation sees an allow-list environment (:data:`ALLOWED_VARIABLES`, ``LC_*``),
  the variables the harness itself must pass, and the ones named in ``passed_env``.
* ``temp_cwd``: each process runs in a new temporary directory, removed when it is stopped.

>>> parse_size("512M"), parse_size("4G"), parse_size("none"), parse_size("0")
(536870912, 4294967296, None, None)
>>> format_size(4 * 1024**3), format_size(1536 * 1024**2)
('4 GiB', '1.5 GiB')
>>> sorted(ProcessLimits(clean_env=True).environment({"PATH": "/bin", "SECRET": "x", "LC_ALL": "C"}))
['LC_ALL', 'PATH']
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.results.outcomes import LimitsRecord

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = [
    "ALLOWED_VARIABLES",
    "DEFAULT_LIMITS",
    "DEFAULT_MEMORY_LIMIT",
    "MARKER_PREFIX",
    "MEMORY_PEAK_SHARE",
    "MIN_MEMORY_LIMIT",
    "NO_LIMITS",
    "ProcessLimits",
    "format_size",
    "limit_memory",
    "make_workdir",
    "memory_size",
    "parse_size",
    "remove_orphan_workdirs",
    "remove_workdir",
    "resolve_program",
    "variable_name",
]

DEFAULT_MEMORY_LIMIT = 4 * 1024**3
# Measured (specs/protocol.md 5.2): Node.js 20 prints "ok" under 64 MiB, aborts under 8 MiB and hangs under 16 MiB
# (a hang, not a crash: a limit that small would read as a slow implementation).
MIN_MEMORY_LIMIT = 64 * 1024**2
# A process that died after its resident memory reached this share of the limit ran into the limit
# (measured: hogs under RLIMIT_DATA die at 83-99 % of it, specs/protocol.md 5.2); a smaller peak is a crash.
MEMORY_PEAK_SHARE = 0.5
# What any program needs to run, on POSIX and on Windows (SYSTEMROOT and its kind), and nothing personal.
ALLOWED_VARIABLES = frozenset(
    {
        "PATH",
        "HOME",
        "LANG",
        "LANGUAGE",
        "TMPDIR",
        "TEMP",
        "TMP",
        "TZ",
        "SYSTEMROOT",
        "SYSTEMDRIVE",
        "WINDIR",
        "COMSPEC",
        "PATHEXT",
    }
)
# The harness's own markers (process-tree cleanup: the subject's tag, a fuzz worker's tag) pass a clean
# environment: without them the harness could not find what an implementation left behind.
MARKER_PREFIX = "BPE_CONFORMANCE_"
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_SIZE = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]+)?)\s*(?P<unit>[KMGT]?)(?:I?B)?", re.IGNORECASE)
_OFF = ("none", "off", "0")


def parse_size(text: str) -> int | None:
    """``512M``, ``4G``, ``1.5GiB``, ``100000000`` as bytes (binary units); ``none``/``0`` as None.

    A :class:`ValueError` with a one-line reason for anything else, and for a limit under
    :data:`MIN_MEMORY_LIMIT`.

    >>> parse_size("1.5GiB") == 1536 * 1024**2
    True
    >>> parse_size("12 apples")
    Traceback (most recent call last):
    ...
    ValueError: memory limit must be a size like 512M or 4G, or none; got '12 apples'
    """
    stripped = text.strip()
    if stripped.lower() in _OFF:
        return None
    match = _SIZE.fullmatch(stripped)
    if match is None:
        raise ValueError(f"memory limit must be a size like 512M or 4G, or none; got {text!r}")
    size = int(float(match["number"]) * _UNITS[match["unit"].upper()])
    if size == 0:
        return None
    if size < MIN_MEMORY_LIMIT:
        raise ValueError(
            f"memory limit {text!r} is under {format_size(MIN_MEMORY_LIMIT)}, too little for any runtime to start"
        )
    return size


def format_size(size: int) -> str:
    """``size`` bytes in the largest binary unit that keeps it readable (``4 GiB``, ``512 MiB``)."""
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if size >= factor:
            return f"{size / factor:.4g} {unit}"
    return f"{size} B"


@dataclass(frozen=True)
class ProcessLimits:
    """The limits every implementation process of one command gets (``--memory-limit``, ``--clean-env``,
    ``--env``, ``--temp-cwd``)."""

    memory_bytes: int | None = DEFAULT_MEMORY_LIMIT
    clean_env: bool = False
    passed_env: tuple[str, ...] = ()
    temp_cwd: bool = False

    def environment(self, base: Mapping[str, str], required: Sequence[str] = ()) -> dict[str, str]:
        """The environment the implementation gets: ``base`` whole, or under ``clean_env`` its allowed part.

        ``required`` are the variables the harness itself sets for the child (``PYTHONPATH`` for a Python
        subject); they pass either way.
        """
        if not self.clean_env:
            return dict(base)
        kept = ALLOWED_VARIABLES | set(required) | set(self.passed_env)
        return {name: value for name, value in base.items() if name in kept or name.startswith(("LC_", MARKER_PREFIX))}

    def record(self) -> LimitsRecord:
        """The limits as a report records them (``config.limits``)."""
        return LimitsRecord(self.memory_bytes, self.clean_env, self.passed_env, self.temp_cwd)


DEFAULT_LIMITS = ProcessLimits()
# For the harness's own helper processes (fuzz workers): limits are for implementations only.
NO_LIMITS = ProcessLimits(memory_bytes=None)


def limit_memory(limit: int | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` part that sets ``RLIMIT_DATA`` to ``limit`` in the child; None when there is nothing to set.

    The hard limit is lowered too (the implementation cannot raise its own), never raised above what the
    harness has.
    """
    if limit is None:
        return None
    try:
        import resource
    except ImportError:  # not POSIX: no limit to set
        return None
    if not hasattr(resource, "RLIMIT_DATA"):
        return None
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    bound = limit if hard == resource.RLIM_INFINITY else min(limit, hard)

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (bound, bound))

    return apply


_WORKDIR_PREFIX = "bpe-conformance-impl-"


def make_workdir() -> str:
    """A new, empty, private temporary directory for one implementation process, named for the harness's pid.

    A harness killed with SIGKILL cannot remove its directories; the next one to make a directory removes those
    whose harness is gone (:func:`remove_orphan_workdirs`), once: a harness starts many processes.
    """
    _remove_orphans_once(tempfile.gettempdir())
    return tempfile.mkdtemp(prefix=f"{_WORKDIR_PREFIX}{os.getpid()}-")


@functools.cache  # once per harness process and temporary directory
def _remove_orphans_once(parent: str) -> None:
    remove_orphan_workdirs(parent)


def remove_orphan_workdirs(parent: str) -> list[str]:
    """Remove the working directories in ``parent`` that belong to this user and to a harness no longer running.

    Only names :func:`make_workdir` gives (``bpe-conformance-impl-<pid>-...``) are considered; a directory whose
    pid is alive (a harness running now, or a process that took its pid) is kept. Returns those removed.
    """
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            if not entry.name.startswith(_WORKDIR_PREFIX):
                continue
            pid_text = entry.name.removeprefix(_WORKDIR_PREFIX).split("-", 1)[0]
            if not pid_text.isdigit() or _alive(int(pid_text)):
                continue
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_uid == os.getuid():
                    remove_workdir(entry.path)
                    removed.append(entry.path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process, or no pid at all: not ours to judge
    return True


def remove_workdir(path: str | None) -> None:
    """Remove an implementation's working directory and whatever it left there (never raises).

    Directories the implementation made unwritable are made writable first, so they can be emptied.
    """
    if path is None or not os.path.isdir(path) or os.path.islink(path):
        return
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    for root, directories, _ in os.walk(path):  # top down: each directory is unlocked before it is listed
        for name in directories:
            with contextlib.suppress(OSError):
                if not os.path.islink(os.path.join(root, name)):
                    os.chmod(os.path.join(root, name), 0o700)
    shutil.rmtree(path, ignore_errors=True)


def resolve_program(argv: Sequence[str], cwd: str) -> list[str]:
    """``argv`` with a relative program path (``./mytok``, ``bin/tok``) made absolute against ``cwd``.

    A bare name (``node``) is left for ``PATH``; arguments are left alone (the harness cannot know
    which are paths).

    >>> resolve_program(["./mytok", "--x"], "/home/u"), resolve_program(["node", "a.js"], "/home/u")
    (['/home/u/mytok', '--x'], ['node', 'a.js'])
    """
    program, *rest = argv
    if os.sep in program or (os.altsep is not None and os.altsep in program):
        program = os.path.normpath(os.path.join(cwd, program))
    return [program, *rest]


# The argparse types of the limit options, shared by ``bpe-conformance`` and the pytest plugin.
def memory_size(text: str) -> int | None:
    """A ``--memory-limit`` value: ``512M``, ``4G``; ``none`` or ``0`` for no limit (None).

    >>> memory_size("2G"), memory_size("none")
    (2147483648, None)
    >>> memory_size("-1G")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: memory limit must be a size like 512M or 4G, or none; got '-1G'
    """
    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def variable_name(text: str) -> str:
    """An ``--env`` value: the name of an environment variable (its value is the harness's own)."""
    if not _VARIABLE_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected the name of an environment variable, got {text!r}")
    return text
