"""Benchmark corpora built from text every machine here has offline, deterministically.

* ``code``: the standard library's ``.py`` files (``sysconfig`` stdlib path, ``site-packages``
  excluded), sorted by relative path, one document per file, files that are not valid UTF-8 skipped.
* ``prose-en`` / ``prose-zh``: English and Chinese (zh_CN) manual pages from Debian's ``manpages``
  and ``manpages-zh`` (``bench/setup.sh`` installs them), gunzipped, roff markup stripped simply.
* ``mixed`` (the 100 MB scale): code and prose taken in turns, whichever has fewer bytes so far
  goes next, so every prefix is about half of each. Code: the ``code`` documents, then the Go 1.19
  standard library's ``.go`` files (Debian ``golang-1.19-src``, ``testdata`` excluded). Prose: the
  Linux kernel's documentation (``.rst`` and ``.txt``, Debian ``linux-doc-6.1``), the Python 3.11
  documentation's reStructuredText sources (``python3.11-doc``), Perl's pod manuals (``perl-doc``),
  then the ``prose-en`` manual pages. Each source in sorted path order; ``bench/setup.sh`` installs
  the packages. About 92 MB of code and 49 MB of prose before the manual pages.

Each corpus is cut to a byte budget: whole documents in order, the last one cut at a character
boundary. The same installed packages give the same corpus; ``digest`` names a corpus exactly.

>>> strip_roff('.TH LS 1\\n.SH NAME\\nls \\\\- list \\\\fBdirectory\\\\fR contents\\n.\\\\" comment\\n')
'LS 1\\nNAME\\nls - list directory contents'
>>> truncate(["ab", "cdé", "f"], 4)
['ab', 'cd']
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import sysconfig
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

__all__ = [
    "CORPORA",
    "MAN_ROOT",
    "PROSE_SOURCES",
    "build",
    "digest",
    "file_documents",
    "manpage_documents",
    "mixed_documents",
    "stdlib_documents",
    "strip_roff",
    "taken_in_turns",
    "truncate",
]

MAN_ROOT = Path("/usr/share/man")
_MAN_SECTIONS = {"prose-en": "man[1-8]", "prose-zh": "zh_CN/man[1-8]"}

_COMMENT = re.compile(r'^\.\\".*$|^\'\\".*$', re.MULTILINE)
_REQUEST = re.compile(r"^[.'][ \t]*[A-Za-z]{1,3}[ \t]?", re.MULTILINE)
_FONT = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)")
_SPECIAL = re.compile(r"\\\(..|\\\[[^\]]*\]|\\[&|^%:]|\\\*.")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def strip_roff(source: str) -> str:
    """Man page source as plain-ish text: comments and request names dropped, escapes simplified."""
    text = _COMMENT.sub("", source)
    text = _REQUEST.sub("", text)
    text = _FONT.sub("", text)
    text = text.replace("\\-", "-").replace("\\e", "\\").replace('\\"', '"')
    text = _SPECIAL.sub("", text)
    return _BLANK_LINES.sub("\n", text).strip()


def truncate(documents: Iterable[str], limit: int) -> list[str]:
    """Whole documents in order until ``limit`` UTF-8 bytes; the last cut on a character boundary."""
    kept: list[str] = []
    total = 0
    for document in documents:
        data = document.encode("utf-8")
        if total + len(data) >= limit:
            rest = data[: limit - total].decode("utf-8", errors="ignore")
            if rest:
                kept.append(rest)
            break
        kept.append(document)
        total += len(data)
    return kept


def stdlib_documents() -> Iterator[str]:
    """Every standard-library source file that is valid UTF-8, in sorted path order."""
    root = Path(sysconfig.get_paths()["stdlib"])
    paths = sorted(
        (path for path in root.rglob("*.py") if "site-packages" not in path.relative_to(root).parts),
        key=lambda path: path.relative_to(root).as_posix(),
    )
    for path in paths:
        try:
            yield path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue


def manpage_documents(corpus: str) -> Iterator[str]:
    """Every installed manual page of the corpus's language, roff stripped, in sorted path order."""
    paths = sorted(MAN_ROOT.glob(f"{_MAN_SECTIONS[corpus]}/*.gz"), key=lambda path: path.as_posix())
    for path in paths:
        try:
            text = strip_roff(gzip.decompress(path.read_bytes()).decode("utf-8"))
        except (UnicodeDecodeError, OSError, EOFError):
            continue
        if text:
            yield text


GO_SOURCE = (Path("/usr/share/go-1.19/src"), ("*.go",), "golang-1.19-src")
# (root, patterns, Debian package): read in this order, each in sorted path order.
PROSE_SOURCES = (
    (Path("/usr/share/doc/linux-doc-6.1/Documentation"), ("*.rst.gz", "*.txt.gz"), "linux-doc-6.1"),
    (Path("/usr/share/doc/python3.11/html/_sources"), ("*.rst.txt",), "python3.11-doc"),
    (Path("/usr/share/perl/5.36/pod"), ("*.pod",), "perl-doc"),
)


def file_documents(root: Path, patterns: tuple[str, ...], package: str, skip_part: str = "testdata") -> Iterator[str]:
    """Every file under ``root`` matching a pattern (gunzipped if ``.gz``), valid UTF-8, in sorted path order.

    ``ValueError`` names the Debian package to install when ``root`` is missing.
    """
    if not root.is_dir():
        raise ValueError(f"{root} is missing (apt-get install {package}, or run bench/setup.sh)")
    paths = sorted(
        (path for pattern in patterns for path in root.rglob(pattern) if skip_part not in path.relative_to(root).parts),
        key=lambda path: path.relative_to(root).as_posix(),
    )
    for path in paths:
        try:
            data = path.read_bytes()
            yield (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
        except (UnicodeDecodeError, OSError, EOFError):
            continue


def taken_in_turns(first: Iterator[str], second: Iterator[str]) -> Iterator[str]:
    """Documents from two streams, the one with fewer UTF-8 bytes so far next; the rest of one when the other ends.

    >>> list(taken_in_turns(iter(["aaaa", "b"]), iter(["cc", "dd", "ee"])))
    ['aaaa', 'cc', 'dd', 'b', 'ee']
    """
    streams = [first, second]
    sizes = [0, 0]
    pending: list[str | None] = [next(first, None), next(second, None)]
    while pending[0] is not None or pending[1] is not None:
        turn = 0 if pending[1] is None or (pending[0] is not None and sizes[0] <= sizes[1]) else 1
        document = pending[turn]
        assert document is not None
        yield document
        sizes[turn] += len(document.encode("utf-8"))
        pending[turn] = next(streams[turn], None)


def mixed_documents() -> Iterator[str]:
    """Code (standard library, then Go) and prose (kernel, Python and Perl docs, man pages), in turns."""
    sources = [file_documents(*source) for source in PROSE_SOURCES]
    # Fail before the first document when a package is missing, not halfway through a corpus.
    for root, _, package in (GO_SOURCE, *PROSE_SOURCES):
        if not root.is_dir():
            raise ValueError(f"{root} is missing (apt-get install {package}, or run bench/setup.sh)")

    def code() -> Iterator[str]:
        yield from stdlib_documents()
        yield from file_documents(*GO_SOURCE)

    def prose() -> Iterator[str]:
        for source in sources:
            yield from source
        yield from manpage_documents("prose-en")

    return taken_in_turns(code(), prose())


def digest(documents: list[str]) -> str:
    """A short SHA-256 of the documents, naming a corpus exactly (same digest, same corpus)."""
    return hashlib.sha256(json.dumps(documents).encode("utf-8")).hexdigest()[:16]


CORPORA = ("code", "prose-en", "prose-zh", "mixed")


def build(corpus: str, limit: int) -> list[str]:
    """The named corpus cut to ``limit`` bytes; ``ValueError`` if it is unknown or not installed."""
    if corpus == "code":
        documents = truncate(stdlib_documents(), limit)
    elif corpus in _MAN_SECTIONS:
        documents = truncate(manpage_documents(corpus), limit)
    elif corpus == "mixed":
        documents = truncate(mixed_documents(), limit)
    else:
        raise ValueError(f"unknown corpus {corpus!r}; choose from {', '.join(CORPORA)}")
    if not documents:
        raise ValueError(f"corpus {corpus!r} is empty here (run bench/setup.sh to install manual pages)")
    return documents
