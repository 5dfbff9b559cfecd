"""Known-answer vectors computed from the reference, for every profile.

Every profile of :mod:`bpe_conformance.reference.profiles` has three files (an encode-only profile has no
``training.json``), described field by field in ``specs/schema/vectors.schema.json``:
``training.json`` (documents in; rules, sequences and encodings of held-out texts out), ``load.json``
(a valid rule list adopted through ``load``, then encodings and decodings) and ``invalid.json`` (a
rejected call and the error family preferred for it). Strict's answers come from the strict
reference and are cross-checked against its second formulation; every other profile's come from
the literal reference run under that profile (:mod:`bpe_conformance.reference.dialects`), on the same corpora: the
same training inputs, the load corpora's rule lists renumbered into the profile's ids, and the
rejected calls the profile still rejects. :mod:`bpe_conformance.vectors.output` writes the files and
proves them current, :mod:`bpe_conformance.vectors.files` reads them, :mod:`bpe_conformance.vectors.replay`
replays them; the names of those two in ``__all__`` are importable from here.

>>> from bpe_conformance.reference import Tokenizer
>>> files = load_vectors()
>>> sorted(files)
['invalid.json', 'load.json', 'training.json']
>>> vector = files["training.json"][0]
>>> vector["documents"], vector["rules"], vector["encodings"][0]["ids"]
(['abab', 'acac'], [[97, 98], [97, 99]], [258, 259])
>>> replay_vector(Tokenizer, vector)
[]
>>> largest = generate_vectors("largest-pair")["training.json"][0]  # the same inputs, that profile's answer
>>> largest["id"] == vector["id"], largest["rules"], largest["encodings"][0]["ids"]
(True, [[97, 99], [97, 98]], [257, 256])
"""

from __future__ import annotations

import copy
import re
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from bpe_conformance.inputs.corpora import training as corpora
from bpe_conformance.inputs.predicates import character_class
from bpe_conformance.reference import (
    BEGIN_ID,
    END_ID,
    FIRST_RULE_ID,
    Tokenizer,
    digest,
    dumps,
    encode,
    encode_lowest_rank_first,
    replace_pair,
    tied_pairs,
)
from bpe_conformance.reference.dialects import (
    check_profile_rules,
    decode_profile,
    decode_profile_bytes,
    encode_profile,
    profile_pieces,
    profile_training_rounds,
    renumbered,
    train_profile,
)
from bpe_conformance.reference.fast_training import fast_train
from bpe_conformance.reference.profiles import STRICT, Profile, get_profile, pre_tokenizes
from bpe_conformance.vectors.files import (
    CLAUSE_IDS,
    FILES,
    NOT_IN_VECTORS,
    SCHEMA_PATH,
    VECTOR_PROFILES,
    VECTORS_DIR,
    covered_clauses,
    held_out_problems,
    load_schema,
    load_vectors,
    profile_directory,
    profile_files,
    read_vector_files,
    validate_vectors,
    vector_id,
    vector_inputs,
)
from bpe_conformance.vectors.replay import Mismatch, call_operation, format_mismatch, replay_all, replay_vector

if TYPE_CHECKING:
    from collections.abc import Iterable

    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.reference.training import Round

__all__ = [
    "CLAUSE_IDS",
    "FILES",
    "NOT_IN_VECTORS",
    "SCHEMA_PATH",
    "VECTORS_DIR",
    "VECTOR_PROFILES",
    "Mismatch",
    "covered_clauses",
    "format_mismatch",
    "generate_vectors",
    "held_out_problems",
    "load_schema",
    "load_vectors",
    "profile_directory",
    "profile_files",
    "read_vector_files",
    "replay_all",
    "replay_vector",
    "validate_vectors",
    "vector_id",
    "vector_inputs",
    "void_clauses",
]

Rules = list[tuple[int, int]]


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise RuntimeError(f"the reference disagrees with itself while generating vectors: {message}")


def _strict_numbering(profile: Profile) -> bool:
    """Boundary ids 256 and 257, rules from 258: the numbering the serialized form and the digest are defined in."""
    return profile.first_rule_id == FIRST_RULE_ID


def void_clauses(profile: Profile) -> frozenset[str]:
    """Clauses whose subject a profile's parameters take away (``specs/profiles.md``): its vectors never name them.

    >>> from bpe_conformance.reference.profiles import MINBPE
    >>> sorted(void_clauses(STRICT)), sorted(void_clauses(MINBPE))[:3]
    ([], ['BPE-ALPHA-BOUNDARY', 'BPE-ENCODE-BOUNDARY', 'BPE-PROP-PERMUTE'])
    """
    void = set()
    if not profile.boundary_ids:
        void |= {"BPE-ALPHA-BOUNDARY", "BPE-ENCODE-BOUNDARY"}
    if not _strict_numbering(profile):
        void |= {"BPE-SER-JSON", "BPE-SER-DIGEST", "BPE-SER-LOAD"}
    if profile.documents == "concatenated":
        void |= {"BPE-TRAIN-DOCS", "BPE-PROP-PERMUTE"}
    if profile.tie_break == "first-seen":  # the first pair counted depends on the documents' order
        void.add("BPE-PROP-PERMUTE")
    if pre_tokenizes(profile):
        void.add("BPE-ENCODE-RAW")
    if profile.decode_policy == "skip-unknown":  # unknown ids dropped, invalid UTF-8 replaced: nothing is an error
        void.add("BPE-DECODE-STRICT")
    return frozenset(void)


_RULE_ID = re.compile(r"\b(25[6-9]|2[6-9][0-9]|[3-9][0-9]{2}|[0-9]{4,})\b")


def _described(description: str, profile: Profile, outcome: str) -> str:
    """Strict's description as it is; another profile's says what happened there, then whose case it was (and, when
    that names ids past the bytes, that they are strict's)."""
    if profile.name == STRICT.name:
        return description
    numbering = f" (its ids count rules from {FIRST_RULE_ID}, here from {profile.first_rule_id})"
    ids = numbering if not _strict_numbering(profile) and _RULE_ID.search(description) else ""
    return f"under {profile.name}: {outcome}; strict's case{ids}: {description}"


def _rules(count: int) -> str:
    return f"{count} rule{'' if count == 1 else 's'}"


def _encoding(text: str, rules: Rules, profile: Profile) -> JSONObject:
    ids = encode_profile(text, rules, profile)
    _require(decode_profile(ids, rules, profile) == text, f"encoding {text!r} under {profile.name}")
    if _strict_numbering(profile) and profile.encode_algorithm == "rank-order" and not pre_tokenizes(profile):
        _require(ids == encode(text, rules) == encode_lowest_rank_first(text, rules), f"encoding {text!r}")
    encoding: JSONObject = {"ids": ids, "text": text}
    if profile.boundary_ids:
        encoding["document_ids"] = [BEGIN_ID, *ids, END_ID]
    return encoding


def _rules_fired(text: str, rules: Rules, profile: Profile) -> int:
    sequence, fired = list(text.encode("utf-8")), 0
    for rank, pair in enumerate(rules):
        merged = replace_pair(sequence, pair, profile.first_rule_id + rank)
        fired, sequence = fired + (merged != sequence), merged
    return fired


def _encoding_clauses(encodings: list[JSONObject], rules: Rules, profile: Profile) -> set[str]:
    """Clauses the encodings exercise, read off the ids rather than declared."""
    clauses = {"BPE-ENCODE-BOUNDARY", "BPE-ALPHA-BOUNDARY", "BPE-DECODE-CONCAT", "BPE-ROUNDTRIP"}
    pieces = profile_pieces(rules, profile)
    ids = [token for encoding in encodings for token in encoding["ids"]]
    if any(token < 256 for token in ids):
        clauses.add("BPE-ALPHA-BYTES")
    if any(len({character_class(byte) for byte in pieces[token]}) > 1 for token in ids):  # a pre-tokenizer splits these
        clauses.add("BPE-ENCODE-RAW")
    if any(_rules_fired(encoding["text"], rules, profile) >= 2 for encoding in encodings):
        clauses.update({"BPE-ENCODE-ORDER", "BPE-ENCODE-LOWEST"})
    return clauses


def _rule_clauses(rules: Rules, profile: Profile) -> set[str]:
    clauses = {"BPE-VOCAB-SIZE", "BPE-SER-DIGEST"} | ({"BPE-RULE-ID"} if rules else set())
    if any(part >= profile.first_rule_id for rule in rules for part in rule):
        clauses.update({"BPE-RULE-REF", "BPE-RULE-PIECE"})
    for piece in profile_pieces(rules, profile)[profile.first_rule_id :]:
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            clauses.add("BPE-RULE-PIECE")
    return clauses


def _has_other_split(rules: Rules, profile: Profile) -> bool:
    """True when some rule's piece could also be built from two other pieces: a duplicate a buggy trainer makes."""
    pieces = profile_pieces(rules, profile)
    known = set(pieces)
    for first, second in rules:
        piece = pieces[first] + pieces[second]
        splits = {(piece[:cut], piece[cut:]) for cut in range(1, len(piece))}
        if any(left in known and right in known for left, right in splits - {(pieces[first], pieces[second])}):
            return True
    return False


def _training_clauses(case: corpora.TrainingCase, rounds: list[Round], profile: Profile) -> set[str]:
    clauses = {"BPE-TRAIN-INPUT", "BPE-TRAIN-STOP", "BPE-ENCODE-PURE"}
    clauses |= {"BPE-TRAIN-DOCS"} if len(case.documents) > 1 else set()
    clauses |= {"BPE-TRAIN-MAXMERGES"} if len(rounds) == case.max_merges else set()
    clauses |= {"BPE-TRAIN-RECOUNT"} if len(rounds) > 1 else set()
    clauses |= {"BPE-PROP-UNIQUE"} if _has_other_split([step.pair for step in rounds], profile) else set()
    for step in rounds:
        replacements = sum(map(len, step.sequences_before)) - sum(map(len, step.sequences_after))
        clauses |= {"BPE-TRAIN-GREEDY"} if len(set(step.counts.values())) > 1 else set()
        clauses |= {"BPE-TRAIN-TIE"} if len(tied_pairs(step.counts)) > 1 else set()
        clauses |= {"BPE-TRAIN-COUNT", "BPE-MERGE-SCAN", "BPE-MERGE-NOREMATCH"} if step.count > replacements else set()
    return clauses


def _against_strict(rules: Rules, case: corpora.TrainingCase, profile: Profile) -> str:
    """How ``rules`` compare with what strict trains on the same case, in the profile's numbering."""
    strict_rules = renumbered(fast_train(list(case.documents), case.max_merges), profile.first_rule_id)
    if rules == strict_rules:
        return f"{_rules(len(rules))}, the same as strict's"
    parted = next(
        (rank for rank, pair in enumerate(rules) if rank >= len(strict_rules) or strict_rules[rank] != pair), len(rules)
    )
    return f"{_rules(len(rules))} where strict makes {len(strict_rules)}, the first difference at rule {parted}"


def _trains_as_it_encodes(profile: Profile) -> bool:
    """Documents trained apart and encoded rule by rule: training ends on each document's encoding."""
    return profile.documents == "separate" and profile.encode_algorithm == "rank-order"


def _training_vector(case: corpora.TrainingCase, profile: Profile) -> JSONObject:
    _require(not set(case.texts) & set(case.documents), f"{case.description}: a held-out text is a training document")
    rounds = list(profile_training_rounds(list(case.documents), case.max_merges, profile))
    rules = [step.pair for step in rounds]
    sequences = [encode_profile(text, rules, profile) for text in case.documents]
    if _trains_as_it_encodes(profile) and not pre_tokenizes(profile):
        final = rounds[-1].sequences_after if rounds else [list(text.encode("utf-8")) for text in case.documents]
        _require(final == sequences, f"{case.description}: training does not end where encoding does")
    encodings = [_encoding(text, rules, profile) for text in case.texts]
    clauses = set(case.clauses) | _training_clauses(case, rounds, profile) | _rule_clauses(rules, profile)
    vector = {
        "clauses": sorted((clauses | _encoding_clauses(encodings, rules, profile)) - void_clauses(profile)),
        "level": "algorithm",
        "description": _described(case.description, profile, _against_strict(rules, case, profile)),
        "documents": list(case.documents),
        "encodings": encodings,
        "max_merges": case.max_merges,
        "rule_counts": [step.count for step in rounds],
        "rules": [list(pair) for pair in rules],
        "sequences": sequences,
        "vocab_size": profile.first_rule_id + len(rules),
    }
    if _strict_numbering(profile):
        vector["digest"] = digest(rules)
    return {"id": vector_id("train", vector_inputs("train", vector)), **vector}


def _decodings(encodings: list[JSONObject], rules: Rules, profile: Profile) -> list[JSONObject]:
    """Non-canonical id lists that still decode: raw bytes, 256 and 257 in the middle, every rule in order, and
    (where the decode policy allows it) half a character or an unknown id at the end."""
    first: JSONObject = next((encoding for encoding in encodings if encoding["text"]), {"text": "", "ids": []})
    candidates = [
        list(first["text"].encode("utf-8")),
        [256, *first["ids"], 257, 256, 257],
        [256, 257],
        list(range(profile.first_rule_id, profile.first_rule_id + len(rules))),
        [*first["ids"], *list("低".encode())[:2]],
        [*first["ids"], profile.first_rule_id + len(rules)],
    ]
    decodings = []
    for ids in candidates:
        try:
            decodings.append({"ids": ids, "text": decode_profile(ids, rules, profile)})
        except ValueError:  # an error under this profile's decode policy: byte_decodings or invalid.json cover it
            continue
    return [item for index, item in enumerate(decodings) if item not in decodings[:index]]


def _load_vector(case: corpora.LoadCase, profile: Profile) -> JSONObject:
    rules = check_profile_rules(renumbered(case.rules, profile.first_rule_id), profile)
    encodings = [_encoding(text, rules, profile) for text in case.texts]
    partial_character = list("低".encode())[:2]
    first = profile.first_rule_id
    byte_ids = [[token] for token in range(first, min(first + len(rules), first + 6))] + [partial_character]
    clauses = {"BPE-INPUT-RULES", "BPE-SER-JSON", "BPE-SER-LOAD", "BPE-DECODE-BYTES", *case.clauses}
    clauses |= _rule_clauses(rules, profile) | _encoding_clauses(encodings, rules, profile)
    vector = {
        "byte_decodings": [{"hex": decode_profile_bytes(ids, rules, profile).hex(), "ids": ids} for ids in byte_ids],
        "clauses": sorted(clauses - void_clauses(profile)),
        "level": "algorithm",
        "decodings": _decodings(encodings, rules, profile),
        "description": _described(case.description, profile, f"{_rules(len(rules))} loaded"),
        "encodings": encodings,
        "rules": [list(pair) for pair in rules],
        "vocab_size": profile.first_rule_id + len(rules),
    }
    if _strict_numbering(profile):
        vector.update(digest=digest(rules), serialized=dumps(rules))
    if _piece_rank_may_refuse(rules, profile):
        vector["refusable"] = True
    return {"id": vector_id("load", vector_inputs("load", vector)), **vector}


def _piece_rank_may_refuse(rules: Rules, profile: Profile) -> bool:
    """A piece-rank encoder keeps one rank per piece, so it may refuse rules of which two make the same piece."""
    pieces = profile_pieces(rules, profile)[profile.first_rule_id :]
    return profile.encode_algorithm == "piece-rank" and len(set(pieces)) < len(pieces)


def _error_raised(call: Any) -> str:
    try:
        call()
    except (TypeError, ValueError) as error:
        return TypeError.__name__ if isinstance(error, TypeError) else ValueError.__name__
    return "nothing"


def _setup_rules(setup: tuple[tuple[str, ...], int], profile: Profile) -> Rules:
    """What the setup documents train under the profile; an encode-only profile loads strict's rules renumbered."""
    documents, max_merges = setup
    if profile.tie_break is None:
        return renumbered(fast_train(list(documents), max_merges), profile.first_rule_id)
    return train_profile(list(documents), max_merges, profile)


def _invalid_vector(case: corpora.InvalidCase, profile: Profile) -> JSONObject | None:
    """The rejected call under ``profile``; None where the profile accepts it or cannot make it (train, encode-only)."""
    if profile.tie_break is None and case.operation == "train":
        return None
    rules = _setup_rules(case.setup, profile)
    model = SimpleNamespace(
        train=lambda documents, max_merges: train_profile(documents, max_merges, profile),
        encode=lambda text: encode_profile(text, rules, profile),
        decode=lambda ids: decode_profile(ids, rules, profile),
        load=lambda loaded: check_profile_rules(loaded, profile),
    )
    raised = _error_raised(lambda: call_operation(model, case.operation, case.arguments))
    clauses = sorted(set(case.clauses) - void_clauses(profile))
    if profile.name == STRICT.name:  # the strict case list is exactly what strict rejects, on the tokenizer too
        tokenizer = Tokenizer()
        tokenizer.train(list(case.setup[0]), case.setup[1])
        on_tokenizer = _error_raised(lambda: call_operation(tokenizer, case.operation, case.arguments))
        _require(raised == on_tokenizer == case.error and tokenizer.rules == rules, f"{case.description}: {raised}")
    elif raised == "nothing" or not clauses:
        return None
    _require(raised == case.error, f"{case.description} under {profile.name}: raised {raised}, not {case.error}")
    documents, max_merges = case.setup
    vector = {
        "arguments": copy.deepcopy(case.arguments),
        "clauses": clauses,
        "level": "interface",
        "description": _described(case.description, profile, f"rejected with a {raised}"),
        "error": case.error,
        "operation": case.operation,
        "probe": {"ids": encode_profile(case.probe, rules, profile), "text": case.probe},
        "setup": {"documents": list(documents), "max_merges": max_merges, "rules": [list(pair) for pair in rules]},
    }
    return {"id": vector_id("invalid", vector_inputs("invalid", vector)), **vector}


def _first_of_each_id(vectors: Iterable[JSONObject | None]) -> list[JSONObject]:
    unique: dict[str, JSONObject] = {}
    for vector in vectors:
        if vector is not None:
            unique.setdefault(vector["id"], vector)
    return list(unique.values())


def generate_vectors(profile: Profile | str = STRICT) -> dict[str, list[JSONObject]]:
    """Every vector of ``profile``, per file name, computed from the reference; cases with equal inputs appear once."""
    chosen = get_profile(profile) if isinstance(profile, str) else profile
    files: dict[str, list[JSONObject]] = {}
    if "training.json" in profile_files(chosen):
        training = corpora.worked_example_cases() + corpora.generated_training_cases()
        files["training.json"] = _first_of_each_id(_training_vector(case, chosen) for case in training)
    files["load.json"] = _first_of_each_id(_load_vector(case, chosen) for case in corpora.load_cases())
    files["invalid.json"] = _first_of_each_id(_invalid_vector(case, chosen) for case in corpora.invalid_cases())
    return files
