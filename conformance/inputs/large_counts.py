"""Corpora whose top pair count crosses what 8 and 16 bits hold, built so that training them stays cheap.

A counter kept in ``uint8`` or ``uint16`` wraps at 256 or 65 536: the most frequent pair then looks rare
and another pair wins, or training stops. Random corpora never get there. These corpora do, with as
little text as possible: one pair repeated ``count`` times, either as that many copies of a two-byte
document (``copies``) or as one run of a single byte (``run``), next to a *rival* pair that occurs a few
times and wins as soon as the big count wraps. Hypothesis shrinks ``count`` to the smallest that still
shows a bug: 256 for an 8-bit counter, 65 536 for a 16-bit one.

>>> corpus = LargeCountCorpus("copies", 256, 3)
>>> corpus.documents()[:2], len(corpus.documents()), corpus.largest_count
(['ab', 'ab'], 259, 256)
>>> LargeCountCorpus("run", 256, 2).documents()[0] == "a" * 257
True
>>> LargeCountCorpus("run", 257, 2).width_crossed, LargeCountCorpus("run", 255, 2).width_crossed
(256, None)
>>> LargeCountCorpus("run", 65537, 2).with_count(65535)
['a' * 65536] + ['xy'] * 2
>>> LargeCountCorpus("copies", 65536, 2)
['ab'] * 65536 + ['xy'] * 2
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

__all__ = ["COUNTER_WIDTHS", "SHAPES", "LargeCountCorpus", "large_count_corpora"]

COUNTER_WIDTHS = (2**8, 2**16)
SHAPES = ("copies", "run")
_WORD, _RUN_UNIT, _RIVAL = "ab", "a", "xy"
# How far below and above a width the big count may fall: just below shows a counter is wide enough.
_BELOW, _ABOVE = 2, 3


@dataclass(frozen=True)
class LargeCountCorpus:
    """``count`` windows of one pair (``copies`` of 'ab', or a ``run`` of 'a'), and ``rival`` documents 'xy'."""

    shape: str
    count: int
    rival: int

    def documents(self) -> list[str]:
        """The documents; the big pair first, so an implementation that stops early shows it."""
        big = [_WORD] * self.count if self.shape == "copies" else [_RUN_UNIT * (self.count + 1)]
        return [*big, *[_RIVAL] * self.rival]

    @property
    def largest_count(self) -> int:
        """The count of the big pair, (97, 98) or (97, 97), in the first round."""
        return self.count

    @property
    def width_crossed(self) -> int | None:
        """The largest counter width (256 or 65 536) the big count reaches, or None below 256."""
        return max((width for width in COUNTER_WIDTHS if width <= self.count), default=None)

    def with_count(self, count: int) -> LargeCountCorpus:
        """The same shape and rival, the big pair seen ``count`` times."""
        return LargeCountCorpus(self.shape, count, self.rival)

    def __repr__(self) -> str:
        big = f"[{_WORD!r}] * {self.count}" if self.shape == "copies" else f"[{_RUN_UNIT!r} * {self.count + 1}]"
        return f"{big} + [{_RIVAL!r}] * {self.rival}" if self.rival else big


def large_count_corpora() -> st.SearchStrategy[LargeCountCorpus]:
    """A big pair whose count is within a few of 256 or 65 536, and a rival pair seen 2 to 5 times."""
    counts = st.builds(
        lambda width, offset: width + offset, st.sampled_from(COUNTER_WIDTHS), st.integers(-_BELOW, _ABOVE)
    )
    return st.builds(LargeCountCorpus, st.sampled_from(SHAPES), counts, st.integers(2, 5))
