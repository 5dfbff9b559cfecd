"""Dialect identification: strict is strict, known dialects are named, bugs are not excused."""

from __future__ import annotations

import argparse
import json
import sys
from itertools import pairwise
from typing import TYPE_CHECKING, NoReturn

import pytest

from bpe_conformance import reference
from bpe_conformance.cli.commands import identify as identify_command
from bpe_conformance.dialects.identify import format_report, identify, implementation_capabilities
from bpe_conformance.dialects.probes import PROBES, Outcome, ProfileModel, capture, renumbered
from bpe_conformance.reference.profiles import PROFILES, STRICT

if TYPE_CHECKING:
    from pathlib import Path


class LargestPairTokenizer:
    """subword-nmt's selection, max over (count, (symbol a, symbol b)), on byte pieces; ids 256 + r."""

    def __init__(self) -> None:
        self.merges: list[tuple[int, int]] = []

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        vocab = {value: bytes([value]) for value in range(256)}
        words = [list(document.encode("utf-8")) for document in documents]
        self.merges = []
        for index in range(max_merges):
            stats: dict[tuple[int, int], int] = {}
            for word in words:
                for pair in pairwise(word):
                    stats[pair] = stats.get(pair, 0) + 1
            if not stats:
                break
            best = max(stats, key=lambda pair: (stats[pair], (vocab[pair[0]], vocab[pair[1]])))
            if stats[best] < 2:
                break
            new_id = 256 + index
            vocab[new_id] = vocab[best[0]] + vocab[best[1]]
            words = [_merge(word, best, new_id) for word in words]
            self.merges.append(best)
        return list(self.merges)

    def encode(self, text: str) -> list[int]:
        ids = list(text.encode("utf-8"))
        for index, pair in enumerate(self.merges):
            ids = _merge(ids, pair, 256 + index)
        return ids

    def decode(self, ids: list[int]) -> str:
        vocab = {value: bytes([value]) for value in range(256)}
        for index, (first, second) in enumerate(self.merges):
            vocab[256 + index] = vocab[first] + vocab[second]
        return _joined(vocab, ids).decode("utf-8")


def _joined(vocab: dict[int, bytes], ids: list[int]) -> bytes:
    # Bad input is a ValueError (the plug-in contract), so "both raised" agrees with the profiles' answer.
    unknown = [token_id for token_id in ids if token_id not in vocab]
    if unknown:
        raise ValueError(f"id {unknown[0]} is not in the vocabulary")
    return b"".join(vocab[token_id] for token_id in ids)


def _merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    merged: list[int] = []
    position = 0
    while position < len(ids):
        if position + 1 < len(ids) and (ids[position], ids[position + 1]) == pair:
            merged.append(new_id)
            position += 2
        else:
            merged.append(ids[position])
            position += 1
    return merged


class FirstSeenTokenizer(LargestPairTokenizer):
    """minbpe's loop: one joined text, max(stats, key=stats.get), no stop threshold, lossy decode."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        ids = list("".join(documents).encode("utf-8"))
        self.merges = []
        for index in range(max_merges):
            stats: dict[tuple[int, int], int] = {}
            for pair in pairwise(ids):
                stats[pair] = stats.get(pair, 0) + 1
            pair = max(stats, key=stats.__getitem__)
            ids = _merge(ids, pair, 256 + index)
            self.merges.append(pair)
        return list(self.merges)

    def decode(self, ids: list[int]) -> str:
        vocab = {value: bytes([value]) for value in range(256)}
        for index, (first, second) in enumerate(self.merges):
            vocab[256 + index] = vocab[first] + vocab[second]
        return _joined(vocab, ids).decode("utf-8", errors="replace")


class OverlappingMergeTokenizer(reference.Tokenizer):
    """Broken: replaces (a, a) in 'aaa' twice, so overlapping windows are all merged (BPE-MERGE-SCAN)."""

    name = "overlapping"

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        sequences = [list(document.encode("utf-8")) for document in documents]
        rules: list[tuple[int, int]] = []
        for rank in range(max_merges):
            counts = reference.count_pairs(sequences)
            pair = reference.select_pair(counts)
            if pair is None or counts[pair] < 2:
                break
            sequences = [_merge_overlapping(sequence, pair, 258 + rank) for sequence in sequences]
            rules.append(pair)
        return self._adopt(rules)


def _merge_overlapping(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    merged: list[int] = []
    for position, token in enumerate(ids):
        if position + 1 < len(ids) and (token, ids[position + 1]) == pair:
            merged.append(new_id)
        elif not (position > 0 and (ids[position - 1], token) == pair):
            merged.append(token)
    return merged


class RaisingTokenizer:
    """Every call raises, even with a BaseException the way a pyo3 panic does."""

    capabilities = ("train", "encode", "decode")

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        raise KeyboardInterruptLike("panicked")

    def encode(self, text: str) -> list[int]:
        raise RuntimeError("no model")

    def decode(self, ids: list[int]) -> str:
        raise KeyError(ids)


class KeyboardInterruptLike(BaseException):
    """Stands in for pyo3_runtime.PanicException, which derives from BaseException."""


@pytest.mark.parametrize("factory", [reference.Tokenizer, reference.LiteralTokenizer])
def test_the_reference_is_identified_as_strict(factory: type[reference.LiteralTokenizer]) -> None:
    report = identify(factory)
    assert report.matches == ["strict"]
    assert report.identified
    assert report.counterexample is None
    assert report.explained["strict"] == report.applicable["strict"] > 0
    assert report.capabilities == ("train", "load", "encode", "decode")


def test_the_strict_profile_model_is_identified_as_strict() -> None:
    assert identify(lambda: ProfileModel(STRICT)).matches == ["strict"]


@pytest.mark.parametrize("name", [name for name, profile in PROFILES.items() if profile.tie_break is not None])
def test_every_trainable_profile_model_is_identified_as_itself(name: str) -> None:
    report = identify(lambda: ProfileModel(PROFILES[name]))
    assert name in report.matches
    # Only bpeasy and rustbpe differ solely in how they decode a cut character; the rest are unique.
    assert report.matches == [name]


def test_tiktoken_and_bpeasy_encode_alike_so_an_encoder_matches_both() -> None:
    class Encoder(ProfileModel):
        capabilities = ("load", "encode", "decode")

    report = identify(lambda: Encoder(PROFILES["tiktoken"]))
    assert report.matches == ["bpeasy", "tiktoken"]


def test_a_largest_pair_tie_break_is_identified_as_subword_nmt_not_as_broken() -> None:
    report = identify(LargestPairTokenizer)
    assert report.matches == ["subword-nmt"]
    assert report.explained["strict"] != report.applicable["strict"]


def test_a_first_seen_tie_break_without_stop_threshold_is_identified_as_minbpe() -> None:
    assert identify(FirstSeenTokenizer).matches == ["minbpe"]


def test_a_broken_implementation_matches_no_profile_and_gets_a_counterexample() -> None:
    report = identify(OverlappingMergeTokenizer)
    assert report.matches == []
    assert not report.identified
    assert report.closest == "strict"
    example = report.counterexample
    assert example is not None
    assert example.probe == "run-of-one-byte"
    assert example.expected["strict"] == Outcome(True, [(97, 97)])
    assert example.observed.ok
    assert example.observed.value != [(97, 97)]
    text = format_report(report)
    assert "no profile explains every observation; closest: strict" in text
    assert "counterexample against strict: probe run-of-one-byte" in text


def test_exceptions_of_the_implementation_are_observations() -> None:
    report = identify(RaisingTokenizer)
    assert report.matches == []
    assert all(not observation.observed.ok for observation in report.observations)
    assert any(o.observed.error == "KeyboardInterruptLike: panicked" for o in report.observations)
    assert any(o.observed.error.startswith("KeyError: ") for o in report.observations)
    assert report.cannot_train


def test_a_factory_that_raises_is_reported_not_raised() -> None:
    def factory() -> NoReturn:
        raise OSError("library missing")

    report = identify(factory)
    assert report.matches == []
    assert report.observations == []
    assert report.counterexample is None
    assert report.capabilities == ()


def test_capture_lets_interrupts_through() -> None:
    def interrupted() -> NoReturn:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        capture(interrupted)


def test_outcomes_agree_on_values_or_on_raising() -> None:
    assert Outcome(True, [1]).agrees_with(Outcome(True, [1]))
    assert not Outcome(True, [1]).agrees_with(Outcome(True, [2]))
    assert Outcome(False, error="ValueError: x", family="ValueError").agrees_with(
        Outcome(False, error="ValueError: y", family="ValueError")
    )
    assert not Outcome(False, error="ValueError: x", family="ValueError").agrees_with(
        Outcome(False, error="KeyError: y", family="KeyError")
    )
    assert not Outcome(False, error="ValueError: x").agrees_with(Outcome(True, "x"))
    assert capture(lambda: [[97, 98]]) == Outcome(True, [(97, 98)])
    assert capture(lambda: int("x")).family == "ValueError"


def test_raising_the_wrong_family_is_no_agreement() -> None:
    """An implementation that raises KeyError where a profile rejects the input with ValueError disagrees."""

    class KeyErrorDecoder(LargestPairTokenizer):
        def decode(self, ids: list[int]) -> str:
            raise KeyError(ids)

    report = identify(KeyErrorDecoder)
    assert "subword-nmt" not in report.matches
    assert report.counterexample is not None
    assert report.counterexample.observed.family == "KeyError"


def test_rejecting_with_the_other_contract_family_agrees() -> None:
    """The preferred family (ValueError or TypeError) is a SHOULD: it never separates profiles."""
    assert Outcome(False, error="ValueError: x", family="ValueError").agrees_with(
        Outcome(False, error="TypeError: y", family="TypeError")
    )


def test_rejecting_outside_the_contract_is_an_interface_deviation_not_a_dialect() -> None:
    """KeyError for an unknown id leaves the contract (interface level), not the dialect: identified, and said."""

    class KeyErrorForUnknownIds(reference.Tokenizer):
        def decode(self, ids: list[int]) -> str:
            if any(not isinstance(token, int) or token > 257 + len(self.rules) for token in ids):
                raise KeyError(ids)
            return super().decode(ids)

    report = identify(KeyErrorForUnknownIds)
    assert report.matches[:1] == ["strict"]
    deviations = {observation.probe for observation in report.interface_deviations}
    assert "decode-unknown-id" in deviations
    assert all(observation.observed.family == "KeyError" for observation in report.interface_deviations)
    assert "interface deviation" in format_report(report)
    assert report.to_dict()["interface_deviations"]
    assert not identify(reference.Tokenizer).interface_deviations


def test_an_implementation_that_cannot_train_is_reported_so_not_as_encode_only() -> None:
    """Raising on every train is 'cannot train', never 'closest to tiktoken' (an encode-only profile)."""

    class CannotTrain(reference.Tokenizer):
        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            raise ValueError("training is not implemented")

    report = identify(CannotTrain)
    assert report.cannot_train
    assert report.to_dict()["cannot_train"]
    assert "tiktoken" not in report.matches
    assert report.closest != "tiktoken"
    assert "tiktoken" not in report.explained
    assert "cannot train" in format_report(report)
    assert not identify(reference.Tokenizer).cannot_train


def test_an_encode_only_implementation_is_still_judged_by_encode_only_profiles() -> None:
    class EncodeOnly(reference.Tokenizer):
        capabilities = ("load", "encode", "decode")

    report = identify(EncodeOnly)
    assert "tiktoken" in report.explained
    assert not report.cannot_train


def test_capabilities_are_declared_or_inferred() -> None:
    assert implementation_capabilities(RaisingTokenizer()) == {"train", "encode", "decode"}
    assert implementation_capabilities(reference.Tokenizer()) == {"train", "load", "encode", "decode"}


def test_load_probes_run_once_per_numbering_and_are_judged_in_their_own() -> None:
    report = identify(reference.Tokenizer)
    names = [observation.probe for observation in report.observations]
    assert "pair-rank-vs-piece-rank@256" in names
    assert "pair-rank-vs-piece-rank@258" in names
    at_256 = next(o for o in report.observations if o.probe == "pair-rank-vs-piece-rank@256")
    assert "strict" not in at_256.expected
    assert "minbpe" in at_256.expected
    assert renumbered([(97, 98), (258, 99)], 256) == [(97, 98), (256, 99)]


def test_every_probe_names_known_clauses_and_a_reason() -> None:
    known = {
        "BPE-TRAIN-TIE",
        "BPE-TRAIN-STOP",
        "BPE-TRAIN-MAXMERGES",
        "BPE-TRAIN-DOCS",
        "BPE-TRAIN-INPUT",
        "BPE-TRAIN-COUNT",
        "BPE-MERGE-SCAN",
        "BPE-RULE-ID",
        "BPE-TRAIN-RECOUNT",
        "BPE-ENCODE-ORDER",
        "BPE-ENCODE-LOWEST",
        "BPE-ENCODE-RAW",
        "BPE-INPUT-TEXT",
        "BPE-DECODE-STRICT",
        "BPE-DECODE-BYTES",
        "BPE-INPUT-IDS",
        "BPE-ALPHA-BOUNDARY",
    }
    assert len({probe.name for probe in PROBES}) == len(PROBES)
    for probe in PROBES:
        assert probe.clauses
        assert set(probe.clauses) <= known
        assert probe.why


def test_report_to_dict_is_json_ready() -> None:
    document = json.loads(json.dumps(identify(OverlappingMergeTokenizer).to_dict(), default=repr))
    assert document["matches"] == []
    assert document["closest"] == "strict"
    assert document["counterexample"]["probe"] == "run-of-one-byte"
    assert document["explained"]["strict"][0] < document["explained"]["strict"][1]


def test_cli_identifies_the_reference_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = _parser()
    target = tmp_path / "report.json"
    args = parser.parse_args(
        ["identify", "--impl", "bpe_conformance.reference:LiteralTokenizer", "--json", str(target)]
    )
    assert args.handler(args) == identify_command.EXIT_IDENTIFIED
    assert "identified as: strict" in capsys.readouterr().out
    assert json.loads(target.read_text(encoding="utf-8"))["matches"] == ["strict"]


def test_cli_exit_status_is_1_when_no_profile_fits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # This test module stands in for a user's module; importlib finds it in sys.modules.
    monkeypatch.setitem(sys.modules, "overlapping_impl", sys.modules[__name__])
    spec = "overlapping_impl:OverlappingMergeTokenizer"
    args = _parser().parse_args(["identify", "--impl", spec, "--isolation", "inprocess"])
    assert args.handler(args) == identify_command.EXIT_UNIDENTIFIED
    assert "counterexample against strict" in capsys.readouterr().out


@pytest.mark.parametrize(
    "spec",
    [
        "refrence",
        "bpe_conformance.reference:NoSuchThing",
        "no_such_module_xyz:Tokenizer",
        "bpe_conformance.reference:BEGIN_ID",
    ],
)
def test_cli_reports_an_implementation_it_cannot_load(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = _parser().parse_args(["identify", "--impl", spec])
    assert args.handler(args) == identify_command.EXIT_USAGE
    assert f"cannot load {spec!r}" in capsys.readouterr().err


def _parser() -> argparse.ArgumentParser:

    parser = argparse.ArgumentParser(prog="bpe-conformance")
    identify_command.register(parser.add_subparsers(dest="command"))
    return parser


def test_profile_applies_needs_its_numbering_and_a_trainer_for_train_probes() -> None:
    from bpe_conformance.dialects.identify import candidate_profiles, profile_applies
    from bpe_conformance.dialects.probes import error_family
    from bpe_conformance.reference.profiles import RUSTBPE, STRICT, TIKTOKEN

    train_probe = next(probe for probe in PROBES if probe.kind == "train")
    load_probe = next(probe for probe in PROBES if probe.kind == "load-encode")
    assert profile_applies(STRICT, train_probe, None)
    assert not profile_applies(TIKTOKEN, train_probe, None)
    assert profile_applies(TIKTOKEN, load_probe, 256)
    assert not profile_applies(TIKTOKEN, load_probe, 258)
    assert candidate_profiles([STRICT, TIKTOKEN], frozenset({"train"})) == [STRICT]
    assert candidate_profiles([STRICT, TIKTOKEN], frozenset({"encode"})) == [STRICT, TIKTOKEN]
    assert candidate_profiles([TIKTOKEN], frozenset({"train"})) == [TIKTOKEN]  # nothing else to judge by
    assert candidate_profiles([RUSTBPE], frozenset({"train", "encode"})) == [RUSTBPE]
    assert error_family(TypeError("x")) == "TypeError"
    assert error_family(RuntimeError("x")) == "RuntimeError"
