"""cProfile summaries of the fast engines, for finding what limits them.

``python -m bench.profile train`` profiles the fast trainer on the code corpus (10 MB, 10 000
merges by default; ``--corpus mixed`` for the 100 MB corpus); ``python -m bench.profile encode``
trains 10 000 rules that way first (not profiled) and then profiles the batched encoder on the
first megabyte of the corpus's documents (``encode-heap``: the heap encoder on 200 KB).
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
    parser.add_argument("engine", choices=("train", "encode", "encode-heap"))
    parser.add_argument("--corpus", default="code", help="a corpus of bench/corpora.py")
    parser.add_argument("--corpus-bytes", type=int, default=10_000_000)
    parser.add_argument("--merges", type=int, default=10_000)
    parser.add_argument("--encode-bytes", type=int, default=None, help="1 000 000 (encode), 200 000 (encode-heap)")
    parser.add_argument("--top", type=int, default=14)
    args = parser.parse_args(argv)
    if args.encode_bytes is None:
        args.encode_bytes = 1_000_000 if args.engine == "encode" else 200_000

    from bench.corpora import truncate
    from bpe_conformance.reference.fast_encoding import MergeTable, fast_encode, fast_encode_many
    from bpe_conformance.reference.fast_training import fast_train

    documents = build(args.corpus, args.corpus_bytes)
    profiler = cProfile.Profile()
    if args.engine == "train":
        profiler.runcall(fast_train, documents, args.merges)
    elif args.engine == "encode":
        table = MergeTable(fast_train(documents, args.merges))
        fast_encode_many(["ab"], table, "numpy")  # the table's layers, built once, are not encoding
        profiler.runcall(fast_encode_many, truncate(documents, args.encode_bytes), table)
    else:
        table = MergeTable(fast_train(documents, args.merges))
        profiler.runcall(fast_encode, "".join(documents)[: args.encode_bytes], table)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
