"""Subcommands of ``bpe-conformance``; each module exposes ``register(subparsers)``."""
