"""cProfile summaries of the fast engines, for finding what limits them.

``python -m bench.profile train`` profiles the fast trainer on the code corpus (10 MB, 10 000
merges by default); ``python -m bench.profile encode`` trains 10 000 rules that way first (not
profiled) and then profiles the fast encoder on 200 KB of the same text.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats

from bench.corpora import build

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Print the top functions by own time for the chosen engine."""
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.splitlines()[0])
    parser.add_argument("engine", choices=("train", "encode"))
    parser.add_argument("--corpus-bytes", type=int, default=10_000_000)
    parser.add_argument("--merges", type=int, default=10_000)
    parser.add_argument("--encode-bytes", type=int, default=200_000)
    parser.add_argument("--top", type=int, default=14)
    args = parser.parse_args(argv)

    from reference.fast_encoding import MergeTable, fast_encode
    from reference.fast_training import fast_train

    documents = build("code", args.corpus_bytes)
    profiler = cProfile.Profile()
    if args.engine == "train":
        profiler.runcall(fast_train, documents, args.merges)
    else:
        table = MergeTable(fast_train(documents, args.merges))
        profiler.runcall(fast_encode, "".join(documents)[: args.encode_bytes], table)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
