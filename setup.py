"""The sdist keeps the checkout's three symbolic links as links (everything else is in pyproject.toml).

``bpe_conformance -> conformance``, ``conformance/reference -> ../reference`` and ``conformance/_specs -> ../specs``
give tools that read files (pytest's doctests, mypy, mutmut) the installed package's names; without them the
tests of an unpacked sdist could not be collected. setuptools copies files into the release tree, so the links
are made there, and the tarball stores them as links (MANIFEST.in prunes the copies the file list would hold).
"""

from __future__ import annotations

import os

from setuptools import setup
from setuptools.command.sdist import sdist

LINKS = {
    "bpe_conformance": "conformance",
    os.path.join("conformance", "reference"): os.path.join("..", "reference"),
    os.path.join("conformance", "_specs"): os.path.join("..", "specs"),
}


class SdistWithLinks(sdist):
    """``sdist`` whose release tree holds the checkout's links."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        for link, target in LINKS.items():
            path = os.path.join(base_dir, link)
            if not os.path.lexists(path):
                os.symlink(target, path)


setup(cmdclass={"sdist": SdistWithLinks})
