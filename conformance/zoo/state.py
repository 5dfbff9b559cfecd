"""Zoo members whose one bug is in the state an instance keeps between calls.

Each witness here is a short sequence of calls on one instance: the bug needs history to show.

>>> member = CachesEncodingsAcrossModels()
>>> member.encode("abab")
[97, 98, 97, 98]
>>> member.load([(97, 98)])
[(97, 98)]
>>> member.encode("abab")  # the spec gives [258, 258] under the new rules
[97, 98, 97, 98]
"""

from __future__ import annotations

from bpe_conformance.zoo.base import Rules, ZooMember
from bpe_conformance.zoo.witness import make_witness

__all__ = [
    "MEMBERS",
    "CachesEncodingsAcrossModels",
    "EncodeLearnsFromText",
    "LoadAdoptsBeforeValidating",
    "RulesAccumulateAcrossTrains",
    "StalePiecesAfterLoad",
]


class RulesAccumulateAcrossTrains(ZooMember):
    """Starts each training from the rules of the previous one, so rules accumulate across calls.

    Breaks BPE-TRAIN-INPUT: training sees only this call's documents and starts from bytes. Seen in
    the wild: the class of mistake of keeping the merges in an attribute created in ``__init__``
    and extended by ``train``, so a second call continues the first instead of replacing it.
    """

    name = "rules-accumulate-across-trains"
    clause = "BPE-TRAIN-INPUT"
    also = ("BPE-PROP-DETERMINISM", "BPE-VOCAB-SIZE")
    witness = make_witness("train", ["acac"], 32, setup=[("train", [["abab"], 32])])
    why = (
        "Train on 'abab', then on 'acac': the second model should know nothing about 'ab'. When "
        "training continues from the instance's old rules, the result depends on what the object "
        "did before, and the same call on a fresh instance gives another tokenizer."
    )

    def starting_rules(self) -> Rules:
        return list(self.rules)


class CachesEncodingsAcrossModels(ZooMember):
    """Caches encode results by text and never clears the cache when the rules change.

    Breaks BPE-SER-LOAD: after a load (or train) encode must use the new rules. Seen in the wild:
    GPT-2's ``encoder.py`` caches ``bpe`` results per word, safe only because its merges never
    change; huggingface/transformers issue #47439 reports an encoder cache that went stale when
    the table it mirrors was changed directly.
    """

    name = "caches-encodings-across-models"
    clause = "BPE-SER-LOAD"
    also = ("BPE-ENCODE-ORDER", "BPE-PROP-DETERMINISM")
    witness = make_witness("encode", "abab", setup=[("encode", ["abab"]), ("load", [[(97, 98)]])])
    why = (
        "A cache keyed by the text alone assumes the text decides the ids, but the rules decide them "
        "too. After load([(a, b)]) the answer for 'abab' is [258, 258]; the cache still returns the "
        "byte ids it stored before. Key the cache by model, or clear it on every change."
    )

    def __init__(self) -> None:
        super().__init__()
        self._encoded: dict[str, list[int]] = {}

    def encode(self, text: str) -> list[int]:
        if isinstance(text, str) and text in self._encoded:
            return list(self._encoded[text])
        ids = super().encode(text)
        self._encoded[text] = list(ids)
        return ids


class StalePiecesAfterLoad(ZooMember):
    """Swaps the rules on load but keeps the piece table built for the previous rules.

    Breaks BPE-SER-LOAD: adopting rules means adopting their pieces too. Seen in the wild: two
    structures kept in sync by hand, here rules and pieces, is the shape of
    huggingface/transformers issue #47439; minbpe-style tokenizers hold ``merges`` and ``vocab``
    side by side.
    """

    name = "stale-pieces-after-load"
    clause = "BPE-SER-LOAD"
    also = ("BPE-DECODE-CONCAT", "BPE-ROUNDTRIP")
    witness = make_witness(
        "decode", [258], setup=[("train", [["abab", "acac"], 32]), ("decode", [[258]]), ("load", [[(120, 121)]])]
    )
    why = (
        "After training, id 258 is 'ab'; after loading [(x, y)] it is 'xy'. A decoder that built its "
        "piece table once and keeps it answers 'ab' for the new model: encoding is right, decoding "
        "is wrong, and only a round trip after a load can tell."
    )

    def load(self, rules: Rules) -> Rules:
        checked = self.check_rules(rules)
        self.rules = list(checked)
        return list(checked)


class LoadAdoptsBeforeValidating(ZooMember):
    """Replaces the model's rules first and validates them afterwards, so a rejected load still changes it.

    Breaks BPE-SER-LOAD: load validates, then adopts; bad input leaves the model as it was. Seen in
    the wild: assigning the attribute and then calling a validator that raises is a common order in
    setters and ``from_file`` constructors.
    """

    name = "load-adopts-before-validating"
    level = "interface"
    clause = "BPE-SER-LOAD"
    also = ("BPE-INPUT-RULES", "BPE-ENCODE-ORDER")
    witness = make_witness(
        "encode", "abac", setup=[("train", [["abab", "acac"], 32]), ("load", [[(97, 98), (97, 300)]])]
    )
    why = (
        "The load of [(a, b), (a, 300)] is rightly refused, but the model was already replaced: the "
        "next encode runs the half-checked rules and 'abac' becomes [258, 97, 99] instead of the "
        "trained [258, 259]. A failed call must not leave a changed object behind."
    )

    def load(self, rules: Rules) -> Rules:
        self.adopt(list(rules))
        return self.adopt(self.check_rules(rules))


class EncodeLearnsFromText(ZooMember):
    """After encoding a text, learns a rule from its most frequent pair: encode changes the model.

    Breaks BPE-ENCODE-PURE: encode never changes the model (and training sees only training
    documents). Seen in the wild: source chapter 000 insists that validation and test texts are
    only encoded, never counted, or the tokenizer has looked at the test set; "adaptive" encoders
    that grow their vocabulary at inference do exactly that.
    """

    name = "encode-learns-from-text"
    clause = "BPE-ENCODE-PURE"
    also = ("BPE-TRAIN-INPUT", "BPE-PROP-DETERMINISM", "BPE-ENCODE-ORDER")
    witness = make_witness("encode", "xyxy", setup=[("encode", ["xyxy"])])
    why = (
        "The first encode of 'xyxy' is right; it also quietly adds the rule (x, y). The second "
        "encode of the same text answers [258, 258]. Encoding is a pure function of the text and "
        "the rules; once it learns, answers depend on everything encoded before."
    )

    def encode(self, text: str) -> list[int]:
        ids = super().encode(text)
        counts = self.count_pairs([ids])
        pair = self.select_pair(counts)
        if pair is not None and not self.should_stop(counts[pair]):
            self.adopt([*self.rules, pair])
        return ids


MEMBERS = [
    RulesAccumulateAcrossTrains,
    CachesEncodingsAcrossModels,
    StalePiecesAfterLoad,
    LoadAdoptsBeforeValidating,
    EncodeLearnsFromText,
]
