"""Benchmarks of the fast engines against the literal reference and third-party tokenizers.

Run ``bash bench/setup.sh`` once, then ``python -m bench.run`` (or ``bpe-conformance bench``).
"""
