"""``python -m bpe_conformance``: the same as the ``bpe-conformance`` command (it ends with ``os._exit``)."""

from bpe_conformance.cli.main import entry

if __name__ == "__main__":
    entry()
