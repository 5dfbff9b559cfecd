"""Adapters that run each trainer and encoder the same way and return comparable results.

Every trainer returns the learned merges as *pieces* (the bytes each new token stands for, in
rank order), the one form all engines share; ours also return the rules. Third-party engines
are optional: :func:`missing` says why one cannot run here.

>>> pieces_of_rules([(97, 98), (258, 99)])
[b'ab', b'abc']
>>> byte_level_decoder()["Ġ"], byte_level_decoder()["a"]
(32, 97)
>>> tiktoken_ids_to_ours([97, 256, 300])
[97, 258, 302]
"""

from __future__ import annotations

import importlib.util
import json

from bpe_conformance.reference.alphabet import FIRST_RULE_ID
from bpe_conformance.reference.pieces import build_pieces

__all__ = [
    "ENCODERS",
    "TRAINERS",
    "byte_level_decoder",
    "missing",
    "pieces_of_rules",
    "preload",
    "prepare_encoder",
    "tiktoken_ids_to_ours",
    "train_with",
]

TRAINERS = ("literal", "fast", "fast-python", "hf", "rustbpe")
ENCODERS = ("literal", "fast", "fast-heap", "tiktoken")
# Third-party packages an engine needs; "fast" runs without numpy (on its plain-Python engine).
_MODULES = {"hf": "tokenizers", "rustbpe": "rustbpe", "tiktoken": "tiktoken"}
# One regex match per document: the engines that split text first are made to see whole documents.
_WHOLE_DOCUMENT = r"[\s\S]+"


def missing(engine: str) -> str | None:
    """Why ``engine`` cannot run here, or ``None`` when it can."""
    module = _MODULES.get(engine)
    if module and importlib.util.find_spec(module) is None:
        return f"{engine}: python package {module!r} is not installed (pip install {module})"
    return None


def preload(engine: str) -> None:
    """Import everything ``engine`` needs, so that importing is not measured as its work."""
    import bpe_conformance.reference.fast_encoding
    import bpe_conformance.reference.fast_profiles
    import bpe_conformance.reference.fast_training  # noqa: F401

    module = _MODULES.get(engine)
    if module and importlib.util.find_spec(module) is not None:
        importlib.import_module(module)
    if engine in ("fast", "fast-heap") and importlib.util.find_spec("numpy") is not None:
        importlib.import_module("bpe_conformance.reference.fast_training_numpy")
        importlib.import_module("bpe_conformance.reference.fast_encoding_numpy")


def pieces_of_rules(rules: list[tuple[int, int]]) -> list[bytes]:
    """The piece of every rule, in rank order."""
    return build_pieces(rules)[FIRST_RULE_ID:]


def byte_level_decoder() -> dict[str, int]:
    """The inverse of GPT-2's byte-to-printable-character map used by HF ``ByteLevel``."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    characters = list(printable)
    extra = 0
    for value in range(256):
        if value not in printable:
            printable.append(value)
            characters.append(256 + extra)
            extra += 1
    return {chr(character): value for value, character in zip(printable, characters, strict=True)}


def _train_hf(documents: list[str], merges: int) -> list[bytes]:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    trainer = trainers.BpeTrainer(
        vocab_size=256 + merges,
        min_frequency=2,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tokenizer.train_from_iterator(documents, trainer=trainer)
    decoder = byte_level_decoder()
    learned = json.loads(tokenizer.to_str())["model"]["merges"]
    pairs = [merge.split(" ", 1) if isinstance(merge, str) else merge for merge in learned]
    return [bytes(decoder[character] for character in left + right) for left, right in pairs]


def _train_rustbpe(documents: list[str], merges: int) -> list[bytes]:
    import rustbpe

    tokenizer = rustbpe.Tokenizer()
    tokenizer.train_from_iterator(iter(documents), 256 + merges, pattern=_WHOLE_DOCUMENT)
    ranked = sorted(tokenizer.get_mergeable_ranks(), key=lambda item: item[1])
    return [bytes(piece) for piece, rank in ranked if rank >= 256]


def train_with(
    engine: str, documents: list[str], merges: int, profile: str | None = None
) -> tuple[list[bytes], list[tuple[int, int]] | None]:
    """Train ``engine``; return its pieces in rank order, and its rules when it is one of ours.

    With ``profile`` (engine ``fast`` only), :func:`bpe_conformance.reference.fast_profiles.fast_train_profile` trains
    under that named profile, reporting progress to a counter as ``compare`` does.
    """
    if profile is not None:
        if engine != "fast":
            raise ValueError(f"a profile is trained by the fast engine only, not {engine!r}")
        from bpe_conformance.reference.dialects import profile_pieces
        from bpe_conformance.reference.fast_profiles import fast_train_profile
        from bpe_conformance.reference.profiles import get_profile

        chosen = get_profile(profile)
        rounds: list[int] = []
        rules = fast_train_profile(documents, merges, chosen, progress=rounds.append)
        return profile_pieces(rules, chosen)[chosen.first_rule_id :], rules
    if engine == "literal":
        from bpe_conformance.reference.training import train

        rules = train(documents, merges)
    elif engine in ("fast", "fast-python"):
        from bpe_conformance.reference.fast_training import fast_train

        rules = fast_train(documents, merges, engine="auto" if engine == "fast" else "python")
    elif engine == "hf":
        return _train_hf(documents, merges), None
    elif engine == "rustbpe":
        return _train_rustbpe(documents, merges), None
    else:
        raise ValueError(f"unknown trainer {engine!r}; choose from {', '.join(TRAINERS)}")
    return pieces_of_rules(rules), rules


def tiktoken_ids_to_ours(ids: list[int]) -> list[int]:
    """tiktoken ranks count bytes then rules; ours put the two boundary ids in between."""
    return [token if token < 256 else token + FIRST_RULE_ID - 256 for token in ids]


def prepare_encoder(engine: str, rules: list[tuple[int, int]]):
    """A function ``texts -> ids of each`` (our id numbering) for ``engine``, with its tables already built.

    ``fast`` is :func:`bpe_conformance.reference.fast_encoding.fast_encode_many` (all texts at once, batched with
    numpy from 32 KiB on); ``fast-heap`` is the heap encoder, one text at a time.
    """
    if engine == "literal":
        from bpe_conformance.reference.encoding import encode

        return lambda texts: [encode(text, rules) for text in texts]
    if engine in ("fast", "fast-heap"):
        from bpe_conformance.reference.fast_encoding import MergeTable, fast_encode_many

        table = MergeTable(rules)
        if engine == "fast":
            fast_encode_many(["ab"], table, "numpy")  # builds the table's layers: preparation, not encoding
        chosen = "auto" if engine == "fast" else "heap"
        return lambda texts: fast_encode_many(texts, table, chosen)
    if engine == "tiktoken":
        import tiktoken

        ranks = {bytes([value]): value for value in range(256)}
        ranks.update({piece: 256 + rank for rank, piece in enumerate(pieces_of_rules(rules))})
        encoding = tiktoken.Encoding(
            name="bpe-conformance-bench", pat_str=_WHOLE_DOCUMENT, mergeable_ranks=ranks, special_tokens={}
        )
        return lambda texts: [tiktoken_ids_to_ours(encoding.encode_ordinary(text)) for text in texts]
    raise ValueError(f"unknown encoder {engine!r}; choose from {', '.join(ENCODERS)}")
