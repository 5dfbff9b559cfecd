"""What a worker runs next: the checks round-robin, fresh seeds, growing example counts.

Each worker starts at its own place in the list, so at any moment the workers are on different
checks. A check's n-th round runs ``2**n`` times its ``run`` budget (capped at :data:`MAX_GROWTH`), so
the first pass over the suite is as quick as ``run`` and later passes dig deeper. A check that has just
failed rests for a few cycles (1, 2, 4, then 8 at most): it is fuzzed further for *other* failures,
but does not spend the campaign re-finding the same one. Checks of fixed cases (the known-answer
vectors) draw nothing new, so they run once, in worker 0.

>>> schedule = Schedule(["a", "b", "c"], fixed=["v"], start=1)
>>> [schedule.next() for _ in range(5)]
[('v', 0), ('b', 0), ('c', 0), ('a', 0), ('b', 1)]
>>> schedule.record("c", failed=True)
>>> [schedule.next()[0] for _ in range(5)]
['a', 'b', 'c', 'a', 'b']
>>> examples_for_round(60, 0), examples_for_round(60, 3), examples_for_round(60, 50)
(60, 480, 1920)
>>> round_seed(7, worker=0, generation=0, round_index=0) != round_seed(7, worker=1, generation=0, round_index=0)
True
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["MAX_GROWTH", "MAX_REST", "Schedule", "examples_for_round", "round_seed", "start_offset"]

# 2**5 = 32 times a check's run budget: the dev profile's 60 examples become 1 920, about `--thorough`.
MAX_GROWTH = 5
MAX_REST = 8


def examples_for_round(base_examples: int, round_of_check: int) -> int:
    """The example budget of a check's ``round_of_check``-th round (0-based): doubling, then flat."""
    value: int = base_examples * 2 ** min(round_of_check, MAX_GROWTH)
    return value


def round_seed(campaign_seed: int, worker: int, generation: int, round_index: int) -> int:
    """A 32-bit seed of its own for every round of every worker (``generation`` counts the worker's restarts)."""
    text = f"{campaign_seed}/{worker}/{generation}/{round_index}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big")


def start_offset(worker: int, workers: int, checks: int) -> int:
    """Where worker ``worker`` of ``workers`` starts in a list of ``checks``: spread evenly.

    >>> [start_offset(worker, 3, 34) for worker in range(3)]
    [0, 11, 22]
    """
    return (worker * checks // max(1, workers)) if checks else 0


class Schedule:
    """The order one worker runs its checks in; :meth:`record` tells it how a round ended."""

    def __init__(self, searched: Sequence[str], fixed: Sequence[str] = (), start: int = 0) -> None:
        self.searched = list(searched)
        self.pending_fixed = list(fixed)
        self.position = start % len(self.searched) if self.searched else 0
        self.rounds: dict[str, int] = dict.fromkeys([*self.searched, *self.pending_fixed], 0)
        self.failures: dict[str, int] = dict.fromkeys(self.searched, 0)
        self.resting: dict[str, int] = dict.fromkeys(self.searched, 0)

    @property
    def exhausted(self) -> bool:
        """True when nothing is left to run: no check draws new examples and the fixed ones have run."""
        return not self.searched and not self.pending_fixed

    def next(self) -> tuple[str, int]:
        """The next check's name and how many rounds of it this worker has run before."""
        if self.pending_fixed:
            name = self.pending_fixed.pop(0)
            return name, self._count(name)
        if not self.searched:
            raise LookupError("every check of this schedule has run")
        while True:  # ends: each pass over a resting check shortens its rest
            name = self.searched[self.position]
            self.position = (self.position + 1) % len(self.searched)
            if self.resting[name] > 0:
                self.resting[name] -= 1
                continue
            return name, self._count(name)

    def _count(self, name: str) -> int:
        count = self.rounds[name]
        self.rounds[name] = count + 1
        return count

    def record(self, name: str, failed: bool) -> None:
        """A failed round sends the check to rest for 1, 2, 4, ... (at most :data:`MAX_REST`) cycles."""
        if failed and name in self.failures:
            self.failures[name] += 1
            self.resting[name] = min(2 ** (self.failures[name] - 1), MAX_REST)
