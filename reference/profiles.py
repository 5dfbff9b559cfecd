"""Dialect profiles: the explicit parameters in which real BPE tokenizers differ from ``strict``.

A profile is data only; :mod:`bpe_conformance.reference.dialects` runs the literal algorithm under it.
``specs/profiles.md`` explains every parameter, the clauses it relaxes and how each named
profile was verified against its library.

>>> STRICT.tie_break, STRICT.min_count, STRICT.first_rule_id, STRICT.boundary_ids
('smallest-ids', 2, 258, True)
>>> get_profile("minbpe").tie_break
'first-seen'
>>> get_profile("gpt-5")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown profile 'gpt-5'; choose one of: strict, minbpe, ..., tiktoken (or base+field=value)
>>> get_profile("strict+tie=first-seen").tie_break
'first-seen'
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe_conformance.reference.alphabet import BYTE_COUNT, FIRST_RULE_ID, MIN_MERGE_COUNT
from bpe_conformance.reference.pretokenization import TRAINING_SPLITS

__all__ = [
    "BPEASY",
    "DECODE_POLICIES",
    "DOCUMENT_MODES",
    "ENCODE_ALGORITHMS",
    "FLASHBPE",
    "HF_TOKENIZERS",
    "LARGEST_PAIR",
    "MINBPE",
    "PROFILES",
    "RUSTBPE",
    "STRICT",
    "STRING_KEY",
    "SUBWORD_NMT",
    "SURROGATE_POLICIES",
    "TIE_BREAKS",
    "TIKTOKEN",
    "TINYBPE",
    "Profile",
    "check_profile",
    "get_profile",
    "pre_tokenizes",
]

TIE_BREAKS = ("smallest-ids", "first-seen", "largest-ids", "largest-pieces", "smallest-hf-ids", "smallest-string-key")
DOCUMENT_MODES = ("separate", "concatenated")
ENCODE_ALGORITHMS = ("rank-order", "piece-rank")
DECODE_POLICIES = ("strict", "replace", "skip-unknown")
SURROGATE_POLICIES = ("error", "replace")


@dataclass(frozen=True)
class Profile:
    """Every parameter a dialect may change; ``STRICT`` holds the values of ``specs/bpe.md``.

    ``tie_break`` is ``None`` for an encode-only dialect (one that cannot train). Every parameter is
    a design choice some real trainer documents; a library's defect (minbpe raising when no pair is
    left) is never a parameter: training always stops when no pair is left (BPE-TRAIN-STOP).
    ``pre_tokenization`` is ``None`` (the whole text is one sequence) or a Python ``re``
    pattern whose ``findall`` chunks are merged separately and must cover the text. ``split`` is
    ``None`` or the name of a released split pattern (``TRAINING_SPLITS`` of
    :mod:`~bpe_conformance.reference.pretokenization`: ``gpt2``, ``cl100k``, ``o200k``, ``rustbpe``), run by
    the ``regex`` package: training counts pairs inside its chunks only and encoding merges chunk by chunk
    (BPE-PRETOK-SPLIT in place of BPE-ENCODE-RAW). At most one of the two is set.
    """

    name: str
    description: str
    tie_break: str | None = "smallest-ids"
    min_count: int = MIN_MERGE_COUNT
    first_rule_id: int = FIRST_RULE_ID
    boundary_ids: bool = True
    documents: str = "separate"
    document_separator: str = ""
    pre_tokenization: str | None = None
    split: str | None = None
    encode_algorithm: str = "rank-order"
    decode_policy: str = "strict"
    lone_surrogates: str = "error"

    def __post_init__(self) -> None:
        check_profile(self)


def _check_choice(profile: Profile, field: str, allowed: tuple[str, ...]) -> None:
    value = getattr(profile, field)
    if value not in allowed:
        raise ValueError(f"profile {profile.name!r}: {field} must be one of {list(allowed)}, got {value!r}")


def check_profile(profile: Profile) -> Profile:
    """A profile's parameters must name known behaviours and a consistent id numbering."""
    if profile.tie_break is not None:
        _check_choice(profile, "tie_break", TIE_BREAKS)
    for field, allowed in (
        ("documents", DOCUMENT_MODES),
        ("encode_algorithm", ENCODE_ALGORITHMS),
        ("decode_policy", DECODE_POLICIES),
        ("lone_surrogates", SURROGATE_POLICIES),
    ):
        _check_choice(profile, field, allowed)
    if profile.split is not None and profile.split not in TRAINING_SPLITS:
        raise ValueError(
            f"profile {profile.name!r}: split must be one of {list(TRAINING_SPLITS)} or None, got {profile.split!r}"
        )
    if profile.split is not None and profile.pre_tokenization is not None:
        raise ValueError(f"profile {profile.name!r}: give split or pre_tokenization, not both")
    if not isinstance(profile.min_count, int) or isinstance(profile.min_count, bool) or profile.min_count < 1:
        raise ValueError(f"profile {profile.name!r}: min_count must be an int >= 1, got {profile.min_count!r}")
    # Boundary ids, when present, come first (256, 257); rules follow right after the fixed ids.
    expected_first = BYTE_COUNT + (2 if profile.boundary_ids else 0)
    if profile.first_rule_id != expected_first:
        raise ValueError(
            f"profile {profile.name!r}: first_rule_id must be {expected_first} when boundary_ids is "
            f"{profile.boundary_ids}, got {profile.first_rule_id!r}"
        )
    return profile


STRICT = Profile(
    name="strict",
    description="specs/bpe.md: ties to the smallest (a, b) as integers, stop below 2, ids 258 + r, boundary ids.",
)
MINBPE = Profile(
    name="minbpe",
    description="karpathy/minbpe BasicTokenizer: one concatenated text, max() over an insertion-ordered dict "
    "(first-seen pair wins ties), merges pairs seen once, ids 256 + r, U+FFFD on invalid UTF-8. (It also "
    "raises once no pair is left: a defect, not a choice; docs/findings.md.)",
    tie_break="first-seen",
    min_count=1,
    first_rule_id=256,
    boundary_ids=False,
    documents="concatenated",
    decode_policy="replace",
)
TINYBPE = Profile(
    name="tinybpe",
    description="tinybpe (minbpe's algorithm in C): one concatenated text, first-seen pair wins ties, merges pairs "
    "seen once, ids 256 + r; its Tokenizer.decode is bytes.decode('utf-8'), so invalid UTF-8 raises as in strict.",
    tie_break="first-seen",
    min_count=1,
    first_rule_id=256,
    boundary_ids=False,
    documents="concatenated",
)
HF_TOKENIZERS = Profile(
    name="hf-tokenizers",
    description="Hugging Face tokenizers BpeTrainer (ByteLevel alphabet, min_frequency=2): ties to the smallest "
    "pair in its own ids (byte-level symbols sorted by code point), unknown ids skipped, U+FFFD on invalid UTF-8.",
    tie_break="smallest-hf-ids",
    first_rule_id=256,
    boundary_ids=False,
    decode_policy="skip-unknown",
)
SUBWORD_NMT = Profile(
    name="subword-nmt",
    description="subword-nmt learn_bpe: max over (count, (piece a, piece b)), so ties go to the largest string "
    "pair; min_frequency 2; applied on bytes here.",
    tie_break="largest-pieces",
    first_rule_id=256,
    boundary_ids=False,
)
LARGEST_PAIR = Profile(
    name="largest-pair",
    description="subword-nmt's selection run on integer ids: max over (count, (a, b)), so ties go to the "
    "largest (a, b) as integers; stop below 2.",
    tie_break="largest-ids",
    first_rule_id=256,
    boundary_ids=False,
)
STRING_KEY = Profile(
    name="string-key",
    description="Map<string, count> trainers keyed by the text 'a,b': ties to the smallest key as a string "
    "('100,101' < '99,102'), stop below 2, ids 256 + r.",
    tie_break="smallest-string-key",
    first_rule_id=256,
    boundary_ids=False,
)
RUSTBPE = Profile(
    name="rustbpe",
    description="rustbpe (nanochat): heap of pair counts, ties to the smallest pair, merges pairs seen once, "
    "ids 256 + r, documents separate.",
    min_count=1,
    first_rule_id=256,
    boundary_ids=False,
)
FLASHBPE = Profile(
    name="flashbpe",
    description="flashbpe (a rustbpe fork): heap of pair counts, pairs seen once merged, ids 256 + r, documents "
    "separate, ties to the smallest pair in its own byte order (GPT-2's byte-level alphabet, as HF tokenizers).",
    tie_break="smallest-hf-ids",
    min_count=1,
    first_rule_id=256,
    boundary_ids=False,
)
BPEASY = Profile(
    name="bpeasy",
    description="bpeasy: trains like rustbpe (smallest pair, pairs seen once merged) and encodes through "
    "tiktoken (piece rank, U+FFFD, lone surrogates replaced).",
    min_count=1,
    first_rule_id=256,
    boundary_ids=False,
    encode_algorithm="piece-rank",
    decode_policy="replace",
    lone_surrogates="replace",
)
TIKTOKEN = Profile(
    name="tiktoken",
    description="tiktoken.Encoding built from rule pieces (encode-only): merges the adjacent pair whose joined "
    "bytes have the lowest rank, U+FFFD on invalid UTF-8, lone surrogates replaced by U+FFFD.",
    tie_break=None,
    first_rule_id=256,
    boundary_ids=False,
    encode_algorithm="piece-rank",
    decode_policy="replace",
    lone_surrogates="replace",
)

PROFILES: dict[str, Profile] = {
    profile.name: profile
    for profile in (
        STRICT,
        MINBPE,
        TINYBPE,
        HF_TOKENIZERS,
        SUBWORD_NMT,
        LARGEST_PAIR,
        STRING_KEY,
        RUSTBPE,
        FLASHBPE,
        BPEASY,
        TIKTOKEN,
    )
}


def pre_tokenizes(profile: Profile) -> bool:
    """True when ``profile`` splits text into chunks before merging (``pre_tokenization`` or ``split``)."""
    return profile.pre_tokenization is not None or profile.split is not None


def get_profile(name: object) -> Profile:
    """The named profile, or a custom one (``base+field=value...``, :mod:`~bpe_conformance.reference.profile_spec`);
    an unknown name is a ValueError listing the known ones."""
    if not isinstance(name, str):
        raise TypeError(f"profile name must be a str, not {type(name).__name__}")
    if name in PROFILES:
        return PROFILES[name]
    # profile_spec imports this module, so it is imported here, when a custom profile is asked for.
    from bpe_conformance.reference.profile_spec import parse_profile

    return parse_profile(name)
