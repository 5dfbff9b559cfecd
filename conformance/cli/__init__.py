"""The command line: ``bpe-conformance`` and its subcommands, one module each.

:mod:`~bpe_conformance.cli.main` builds the parser and dispatches; each of ``run``, ``fuzz``, ``zoo``, ``vectors``,
``identify``, ``matrix``, ``compare``, ``trace``, ``explain`` and ``bench`` registers one subcommand;
:mod:`~bpe_conformance.cli.arguments` holds the options they share. The top layer: it may import any
other package of the harness, and none imports it.
"""
