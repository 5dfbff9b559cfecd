"""Zoo members whose one bug is in encoding: rule order, matching, and what the text is cut into.

>>> member = GreedyLongestMatch()
>>> member.load([(98, 99), (97, 98)])
[(98, 99), (97, 98)]
>>> member.encode("abc")  # the spec gives [97, 258]
[259, 99]
"""

from __future__ import annotations

import re
import unicodedata
from itertools import pairwise

from bpe_conformance.zoo.base import BEGIN_ID, END_ID, Pair, Rules, ZooMember
from bpe_conformance.zoo.witness import make_witness

__all__ = [
    "MEMBERS",
    "AddsBoundariesToBody",
    "EncodesLinesSeparately",
    "GreedyLongestMatch",
    "LowestRankKeepsLastDuplicate",
    "MatchesPairsByPiece",
    "MergesLeftToRightWithStack",
    "NormalizesTextNFC",
    "PreSplitsOnWhitespace",
    "RulesSortedByPair",
    "RulesSortedByPieceLength",
    "SkipsRulesAbsentFromText",
]


def _first_rank_of(rules: Rules) -> dict[Pair, int]:
    rank_of: dict[Pair, int] = {}
    for rank, pair in enumerate(rules):
        rank_of.setdefault(pair, rank)
    return rank_of


# ---- order of the rules -------------------------------------------------------------------


class GreedyLongestMatch(ZooMember):
    """Encodes by greedy longest match over the vocabulary's pieces, ignoring the rules' order.

    Breaks BPE-ENCODE-ORDER: the canonical ids come from applying the rules in rank order. Seen in
    the wild: google/sentencepiece issue #406 quotes explanations that describe BPE encoding as
    "replacing the longest possible subsequence first"; source chapter 003 lists it as misconception
    number 4; tiktoken issue #99 shows users expecting fewest-token output.
    """

    name = "greedy-longest-match"
    clause = "BPE-ENCODE-ORDER"
    also = ("BPE-ENCODE-LOWEST",)
    witness = make_witness("encode", "abc", setup=[("load", [[(98, 99), (97, 98)]])])
    why = (
        "The vocabulary says which pieces exist; the rules say how a text reaches them. 'bc' was "
        "learned before 'ab', so in 'abc' the 'b' joins 'c' and 'ab' never forms: [a, bc]. Longest "
        "match from the left takes 'ab' because it fits first: a valid split, not the canonical one."
    )

    def encode_bytes(self, data: bytes) -> list[int]:
        by_piece: dict[bytes, int] = {}
        for token_id, piece in self.pieces().items():
            if piece:
                by_piece.setdefault(piece, token_id)
        longest = max(len(piece) for piece in by_piece)
        ids = []
        position = 0
        while position < len(data):
            for length in range(min(longest, len(data) - position), 0, -1):
                match = by_piece.get(data[position : position + length])
                if match is not None:
                    ids.append(match)
                    position += length
                    break
        return ids


class MergesLeftToRightWithStack(ZooMember):
    """Encodes in one left-to-right pass, merging the top of a stack whenever some rule fits.

    Breaks BPE-ENCODE-ORDER: rules apply in rank order, not in text order; the new token is also
    matched again at once (BPE-MERGE-NOREMATCH). Seen in the wild: fastllm pull request #715 fixed
    an encoder that applied merges left to right instead of by merge rank (more than half of
    English words split differently); a stack-based single pass is the usual shape of that bug.
    """

    name = "merges-left-to-right-with-stack"
    clause = "BPE-ENCODE-ORDER"
    also = ("BPE-MERGE-NOREMATCH", "BPE-ENCODE-LOWEST")
    witness = make_witness("encode", "abc", setup=[("load", [[(98, 99), (97, 98)]])])
    why = (
        "A single pass is tempting: push each byte and merge the top two while a rule fits. But it "
        "decides at 'b' that (a, b) should merge, before it has seen the 'c' that rule 0 wanted: "
        "[ab, c] instead of [a, bc]. The rank says which merge happens first, not the position."
    )

    def encode_bytes(self, data: bytes) -> list[int]:
        rank_of = _first_rank_of(self.rules)
        stack: list[int] = []
        for byte in data:
            stack.append(byte)
            while len(stack) >= 2 and (stack[-2], stack[-1]) in rank_of:
                second, first = stack.pop(), stack.pop()
                stack.append(self.new_id(rank_of[(first, second)]))
        return stack


class RulesSortedByPair(ZooMember):
    """Applies the rules sorted by their pair instead of in rank order.

    Breaks BPE-ENCODE-ORDER. Seen in the wild: merges kept in a dict or set and replayed with
    ``sorted(...)`` for reproducibility; source chapter 002 stresses that encoding must replay the
    merges in the order they were learned.
    """

    name = "rules-sorted-by-pair"
    clause = "BPE-ENCODE-ORDER"
    also = ("BPE-ENCODE-LOWEST",)
    witness = make_witness("encode", "bcd", setup=[("load", [[(99, 100), (98, 99)]])])
    why = (
        "Sorting looks like a harmless way to make iteration deterministic, but the rank is the "
        "meaning of a rule. (c, d) came first, so 'bcd' is [b, cd]; sorted, (b, c) runs first and "
        "takes the 'c': [bc, d]. Both decode to 'bcd'; only one is the canonical sequence."
    )

    def apply_rules(self, sequence: list[int], rules: Rules) -> list[int]:
        for rank, pair in sorted(enumerate(rules), key=lambda item: item[1]):
            sequence = self.apply_rule(sequence, rank, pair)
        return sequence


class RulesSortedByPieceLength(ZooMember):
    """Applies the rules with the longest pieces first instead of in rank order.

    Breaks BPE-ENCODE-ORDER. Seen in the wild: source chapter 000 warns that restoring a tokenizer
    must not sort its rules by piece length nor switch to "longest string first"; "prefer long
    tokens" is a common intuition about what a tokenizer should do.
    """

    name = "rules-sorted-by-piece-length"
    clause = "BPE-ENCODE-ORDER"
    also = ("BPE-ENCODE-LOWEST",)
    witness = make_witness("encode", "abc", setup=[("load", [[(97, 98), (258, 99)]])])
    why = (
        "A rule for 'abc' = (ab, c) can only fire after the rule that makes 'ab'. Run the long rule "
        "first and it finds no 'ab' yet; the short rule then runs, and nothing makes 'abc' any more. "
        "Later rules are built on earlier ones, so only rank order reaches them."
    )

    def apply_rules(self, sequence: list[int], rules: Rules) -> list[int]:
        pieces = self.build_pieces(rules)
        by_length = sorted(enumerate(rules), key=lambda item: -len(pieces[self.new_id(item[0])]))
        for rank, pair in by_length:
            sequence = self.apply_rule(sequence, rank, pair)
        return sequence


class SkipsRulesAbsentFromText(ZooMember):
    """Skips every rule whose pair does not occur in the text's original bytes.

    Breaks BPE-ENCODE-ORDER: a rule over merged ids can only match after earlier rules ran, so it
    never looks present in the raw bytes. Seen in the wild: a pre-filter "only try the merges whose
    pair occurs in the input" is a natural speed-up; checked once up front, it drops every
    higher-level rule.
    """

    name = "skips-rules-absent-from-text"
    clause = "BPE-ENCODE-ORDER"
    also = ("BPE-ENCODE-LOWEST",)
    witness = make_witness("encode", "aaaa", setup=[("load", [[(97, 97), (258, 258)]])])
    why = (
        "The pair (aa, aa) cannot be in the bytes of 'aaaa': it exists only after (a, a) has run. A "
        "filter computed on the input keeps rule 0 and drops rule 1, so the text stops at [aa, aa]. "
        "Filtering is fine if it is recomputed on the current sequence."
    )

    def encode_bytes(self, data: bytes) -> list[int]:
        present = set(pairwise(data))
        sequence = list(data)
        for rank, pair in enumerate(self.rules):
            if pair in present:
                sequence = self.apply_rule(sequence, rank, pair)
        return sequence


class LowestRankKeepsLastDuplicate(ZooMember):
    """Encodes lowest rank first, but builds its rank table so that a repeated pair keeps its last rank.

    Breaks BPE-ENCODE-LOWEST: the lowest-rank formulation is only equivalent when a pair's rank is
    its first. Seen in the wild: GPT-2's ``encoder.py`` builds ``bpe_ranks = dict(zip(bpe_merges,
    range(len(bpe_merges))))``, where a later duplicate overwrites the earlier rank.
    """

    name = "lowest-rank-keeps-last-duplicate"
    clause = "BPE-ENCODE-LOWEST"
    also = ("BPE-ENCODE-ORDER",)
    witness = make_witness("encode", "ab", setup=[("load", [[(97, 98), (97, 98)]])])
    why = (
        "A loaded rule list may contain the same pair twice; in rank order the first copy takes every "
        "occurrence and the second never fires. A dict built from (pair, rank) keeps the last rank, "
        "so the lowest-rank encoder emits 259 where the spec emits 258."
    )

    def encode_bytes(self, data: bytes) -> list[int]:
        rank_of = {pair: rank for rank, pair in enumerate(self.rules)}
        sequence = list(data)
        while True:
            present = [rank_of[pair] for pair in pairwise(sequence) if pair in rank_of]
            if not present:
                return sequence
            rank = min(present)
            sequence = self.apply_rule(sequence, rank, self.rules[rank])


class MatchesPairsByPiece(ZooMember):
    """Finds mergeable pairs by the bytes of the merged piece, not by the two ids.

    Breaks BPE-ENCODE-ORDER: a rule (a, b) applies to the ids a and b only; another split of the same
    bytes is not that rule. Seen in the wild: tiktoken ranks pieces by their bytes and merges any
    adjacent parts whose concatenation has a rank (``_educational.bpe_encode``); Karpathy points out
    in minbpe issue #11 that checking the parent's bytes is not the same as checking the children.
    """

    name = "matches-pairs-by-piece"
    clause = "BPE-ENCODE-ORDER"
    also = ("BPE-RULE-PIECE", "BPE-ENCODE-LOWEST")
    witness = make_witness("encode", "abc", setup=[("load", [[(98, 99), (97, 98), (259, 99)]])])
    why = (
        "Rule 2 makes 'abc' from 'ab' and 'c'. In 'abc' rule 0 first makes 'bc', so the text is "
        "[a, bc] and (ab, c) never occurs. Matching by bytes sees 'a' + 'bc' = 'abc', a known piece, "
        "and merges it: one token where the spec has two."
    )

    def encode_bytes(self, data: bytes) -> list[int]:
        pieces = self.pieces()
        rank_of_piece: dict[bytes, int] = {}
        for rank in range(len(self.rules)):
            rank_of_piece.setdefault(pieces[self.new_id(rank)], rank)
        sequence = list(data)
        while True:
            best: tuple[int, int] | None = None
            for position in range(len(sequence) - 1):
                found = rank_of_piece.get(pieces[sequence[position]] + pieces[sequence[position + 1]])
                if found is not None and (best is None or found < best[0]):
                    best = (found, position)
            if best is None:
                return sequence
            rank, position = best
            sequence[position : position + 2] = [self.new_id(rank)]


# ---- what the text is cut into ------------------------------------------------------------


class PreSplitsOnWhitespace(ZooMember):
    """Cuts the text into runs of whitespace and non-whitespace and encodes each run alone.

    Breaks BPE-ENCODE-RAW: no pre-tokenization; merges cross spaces and punctuation. Seen in the
    wild: GPT-2 (``encoder.py``'s regex), tiktoken and Hugging Face pre-tokenizers all split
    before BPE; source chapter 000 states that this project does not.
    """

    name = "pre-splits-on-whitespace"
    clause = "BPE-ENCODE-RAW"
    also = ("BPE-ENCODE-ORDER",)
    witness = make_witness("encode", "a b", setup=[("load", [[(97, 32)]])])
    why = (
        "A rule (a, space) can only ever apply if 'a' and the space are in the same piece of text. "
        "Split 'a b' into 'a', ' ', 'b' and the rule is dead. Pre-tokenization is a different "
        "dialect; mixing it into this one silently drops rules."
    )

    def encode_bytes(self, data: bytes) -> list[int]:
        return [token for run in re.findall(rb"\s+|\S+", data) for token in self.apply_rules(list(run), self.rules)]


class EncodesLinesSeparately(ZooMember):
    """Encodes each line (newline kept) on its own, so no merge crosses a line break.

    Breaks BPE-ENCODE-RAW: the text is one sequence. Seen in the wild: subword-nmt's
    ``apply_bpe`` processes its input line by line, which is right for its model; streaming
    encoders that read lines do the same.
    """

    name = "encodes-lines-separately"
    clause = "BPE-ENCODE-RAW"
    also = ("BPE-ENCODE-ORDER",)
    witness = make_witness("encode", "\na", setup=[("load", [[(10, 97)]])])
    why = (
        "A newline is a byte like any other, and (newline, a) can be a rule. Encoding line by line "
        "puts every line break at the end of a chunk, so such rules never fire. Reading a file a "
        "line at a time is fine; encoding it a line at a time is not."
    )

    def encode_bytes(self, data: bytes) -> list[int]:
        return [token for line in data.splitlines(keepends=True) for token in self.apply_rules(list(line), self.rules)]


class NormalizesTextNFC(ZooMember):
    """Applies Unicode NFC normalization to the text before encoding.

    Breaks BPE-ENCODE-RAW: the text's own UTF-8 bytes are encoded, so decode(encode(t)) == t fails
    (BPE-ROUNDTRIP). Seen in the wild: SentencePiece normalizes with NFKC by default and
    google/sentencepiece issues #329 and #185 show the resulting loss of reversibility.
    """

    name = "normalizes-text-nfc"
    clause = "BPE-ENCODE-RAW"
    also = ("BPE-ROUNDTRIP", "BPE-ENCODE-ORDER")
    witness = make_witness("encode", "e\u0301")
    why = (
        "'e' plus a combining accent and the single character 'é' look the same but are different "
        "bytes. Normalizing before encoding returns the ids of the other spelling, and decoding "
        "them gives back a different string than the one encoded."
    )

    def check_text(self, text: object) -> bytes:
        data = super().check_text(text)
        return unicodedata.normalize("NFC", data.decode("utf-8")).encode("utf-8")


class AddsBoundariesToBody(ZooMember):
    """Returns [256, ..., 257] from ``encode``, which must give body ids only.

    Breaks BPE-ENCODE-BOUNDARY: only encoding a whole document wraps the body in the boundary ids.
    Seen in the wild: Hugging Face ``transformers`` tokenizers add special tokens by default
    (``add_special_tokens=True``), so the same call gives different ids in different libraries.
    """

    name = "adds-boundaries-to-body"
    clause = "BPE-ENCODE-BOUNDARY"
    also = ("BPE-ENCODE-ORDER",)
    witness = make_witness("encode", "ab")
    why = (
        "Body ids and document ids are two different answers: 'ab' is [97, 98], and as a whole "
        "document [256, 97, 98, 257]. An encoder that always adds the boundaries makes every "
        "concatenation of encoded pieces contain boundaries in the middle."
    )

    def encode(self, text: str) -> list[int]:
        return [BEGIN_ID, *super().encode(text), END_ID]


MEMBERS = [
    GreedyLongestMatch,
    MergesLeftToRightWithStack,
    RulesSortedByPair,
    RulesSortedByPieceLength,
    SkipsRulesAbsentFromText,
    LowestRankKeepsLastDuplicate,
    MatchesPairsByPiece,
    PreSplitsOnWhitespace,
    EncodesLinesSeparately,
    NormalizesTextNFC,
    AddsBoundariesToBody,
]
