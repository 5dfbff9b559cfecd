"""Which stage of encoding wrong ids come from, decided by questions put to the implementation.

:func:`localise_encoding` asks, in order: the replacement scan (one rule on runs and repeats, where no
rule order can matter), pre-tokenization (the wrong text and its rules with every byte that is not a
lower-case letter renamed to an unused letter: the same rules in the same places, so an order or scan
bug stays wrong and only a character-dependent one becomes right), chunking (a merge across byte 32,
64 or 4096 of a long text against the same merge two bytes earlier), and rule order (the renamed text,
short, still wrong once the stages before agree). A made token matched again before the rules ranked
between have run is asked right after the scan (BPE-MERGE-NOREMATCH), and, when the wrong encodings'
rules list a pair twice, whether that pair's lowest rank takes it (BPE-ENCODE-LOWEST). Each stage is blamed only where
its question departs from the specification while its plain twin agrees; otherwise the wrong ids stay
unlocalised.

>>> from bpe_conformance.reference.profiles import STRICT
>>> from bpe_conformance.dialects.context import profile_encode
>>> def split_at_spaces(text, rules):  # a pre-tokenizer: each word encoded on its own
...     return [token for word in text.split(" ") for token in profile_encode(word, rules, STRICT)]
>>> rules = [(97, 32), (258, 98)]
>>> localisation = localise_encoding([("a b", split_at_spaces("a b", rules))], rules, STRICT, split_at_spaces)
>>> localisation.localised, localisation.stage.value, localisation.clause
(True, 'pre-tokenization', 'BPE-ENCODE-RAW')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bpe_conformance.diagnosis.stages import Experiment, Localisation, Stage
from bpe_conformance.dialects.context import profile_encode
from bpe_conformance.reference import BYTE_COUNT
from bpe_conformance.reference.dialects import profile_pieces
from bpe_conformance.reference.pretokenization import get_training_split, split_text
from bpe_conformance.reference.profiles import pre_tokenizes

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.reference.profiles import Profile

__all__ = ["CHUNK_SIZES", "Encoder", "localise_encoding", "renamed", "split_report"]

Pair = tuple[int, int]
Rules = list[Pair]
Encoder = Callable[[str, Rules], "list[int] | None"]

# The chunk sizes an encoder that cuts long texts is most likely to use.
CHUNK_SIZES = (32, 64, 4096)
_LETTERS = b"abcdefghijklmnopqrstuvwxyz"
_SYMPTOM = "ids that are not the canonical encoding"


def _experiment(
    stage: Stage, question: str, text: str, rules: Rules, profile: Profile, encode: Encoder, *, control: bool = False
) -> Experiment:
    expected = profile_encode(text, rules, profile)
    answer = encode(text, rules)
    return Experiment(
        stage=stage,
        question=question,
        inputs={"text": text, "rules": [[first, second] for first, second in rules]},
        expected=expected,
        answer=answer,
        agrees=None if answer is None else answer == expected,
        control=control,
    )


def _offsets(parts: list[bytes]) -> list[int]:
    ends, total = [], 0
    for part in parts:
        total += len(part)
        ends.append(total)
    return ends


def split_report(text: str, ids: list[int], rules: Rules, profile: Profile) -> JSONObject | None:
    """How ``ids`` cut ``text`` against the chunks of the profile's split: the chunks, the pieces of the ids,
    and the first token that spans two chunks; None without a split, or when the ids do not spell the text.

    >>> from bpe_conformance.reference.profile_spec import parse_profile
    >>> split_report("ab ab", [257, 256], [(97, 98), (256, 32)], parse_profile("rustbpe+split=cl100k"))
    {'split': 'cl100k', 'chunks': ['ab', ' ab'], 'tokens': ['ab ', 'ab'], 'token_across_chunks': 'ab '}
    """
    if profile.split is None:
        return None
    pieces = profile_pieces(rules, profile)
    if any(not 0 <= token < len(pieces) for token in ids):
        return None
    parts = [pieces[token] for token in ids]
    data = text.encode()
    if b"".join(parts) != data:
        return None
    chunks = split_text(text, get_training_split(profile.split))
    boundaries = set(_offsets([chunk.encode() for chunk in chunks])[:-1])
    across = None
    start = 0
    for part in parts:
        if any(start < boundary < start + len(part) for boundary in boundaries):
            across = part
            break
        start += len(part)
    return {
        "split": profile.split,
        "chunks": chunks,
        "tokens": [part.decode("utf-8", errors="backslashreplace") for part in parts],
        "token_across_chunks": None if across is None else across.decode("utf-8", errors="backslashreplace"),
    }


def _split_experiments(
    wrong: list[tuple[str, list[int]]], rules: Rules, profile: Profile, encode: Encoder
) -> tuple[list[Experiment], bool]:
    """Behind a split: a wrong text whose ids make a token across two chunks (no control needed: no correct
    encoder makes one), or a chunk encoded wrong in the text and right on its own. True when either is found."""
    split = get_training_split(str(profile.split))
    experiments: list[Experiment] = []
    pieces = profile_pieces(rules, profile)
    for text, ids in wrong:
        report = split_report(text, ids, rules, profile)
        if report is None:
            continue
        original = Experiment(
            stage=Stage.SPLIT,
            question=f"the wrong text as given, against its chunks under split={profile.split}",
            inputs={"text": text, "rules": [[first, second] for first, second in rules], "chunks": report["chunks"]},
            expected=profile_encode(text, rules, profile),
            answer=ids,
            agrees=False,
        )
        if report["token_across_chunks"] is not None:
            return [*experiments, original], True
        position = 0
        for chunk in split_text(text, split):
            expected = profile_encode(chunk, rules, profile)
            size = len(chunk.encode())
            taken, count = 0, 0
            while taken < size and position + count < len(ids):
                taken += len(pieces[ids[position + count]])
                count += 1
            mine = ids[position : position + count]
            position += count
            if mine == expected or split_text(chunk, split) != [chunk]:
                continue
            question = f"the chunk {chunk!r} of the wrong text, given on its own"
            control = _experiment(Stage.SPLIT, question, chunk, rules, profile, encode, control=True)
            experiments += [original, control]
            if control.agrees is True:
                return experiments, True
            break
    return experiments, False


def _scan_experiments(profile: Profile, encode: Encoder) -> list[Experiment]:
    experiments = []
    for pair, unit in (((97, 97), "a"), ((97, 98), "ab")):
        for length in range(2, 8):
            text = unit * length
            question = f"one rule {pair} on {text!r}: replaced left to right, without overlap"
            experiments.append(_experiment(Stage.REPLACEMENT_SCAN, question, text, [pair], profile, encode))
            if experiments[-1].agrees is False:
                return experiments
    return experiments


def _rematch_experiments(profile: Profile, encode: Encoder) -> list[Experiment]:
    """A made token rematched in its own round, asked only of an encoder that keeps rank order otherwise.

    The control, rules (b, c) then (a, b) on "abc", needs nothing but rank order: an encoder that fails it
    (a single pass, a longest match) breaks the order itself, and that is the rule-order stage's to say.
    The question, rules (a, a), (b, b), (aa, b) on "aabb": (aa, b) must wait until (b, b) had its turn.
    """
    made = profile.first_rule_id
    in_order = "rules (b, c), (a, b) on 'abc': rank order alone"
    control = _experiment(Stage.NO_REMATCH, in_order, "abc", [(98, 99), (97, 98)], profile, encode, control=True)
    if control.agrees is not True:
        return [control]
    experiments = [control]
    for text, rules in (("aabb", [(97, 97), (98, 98), (made, 98)]), ("abcd", [(97, 98), (99, 100), (made, 99)])):
        question = f"rules {rules} on {text!r}: a made token waits for the rules ranked before the one that pairs it"
        experiments.append(_experiment(Stage.NO_REMATCH, question, text, rules, profile, encode))
        if experiments[-1].agrees is False:
            break
    return experiments


def _lowest_rank_experiments(rules: Rules, profile: Profile, encode: Encoder) -> list[Experiment]:
    """A pair listed twice, asked only when the wrong encodings' rules list one twice.

    In rank order the first copy of a pair takes every occurrence and the later copy never fires; a
    formulation that looks a pair's rank up (lowest rank first) must find its first rank, and a rank
    table built pair by pair keeps whichever copy it saw last. The question is each listed-twice pair,
    doubled, on its own two bytes' text; its control is the same text under the pair listed once, which
    any encoder that applies one rule answers right. Asked after the rank-order control, so a bug of
    rank order itself is never blamed here.
    """
    doubled = [pair for index, pair in enumerate(rules) if pair in rules[:index] and max(pair) < 128]
    experiments: list[Experiment] = []
    for pair in list(dict.fromkeys(doubled))[:2]:
        text = bytes(pair).decode("ascii")  # a pair of ASCII bytes is its own text
        question = f"rule {pair} listed twice, on {text!r}: the first copy takes it"
        asked = _experiment(Stage.LOWEST_RANK, question, text, [pair, pair], profile, encode)
        experiments.append(asked)
        if asked.agrees is False:
            control = _experiment(Stage.LOWEST_RANK, question, text, [pair], profile, encode, control=True)
            experiments.append(control)
            if control.agrees is True:
                return experiments
    return experiments


def _leaves(rules: Rules) -> set[int]:
    return {part for pair in rules for part in pair if part < BYTE_COUNT}


def renamed(text: str, rules: Rules) -> tuple[str, Rules] | None:
    """``text`` and ``rules`` with every byte that is not a lower-case letter renamed to an unused one.

    The same pairs stand in the same places, so every rule applies where it applied before; None when
    there are not enough unused letters.

    >>> renamed("a b", [(97, 32), (258, 98)])
    ('acb', [(97, 99), (258, 98)])
    """
    data = text.encode()
    used = set(data) | _leaves(rules)
    strangers = sorted(byte for byte in used if byte not in _LETTERS)
    free = [letter for letter in _LETTERS if letter not in used]
    if len(strangers) > len(free):
        return None
    mapping: dict[int, int] = dict(zip(strangers, free, strict=False))

    def rename(part: int) -> int:
        return mapping.get(part, part)

    return bytes(rename(byte) for byte in data).decode("ascii"), [(rename(a), rename(b)) for a, b in rules]


def _chunk_experiments(rules: Rules, profile: Profile, encode: Encoder, longest: int) -> list[Experiment]:
    """A rule of two ASCII bytes across byte ``size`` of a padded text, then the same two bytes earlier."""
    pair = next((rule for rule in rules if rule[0] < 128 and rule[1] < 128), None)
    leaves = _leaves(rules)
    pad = next((byte for byte in b"~^`|_#" if byte not in leaves), None)
    if pair is None or pad is None:
        return []
    piece, padding = bytes(pair).decode("ascii"), chr(pad)
    experiments = []
    for size in CHUNK_SIZES:
        if size >= longest:
            break
        across = padding * (size - 1) + piece + padding * 5
        question = f"a rule's pair across byte {size} of a {len(across)}-byte text"
        asked = _experiment(Stage.CHUNKING, question, across, rules, profile, encode)
        experiments.append(asked)
        if asked.agrees is False:
            inside = padding * (size - 3) + piece + padding * 7
            experiments.append(_experiment(Stage.CHUNKING, question, inside, rules, profile, encode, control=True))
            if experiments[-1].agrees is True:
                return experiments
    return experiments


def localise_encoding(
    wrong: list[tuple[str, list[int]]], rules: Rules, profile: Profile, encode: Encoder
) -> Localisation:
    """The stage the wrong encodings (``(text, ids)`` pairs, under ``rules``) come from, by asking ``encode``.

    ``encode(text, rules)`` is the implementation's encoding under other rules (loading them first), or
    None when it cannot answer.
    """
    experiments: list[Experiment] = []
    if profile.split is not None:
        experiments, split_departs = _split_experiments(wrong, rules, profile, encode)
        if split_departs:
            return Localisation(True, Stage.SPLIT, Stage.SPLIT.clause, _SYMPTOM, tuple(experiments))
    scan = _scan_experiments(profile, encode)
    experiments += scan
    if scan and scan[-1].agrees is False:
        return Localisation(True, Stage.REPLACEMENT_SCAN, Stage.REPLACEMENT_SCAN.clause, _SYMPTOM, tuple(experiments))
    rematch = _rematch_experiments(profile, encode)
    experiments += rematch
    if rematch[-1].agrees is False and not rematch[-1].control:
        return Localisation(True, Stage.NO_REMATCH, Stage.NO_REMATCH.clause, _SYMPTOM, tuple(experiments))
    if rematch[0].agrees is True:  # rank order itself holds: a listed-twice pair's rank is the question left
        lowest = _lowest_rank_experiments(rules, profile, encode)
        experiments += lowest
        if lowest and lowest[-1].control and lowest[-1].agrees is True:
            stage = Stage.LOWEST_RANK
            return Localisation(True, stage, stage.clause, _SYMPTOM, tuple(experiments))
    text, ids = wrong[0]
    original = Experiment(
        stage=Stage.PRE_TOKENIZATION,
        question="the wrong text as given",
        inputs={"text": text, "rules": [[first, second] for first, second in rules]},
        expected=profile_encode(text, rules, profile),
        answer=ids,
        agrees=False,
    )
    plain = renamed(text, rules)
    structural: Experiment | None = None
    if plain is not None and not pre_tokenizes(profile):
        question = "the wrong text and its rules with every byte but lower-case letters renamed to a letter"
        structural = _experiment(Stage.PRE_TOKENIZATION, question, plain[0], plain[1], profile, encode, control=True)
        experiments += [original, structural]
        if plain[0] != text and structural.agrees is True:
            stage = Stage.PRE_TOKENIZATION
            return Localisation(True, stage, stage.clause, _SYMPTOM, tuple(experiments))
    longest = max(len(text.encode()) for text, _ in wrong)
    chunks = _chunk_experiments(rules, profile, encode, longest)
    if not chunks and plain is not None:  # no rule of two ASCII bytes: the same rules renamed have one
        chunks = _chunk_experiments(plain[1], profile, encode, longest)
    experiments += chunks
    if chunks and chunks[-1].control and chunks[-1].agrees is True:
        return Localisation(True, Stage.CHUNKING, Stage.CHUNKING.clause, _SYMPTOM, tuple(experiments))
    if structural is not None and structural.agrees is False and len(text.encode()) <= min(CHUNK_SIZES):
        return Localisation(True, Stage.RULE_ORDER, Stage.RULE_ORDER.clause, _SYMPTOM, tuple(experiments))
    return Localisation(False, None, Stage.RULE_ORDER.clause, _SYMPTOM, tuple(experiments))
