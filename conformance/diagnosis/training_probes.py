"""The generated questions of training localisation: small corpora that each isolate one stage.

Every question is built so that only its own stage (and the stages localisation asks before it) can
change the answer: one round with one pair clearly ahead (unique top count, two ahead of the next,
at least two above the minimum count), no runs of one byte unless runs are the question, and the
pairs that matter away from the first and last window unless those windows are the question. A
question that does not have that shape under the judging profile is dropped (:func:`clear_rounds`),
so every question's expected answer holds under every tie order, minimum count and counting detail
the later stages could get wrong.

>>> from bpe_conformance.reference.profiles import STRICT
>>> clear_rounds(["zabyabxabwabv"], 1, STRICT), clear_rounds(["abab"], 1, STRICT)
(True, False)
>>> probe = next(probe for probe in training_probes(STRICT) if probe.stage is Stage.INPUT)
>>> probe.documents != probe.control
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.diagnosis.stages import Stage
from bpe_conformance.reference import count_pairs, replace_pair
from bpe_conformance.reference.dialects import train_profile, training_sequences

if TYPE_CHECKING:
    from bpe_conformance.reference.profiles import Profile

__all__ = ["CLASS_CHANGES", "LONG", "MADE_IDS", "REPEATS", "RUNS", "Probe", "clear_rounds", "training_probes"]

# Letters a question's control uses in place of the feature's characters: none of them is in a question.
_CONTROL_LETTERS = "lmnrstvxyz"
_LEADS = "bcdfghj"
# Features that are no characters: relevant when the counterexample repeats a document, has a run of
# one byte, or is long enough for a count past 255.
REPEATS, RUNS, LONG = "<repeated documents>", "<runs>", "<long>"
# Relevant when the divergence comes after a merge, once the state holds ids no byte has.
MADE_IDS = "<made ids>"
# Relevant when two neighbouring characters of a document are of different kinds (letter or digit,
# space, punctuation) or a letter meets a digit: where a pre-tokenizer cuts.
CLASS_CHANGES = "<class changes>"


@dataclass(frozen=True)
class Probe:
    """One question: train on ``documents`` with ``max_merges``; ``control`` is its plain twin, if any.

    ``compared`` is how many leading rules are compared (None: the whole answer); ``feature`` holds the
    characters the question is about, so it is asked only when the counterexample has one of them
    (empty: always relevant to its stage); ``tie_free`` marks a question clear in every round it runs
    (the stop questions), not only in the rounds compared.
    """

    stage: Stage
    question: str
    documents: tuple[str, ...]
    max_merges: int
    compared: int | None = 1
    control: tuple[str, ...] | None = None
    feature: str = ""


def _clear_state(counts: dict[tuple[int, int], int], profile: Profile, strict_margin: bool) -> bool:
    ranked = sorted(counts.values(), reverse=True)
    if not ranked:
        return False
    runner_up = ranked[1] if len(ranked) > 1 else 0
    if not strict_margin:
        return ranked[0] > runner_up
    return ranked[0] >= runner_up + 2 and ranked[0] >= profile.min_count + 2


def clear_rounds(documents: list[str], rounds: int, profile: Profile, *, every_round: bool = False) -> bool:
    """True when the profile's first ``rounds`` rounds each have one pair clearly ahead.

    Clearly: two above the next count and two above the minimum count. With ``every_round`` the
    profile's whole training up to ``rounds`` only needs a unique top count in each round (the stop
    questions, which are about the minimum count itself).
    """
    try:
        sequences = training_sequences(documents, profile)
        rules = train_profile(documents, rounds, profile)
    except ValueError:
        return False
    if not every_round and len(rules) < rounds:
        return False
    for rank, pair in enumerate(rules):
        counts = count_pairs(sequences)
        if not _clear_state(counts, profile, strict_margin=not every_round):
            return False
        sequences = [replace_pair(sequence, pair, profile.first_rule_id + rank) for sequence in sequences]
    if every_round:
        counts = count_pairs(sequences)
        top = max(counts.values(), default=0)
        return top < profile.min_count or sum(1 for count in counts.values() if count == top) == 1
    return True


def _plain(text: str, feature: str) -> str:
    """``text`` with each byte of ``feature``'s characters replaced by a letter: the same pairs, in letters."""
    letters = iter(_CONTROL_LETTERS)
    mapping = {byte: next(letters) for byte in dict.fromkeys(feature.encode())}
    plain = []
    for char in text:
        plain.append("".join(mapping[byte] for byte in char.encode()) if char in feature else char)
    return "".join(plain)


def _interior(variants: list[str]) -> tuple[str, ...]:
    """One document: five ``lead + feature + q`` and two ``lead + feature + k/p``, the feature's pairs ahead."""
    units = [_LEADS[index] + variants[index % len(variants)] + "q" for index in range(5)]
    units += [_LEADS[5 + index] + variants[index % len(variants)] + "kp"[index] for index in range(2)]
    return ("".join(units) + "w",)


def _leading(feature: str) -> tuple[str, ...]:
    return tuple(feature + "q" + _LEADS[index] + "w" for index in range(5))


def _trailing(feature: str) -> tuple[str, ...]:
    return tuple(_LEADS[index] + "q" + feature for index in range(5))


# The characters an input "clean-up" changes: line ends, NUL, tabs, repeated and non-breaking spaces,
# upper case, combining accents (NFC), each inside a document, and whitespace at either end.
_INTERIOR_FEATURES: tuple[tuple[str, list[str]], ...] = (
    ("CRLF line ends", ["\r\n"]),
    ("carriage returns", ["\r"]),
    ("line feeds", ["\n"]),
    ("NUL bytes", ["\x00"]),
    ("tabs", ["\t"]),
    ("double spaces", ["  "]),
    ("non-breaking spaces", ["\u00a0"]),
    ("upper-case letters", ["A"]),
    ("combining accents", ["a\u0301", "o\u0301", "u\u0301", "i\u0301", "e\u0301"]),
)
_END_FEATURES = (("a space", " "), ("a line feed", "\n"), ("a tab", "\t"), ("a carriage return", "\r"))


# Where a pre-tokenizer (a word splitter, GPT-2's pattern) cuts: a letter after punctuation, a digit,
# a space or an apostrophe, each against the same document with a letter there.
_BOUNDARY_FEATURES: tuple[tuple[str, list[str]], ...] = (
    ("a comma before a letter", [","]),
    ("a full stop before a letter", ["."]),
    ("a digit before a letter", ["1"]),
    ("a space before a letter", [" "]),
    ("an apostrophe before a letter", ["'"]),
    ("a letter and its combining accent", ["e\u0301", "e\u0300", "e\u0302", "e\u0308"]),
)


def _interior_probe(stage: Stage, question: str, variants: list[str], changes: str | None = None) -> Probe:
    """One round on documents holding ``variants`` inside them, with its plain-letter control; ``changes`` is
    what the control leaves out (default: the feature's own characters)."""
    feature = "".join(char for variant in variants for char in variant if not ("a" <= char <= "z"))
    documents = _interior(variants)
    control = tuple(_plain(document, feature) for document in documents)
    return Probe(stage, question, documents, 1, None, control, feature if changes is None else changes)


def _pre_tokenization_probes() -> list[Probe]:
    return [
        _interior_probe(Stage.DOCUMENT_SPLIT, f"merges across a word boundary: {name}", variants, CLASS_CHANGES)
        for name, variants in _BOUNDARY_FEATURES
    ]


def _input_probes() -> list[Probe]:
    probes = [
        _interior_probe(Stage.INPUT, f"trained on exactly the given bytes: {name} inside a document", variants)
        for name, variants in _INTERIOR_FEATURES
    ]
    for name, feature in _END_FEATURES:
        for where, build in (("starting", _leading), ("ending", _trailing)):
            documents = build(feature)
            probes.append(
                Probe(
                    Stage.INPUT,
                    f"trained on exactly the given bytes: documents {where} with {name}",
                    documents,
                    1,
                    None,
                    tuple(_plain(document, feature) for document in documents),
                    feature,
                )
            )
    return probes


# Four occurrences of (m, n) inside one document: the pair the specification merges.
_INSIDE = "amnemnimnomnu"


def _document_probes() -> list[Probe]:
    seam_docs = tuple("y" + _LEADS[index] + "x" for index in range(6))
    same_docs = tuple("x" + _LEADS[index] + "x" for index in range(6))
    return [
        Probe(
            Stage.DOCUMENTS,
            "a pair only across 5 seams against one inside a document 4 times",
            (*seam_docs, _INSIDE),
            1,
        ),
        Probe(
            Stage.DOCUMENTS, "equal bytes at 5 seams against a pair inside a document 4 times", (*same_docs, _INSIDE), 1
        ),
        Probe(
            Stage.DOCUMENTS,
            "a document given 3 times against a pair inside one document 4 times",
            ("xabyabz", "xabyabz", "xabyabz", "cmndmnfmngmnh"),
            1,
            feature=REPEATS,
        ),
    ]


def _counting_probes() -> list[Probe]:
    competitor = "xmnymnzmnvmnsmn" + "t"
    return [
        Probe(
            Stage.COUNTING,
            "overlapping windows in runs of 5 and 4",
            ("b" + "a" * 5 + "c" + "a" * 4 + "d" + competitor,),
            1,
            feature=RUNS,
        ),
        Probe(Stage.COUNTING, "overlapping windows in runs of 3", ("baaacaaadaaaf" + "xmnymnzmnvt",), 1, feature=RUNS),
        Probe(
            Stage.COUNTING,
            "a pair 5 times in one document against one in 3 documents",
            ("zabyabxabwabvabu", "kmnd", "jmnf", "hmng"),
            1,
        ),
        Probe(
            Stage.COUNTING,
            "a pair only in the last window of 5 documents",
            (*(lead + "mn" for lead in _LEADS[:5]), "axyexyixyo"),
            1,
        ),
        Probe(
            Stage.COUNTING,
            "a pair only in the first window of 5 documents",
            (*("mn" + lead for lead in _LEADS[:5]), "axyexyixyo"),
            1,
        ),
        Probe(
            Stage.COUNTING, "a count past 255 against one of 5", ("pq" * 257, "pqz", "amnemnimnomnumn"), 1, feature=LONG
        ),
    ]


def _made_id_probes() -> list[Probe]:
    """Counting a pair that holds a made id, on its right and on its left, each the other's control.

    A count is kept per pair of *ids*, and after the first merge the ids pass 255: a table keyed by
    something that is only unique for bytes (``a * 256 + b``, two bytes of a string, a uint8 array)
    counts and names such a pair wrong although every one-round question (all bytes) is answered
    right. Both corpora make (m, n) first, then the pair of ``z`` and the new token, clearly ahead; they
    differ only in the side the made id stands on, and a counting bug that breaks one side only is
    blamed on the question whose control (the other side) it answers right. A two-round question
    needs recounting too: a count the merge left stale ties the new pair here, so these questions are
    asked after the recount questions, which find a stale count on either side without a made id in
    the rule they decide (:func:`_recount_probes`).
    """
    tail = "hmnjkmnlpmnq"
    right = "".join("zmn" + sep for sep in "bcdfg") + tail
    left = "".join("mnz" + sep for sep in "bcdfg") + tail
    question = "a pair with a made id on its {} counted after the first merge"
    return [
        Probe(Stage.COUNTING, question.format("right"), (right,), 2, 2, (left,), MADE_IDS),
        Probe(Stage.COUNTING, question.format("left"), (left,), 2, 2, (right,), MADE_IDS),
    ]


def _recount_probes() -> list[Probe]:
    """Two rounds where a count the first merge changed, if left as it was, wins the second.

    The merged pair is made 15 times, five of them beside (b, c), which is seen nine times before the
    merge and four after it; the second round is then won by a pair of bytes (x, y), seven times. A
    table counted once, one never reset (the merged pair's own 15 stay), or one whose counts are not
    lowered for the pairs a merge destroys, on the side the question puts them (right of the merged
    pair (a, b), or left of the merged pair (b, c)), picks another rule. No pair holding a made id
    decides them, so a trainer that counts made ids wrong (asked after these) answers them right.
    """
    winner = "".join("xy" + sep for sep in "0123456")
    on_right = "".join("abc" + sep for sep in "01234") + "".join("ab" + sep for sep in "56789hijkl")
    on_left = "".join(sep + "abc" for sep in "01234") + "".join(sep + "bc" for sep in "56789hijkl")
    on_right += "".join(lead + "bc" for lead in "defg") + winner
    on_left += "".join("ab" + sep for sep in "defg") + winner
    question = "a second round that only an up-to-date count gets right"
    return [
        Probe(Stage.RECOUNT, f"{question}: pairs the merge destroyed on its right", (on_right,), 2, 2),
        Probe(Stage.RECOUNT, f"{question}: pairs the merge destroyed on its left", (on_left,), 2, 2),
    ]


def _scan_probes() -> list[Probe]:
    runs = "".join("aaa" + sep for sep in "bcdefg")
    return [
        Probe(
            Stage.REPLACEMENT_SCAN,
            "six runs 'aaa': the second rule shows how the first was replaced",
            (runs,),
            2,
            2,
            feature=RUNS,
        )
    ]


def _separated(units: list[str]) -> str:
    separators = iter("ghijklmnopqrstuvwxyz")
    return "".join(unit + next(separators) for unit in units)


def _stop_probes(profile: Profile) -> list[Probe]:
    minimum = max(profile.min_count, 1)
    at_minimum = "w" + _separated(["ab"] * minimum)
    ranked = _separated(["ab"] * 6 + ["cd"] * 4 + ["ef"] * 2)
    return [
        Probe(Stage.STOP, f"a pair counted exactly the minimum ({minimum}) is merged", (at_minimum,), 4, None),
        Probe(Stage.STOP, "no pair counted below the minimum is merged", ("abcdefg",), 4, None),
        *(
            Probe(Stage.STOP, f"max_merges {budget} on a corpus with 3 clear rounds", (ranked,), budget, None)
            for budget in (0, 1, 2, 8)
        ),
    ]


def _greedy_probes() -> list[Probe]:
    return [
        Probe(Stage.GREEDY, "the most frequent pair wins over the pair seen first", ("zabyabxabwabv",), 1),
        Probe(Stage.GREEDY, "the most frequent pair wins over a smaller pair", ("azybzyczydzye",), 1),
        Probe(Stage.GREEDY, "the most frequent pair wins when seen last", ("bcdefghmnimnjmnkmnlmno",), 1),
        Probe(Stage.GREEDY, "the most frequent pair wins over one seen twice first", ("cdxcdyabzabwabvabu",), 1),
        Probe(
            Stage.GREEDY, "the most frequent pair wins over one seen 3 times first", ("cdxcdycdwabzabvabuabtabs",), 1
        ),
        Probe(
            Stage.GREEDY, "the most frequent pair wins over the largest pair, seen twice", ("zyqzyrabsabtabuabv",), 1
        ),
    ]


def _usable(probe: Probe, profile: Profile) -> bool:
    if probe.compared is None and probe.stage is Stage.STOP:
        return clear_rounds(list(probe.documents), probe.max_merges, profile, every_round=True)
    rounds = probe.compared if probe.compared is not None else probe.max_merges
    if not clear_rounds(list(probe.documents), rounds, profile):
        return False
    return probe.control is None or clear_rounds(list(probe.control), rounds, profile)


@functools.lru_cache(maxsize=64)
def training_probes(profile: Profile) -> tuple[Probe, ...]:
    """Every question, in the order localisation asks them, that has its shape under ``profile``."""
    probes = [
        *_greedy_probes(),
        *_document_probes(),
        *_pre_tokenization_probes(),
        *_input_probes(),
        *_counting_probes(),
        *_recount_probes(),
        *_made_id_probes(),
        *_scan_probes(),
        *_stop_probes(profile),
    ]
    return tuple(probe for probe in probes if _usable(probe, profile))
