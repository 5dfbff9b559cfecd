"""The clauses of ``specs/bpe.md`` as data: id, title, normative text, rationale and worked examples.

Every check, test and vector names the clause ids it enforces; this module is where those ids are
looked up, so a typo in an id is an error instead of a silently untested clause.

>>> clause = get_clause("bpe-train-tie")
>>> clause.id, clause.title
('BPE-TRAIN-TIE', 'Ties go to the smallest pair, compared as integers')
>>> clause.why.startswith("Ties are common")
True
>>> clause.examples[0].source.startswith(">>> from bpe_conformance.reference import")
True
>>> get_clause("bpe-train-ties")
Traceback (most recent call last):
...
ValueError: unknown clause id 'bpe-train-ties'; did you mean BPE-TRAIN-TIE or BPE-TRAIN-PIECE?
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from bpe_conformance.spec.resources import spec_file

__all__ = [
    "CLAUSE_ID_PATTERN",
    "SPEC_PATH",
    "WHY_PREFIX",
    "Block",
    "Clause",
    "Example",
    "SpecDocument",
    "find_clause_ids",
    "get_clause",
    "is_defined",
    "load_clauses",
    "load_document",
    "matching_clauses",
    "parse_document",
    "suggest_clause_ids",
]

SPEC_PATH = spec_file("bpe.md")
# One or more upper-case parts after "BPE-": BPE-ROUNDTRIP has a single part, BPE-TRAIN-TIE two.
CLAUSE_ID_PATTERN = re.compile(r"BPE-[A-Z]+(?:-[A-Z0-9]+)*")
# Prose and code may also name a family of clauses by area, as in "BPE-ALPHA-*".
_REFERENCE = re.compile(r"\b" + CLAUSE_ID_PATTERN.pattern + r"(?:-\*|\b)")
WHY_PREFIX = "**Why it matters.**"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_CLAUSE_HEADING = re.compile(r"^### (?P<id>\S+) — (?P<title>\S.*?)\s*$")
_FENCE = "```"
_EXAMPLE_LANGUAGE = "pycon"


@dataclass(frozen=True)
class Example:
    """One ```pycon block: the section it belongs to, the line its code starts on, and the code."""

    section: str
    line: int
    source: str


@dataclass(frozen=True)
class Block:
    """One part of a clause as the document orders it: a paragraph (``text``), the ``why`` paragraph, or an
    ``example``, whose ``text`` is its source and ``example`` the example itself."""

    kind: str
    text: str
    example: Example | None = None


@dataclass(frozen=True)
class Clause:
    """One normative clause: the text under its ``### <id> — <title>`` heading, split into parts.

    ``text``, ``why`` and ``examples`` gather each kind of part; ``blocks`` keeps every part in
    document order, so commentary written after an example is read after it.
    """

    id: str
    title: str
    text: str
    why: str
    examples: tuple[Example, ...]
    line: int
    blocks: tuple[Block, ...] = ()


@dataclass(frozen=True)
class SpecDocument:
    """Every clause, in document order, and every example, including those outside clauses."""

    clauses: dict[str, Clause]
    examples: tuple[Example, ...]


def find_clause_ids(text: str) -> list[str]:
    """Every clause id, or family of ids ending in ``-*``, mentioned in ``text``, in order of appearance.

    >>> find_clause_ids("checks BPE-TRAIN-TIE, BPE-ROUNDTRIP and BPE-ALPHA-*; bpe-rule-id is not upper case")
    ['BPE-TRAIN-TIE', 'BPE-ROUNDTRIP', 'BPE-ALPHA-*']
    """
    return [match.group() for match in _REFERENCE.finditer(text)]


def is_defined(reference: str, clauses: dict[str, Clause] | None = None) -> bool:
    """True for a defined clause id, or a ``-*`` family that at least one defined id belongs to.

    >>> is_defined("BPE-ROUNDTRIP"), is_defined("BPE-ALPHA-*")
    (True, True)
    >>> is_defined("BPE-TRAIN-TIE" + "S")  # spelled in two parts so the repository scan does not flag it
    False
    """
    defined = load_clauses() if clauses is None else clauses
    if reference.endswith("-*"):
        return any(clause_id.startswith(reference[:-1]) for clause_id in defined)
    return reference in defined


class _SectionBuilder:
    """Collects the paragraphs and fenced blocks of one section while the document is scanned."""

    def __init__(self, name: str, clause_id: str | None, title: str, line: int) -> None:
        self.name = name
        self.clause_id = clause_id
        self.title = title
        self.line = line
        self.paragraphs: list[str] = []
        self.why: list[str] = []
        self.examples: list[Example] = []
        self.blocks: list[Block] = []
        self._lines: list[str] = []

    def add_line(self, line: str) -> None:
        if line.strip():
            self._lines.append(line.rstrip())
        else:
            self.end_paragraph()

    def end_paragraph(self) -> None:
        if not self._lines:
            return
        paragraph = "\n".join(self._lines)
        self._lines = []
        if paragraph.startswith(WHY_PREFIX):
            self.why.append(" ".join(paragraph[len(WHY_PREFIX) :].split()))
            self.blocks.append(Block("why", self.why[-1]))
        else:
            self.paragraphs.append(paragraph)
            self.blocks.append(Block("text", paragraph))

    def add_fence(self, language: str, body: list[str], first_line: int) -> None:
        self.end_paragraph()
        if language == _EXAMPLE_LANGUAGE:
            example = Example(self.name, first_line, "".join(line + "\n" for line in body))
            self.examples.append(example)
            self.blocks.append(Block("example", example.source, example))
        else:
            self.paragraphs.append("\n".join([_FENCE + language, *body, _FENCE]))
            self.blocks.append(Block("text", self.paragraphs[-1]))

    def to_clause(self) -> Clause:
        self.end_paragraph()
        if len(self.why) > 1:
            raise ValueError(
                f"clause {self.clause_id} (line {self.line}) has {len(self.why)} '{WHY_PREFIX}' paragraphs"
            )
        return Clause(
            id=str(self.clause_id),
            title=self.title,
            text="\n\n".join(self.paragraphs),
            why=self.why[0] if self.why else "",
            examples=tuple(self.examples),
            line=self.line,
            blocks=tuple(self.blocks),
        )


def _start_section(heading: str, level: int, number: int) -> _SectionBuilder:
    """A builder for the section a heading opens; a malformed clause heading is an error, not prose."""
    clause = _CLAUSE_HEADING.match("#" * level + " " + heading) if level == 3 else None
    looks_like_clause = heading.upper().startswith("BPE-")
    if clause is None and looks_like_clause:
        raise ValueError(f"line {number}: clause heading must read '### <clause id> — <title>', got {heading!r}")
    if clause is None:
        return _SectionBuilder(heading, None, heading, number)
    if not CLAUSE_ID_PATTERN.fullmatch(clause["id"]):
        raise ValueError(f"line {number}: {clause['id']!r} is not a clause id (BPE-<AREA>-<NAME>, upper case)")
    return _SectionBuilder(clause["id"], clause["id"], clause["title"], number)


def parse_document(markdown: str) -> SpecDocument:
    """Split the specification into clauses and examples; structural mistakes are ValueErrors.

    >>> document = parse_document(
    ...     "# Spec\\n\\n### BPE-RULE-ID — Rule r creates id 258 + r\\n\\nRule r MUST create 258 + r.\\n\\n"
    ...     "**Why it matters.** Ids index\\nembeddings.\\n\\n```pycon\\n>>> 258 + 0\\n258\\n```\\n"
    ... )
    >>> clause = document.clauses["BPE-RULE-ID"]
    >>> clause.text, clause.why, clause.examples[0].line, clause.examples[0].source
    ('Rule r MUST create 258 + r.', 'Ids index embeddings.', 11, '>>> 258 + 0\\n258\\n')
    >>> parse_document("### BPE-RULE-ID - a hyphen\\n")
    Traceback (most recent call last):
    ...
    ValueError: line 1: clause heading must read '### <clause id> — <title>', got 'BPE-RULE-ID - a hyphen'
    """
    sections: list[_SectionBuilder] = [_SectionBuilder("(preamble)", None, "", 1)]
    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        line, number = lines[index], index + 1
        heading = _HEADING.match(line)
        if line.startswith(_FENCE):
            end = _closing_fence(lines, index)
            sections[-1].add_fence(line[len(_FENCE) :].strip(), lines[index + 1 : end], number + 1)
            index = end + 1
            continue
        if heading:
            sections[-1].end_paragraph()
            sections.append(_start_section(heading.group(2), len(heading.group(1)), number))
        else:
            sections[-1].add_line(line)
        index += 1
    return _assemble(sections)


def _closing_fence(lines: list[str], opening: int) -> int:
    for index in range(opening + 1, len(lines)):
        if lines[index].strip() == _FENCE:
            return index
    raise ValueError(f"line {opening + 1}: code block is never closed")


def _assemble(sections: list[_SectionBuilder]) -> SpecDocument:
    clauses: dict[str, Clause] = {}
    examples: list[Example] = []
    for section in sections:
        if section.clause_id is not None:
            if section.clause_id in clauses:
                first = clauses[section.clause_id].line
                raise ValueError(f"clause {section.clause_id} is defined twice (lines {first} and {section.line})")
            clauses[section.clause_id] = section.to_clause()
        section.end_paragraph()
        examples.extend(section.examples)
    return SpecDocument(clauses, tuple(examples))


def _read_spec(path: Path) -> str:
    if not path.is_file():
        raise FileNotFoundError(f"the specification {path} is missing; clause lookups need a source checkout")
    return path.read_text(encoding="utf-8")


@functools.cache
def _cached_document(path: Path) -> SpecDocument:
    return parse_document(_read_spec(path))


def load_document(path: Path | None = None) -> SpecDocument:
    """The parsed specification (``specs/bpe.md`` unless ``path`` is given), read once and cached."""
    return _cached_document(SPEC_PATH if path is None else Path(path).resolve())


def load_clauses(path: Path | None = None) -> dict[str, Clause]:
    """Every clause of the specification by id, in document order.

    >>> clauses = load_clauses()
    >>> next(iter(clauses)), clauses["BPE-VOCAB-SIZE"].title
    ('BPE-ALPHA-BYTES', 'Vocabulary size counts the rules actually made')
    """
    return dict(load_document(path).clauses)


def _normalize(clause_id: object) -> str:
    if not isinstance(clause_id, str):
        raise TypeError(f"clause id must be a str, not {type(clause_id).__name__}")
    return clause_id.strip().upper()


def suggest_clause_ids(clause_id: str, limit: int = 3) -> list[str]:
    """Defined clause ids that look like ``clause_id`` (any case, ``BPE-`` prefix optional), best first.

    An area name suggests every clause of that area; otherwise exact names come first, then the
    closest spellings.

    >>> suggest_clause_ids("bpe-merge-scna")
    ['BPE-MERGE-SCAN']
    >>> suggest_clause_ids("tie")
    ['BPE-TRAIN-TIE']
    >>> suggest_clause_ids("decode")
    ['BPE-DECODE-CONCAT', 'BPE-DECODE-STRICT', 'BPE-DECODE-BYTES']
    """
    wanted = _normalize(clause_id).removeprefix("BPE-")
    names = {defined.removeprefix("BPE-"): defined for defined in load_clauses()}
    area = [defined for name, defined in names.items() if name.startswith(wanted + "-")]
    if area:
        return area
    exact = [defined for name, defined in names.items() if name.rsplit("-", 1)[-1] == wanted]
    close = [names[name] for name in difflib.get_close_matches(wanted, list(names), n=limit, cutoff=0.75)]
    return list(dict.fromkeys(exact + close))[:limit]


def get_clause(clause_id: str) -> Clause:
    """The clause with this id (any case); an unknown id is a ValueError with close matches."""
    clauses = load_clauses()
    wanted = _normalize(clause_id)
    if wanted in clauses:
        return clauses[wanted]
    suggestions = suggest_clause_ids(clause_id)
    hint = (
        f"did you mean {' or '.join(suggestions)}?"
        if suggestions
        else "run `bpe-conformance explain --list` to see every clause id"
    )
    raise ValueError(f"unknown clause id {clause_id!r}; {hint}")


def matching_clauses(pattern: str) -> list[Clause]:
    """The clauses whose id matches ``pattern`` (any case; ``*``, ``?`` and ``[...]`` as in shell globs), in
    document order; an id without wildcards is looked up like :func:`get_clause`, and a pattern that
    matches nothing is a ValueError with close matches.

    >>> [clause.id for clause in matching_clauses("bpe-decode-*")]
    ['BPE-DECODE-CONCAT', 'BPE-DECODE-STRICT', 'BPE-DECODE-BYTES']
    >>> matching_clauses("bpe-tran-*")
    Traceback (most recent call last):
    ...
    ValueError: no clause id matches 'bpe-tran-*'; did you mean BPE-TRAIN-*?
    """
    wanted = _normalize(pattern)
    if not any(character in wanted for character in "*?["):
        return [get_clause(pattern)]
    clauses = load_clauses()
    found = [clause for clause_id, clause in clauses.items() if fnmatch.fnmatchcase(clause_id, wanted)]
    if found:
        return found
    areas = list(dict.fromkeys(clause_id.rsplit("-", 1)[0] + "-*" for clause_id in clauses if clause_id.count("-") > 1))
    suggestions = difflib.get_close_matches(wanted, areas, n=3, cutoff=0.8)
    hint = (
        f"did you mean {' or '.join(suggestions)}?"
        if suggestions
        else "run `bpe-conformance explain --list` to see every clause id"
    )
    raise ValueError(f"no clause id matches {pattern!r}; {hint}")
