"""Checks judged under the implementation's declared profile (or ``run --profile``'s).

A dialect that follows its declared profile passes the whole suite; the same code declaring
``strict`` fails the clause it relaxes; a real bug fails under every profile.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.cli.main import main
from bpe_conformance.diagnosis import first_divergence, judge_rounds, replace_overlapping
from bpe_conformance.dialects.context import with_profile
from bpe_conformance.dialects.probes import ProfileModel
from bpe_conformance.inputs.large_counts import SHAPES, LargeCountCorpus
from bpe_conformance.reference.dialects import (
    check_profile_rules,
    decode_profile,
    encode_profile,
    profile_pieces,
    select_profile_pair,
    training_sequences,
)
from bpe_conformance.reference.profiles import LARGEST_PAIR, MINBPE, PROFILES, Profile, get_profile
from bpe_conformance.reference.replacement import replace_pair
from bpe_conformance.results.outcomes import Outcome, SuiteResult
from bpe_conformance.running.suite import RunConfig, catalogue, run_suite, select
from tests.checks.helpers import CHECKS, violation_of

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path


class _Dialect:
    """The literal reference under one profile, declaring a profile by name (maybe another one)."""

    profile_object: Profile = LARGEST_PAIR
    declared = "largest-pair"
    capabilities = frozenset({"train", "load", "encode", "decode"})

    def __init__(self) -> None:
        self._model = ProfileModel(self.profile_object)
        self.name = f"dialect-{self.declared}"
        self.profile = self.declared  # what the harness reads: the declared profile's name

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return self._model.train(documents, max_merges)

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return self._model.load(rules)

    def encode(self, text: str) -> list[int]:
        return self._model.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self._model.decode(ids)


class LargestPairTie(_Dialect):
    pass


class LargestPairDeclaringStrict(_Dialect):
    declared = "strict"


class MinbpeStyle(_Dialect):
    profile_object = MINBPE
    declared = "minbpe"


def _profile_training(
    documents: list[str],
    max_merges: int,
    profile: Profile,
    replace: Callable[[list[int], tuple[int, int], int], list[int]] = replace_pair,
    counter_width: int | None = None,
) -> list[tuple[int, int]]:
    """The profile's training (its tie rule included), with ``replace`` for the replacement step and, when
    ``counter_width`` is given, each pair's count kept modulo that width (a narrow counter that wraps)."""
    sequences = training_sequences(documents, profile)
    rules: list[tuple[int, int]] = []
    pieces = profile_pieces(rules, profile)
    for rank in range(max_merges):
        counts: dict[tuple[int, int], int] = {}
        for sequence in sequences:
            for pair in itertools.pairwise(sequence):
                counts[pair] = counts.get(pair, 0) + 1
        if counter_width is not None:
            counts = {pair: count % counter_width for pair, count in counts.items()}
        if not counts or max(counts.values()) < profile.min_count:
            break
        chosen = select_profile_pair(counts, pieces, profile)
        assert chosen is not None  # some pair is counted min_count times
        rules.append(chosen)
        pieces.append(pieces[chosen[0]] + pieces[chosen[1]])
        sequences = [replace(sequence, chosen, profile.first_rule_id + rank) for sequence in sequences]
    return rules


def _train_overlapping(documents: list[str], max_merges: int, profile: Profile) -> list[tuple[int, int]]:
    """The profile's training (its tie rule included), except that every overlapping occurrence is replaced."""
    return _profile_training(documents, max_merges, profile, replace_overlapping)


def overlapping_under(name: str) -> type:
    """A trainer of profile ``name`` with overlapping replacement, declaring that profile: one bug."""
    profile = get_profile(name)

    class OverlappingReplacement:
        capabilities = frozenset({"train", "load", "encode", "decode"})

        def __init__(self) -> None:
            self.name, self.profile = "overlapping", name
            self.rules: list[tuple[int, int]] = []

        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            self.rules = _train_overlapping(documents, max_merges, profile)
            return list(self.rules)

        def load(self, rules: list[tuple[int, int]]) -> None:
            self.rules = check_profile_rules(rules, profile)

        def encode(self, text: str) -> list[int]:
            return encode_profile(text, self.rules, profile)

        def decode(self, ids: list[int]) -> str:
            return decode_profile(ids, self.rules, profile)

    return OverlappingReplacement


def run_all(implementation: type, patterns: Sequence[str] = (), profile: str | None = None) -> SuiteResult:
    subject = InProcessSubject(implementation)
    checks = select(list(patterns)) if patterns else catalogue()
    return run_suite(RunConfig(seed=0, profile=profile, patterns=tuple(patterns)), subject, checks)


def outcomes(run: SuiteResult) -> dict[str, Outcome]:
    return {result.check: result.outcome for result in run.results}


# One test per check rather than one per suite run: the property is the same, and a failure names the
# check (mutmut, which runs a mutant against the tests that reach its function, runs one check, not 34).
_LARGEST_PAIR_SKIPS = {"boundary-ids": "boundary_ids=False", "pre-tokenization-split": "split=None"}
_MINBPE_SKIPS = {"no-cross-document-pairs": "documents=concatenated", "document-order": "documents=concatenated"}


def _passes_or_skips(implementation: type, check_name: str, skips: dict[str, str]) -> None:
    (result,) = run_all(implementation, [check_name]).results
    if check_name in skips:
        # Only clauses the profile's parameters make inapplicable are skipped, each naming the parameter.
        assert result.outcome is Outcome.SKIP, (result.outcome, result.message)
        assert skips[check_name] in result.message
    else:
        assert result.outcome is Outcome.PASS, (result.outcome, result.message)


@pytest.mark.parametrize("check_name", [check.name for check in catalogue()])
def test_a_largest_pair_dialect_declaring_its_profile_passes_every_check(check_name: str) -> None:
    _passes_or_skips(LargestPairTie, check_name, _LARGEST_PAIR_SKIPS)


def test_the_run_records_the_declared_profile() -> None:
    assert run_all(LargestPairTie, ["vocab-size"]).implementation.profile == "largest-pair"


def test_the_same_dialect_declaring_strict_fails_the_tie_break() -> None:
    (result,) = run_all(LargestPairDeclaringStrict, ["tie-break"]).results
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-TRAIN-TIE")
    assert result.counterexample is not None
    assert result.counterexample["divergence"]["diagnosis"] == "tie broken the other way"


def test_run_profile_overrides_the_declared_profile() -> None:
    (strict,) = run_all(LargestPairTie, ["tie-break"], profile="strict").results
    assert (strict.outcome, strict.clause) == (Outcome.FAIL, "BPE-TRAIN-TIE")
    (own,) = run_all(LargestPairDeclaringStrict, ["tie-break"], profile="largest-pair").results
    assert own.outcome is Outcome.PASS


@pytest.mark.parametrize("check_name", [check.name for check in catalogue()])
def test_a_minbpe_style_implementation_declaring_minbpe_passes_every_check(check_name: str) -> None:
    """Skips are allowed beyond the two named here only where minbpe's parameters make a check inapplicable."""
    (result,) = run_all(MinbpeStyle, [check_name]).results
    assert result.outcome in (Outcome.PASS, Outcome.SKIP), (result.outcome, result.message)
    if check_name in _MINBPE_SKIPS:
        assert result.outcome is Outcome.SKIP
        assert _MINBPE_SKIPS[check_name] in result.message


@pytest.mark.parametrize("profile", ["strict", "largest-pair", "minbpe", "hf-tokenizers", "rustbpe"])
def test_overlapping_replacement_fails_merge_scan_under_any_profile(profile: str) -> None:
    (result,) = run_all(overlapping_under(profile), ["merge-scan"]).results
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-MERGE-SCAN"), result.message


def test_rounds_are_judged_by_the_profile_tie_break_minimum_and_numbering() -> None:
    documents = ["abab", "acac"]
    assert first_divergence(documents, 32, [(97, 99), (97, 98)], LARGEST_PAIR) is None
    divergence = first_divergence(documents, 32, [(97, 98), (97, 99)], LARGEST_PAIR)
    assert divergence is not None
    assert divergence["clause"] == "BPE-TRAIN-TIE"
    # minbpe merges pairs seen once and counts across documents: strict calls both wrong.
    documents, joined = ["a", "b", "a", "b"], [(97, 98), (256, 256)]
    assert first_divergence(documents, 2, joined, MINBPE) is None
    assert next(j.kind.description for j in judge_rounds(documents, 2, joined)) == "merged a pair that does not occur"


def test_with_profile_checks_the_name() -> None:
    subject = InProcessSubject(LargestPairTie)
    assert with_profile(subject, None) is subject
    assert with_profile(subject, "minbpe").info.profile == "minbpe"
    with pytest.raises(ValueError, match="choose one of: strict"):
        with_profile(subject, "gpt-5")


def test_cli_rejects_an_unknown_profile_with_the_known_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--profile", "gpt-5", "--check", "tie-break"]) == 2
    error = capsys.readouterr().err
    assert "unknown profile 'gpt-5'" in error
    assert ", ".join(PROFILES) in error


def test_cli_records_the_profile_in_the_header_and_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    code = main(
        ["run", "--check", "tie-break", "--profile", "largest-pair", "--isolation", "inprocess", "--json", str(report)]
    )
    assert code == 1  # the strict reference breaks ties the other way
    assert "profile largest-pair" in capsys.readouterr().out
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["implementation"]["profile"] == "largest-pair"
    assert document["results"][0]["clause"] == "BPE-TRAIN-TIE"


class MinbpeCountingInEightBits(MinbpeStyle):
    """minbpe's training with pair counts kept in 8 bits: a pair seen 256 times reads as seen 0 times."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return self._model.load(_profile_training(documents, max_merges, MINBPE, counter_width=256))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("implementation", [MinbpeStyle, LargestPairTie])
def test_a_dialect_passes_large_counts_with_a_pair_seen_256_times(implementation: type, shape: str) -> None:
    """BPE-TRAIN-COUNT under the declared profile: the rules expected are the profile's own (minbpe numbers a
    run's second rule 256, strict 258). One fixed corpus per shape, where the whole-check tests above (65 536
    repeats at most) are left out of the mutation run."""
    example = {"corpus": LargeCountCorpus(shape, 256, 3), "max_merges": 2}
    CHECKS["large-counts"].verify(InProcessSubject(implementation), example)


def test_a_dialect_counting_in_8_bits_is_convicted_against_its_own_profiles_rules() -> None:
    """BPE-TRAIN-COUNT: 'a' * 257 makes (97, 97) 256 times, which an 8-bit counter reads as 0, so minbpe's
    first rule is lost; with the pair seen 255 times it trains right. The violation gives minbpe's rules as
    expected and names the first round that differs."""
    example = {"corpus": LargeCountCorpus("run", 256, 3), "max_merges": 2}
    violation = violation_of("large-counts", MinbpeCountingInEightBits, example)
    assert (violation.clause, violation.expected) == ("BPE-TRAIN-COUNT", [[97, 97], [256, 256]])
    assert violation.actual == [[120, 121], [256, 256]]
    assert (violation.inputs["largest_count"], violation.inputs["right_with_count"]) == (256, 255)
    named = re.search(r"\bround (\w+)", violation.message)
    assert named is not None
    assert named[1] == "0"
