"""The executable specification of byte-level BPE (strict profile).

Plain functions that read like ``specs/bpe.md``, and two classes with the plug-in contract.

>>> from reference import Tokenizer
>>> tokenizer = Tokenizer()
>>> tokenizer.train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> tokenizer.encode("abac")
[258, 259]
"""

from reference.alphabet import (
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
from reference.counting import count_pairs
from reference.decoding import decode, decode_bytes
from reference.encoding import encode, encode_bytes, encode_document, encode_lowest_rank_first
from reference.encoding_trace import (
    EncodeStep,
    EncodingTrace,
    check_order,
    reversed_ranks,
    trace_encoding,
    unmade_ids,
)
from reference.pieces import build_pieces, piece_hex, piece_lengths
from reference.replacement import replace_pair
from reference.selection import select_pair, tied_pairs
from reference.serialization import digest, digest_input, dumps, loads
from reference.tokenizer import LiteralTokenizer, Tokenizer
from reference.trace import (
    OverlapContrast,
    RoundSummary,
    StopRound,
    TrainingTrace,
    format_trace,
    replace_every_window,
    trace_training,
)
from reference.training import Round, TrainingResult, train, train_sequences, training_rounds
from reference.validation import check_documents, check_ids, check_max_merges, check_rules, check_text

__all__ = [
    "BEGIN_ID",
    "BOUNDARY_IDS",
    "BYTE_COUNT",
    "END_ID",
    "FIRST_RULE_ID",
    "MIN_MERGE_COUNT",
    "EncodeStep",
    "EncodingTrace",
    "LiteralTokenizer",
    "OverlapContrast",
    "Round",
    "RoundSummary",
    "StopRound",
    "Tokenizer",
    "TrainingResult",
    "TrainingTrace",
    "build_pieces",
    "check_documents",
    "check_ids",
    "check_max_merges",
    "check_order",
    "check_rules",
    "check_text",
    "count_pairs",
    "decode",
    "decode_bytes",
    "digest",
    "digest_input",
    "dumps",
    "encode",
    "encode_bytes",
    "encode_document",
    "encode_lowest_rank_first",
    "format_trace",
    "loads",
    "piece_hex",
    "piece_lengths",
    "replace_every_window",
    "replace_pair",
    "reversed_ranks",
    "rule_id",
    "rule_rank",
    "select_pair",
    "tied_pairs",
    "trace_encoding",
    "trace_training",
    "train",
    "train_sequences",
    "training_rounds",
    "unmade_ids",
    "vocab_size",
]
