"""The executable specification of byte-level BPE (strict profile).

Plain functions that read like ``specs/bpe.md``, and two classes with the plug-in contract. The public
surface is named here: the alphabet constants, the spec functions (counting, selection, replacement,
training, encoding, decoding, validation, serialization, and the traces ``specs/bpe.md`` shows),
``Tokenizer``, ``LiteralTokenizer`` and the dialect profiles. Everything else lives in its module
(``bpe_conformance.reference.trace``, ``.encoding_trace``, ``.fast_*``, ...).

This package imports nothing of the harness, and nothing heavy: no hypothesis, no rich.

>>> from bpe_conformance.reference import Tokenizer
>>> tokenizer = Tokenizer()
>>> tokenizer.train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> tokenizer.encode("abac")
[258, 259]
"""

from bpe_conformance.reference.alphabet import (
    BEGIN_ID,
    BOUNDARY_IDS,
    BYTE_COUNT,
    END_ID,
    FIRST_RULE_ID,
    MIN_MERGE_COUNT,
    rule_id,
    rule_rank,
    vocab_size,
)
from bpe_conformance.reference.counting import count_pairs
from bpe_conformance.reference.decoding import decode, decode_bytes
from bpe_conformance.reference.encoding import encode, encode_bytes, encode_document, encode_lowest_rank_first
from bpe_conformance.reference.encoding_trace import reversed_ranks, trace_encoding
from bpe_conformance.reference.pieces import build_pieces, piece_hex, piece_lengths
from bpe_conformance.reference.pretokenization import (
    CL100K,
    GPT2,
    O200K,
    decode_production,
    encode_chunk,
    encode_production,
    split_text,
)
from bpe_conformance.reference.profiles import PROFILES, Profile, get_profile
from bpe_conformance.reference.replacement import replace_pair
from bpe_conformance.reference.selection import select_pair, tied_pairs
from bpe_conformance.reference.serialization import digest, digest_input, dumps, loads
from bpe_conformance.reference.tokenizer import LiteralTokenizer, Tokenizer
from bpe_conformance.reference.trace import format_trace, trace_training
from bpe_conformance.reference.training import train, train_sequences, training_rounds
from bpe_conformance.reference.validation import check_documents, check_ids, check_max_merges, check_rules, check_text
from bpe_conformance.reference.vocabulary import Vocabulary, VocabularyError, read_tiktoken_text, vocabulary_from_pieces

__all__ = [
    "BEGIN_ID",
    "BOUNDARY_IDS",
    "BYTE_COUNT",
    "CL100K",
    "END_ID",
    "FIRST_RULE_ID",
    "GPT2",
    "MIN_MERGE_COUNT",
    "O200K",
    "PROFILES",
    "LiteralTokenizer",
    "Profile",
    "Tokenizer",
    "Vocabulary",
    "VocabularyError",
    "build_pieces",
    "check_documents",
    "check_ids",
    "check_max_merges",
    "check_rules",
    "check_text",
    "count_pairs",
    "decode",
    "decode_bytes",
    "decode_production",
    "digest",
    "digest_input",
    "dumps",
    "encode",
    "encode_bytes",
    "encode_chunk",
    "encode_document",
    "encode_lowest_rank_first",
    "encode_production",
    "format_trace",
    "get_profile",
    "loads",
    "piece_hex",
    "piece_lengths",
    "read_tiktoken_text",
    "replace_pair",
    "reversed_ranks",
    "rule_id",
    "rule_rank",
    "select_pair",
    "split_text",
    "tied_pairs",
    "trace_encoding",
    "trace_training",
    "train",
    "train_sequences",
    "training_rounds",
    "vocab_size",
    "vocabulary_from_pieces",
]
