"""A plain, correct implementation of the plug-in contract, built from small overridable steps.

Every zoo member subclasses :class:`ZooBase` and overrides one step with its bug; every control
replaces a whole area with a different structure that must give the same answers.

>>> tokenizer = ZooBase()
>>> tokenizer.train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> tokenizer.encode("abac")
[258, 259]
>>> tokenizer.decode([256, 258, 259, 257])
'abac'
>>> tokenizer.load([(97, 259)])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: rule 0 (id 258) refers to id 259, which is not an earlier id; ...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, TypeGuard

if TYPE_CHECKING:
    from bpe_conformance.zoo.witness import Witness

__all__ = [
    "BEGIN_ID",
    "BOUNDARY_IDS",
    "BYTE_COUNT",
    "END_ID",
    "FIRST_RULE_ID",
    "MIN_MERGE_COUNT",
    "Pair",
    "Rules",
    "ZooBase",
    "ZooMember",
    "is_int",
]

BYTE_COUNT = 256
BEGIN_ID = 256
END_ID = 257
BOUNDARY_IDS = (BEGIN_ID, END_ID)
FIRST_RULE_ID = 258
MIN_MERGE_COUNT = 2

Pair = tuple[int, int]
Rules = list[Pair]


def is_int(value: object) -> TypeGuard[int]:
    """True for ints that are not bools: ``True`` is neither a count nor an id."""
    return isinstance(value, int) and not isinstance(value, bool)


def _type_name(value: object) -> str:
    return type(value).__name__


class ZooBase:
    """The spec done the obvious way; each method is one step a member may get wrong."""

    name = "zoo-base"
    rules: Rules
    _pieces: dict[int, bytes] | None

    def __init__(self) -> None:
        self.adopt([])

    # ---- state ---------------------------------------------------------------------------

    def adopt(self, rules: Rules) -> Rules:
        """Make ``rules`` the model; the piece table is rebuilt on the next decode."""
        self.rules = list(rules)
        self._pieces = None
        return list(self.rules)

    def vocabulary_size(self) -> int:
        """Bytes, boundaries and one id per rule made."""
        return FIRST_RULE_ID + len(self.rules)

    # ---- validation ----------------------------------------------------------------------

    def check_max_merges(self, max_merges: object) -> int:
        """A non-negative int; bool is rejected."""
        if not is_int(max_merges):
            raise TypeError(f"max_merges must be an int, not {_type_name(max_merges)} ({max_merges!r})")
        if max_merges < 0:
            raise ValueError(f"max_merges must not be negative, got {max_merges}")
        return int(max_merges)

    def text_bytes(self, text: str, what: str) -> bytes:
        """Strict UTF-8; a lone surrogate has no encoding and is a ValueError."""
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(
                f"{what} has a lone surrogate U+{ord(text[error.start]):04X} at index {error.start}"
            ) from None

    def check_text(self, text: object) -> bytes:
        """The UTF-8 bytes of a text to encode, which must be a str."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {_type_name(text)}")
        return self.text_bytes(text, "text")

    def check_documents(self, documents: object) -> list[str]:
        """A list (or tuple) of str, each of which has a UTF-8 encoding."""
        if isinstance(documents, (str, bytes)) or not isinstance(documents, (list, tuple)):
            raise TypeError(f"documents must be a list of str, not {_type_name(documents)}")
        for index, document in enumerate(documents):
            if not isinstance(document, str):
                raise TypeError(f"document {index} must be a str, not {_type_name(document)}")
            self.text_bytes(document, f"document {index}")
        return list(documents)

    def check_ids(self, ids: object) -> list[int]:
        """A list (or tuple) of ints, each an id of the current vocabulary."""
        if not isinstance(ids, (list, tuple)):
            raise TypeError(f"ids must be a list of int, not {_type_name(ids)}")
        size = self.vocabulary_size()
        for position, token_id in enumerate(ids):
            if not is_int(token_id):
                raise TypeError(f"id at position {position} must be an int, not {_type_name(token_id)}")
            if not 0 <= token_id < size:
                raise ValueError(f"id {token_id} at position {position} is not in the vocabulary 0-{size - 1}")
        return list(ids)

    def highest_reference(self, rank: int, rule_count: int) -> int:  # noqa: ARG002 - a step members override
        """The largest id rule ``rank`` may refer to: the id just before its own."""
        return self.new_id(rank) - 1

    def check_rule_part(self, rank: int, part: object, rule_count: int) -> int:
        """One side of a rule: a byte or an earlier rule id, never a boundary id."""
        if not is_int(part):
            raise TypeError(f"rule {rank} refers to {part!r}, a {_type_name(part)}, not an int")
        own_id = self.new_id(rank)
        if part < 0:
            raise ValueError(f"rule {rank} (id {own_id}) refers to negative id {part}")
        if part in BOUNDARY_IDS:
            raise ValueError(f"rule {rank} (id {own_id}) refers to boundary id {part}, which is never merged")
        if part > self.highest_reference(rank, rule_count):
            raise ValueError(
                f"rule {rank} (id {own_id}) refers to id {part}, which is not an earlier id; "
                f"a rule may refer only to bytes 0-{BYTE_COUNT - 1} or earlier rules"
            )
        return int(part)

    def check_rules(self, rules: object) -> Rules:
        """A sequence of pairs, each part checked by :meth:`check_rule_part`."""
        if isinstance(rules, (str, bytes)) or not isinstance(rules, Sequence):
            raise TypeError(f"rules must be a list of (int, int) pairs, not {_type_name(rules)}")
        checked = []
        for rank, rule in enumerate(rules):
            if isinstance(rule, (str, bytes)) or not isinstance(rule, Sequence):
                raise TypeError(f"rule {rank} must be a pair of ints, not {_type_name(rule)}")
            if len(rule) != 2:
                raise ValueError(f"rule {rank} must have 2 parts, not {len(rule)}: {rule!r}")
            first = self.check_rule_part(rank, rule[0], len(rules))
            second = self.check_rule_part(rank, rule[1], len(rules))
            checked.append((first, second))
        return checked

    # ---- training ------------------------------------------------------------------------

    def prepare_documents(self, documents: list[str]) -> list[str]:
        """The texts training counts in: exactly the documents given, one sequence each."""
        return documents

    def document_sequence(self, document: str) -> list[int]:
        """A document's ids before any merge: its UTF-8 bytes."""
        return list(document.encode("utf-8"))

    def count_pairs(self, sequences: list[list[int]]) -> dict[Pair, int]:
        """Every adjacent window of every sequence, overlapping ones included."""
        counts: dict[Pair, int] = {}
        for sequence in sequences:
            for position in range(len(sequence) - 1):
                pair = (sequence[position], sequence[position + 1])
                counts[pair] = counts.get(pair, 0) + 1
        return counts

    def select_pair(self, counts: dict[Pair, int]) -> Pair | None:
        """The highest count; ties to the smallest pair compared as integers."""
        if not counts:
            return None
        return min(counts, key=lambda pair: (-counts[pair], pair))

    def should_stop(self, best_count: int) -> bool:
        """A pair seen fewer than twice is not worth a rule."""
        return best_count < MIN_MERGE_COUNT

    def merge_budget(self, max_merges: int) -> int:
        """How many rules a call may make at most."""
        return max_merges

    def new_id(self, rank: int) -> int:
        """The id rule ``rank`` creates."""
        return FIRST_RULE_ID + rank

    def replace_pair(self, sequence: list[int], pair: Pair, new_id: int) -> list[int]:
        """Left to right over the old sequence; a match emits ``new_id`` and skips both parts."""
        first, second = pair
        replaced = []
        position = 0
        while position < len(sequence):
            if position + 1 < len(sequence) and sequence[position] == first and sequence[position + 1] == second:
                replaced.append(new_id)
                position += 2
            else:
                replaced.append(sequence[position])
                position += 1
        return replaced

    def starting_rules(self) -> Rules:
        """Rules training builds on: none, every call starts from bytes."""
        return []

    def learn(self, sequences: list[list[int]], max_merges: int) -> Rules:
        """Count, select, replace, until the best count is too small or the budget is spent."""
        rules = self.starting_rules()
        sequences = [self.apply_rules(sequence, rules) for sequence in sequences]
        for _ in range(self.merge_budget(max_merges)):
            counts = self.count_pairs(sequences)
            pair = self.select_pair(counts)
            if pair is None or self.should_stop(counts[pair]):
                break
            new_id = self.new_id(len(rules))
            sequences = [self.replace_pair(sequence, pair, new_id) for sequence in sequences]
            rules.append(pair)
        return rules

    def train(self, documents: list[str], max_merges: int) -> Rules:
        """Validate, learn from the documents, adopt and return the rules."""
        limit = self.check_max_merges(max_merges)
        texts = self.check_documents(documents)
        sequences = [self.document_sequence(text) for text in self.prepare_documents(texts)]
        return self.adopt(self.learn(sequences, limit))

    # ---- encoding ------------------------------------------------------------------------

    def apply_rule(self, sequence: list[int], rank: int, pair: Pair) -> list[int]:
        """One rule applied once to the whole sequence."""
        return self.replace_pair(sequence, pair, self.new_id(rank))

    def apply_rules(self, sequence: list[int], rules: Rules) -> list[int]:
        """Every rule once, in rank order."""
        for rank, pair in enumerate(rules):
            sequence = self.apply_rule(sequence, rank, pair)
        return sequence

    def encode_bytes(self, data: bytes) -> list[int]:
        """The ids of ``data`` under the current rules."""
        return self.apply_rules(list(data), self.rules)

    def encode(self, text: str) -> list[int]:
        """Body ids of ``text``: no boundaries, no pre-tokenization."""
        return self.encode_bytes(self.check_text(text))

    # ---- decoding ------------------------------------------------------------------------

    def build_pieces(self, rules: Rules) -> dict[int, bytes]:
        """Every id's bytes: one byte each, nothing for boundaries, and joined parts for rules."""
        pieces = {value: bytes([value]) for value in range(BYTE_COUNT)}
        for boundary in BOUNDARY_IDS:
            pieces[boundary] = b""
        for rank, (first, second) in enumerate(rules):
            pieces[self.new_id(rank)] = pieces[first] + pieces[second]
        return pieces

    def pieces(self) -> dict[int, bytes]:
        """The piece table of the current rules, built once per model."""
        if self._pieces is None:
            self._pieces = self.build_pieces(self.rules)
        return self._pieces

    def decode_bytes(self, ids: list[int]) -> bytes:
        """The pieces of checked ``ids`` joined."""
        pieces = self.pieces()
        return b"".join(pieces[token_id] for token_id in ids)

    def bytes_to_text(self, data: bytes) -> str:
        """Strict UTF-8; anything else is a ValueError with the byte offset."""
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"ids decode to invalid UTF-8 at byte {error.start}: {error.reason}") from None

    def decode(self, ids: list[int]) -> str:
        """The text ``ids`` stand for."""
        return self.bytes_to_text(self.decode_bytes(self.check_ids(ids)))

    # ---- loading -------------------------------------------------------------------------

    def load(self, rules: Rules) -> Rules:
        """Validate, then adopt."""
        return self.adopt(self.check_rules(rules))


class ZooMember(ZooBase):
    """A zoo member: :class:`ZooBase` with one step overridden by a bug, and the facts about it.

    ``clause`` is the clause id the bug breaks; ``also`` other ids a harness may report for it;
    ``witness`` a tiny call sequence on which it differs from the spec (see
    :mod:`bpe_conformance.zoo.witness`); ``why`` one paragraph for the gallery. ``level`` is the
    conformance level of the bug: ``algorithm`` for a wrong answer to valid input, ``interface``
    for bad input handled against the contract (the harness must reject it at that level).
    ``varies_by_process`` is True for a member whose answer on its witness depends on the process's
    hash seed: it differs from the spec in every process, but not the same way, so nothing prints it.
    """

    clause: ClassVar[str]
    level: ClassVar[str] = "algorithm"
    also: ClassVar[tuple[str, ...]] = ()
    witness: ClassVar[Witness]
    why: ClassVar[str]
    varies_by_process: ClassVar[bool] = False
