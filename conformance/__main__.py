"""``python -m conformance``: the same as the ``bpe-conformance`` command."""

from conformance.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
