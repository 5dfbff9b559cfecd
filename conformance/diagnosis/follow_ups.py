"""Follow-up corpora: small inputs on which the diagnosis's bug models make different rules.

The diagnosis names a cause only when the implementation, trained on these, makes what that one
model makes (:func:`bpe_conformance.diagnosis.cross_examine`). Each corpus is there to tell some models
apart; ``tests/diagnosis/test_confirmation.py`` proves every two models differ on one of them.
"""

from __future__ import annotations

__all__ = ["FOLLOW_UP_CORPORA", "FOLLOW_UP_MERGES", "TIE_FREE_CORPORA"]

FOLLOW_UP_MERGES = 8

FOLLOW_UP_CORPORA: tuple[tuple[str, ...], ...] = (
    # Five pairs tied at 2: smallest, largest, first seen, smallest "a,b" string and smallest (b, a) all differ.
    ("cycy", "azaz", "dbdb", "xcxc", "eaea"),
    ("eaea", "xcxc", "dbdb", "azaz", "cycy"),
    ("pqpq", "dada", "bzbz", "ywyw", "fcfc", "kgkg"),
    ("abab", "cdcd", "abcd abcd"),
    ("zyzy", "baba", "mnmn", "cxcx"),
    # Counts of 2 and of 1 only: the minimum count decides.
    ("abcd",),
    ("abab", "xyz"),
    # Pairs only across document boundaries.
    ("xay", "xby", "xcy"),
    ("zap", "zbp", "zcp", "zdp"),
    # Runs: overlapping windows, scan direction, overlapping replacement.
    ("aaa", "bcbc"),
    ("aaab", "aaab"),
    ("aaaaa", "caaaaa"),
    ("aaaa", "bcbcbc"),
    ("bbb", "cdcd"),
    ("aaab", "aaab", "aaab"),
    ("aaaaaaa",),
    # Counts that change after a merge.
    ("abcabc",),
    ("abcabcab",),
    # Spaces and punctuation: the pre-tokenizers.
    ("ab ab ab",),
    ("ab,ab,ab",),
    ("a b a b", "x, y x, y"),
    ("it's it's", "1 2 1 2"),
    # Repeats, surrounding whitespace, decomposed accents: the input rewrites.
    ("ab", "ab", "cdcd"),
    ("abab", "abab", "cdcdcd"),
    ("xy", "xy", "xy", "zwzw"),
    ("ab", "ab", "ab", "cdcd"),
    # Repeats apart from each other, and repeats up to case only: rewrites a step away from the models.
    ("ab", "cdcd", "ab"),
    ("xy", "zwzw", "xy", "zwzw"),
    ("abab", "ABAB", "cdcd"),
    ("  ab", "  ab"),
    ("   ab", "   ab"),
    ("\t\t\t x", "\t\t\t y"),
    ("\n\n\n\nzz", "\n\n\n\nzz"),
    (" xy ", " xy ", "zz"),
    ("xy  ", "xy  ", "zz"),
    ("\n\nqq\n\n", "\t\tqq"),
    ("e\u0301e\u0301",),
    ("e\u0301xe\u0301x", "qq"),
    ("o\u0308o\u0308", "ab"),
)

# For telling a tie order from everything else: the diagnosis trains on each only up to its first tie
# (:func:`bpe_conformance.diagnosis.rounds_before_a_tie`), where no tie order can matter; each has at least
# five rounds with one pair alone at the top count under every trainable profile
# (tests/diagnosis/test_confirmation.py). Upper case, line ends, non-ASCII letters, spaces and
# punctuation, repeats and counts that change from round to round, so that rewritten input, stale or
# partial counts and lost heap entries show before the first tie.
TIE_FREE_CORPORA: tuple[tuple[str, ...], ...] = (
    ("QQQQQQQQQQTTTTTTTTeeeeeebHEbHE", "HeQABB"),
    ("cbecbecbecbecbe\ne\ne\ne\neebebeb\ne\r\ne\r", "e\r\r\nab"),
    ("dbdbdbdbdbÄÄÄÄÄÄÄÄÄÄÄÄaa高aa高aa高bébbéb", "edb低低a"),
    ("bd bd bd bd bd ,,,,,,,, bd bd bd d d", "e ec.,"),
)
