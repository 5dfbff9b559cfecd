"""Reading a corpus one document at a time, with one-line errors naming the file (and line).

A PATH is one of:

* a ``.jsonl`` file: one document per line, the line's JSON object's ``text`` string (other fields
  are ignored; the newline ending the last line may be there or not, no other line may be blank);
* any other regular file: one document, the whole file;
* a directory: every regular file below it, in sorted order of their paths relative to the
  directory, each read as above (so a ``.jsonl`` file there is still one document per line); links
  to directories are not followed, and what is not a regular file (a FIFO, a device) is no document.

Files are UTF-8 and read exactly (no newline translation, a byte order mark stays a character), and a
document must be valid Unicode (a ``.jsonl`` escape of a lone surrogate is refused), so the
implementation and the reference are given the same text. Files are opened one at a time, as the
documents are asked for.

>>> import json, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "b.txt").write_text("second"), (folder / "a.txt").write_text("first")
>>> _ = (folder / "more.jsonl").write_text(json.dumps({"text": "x"}) + "\\n" + json.dumps({"text": "y"}) + "\\n")
>>> [(document.text, document.origin.split("/")[-1]) for document in read_documents([str(folder)])]
[('first', 'a.txt'), ('second', 'b.txt'), ('x', 'more.jsonl:1'), ('y', 'more.jsonl:2')]
>>> _ = (folder / "bad.jsonl").write_text('{"text": "ok"}\\n{"txt": "no"}\\n')
>>> list(read_documents([str(folder / "bad.jsonl")]))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
bpe_conformance.errors.HarnessError: --corpus '.../bad.jsonl' line 2: no "text" field (a JSON object with a "text" ...)
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bpe_conformance.errors import HarnessError
from bpe_conformance.files import loads_bounded, write_report

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

__all__ = ["JSONL_SUFFIX", "Document", "corpus_files", "disk_bytes", "read_documents", "write_jsonl"]

JSONL_SUFFIX = ".jsonl"
_EXPECTED_LINE = 'a JSON object with a "text" string is expected on every line'


@dataclass(frozen=True)
class Document:
    """One document and where it came from: a file's path, or ``path:line`` in a ``.jsonl`` file."""

    text: str
    origin: str


def _describe_unicode_error(error: UnicodeError) -> str:
    if isinstance(error, UnicodeDecodeError):
        return f"{error.reason} at byte {error.start} ({error.object[error.start : error.start + 4]!r})"
    return str(error)


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _files_below(root: Path) -> list[Path]:
    found: list[Path] = []

    def walk_error(error: OSError) -> None:
        raise HarnessError(f"cannot list {str(error.filename)!r}: {error.strerror or error}")

    for directory, _, names in os.walk(root, onerror=walk_error):
        found.extend(Path(directory, name) for name in names if _regular(Path(directory, name)))
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


def corpus_files(path: str, what: str = "--corpus") -> list[Path]:
    """The files ``path`` names (itself, or every regular file below it); HarnessError if there is none."""
    shown = repr(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise HarnessError(f"{what} {shown}: {error.strerror or error}") from None
    if stat.S_ISDIR(mode):
        files = _files_below(Path(path))
        if not files:
            raise HarnessError(f"{what} {shown}: the directory holds no regular file, so no document")
        return files
    if not stat.S_ISREG(mode):
        raise HarnessError(f"{what} {shown} is not a regular file or a directory")
    return [Path(path)]


def disk_bytes(paths: Iterable[str], what: str = "--corpus") -> int:
    """How many bytes the files of ``paths`` hold on disk (for a progress bar)."""
    total = 0
    for path in paths:
        for file in corpus_files(path, what):
            try:
                total += os.stat(file).st_size
            except OSError as error:
                raise HarnessError(f"{what} {str(file)!r}: {error.strerror or error}") from None
    return total


def _whole_file(path: Path, what: str) -> Document:
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as error:
        raise HarnessError(f"cannot read {what} {str(path)!r}: {error.strerror or error}") from None
    try:
        return Document(data.decode("utf-8"), str(path))
    except UnicodeDecodeError as error:
        raise HarnessError(f"{what} {str(path)!r} is not UTF-8 text: {_describe_unicode_error(error)}") from None


def _line_text(raw: bytes, where: str) -> str:
    if not raw.strip():
        raise HarnessError(f"{where}: the line is empty ({_EXPECTED_LINE})")
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise HarnessError(f"{where}: not UTF-8: {_describe_unicode_error(error)}") from None
    try:
        record = loads_bounded(line, where)
    except json.JSONDecodeError as error:
        raise HarnessError(f"{where}: not JSON: {error}") from None
    if not isinstance(record, dict):
        raise HarnessError(f"{where}: a JSON {type(record).__name__}, not an object ({_EXPECTED_LINE})")
    if "text" not in record:
        raise HarnessError(f'{where}: no "text" field ({_EXPECTED_LINE})')
    text = record["text"]
    if not isinstance(text, str):
        raise HarnessError(f'{where}: "text" is a JSON {type(text).__name__}, not a string')
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise HarnessError(
            f'{where}: "text" holds a lone surrogate (U+{ord(text[error.start]):04X} at character {error.start}), '
            "which is not Unicode text"
        ) from None
    return text


def _jsonl_lines(path: Path, what: str) -> Iterator[Document]:
    shown = f"{what} {str(path)!r}"
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below, after the last line was handed out
    except OSError as error:
        raise HarnessError(f"cannot read {shown}: {error.strerror or error}") from None
    with stream:
        number = 0
        try:
            for number, raw in enumerate(stream, start=1):
                yield Document(_line_text(raw.removesuffix(b"\n"), f"{shown} line {number}"), f"{path}:{number}")
        except OSError as error:
            raise HarnessError(f"cannot read {shown} after line {number}: {error.strerror or error}") from None


def read_documents(paths: Iterable[str], what: str = "--corpus") -> Iterator[Document]:
    """Every document of ``paths`` in order, read as it is asked for; HarnessError on anything unreadable."""
    for path in paths:
        for file in corpus_files(path, what):
            if file.suffix == JSONL_SUFFIX:
                yield from _jsonl_lines(file, what)
            else:
                yield _whole_file(file, what)


def write_jsonl(documents: Iterable[str], path: str | os.PathLike[str]) -> None:
    """Write ``documents`` as a ``.jsonl`` corpus (one ``{"text": ...}`` per line) that reads back the same."""
    text = "".join(json.dumps({"text": document}, ensure_ascii=False) + "\n" for document in documents)
    write_report(path, text, "--shrink")  # atomically: an earlier file stays whole if this fails
