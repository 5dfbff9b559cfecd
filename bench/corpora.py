"""Benchmark corpora built from text every machine here has offline, deterministically.

* ``code``: the standard library's ``.py`` files (``sysconfig`` stdlib path, ``site-packages``
  excluded), sorted by relative path, one document per file, files that are not valid UTF-8 skipped.
* ``prose-en`` / ``prose-zh``: English and Chinese (zh_CN) manual pages from Debian's ``manpages``
  and ``manpages-zh`` (``bench/setup.sh`` installs them), gunzipped, roff markup stripped simply.

Each corpus is cut to a byte budget: whole documents in order, the last one cut at a character boundary.

>>> strip_roff('.TH LS 1\\n.SH NAME\\nls \\\\- list \\\\fBdirectory\\\\fR contents\\n.\\\\" comment\\n')
'LS 1\\nNAME\\nls - list directory contents'
>>> truncate(["ab", "cdé", "f"], 4)
['ab', 'cd']
"""

from __future__ import annotations

import gzip
import re
import sysconfig
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["CORPORA", "MAN_ROOT", "build", "manpage_documents", "stdlib_documents", "strip_roff", "truncate"]

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


CORPORA = ("code", "prose-en", "prose-zh")


def build(corpus: str, limit: int) -> list[str]:
    """The named corpus cut to ``limit`` bytes; ``ValueError`` if it is unknown or not installed."""
    if corpus == "code":
        documents = truncate(stdlib_documents(), limit)
    elif corpus in _MAN_SECTIONS:
        documents = truncate(manpage_documents(corpus), limit)
    else:
        raise ValueError(f"unknown corpus {corpus!r}; choose from {', '.join(CORPORA)}")
    if not documents:
        raise ValueError(f"corpus {corpus!r} is empty here (run bench/setup.sh to install manual pages)")
    return documents
