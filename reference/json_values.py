"""The names of JSON values, defined once for the specification and the harness.

A ``JSONObject`` is a dict the ``json`` module reads or writes: a tokenizer file, a known-answer vector,
a protocol message, a report. The names belong here, below every layer, so that any module may use
them; they are for values that honestly are JSON at an edge (read from or written to a file or a
pipe), never for records passed between layers, which are typed dataclasses.

``JSONValue`` is spelled ``Any``, not the recursive union of None, bool, int, float, str, lists and
objects: readers index into documents a schema has already validated, and the union would turn every
such read into a cast. The name says what the value is; the schemas in ``specs/schema/`` say its shape.

>>> document: JSONObject = {"rules": [[97, 98]], "version": 1}
>>> sorted(document)
['rules', 'version']
"""

from __future__ import annotations

from typing import Any, TypeAlias

__all__ = ["JSONObject", "JSONValue"]

JSONValue: TypeAlias = Any
JSONObject: TypeAlias = dict[str, JSONValue]
