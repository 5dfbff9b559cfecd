"""``python -m bpe_conformance``: the same as the ``bpe-conformance`` command."""

from bpe_conformance.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
