"""``python -m conformance``: the same as the ``bpe-conformance`` command."""

from conformance.cli import main

raise SystemExit(main())
