"""Finding and killing every process an implementation started, even those that left its group or session.

On Linux the harness makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): a process
whose parent dies is re-parented to the harness instead of to init. Each implementation is started
with a tag in its environment (``BPE_CONFORMANCE_SUBJECT``), which its descendants inherit. To stop
an implementation the harness kills, repeatedly until none is left: its process group, every process
below it in the process tree (``/proc/<pid>/task/<tid>/children``), and every child of the harness
that carries its tag; and it reaps the orphans it killed, so no zombie is left either.

What escapes (documented in ``specs/protocol.md``): a descendant that both cleared its environment and
was orphaned, a process of another user, and anything on a system without ``/proc`` (elsewhere only the
process group is killed).

>>> tag = new_tag()
>>> tag.startswith(f"{os.getpid()}-"), TAG_VARIABLE
(True, 'BPE_CONFORMANCE_SUBJECT')
>>> descendants(2**22 + 12345)  # no such process: nothing below it
set()
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "REAP_SECONDS",
    "TAG_VARIABLE",
    "become_subreaper",
    "descendants",
    "die_with_parent",
    "group_children",
    "kill_orphans",
    "kill_tree",
    "new_tag",
    "tagged_children",
]

TAG_VARIABLE = "BPE_CONFORMANCE_SUBJECT"
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_PDEATHSIG = 1
_QUIET_ROUNDS = 3
_ROUND_PAUSE = 0.01
# How long a SIGKILLed process may take to be gone before the harness stops waiting for it: SIGKILL cannot
# be ignored, but on a loaded machine (load 8 on 2 cores) a process takes seconds to exit. kill_tree's
# rounds and the wait for the implementation itself (adapters/child.py) both use it; a fixed count of
# rounds ran out first there and left a killed orphan unreaped.
REAP_SECONDS = 30.0
_counter = itertools.count(1)
_subreaper: dict[str, bool] = {}


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux); True when it is one."""
    if "done" not in _subreaper:
        _subreaper["done"] = False
        if sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper["done"] = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return _subreaper["done"]


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the kernel SIGKILL the child when its parent dies (Linux); None elsewhere.

    So a ``kill -9`` of the harness cannot leave a busy implementation running, re-parented to init.
    The kernel's "parent" is the *thread* that forked: :func:`bpe_conformance.adapters.child.spawn`
    forks from the main thread or from one thread that lives as long as the harness. The child checks
    its parent after arming, in case the harness died between the fork and the ``prctl``.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent, kill = os.getpid(), int(signal.SIGKILL)

    def arm() -> None:
        prctl(_PR_SET_PDEATHSIG, kill, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return arm


def new_tag() -> str:
    """A tag unique to one started implementation, inherited by everything it starts."""
    return f"{os.getpid()}-{next(_counter)}"


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, ValueError):
                found.update(int(child) for child in (task / "children").read_text().split())
    return found


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` in the process tree (not ``pid`` itself)."""
    found: set[int] = set()
    pending = [pid]
    while pending:
        for child in _children(pending.pop()) - found:
            found.add(child)
            pending.append(child)
    return found


def _has_tag(pid: int, tag: str, variable: str = TAG_VARIABLE) -> bool:
    try:
        environment = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
    return f"{variable}={tag}".encode() in environment.split(b"\0")


def _process_group(pid: int) -> int | None:
    """The process group of ``pid`` (readable for a zombie too, unlike its environment)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[2])
    except (OSError, IndexError, ValueError):
        return None


def group_children(group: int) -> set[int]:
    """Children of this process (orphans re-parented to it, zombies included) that are in process group ``group``."""
    return {pid for pid in _children(os.getpid()) if _process_group(pid) == group}


def tagged_children(tag: str, variable: str = TAG_VARIABLE) -> set[int]:
    """Children of this process (orphans re-parented to it) whose environment sets ``variable`` to ``tag``."""
    return {pid for pid in _children(os.getpid()) if _has_tag(pid, tag, variable)}


def kill_orphans(tag: str, variable: str) -> set[int]:
    """SIGKILL and reap every orphan re-parented to this process that carries ``variable=tag``, with its tree.

    For what a process leaves behind when it dies without stopping its own children (a fuzz worker
    killed while its implementation runs): they carry the variable it set. Returns the pids killed.
    """
    found = tagged_children(tag, variable)
    for pid in found:
        kill_tree(pid, tag)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    return found


def _reap(pids: set[int]) -> set[int]:
    """Reap those of ``pids`` that are zombie children of this process; the ones still there."""
    left = set()
    for pid in pids:
        try:
            reaped, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not (or no longer) our child: gone, or someone else's to reap
            if Path(f"/proc/{pid}").exists():
                left.add(pid)
            continue
        if reaped == 0:
            left.add(pid)
    return left


def kill_tree(pid: int, tag: str) -> None:
    """SIGKILL ``pid``'s group, its descendants and every orphan carrying ``tag``; reap the orphans.

    ``pid`` itself is left for its ``Popen`` to reap. Rounds repeat (for at most ``REAP_SECONDS``) while
    any is found or not yet gone, so a process forking as fast as it can is still caught. A zombie's
    environment is unreadable, so every process killed is remembered until it has been reaped.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    killed: set[int] = set()
    quiet = 0
    deadline = time.monotonic() + REAP_SECONDS
    while time.monotonic() < deadline:
        # The group's members killed by killpg that were orphaned to us: a zombie's tag is unreadable.
        found = descendants(pid) | tagged_children(tag) | group_children(pid)
        for other in set(found):
            found |= descendants(other)
        found.discard(pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        for other in found - killed:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(other, signal.SIGKILL)
        killed |= found
        killed = _reap(killed)
        # A process caught mid-exec, or mid-way to its new parent, is briefly invisible: look again.
        quiet = quiet + 1 if not found and not killed else 0
        if quiet >= _QUIET_ROUNDS:
            return
        time.sleep(_ROUND_PAUSE)
