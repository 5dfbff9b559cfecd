"""The examples the checks' strategies draw, typed: one ``TypedDict`` per shape.

They stay dicts, not dataclasses, because a report shows an example that errs by its ``repr``
(``{"example": "{'documents': [], 'max_merges': 0}"}`` in ``docs/matrix.md`` and the JSON reports):
a dict keeps that text, key order included, exactly as it has always been. The types give mypy every
key a check reads; :func:`drawn` builds the strategy and refuses fields that do not match the type.

>>> drawn(TextsExample, documents=st.just(["ab"]), max_merges=st.just(1))
Traceback (most recent call last):
...
TypeError: TextsExample has the fields documents, max_merges, texts; the strategy draws documents, max_merges
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from hypothesis import strategies as st

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["BadIdsExample", "CutExample", "EarlierExample", "ExplodeExample", "SeedExample", "TextsExample"]
__all__ += ["TrainingExample", "drawn"]

Example = TypeVar("Example")


class TrainingExample(TypedDict):
    """Documents to train on and the merge budget."""

    documents: list[str]
    max_merges: int


class TextsExample(TrainingExample):
    """A training example and texts to encode (or decode) after it."""

    texts: list[str]


class EarlierExample(TextsExample):
    """Also documents to train on before, to show they take no part."""

    earlier: list[str]


class SeedExample(TrainingExample):
    """Also the seed of a shuffle of the documents."""

    seed: int


class ExplodeExample(TextsExample):
    """Also which rule ids to spell out as their bytes."""

    explode: list[bool]


class CutExample(TextsExample):
    """Also where to cut an encoding (modulo its length) to put boundary ids in."""

    cut: int


class BadIdsExample(TrainingExample):
    """Also the kind of bad id to decode and the text whose ids come before it."""

    kind: str
    prefix: str


def drawn(shape: Callable[..., Example], /, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Example]:
    """Examples of ``shape`` (a ``TypedDict``), each field drawn from its strategy in the order given.

    The order is the draws' and the ``repr``'s, so it is the caller's, not the type's.
    """
    declared: frozenset[str] = getattr(shape, "__required_keys__")  # noqa: B009 - TypedDicts declare it at run time
    if declared != set(fields):
        name: str = getattr(shape, "__name__")  # noqa: B009 - a class; the Callable type does not say it has a name
        raise TypeError(f"{name} has the fields {', '.join(sorted(declared))}; the strategy draws {', '.join(fields)}")
    # A TypedDict is a plain dict at run time: the dictionaries drawn are the examples.
    examples: st.SearchStrategy[Any] = st.fixed_dictionaries(fields)
    return examples
