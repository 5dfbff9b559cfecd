"""Custom profiles: a named profile with some parameters changed, from one string or a small file.

``strict+tie_break=first-seen+min_count=1`` is the base profile ``strict`` with two parameters
overridden; ``tie`` is accepted for ``tie_break``. A TOML or JSON file says the same with a table::

    base = "strict"
    tie_break = "first-seen"
    min_count = 1

This module is the one place where such a specification is parsed and validated: every error is a
``ValueError`` of one line naming the bad field or value and the allowed ones. The profile it makes is
named by its canonical specification (the base, then every parameter that differs from it, in the
order of :class:`~bpe_conformance.reference.profiles.Profile`'s fields), so the name a report carries
resolves to the same profile again. ``first_rule_id`` always follows ``boundary_ids`` (258 with
boundary ids, 256 without), so the canonical name states ``boundary_ids`` only. Texts
(``document_separator``, ``pre_tokenization``) are percent-encoded in the string form (``%0A`` for a
newline, ``%2B`` for ``+``) and plain in a file.

>>> parse_profile("strict+tie=first-seen+min_count=1").name
'strict+tie_break=first-seen+min_count=1'
>>> profile = parse_profile("minbpe+documents=separate+decode_policy=strict")
>>> profile.documents, profile.first_rule_id, profile.name
('separate', 256, 'minbpe+documents=separate+decode_policy=strict')
>>> parse_profile("strict+boundary_ids=false").first_rule_id
256
>>> parse_profile("rustbpe+split=cl100k").split
'cl100k'
>>> parse_profile("strict+tie_break=last-seen")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: profile 'strict+tie_break=last-seen': tie_break 'last-seen' is not one of: smallest-ids, first-seen, ...
>>> parse_profile("strict+ties=first-seen")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: profile 'strict+ties=first-seen': unknown parameter 'ties'; choose one of: tie (tie_break), tie_break, ...
>>> resolve_profile(parse_profile("rustbpe+tie=largest-ids").name) == parse_profile("rustbpe+tie=largest-ids")
True
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from bpe_conformance.reference.alphabet import BYTE_COUNT
from bpe_conformance.reference.pretokenization import TRAINING_SPLITS
from bpe_conformance.reference.profiles import (
    DECODE_POLICIES,
    DOCUMENT_MODES,
    ENCODE_ALGORITHMS,
    PROFILES,
    SURROGATE_POLICIES,
    TIE_BREAKS,
    Profile,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = [
    "ALIASES",
    "FILE_SUFFIXES",
    "MAX_FILE_BYTES",
    "PARAMETERS",
    "SEPARATOR",
    "custom_profile",
    "is_profile_file",
    "load_profile_file",
    "parse_profile",
    "profile_spec",
    "resolve_profile",
]

SEPARATOR = "+"
ALIASES = {"tie": "tie_break"}
# Every parameter of Profile, in its field order (the name and the description are no parameters).
PARAMETERS: tuple[str, ...] = tuple(
    field.name for field in dataclasses.fields(Profile) if field.name not in ("name", "description")
)
FILE_SUFFIXES = (".toml", ".json")
MAX_FILE_BYTES = 64 * 1024
_NONE = "none"
_BOOLEANS = {"true": True, "false": False}
_CHOICES: dict[str, tuple[str, ...]] = {
    "tie_break": (*TIE_BREAKS, _NONE),
    "documents": DOCUMENT_MODES,
    "encode_algorithm": ENCODE_ALGORITHMS,
    "decode_policy": DECODE_POLICIES,
    "lone_surrogates": SURROGATE_POLICIES,
    "split": (*TRAINING_SPLITS, _NONE),
}
_TEXTS = ("document_separator", "pre_tokenization")


def _fail(spec: str, message: str) -> ValueError:
    return ValueError(f"profile {spec!r}: {message}")


def _parameter_names() -> str:
    aliases = [f"{alias} ({field})" for alias, field in ALIASES.items()]
    return ", ".join([*aliases, *PARAMETERS])


def _canonical_field(spec: str, key: str) -> str:
    field = ALIASES.get(key, key)
    if field not in PARAMETERS:
        raise _fail(spec, f"unknown parameter {key!r}; choose one of: {_parameter_names()}")
    return field


def _choice(spec: str, field: str, value: object) -> str | None:
    allowed = _CHOICES[field]
    if value is None and _NONE in allowed:
        return None
    if not isinstance(value, str) or value not in allowed:
        raise _fail(spec, f"{field} {value!r} is not one of: {', '.join(allowed)}")
    return None if value == _NONE else value


def _integer(spec: str, field: str, value: object, allowed: str) -> int:
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,9}", value):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(spec, f"{field} {value!r} is not {allowed}")
    return value


def _boolean(spec: str, field: str, value: object) -> bool:
    if isinstance(value, str) and value.lower() in _BOOLEANS:
        return _BOOLEANS[value.lower()]
    if not isinstance(value, bool):
        raise _fail(spec, f"{field} {value!r} is not one of: true, false")
    return value


def _pattern(spec: str, value: object) -> str | None:
    if value is None or value == _NONE:
        return None
    if not isinstance(value, str) or not value:
        raise _fail(spec, f"pre_tokenization {value!r} is not a regular expression or 'none'")
    try:
        compiled = re.compile(value)
    except re.error as error:
        raise _fail(spec, f"pre_tokenization {value!r} is not a Python regular expression ({error})") from None
    if compiled.groups:
        raise _fail(spec, f"pre_tokenization {value!r} has a capturing group; write (?:...) so findall gives chunks")
    if compiled.fullmatch("") is not None:
        raise _fail(spec, f"pre_tokenization {value!r} matches the empty text; every chunk must hold a character")
    return value


def _value(spec: str, field: str, value: object) -> object:
    """``value`` (a string from the ``+`` form, or a TOML/JSON value) as the type of ``field``."""
    if field in _CHOICES:
        return _choice(spec, field, value)
    if field == "min_count":
        count = _integer(spec, field, value, "an integer >= 1")
        if count < 1:
            raise _fail(spec, f"min_count {count!r} is not an integer >= 1")
        return count
    if field == "first_rule_id":
        first = _integer(spec, field, value, f"{BYTE_COUNT} or {BYTE_COUNT + 2}")
        if first not in (BYTE_COUNT, BYTE_COUNT + 2):
            raise _fail(spec, f"first_rule_id {first!r} is not one of: {BYTE_COUNT}, {BYTE_COUNT + 2}")
        return first
    if field == "boundary_ids":
        return _boolean(spec, field, value)
    if field == "pre_tokenization":
        return _pattern(spec, value)
    if not isinstance(value, str):
        raise _fail(spec, f"{field} {value!r} is not a text")
    return value


def custom_profile(base: str, overrides: Mapping[str, object], spec: str | None = None) -> Profile:
    """``base`` (a named profile) with ``overrides`` (parameter or alias to value), validated; named canonically."""
    shown = spec if spec is not None else base
    if base not in PROFILES:
        raise _fail(shown, f"unknown base profile {base!r}; choose one of: {', '.join(PROFILES)}")
    parent = PROFILES[base]
    changes: dict[str, object] = {}
    for key, raw in overrides.items():
        field = _canonical_field(shown, key)
        if field in changes:
            raise _fail(shown, f"{field} is given twice")
        changes[field] = _value(shown, field, raw)
    boundary = changes.get("boundary_ids")
    first = changes.get("first_rule_id")
    if first is not None and boundary is None:
        changes["boundary_ids"] = first == BYTE_COUNT + 2
    elif boundary is not None:
        derived = BYTE_COUNT + (2 if boundary else 0)
        if first is not None and first != derived:
            raise _fail(shown, f"first_rule_id {first} contradicts boundary_ids={str(boundary).lower()} ({derived})")
        changes["first_rule_id"] = derived
    split = changes.get("split", parent.split)
    if split is not None and changes.get("pre_tokenization", parent.pre_tokenization) is not None:
        raise _fail(shown, f"split={split} and pre_tokenization both split the text; give one of them")
    chosen = dataclasses.replace(parent, **changes)  # type: ignore[arg-type]
    if chosen.document_separator and chosen.documents != "concatenated":
        raise _fail(shown, "document_separator needs documents=concatenated (separate documents are never joined)")
    name = profile_spec(chosen, base)
    if name == base:
        return parent  # nothing differs: the named profile itself
    description = f"{parent.name} with " + ", ".join(name.split(SEPARATOR)[1:])
    return dataclasses.replace(chosen, name=name, description=description)


def _spec_value(field: str, value: Any) -> str:
    if value is None:
        return _NONE
    if isinstance(value, bool):
        return str(value).lower()
    if field in _TEXTS:
        return quote(str(value), safe="")
    return str(value)


def profile_spec(profile: Profile, base: str) -> str:
    """The canonical ``base+field=value...`` of ``profile``: every parameter that differs from ``base``'s."""
    parent = PROFILES[base]
    parts = [base]
    for field in PARAMETERS:
        if field == "first_rule_id":
            continue  # follows boundary_ids
        value = getattr(profile, field)
        if value != getattr(parent, field):
            parts.append(f"{field}={_spec_value(field, value)}")
    return SEPARATOR.join(parts)


@functools.lru_cache(maxsize=256)
def parse_profile(spec: str) -> Profile:
    """The profile ``spec`` names: a profile name, or ``base+field=value+...`` (values percent-encoded)."""
    if not isinstance(spec, str):
        raise TypeError(f"profile must be a str, not {type(spec).__name__}")
    base, *items = spec.strip().split(SEPARATOR)
    if not items:
        if base not in PROFILES:
            raise ValueError(f"unknown profile {spec!r}; choose one of: {', '.join(PROFILES)} (or base+field=value)")
        return PROFILES[base]
    if base.strip() not in PROFILES:
        raise _fail(spec, f"unknown base profile {base.strip()!r}; choose one of: {', '.join(PROFILES)}")
    overrides: dict[str, str] = {}
    for item in items:
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise _fail(spec, f"{item!r} is not field=value; fields: {_parameter_names()}")
        field = _canonical_field(spec, key.strip())
        if field in overrides:
            raise _fail(spec, f"{field} is given twice")
        overrides[field] = unquote(value, errors="strict") if field in _TEXTS else value.strip()
    return custom_profile(base.strip(), overrides, spec)


def is_profile_file(spec: str) -> bool:
    """``spec`` names a profile file (by its suffix) rather than a profile."""
    return spec.strip().lower().endswith(FILE_SUFFIXES)


def _toml_parser(shown: str) -> Callable[[str], object]:
    """TOML's parser; on Python 3.10 (no tomllib) that error, before the file is read as TOML at all."""
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads
    raise _fail(shown, "TOML profile files need Python 3.11 or later (tomllib); write the same table as JSON")


def load_profile_file(path: str | Path) -> Profile:
    """The profile a small TOML or JSON file describes: ``base`` and the parameters it changes."""
    where = Path(path)
    shown = str(where)
    try:
        if not where.is_file():
            raise _fail(shown, "no such profile file (a .toml or .json file naming base and parameters)")
        data = where.read_bytes()[: MAX_FILE_BYTES + 1]
    except OSError as error:
        raise _fail(shown, f"cannot read it: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise _fail(shown, f"a profile file is at most {MAX_FILE_BYTES} bytes")
    parse = json.loads if where.suffix.lower() == ".json" else _toml_parser(shown)
    try:
        table = parse(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:  # arrays nested past the parser's depth
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise _fail(shown, f"not valid {where.suffix.lower()[1:].upper()}: {reason}") from None
    if not isinstance(table, dict):
        raise _fail(shown, 'the file must hold one table (base = "strict", then the parameters)')
    overrides = dict(table)
    base = overrides.pop("base", None)
    if not isinstance(base, str):
        raise _fail(shown, f"base {base!r} must name a profile: one of {', '.join(PROFILES)}")
    return custom_profile(base, overrides, shown)


def resolve_profile(spec: str) -> Profile:
    """The profile of a ``--profile`` value: a name, ``base+field=value...`` or a ``.toml``/``.json`` file."""
    if not isinstance(spec, str):
        raise TypeError(f"profile must be a str, not {type(spec).__name__}")
    if spec.strip() not in PROFILES and is_profile_file(spec):
        return load_profile_file(spec.strip())
    return parse_profile(spec)
