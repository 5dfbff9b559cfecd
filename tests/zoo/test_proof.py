"""The harness against the bug zoo: every member rejected under its own clause, every control accepted.

The default run gives each member the quick proof (the checks that may report one of its clauses,
those of its own clause first, until one fails under its own clause) and each control every check. The slow
test gives every member every check, as ``tox -e zoo`` and ``bpe-conformance zoo check`` do. Both run
in the gallery's configuration (``dev`` effort, seed 0) whatever the active profile, so the gallery
test can compare the committed page with one rendered from the very same proofs.
"""

from __future__ import annotations

import functools
from typing import Any

import hypothesis
import pytest

from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.cli.commands import zoo as zoo_command
from bpe_conformance.cli.main import main
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.teaching.gallery import (
    GALLERY_PATH,
    docstring_parts,
    gallery_is_current,
    github_slug,
    render_gallery,
    spec_link,
)
from bpe_conformance.zoo import CONTROLS, ZOO, by_name
from bpe_conformance.zoo.proof import (
    Proof,
    as_record,
    claimed_clauses,
    failures,
    full_proof,
    headline,
    matching_failure,
    own_clause_failure,
    own_clause_line,
    prove_all,
    proven,
    quick_proof,
    relevant_checks,
    reported_clauses,
    tally,
    verdict,
)


def _name(implementation: Any) -> str:
    return str(implementation.name)


@functools.cache
def _quick(name: str) -> Proof:
    return quick_proof(by_name(name))


# Every test that reads the quick proofs (_quick, _all_quick_proofs) runs on one pytest-xdist worker: the
# gallery's tests need every one of them, which on two workers would be made twice.
QUICK_PROOFS = pytest.mark.xdist_group("zoo-quick-proofs")


def _assert_rejected_with_a_claimed_clause(proof: Proof) -> None:
    """Rejected under the member's own clause: a failure under one of its ``also`` clauses proves nothing."""
    match = matching_failure(proof)
    assert match is not None, f"{proof.name}: {verdict(proof)}; claims {proof.claimed}"
    assert match.clause == claimed_clauses(by_name(proof.name))[0], (
        f"{proof.name}: {verdict(proof)}; claims {proof.claimed}"
    )
    assert match is own_clause_failure(proof)
    example = match.counterexample
    assert example is not None, example
    assert {"inputs", "expected", "actual"} <= set(example), example
    assert isinstance(example["inputs"], dict), example
    assert example["inputs"], example
    # "expected" may be an empty rule list (the spec makes none); it is present and differs from "actual".
    assert example["expected"] is not None, example
    assert example["actual"] is not None, example
    assert example["expected"] != example["actual"], example


# ---- the proof ------------------------------------------------------------------------------------


@QUICK_PROOFS
@pytest.mark.parametrize("member", ZOO, ids=_name)
def test_harness_rejects_member_with_a_clause_it_breaks(member: Any) -> None:
    """Every member fails a check under its own clause (the clause of its bug), with a counterexample."""
    proof = _quick(member.name)
    _assert_rejected_with_a_claimed_clause(proof)
    assert proof.results[-1] is matching_failure(proof), "the quick proof stops at its first match"


@QUICK_PROOFS
@pytest.mark.parametrize("member", ZOO, ids=_name)
def test_harness_rejects_member_at_the_level_of_its_bug(member: Any) -> None:
    """An input-handling bug is rejected at interface level, a wrong answer to valid input at algorithm level."""
    match = matching_failure(_quick(member.name))
    assert match is not None, (member.name, match and match.check)
    assert match.level == member.level, (member.name, match and match.check)


@QUICK_PROOFS
@pytest.mark.parametrize("control", CONTROLS, ids=_name)
def test_harness_accepts_control_with_every_check(control: Any) -> None:
    """Zero false positives: every check of the suite passes on every control."""
    proof = _quick(control.name)
    assert [result.check for result in proof.results] == [check.name for check in ALL_CHECKS]
    assert [(result.check, result.outcome.value, result.message) for result in failures(proof)] == []
    assert proven(proof)
    assert proof.complete


@pytest.mark.slow
@pytest.mark.parametrize("member", ZOO, ids=_name)
def test_full_suite_rejects_member_with_a_clause_it_breaks(member: Any) -> None:
    """The real proof: every check runs on the member, in suite order, as ``bpe-conformance run`` would."""
    proof = full_proof(member)
    assert proof.complete
    assert len(proof.results) == len(ALL_CHECKS)
    _assert_rejected_with_a_claimed_clause(proof)


# ---- the gallery ----------------------------------------------------------------------------------


def _all_quick_proofs() -> list[Proof]:
    return [_quick(implementation.name) for implementation in [*ZOO, *CONTROLS]]


@QUICK_PROOFS
def test_committed_gallery_is_what_the_generator_writes() -> None:
    """docs/bug-zoo.md is what ``bpe-conformance zoo gallery`` writes: byte for byte under the hypothesis version
    named in its header (generating twice gives the same bytes), all but the counterexamples under another."""
    committed, rendered = GALLERY_PATH.read_text(encoding="utf-8"), render_gallery(_all_quick_proofs())
    assert gallery_is_current(committed, rendered), "run `bpe-conformance zoo gallery` and review the diff"
    if f"with hypothesis {hypothesis.__version__};" in committed:
        assert committed == rendered


@QUICK_PROOFS
def test_gallery_comparison_tolerates_only_another_hypothesis_shrinking_differently() -> None:
    page = render_gallery(_all_quick_proofs())
    block = page.index("```text\n") + len("```text\n")
    other_example = page[:block] + "inputs:   {}\n" + page[block:]
    assert gallery_is_current(page, page)
    assert not gallery_is_current(page, other_example)
    other_version = page.replace(f"with hypothesis {hypothesis.__version__};", "with hypothesis 0.0.0;")
    assert other_version != page
    assert gallery_is_current(other_version, other_example)
    assert not gallery_is_current(other_version, other_example.replace("**Why it is a bug.**", "**Why?**", 1))


@QUICK_PROOFS
def test_gallery_has_every_member_and_control_once_with_its_clause_link() -> None:
    text = GALLERY_PATH.read_text(encoding="utf-8")
    for implementation in [*ZOO, *CONTROLS]:
        assert text.count(f"\n### `{implementation.name}`\n") == 1, implementation.name
        assert f"(#{github_slug(implementation.name)})" in text
    for member in ZOO:
        assert spec_link(member.clause) in text
    counts = tally(_all_quick_proofs())
    assert headline(counts) in text


def test_spec_links_point_at_real_headings() -> None:
    headings = {
        github_slug(line.lstrip("#"))
        for line in (GALLERY_PATH.parents[1] / "specs" / "bpe.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("### BPE-")
    }
    for member in ZOO:
        for clause in claimed_clauses(member):
            anchor = spec_link(clause).split("#", 1)[1].rstrip(")")
            assert anchor in headings, (clause, anchor)


def test_docstring_parts_split_summary_breaks_and_wild() -> None:
    summary, breaks, wild = docstring_parts(by_name("concatenates-documents"))
    assert summary == "Concatenates the documents into one stream before counting."
    assert breaks.startswith("Breaks BPE-TRAIN-DOCS:")
    assert "Seen in the wild" not in breaks
    assert wild.startswith("minbpe and tiktoken's")
    assert docstring_parts(by_name("zoo-base"))[1:] == ("", "")


# ---- the summaries, on made-up proofs --------------------------------------------------------------


def _result(check: str, clause: str, outcome: Outcome) -> CheckResult:
    counterexample = {"inputs": {"text": "a"}, "expected": [97], "actual": [98]} if outcome is Outcome.FAIL else None
    return CheckResult(check, clause, (clause,), "", outcome, "", 3, 0.0, counterexample)


def _proof(name: str, claimed: tuple[str, ...], *results: CheckResult) -> Proof:
    return Proof(name, "corpus" if claimed else "controls", claimed, results, True, "dev", 0)


def test_verdicts_and_tally_of_each_kind_of_proof() -> None:
    caught = _proof(
        "m1",
        ("BPE-TRAIN-DOCS",),
        _result("stop-rule", "BPE-TRAIN-STOP", Outcome.FAIL),
        _result("no-cross-document-pairs", "BPE-TRAIN-DOCS", Outcome.FAIL),
    )
    symptom = _proof("m2", ("BPE-TRAIN-DOCS",), _result("stop-rule", "BPE-TRAIN-STOP", Outcome.FAIL))
    missed = _proof("m3", ("BPE-TRAIN-DOCS",), _result("stop-rule", "BPE-TRAIN-STOP", Outcome.PASS))
    accepted = _proof("c1", (), _result("stop-rule", "BPE-TRAIN-STOP", Outcome.PASS))
    flagged = _proof("c2", (), _result("stop-rule", "BPE-TRAIN-STOP", Outcome.ERROR))
    assert verdict(caught) == "rejected with BPE-TRAIN-DOCS by no-cross-document-pairs"
    assert matching_failure(caught) is caught.results[1]
    assert reported_clauses(caught) == ["BPE-TRAIN-STOP", "BPE-TRAIN-DOCS"]
    assert verdict(symptom) == "rejected only under other clauses: BPE-TRAIN-STOP (stop-rule)"
    assert verdict(missed) == "NOT REJECTED: 1 checks passed"
    assert verdict(accepted) == "accepted: 1 checks passed"
    assert verdict(flagged) == "FALSE POSITIVE: stop-rule error"
    assert [proof.name for proof in (caught, symptom, missed, accepted, flagged) if proven(proof)] == ["m1", "c1"]
    counts = tally([caught, symptom, missed, accepted, flagged])
    assert (counts.members_rejected, counts.members, counts.controls_accepted, counts.controls) == (1, 3, 1, 2)
    assert counts.unproven == ("m2", "m3", "c2")
    assert (counts.members_own_clause, counts.other_clause) == (1, ("m2", "m3"))
    assert own_clause_failure(caught) is caught.results[1]
    assert own_clause_failure(accepted) is None
    also = _proof("m4", ("BPE-TRAIN-DOCS", "BPE-TRAIN-STOP"), _result("stop-rule", "BPE-TRAIN-STOP", Outcome.FAIL))
    assert not proven(also)  # an also clause is shown, but only the member's own clause proves it
    assert matching_failure(also) is also.results[0]
    assert verdict(also) == "rejected only under other clauses: BPE-TRAIN-STOP (stop-rule)"
    assert own_clause_failure(also) is None
    assert tally([also]).other_clause == ("m4",)
    assert as_record(also)["own_clause"] is False
    assert own_clause_line(tally([caught, also])).startswith("rejected 1/2 members under their own clause")


@pytest.mark.parametrize("member", [by_name("strips-documents"), by_name("ties-by-string-key")], ids=_name)
def test_relevant_checks_put_the_members_own_clause_first(member: Any) -> None:
    claimed = claimed_clauses(member)
    chosen = relevant_checks(member)
    assert {check.name for check in chosen} == {check.name for check in ALL_CHECKS if set(check.clauses) & set(claimed)}
    ranks = [0 if check.clause == member.clause else 1 if check.clause in claimed else 2 for check in chosen]
    assert ranks == sorted(ranks)
    assert ranks[0] == 0
    suite_order = [check.name for check in ALL_CHECKS]
    for rank in set(ranks):
        names = [check.name for check, its_rank in zip(chosen, ranks, strict=True) if its_rank == rank]
        assert names == sorted(names, key=suite_order.index)
    assert relevant_checks(by_name("zoo-base")) == list(ALL_CHECKS)


@QUICK_PROOFS
def test_prove_all_gives_the_same_proofs_in_worker_processes() -> None:
    cheap = [by_name("accepts-bool-max-merges"), by_name("load-coerces-ids")]
    in_workers, here = prove_all(cheap, jobs=2), prove_all(cheap)
    assert [as_record(proof) for proof in in_workers] == [as_record(proof) for proof in here]
    assert [as_record(proof) for proof in here] == [as_record(_quick(member.name)) for member in cheap]
    with pytest.raises(ValueError, match="jobs must be a positive int"):
        prove_all(cheap, jobs=0)


# ---- the command ---------------------------------------------------------------------------------


def test_zoo_check_exits_0_when_every_chosen_member_is_caught(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["zoo", "check", "--quick", "--only", "stops-at-two", "--only", "accepts-bool-ids"])
    output = capsys.readouterr().out
    assert code == 0, output
    assert "rejected 2/2 members under their own clause, accepted 0/0 controls" in output
    assert "ok   stops-at-two" in output


def test_zoo_check_exits_1_when_a_proof_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    flagged = _proof("c2", (), _result("stop-rule", "BPE-TRAIN-STOP", Outcome.FAIL))
    monkeypatch.setattr(zoo_command, "prove_all", lambda implementations, **options: [flagged])
    assert main(["zoo", "check", "--only", "zoo-base"]) == 1
    output = capsys.readouterr().out
    assert "accepted 0/1 controls" in output
    assert "not proven: c2" in output


def test_zoo_command_rejects_unknown_names_and_bad_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["zoo", "check", "--only", "no-such-member"]) == 2
    assert main(["zoo", "check", "--jobs", "0"]) == 2
    assert "no zoo member or control is named 'no-such-member'" in capsys.readouterr().err


@QUICK_PROOFS
def test_zoo_gallery_writes_the_page_and_check_detects_staleness(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(zoo_command, "prove_all", lambda implementations, **options: _all_quick_proofs())
    output = tmp_path / "docs" / "bug-zoo.md"
    output.parent.mkdir()  # the directory is the user's to make: the command creates none (issue 28)
    assert main(["zoo", "gallery", "--output", str(output)]) == 0
    assert output.read_text(encoding="utf-8") == render_gallery(_all_quick_proofs())
    assert main(["zoo", "gallery", "--check", "--output", str(output)]) == 0
    output.write_text("stale\n", encoding="utf-8")
    assert main(["zoo", "gallery", "--check", "--output", str(output)]) == 1
    assert "is not current" in capsys.readouterr().out
