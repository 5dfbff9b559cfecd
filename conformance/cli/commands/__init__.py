"""The subcommands of ``bpe-conformance``: each module registers one (``register(subparsers)``) and handles it.

:func:`bpe_conformance.cli.main.command_modules` finds them by listing this package, so a new module here is a
new subcommand.
"""
