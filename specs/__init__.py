"""specs/ as the package ``bpe_conformance._specs``: how the wheel and editable installs ship these files.

Nothing to import; ``conformance/spec/resources.py`` finds the files through importlib.resources.
"""
