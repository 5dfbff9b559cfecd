"""The mutation gate (tools/mutation_gate.py) on fabricated statistics and survivor lists; no mutmut run.

The gate is what makes "the suite catches bugs" a checked claim rather than a hope: it must fail below
the threshold, fail on a survivor nobody explained, and refuse statistics it cannot read.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import sys
from typing import TYPE_CHECKING

import pytest

from tests import ROOT

if TYPE_CHECKING:
    from pathlib import Path

TOOL = ROOT / "tools" / "mutation_gate.py"
_spec = importlib.util.spec_from_file_location("mutation_gate", TOOL)
assert _spec is not None
assert _spec.loader is not None
gate = importlib.util.module_from_spec(_spec)
sys.modules["mutation_gate"] = gate
_spec.loader.exec_module(gate)

GOOD = {
    "killed": 950,
    "survived": 20,
    "total": 1000,
    "no_tests": 0,
    "skipped": 10,
    "suspicious": 0,
    "timeout": 15,
    "check_was_interrupted_by_user": 0,
    "segfault": 5,
}
SURVIVORS = "\n".join(f"    reference.x_f__mutmut_{number}: survived" for number in range(1, 4))
EXPLANATIONS = """# Mutation testing

## Equivalent mutants

- `reference.x_f__mutmut_1`: `<` and `<=` agree because the index never reaches the length
- `reference.x_f__mutmut_2`: ensure_ascii on a JSON text that is ASCII by construction
* `reference.x_f__mutmut_3`: the default equals the value passed by every caller
"""


def _write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def _stats(tmp_path: Path, **changes: object) -> Path:
    return _write(tmp_path, "stats.json", json.dumps({**GOOD, **changes}))


def _printing(tmp_path: Path, text: str) -> str:
    """A results command that prints ``text``, standing in for `mutmut results`."""
    script = _write(tmp_path, "results.py", f"print({text!r})")
    return shlex.join([sys.executable, str(script)])


# --- the score ---------------------------------------------------------------------------------


def test_score_is_detected_over_total_minus_skipped(tmp_path: Path) -> None:
    stats = gate.read_stats(_stats(tmp_path))
    assert stats.tested == 990
    assert stats.detected == 970
    assert gate.mutation_score(stats) == pytest.approx(100 * 970 / 990)


def test_timeouts_and_segfaults_count_as_killed_and_no_tests_do_not(tmp_path: Path) -> None:
    base = gate.read_stats(_stats(tmp_path, killed=900, timeout=0, segfault=0, survived=90))
    slow = gate.read_stats(_stats(tmp_path, killed=900, timeout=60, segfault=30, survived=0))
    untested = gate.read_stats(_stats(tmp_path, killed=900, timeout=0, segfault=0, survived=0, no_tests=90))
    assert gate.mutation_score(slow) == pytest.approx(100 * 990 / 990)
    assert gate.mutation_score(untested) == gate.mutation_score(base) == pytest.approx(100 * 900 / 990)


def test_summary_names_every_count(tmp_path: Path) -> None:
    text = gate.summary(gate.read_stats(_stats(tmp_path, no_tests=3, suspicious=2, killed=945)))
    assert "mutation score: 97.47%" in text
    for fragment in ("killed 945", "timeout 15", "segfault 5", "survived 20", "no tests 3", "suspicious 2", "skipped"):
        assert fragment in text


def test_unchecked_mutants_are_reported_and_lower_the_score(tmp_path: Path) -> None:
    stats = gate.read_stats(_stats(tmp_path, killed=900))
    assert stats.unaccounted == 50
    assert "50 mutants were not checked" in gate.summary(stats)
    assert gate.mutation_score(stats) == pytest.approx(100 * 920 / 990)


# --- the threshold -------------------------------------------------------------------------------


def test_passes_at_or_above_the_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(_stats(tmp_path))
    assert gate.main([path, "--min-score", "95"]) == 0
    assert "pass" in capsys.readouterr().out
    exactly = str(_stats(tmp_path, killed=930, survived=35, timeout=25, segfault=0))  # 955 of 990
    assert gate.main([exactly, "--min-score", f"{100 * 955 / 990}"]) == 0


def test_fails_below_the_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(_stats(tmp_path, killed=900, survived=70))  # 920 of 990 = 92.93%
    assert gate.main([path, "--min-score", "95"]) == 1
    assert "92.93% < 95%: FAIL" in capsys.readouterr().out


def test_without_a_threshold_it_only_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gate.main([str(_stats(tmp_path, killed=10, survived=960))]) == 0
    assert "mutation score" in capsys.readouterr().out


def test_a_threshold_outside_0_to_100_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gate.main([str(_stats(tmp_path)), "--min-score", "950"]) == 2
    assert "--min-score must be between 0 and 100" in capsys.readouterr().err


# --- unreadable statistics -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON (line 1"),
        ("[1, 2]", "must hold a JSON object of counts, not list"),
        (json.dumps({key: value for key, value in GOOD.items() if key != "killed"}), "'killed' is missing"),
        (json.dumps({**GOOD, "survived": "20"}), "'survived' must be a non-negative integer, got '20'"),
        (json.dumps({**GOOD, "timeout": -1}), "'timeout' must be a non-negative integer, got -1"),
        (json.dumps({**GOOD, "segfault": True}), "'segfault' must be a non-negative integer, got True"),
        (json.dumps({**GOOD, "total": 10}), "add up to more than the total 10"),
        (json.dumps({**{key: 0 for key in GOOD}}), "no mutant was tested"),
    ],
)
def test_malformed_statistics_are_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = _write(tmp_path, "stats.json", content)
    with pytest.raises(gate.GateError, match=message.replace("(", r"\(").replace("[", r"\[")):
        gate.read_stats(path)
    assert gate.main([str(path), "--min-score", "95"]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_statistics_file_says_how_to_make_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gate.main([str(tmp_path / "absent.json")]) == 2
    error = capsys.readouterr().err
    assert "absent.json: no such statistics file" in error
    assert "mutmut export-cicd-stats" in error


# --- survivors and their explanations ------------------------------------------------------------


def test_results_lines_are_parsed_and_other_lines_ignored() -> None:
    text = "\n".join(
        [
            "⠋ Generating mutants",
            "    bpe_conformance.reference.counting.x_count_pairs__mutmut_3: survived",
            "    bpe_conformance.reference.tokenizer.xǁTokenizerǁencode__mutmut_1: no tests",
            "    bpe_conformance.diagnosis.x__judge__mutmut_7: timeout",
            "    bpe_conformance.diagnosis.x__judge__mutmut_8: killed",
            "not a result line",
        ]
    )
    results = gate.parse_results(text)
    assert results == {
        "bpe_conformance.reference.counting.x_count_pairs__mutmut_3": "survived",
        "bpe_conformance.reference.tokenizer.xǁTokenizerǁencode__mutmut_1": "no tests",
        "bpe_conformance.diagnosis.x__judge__mutmut_7": "timeout",
        "bpe_conformance.diagnosis.x__judge__mutmut_8": "killed",
    }
    assert gate.not_killed(results) == {
        "bpe_conformance.reference.counting.x_count_pairs__mutmut_3": "survived",
        "bpe_conformance.reference.tokenizer.xǁTokenizerǁencode__mutmut_1": "no tests",
    }


def test_explanations_need_the_name_in_backticks_and_a_reason() -> None:
    explained = gate.explained_mutants(EXPLANATIONS + "- `reference.x_f__mutmut_9`:\n- reference.x_f__mutmut_8: bare\n")
    assert sorted(explained) == [f"reference.x_f__mutmut_{number}" for number in (1, 2, 3, 9)]
    survivors = {f"reference.x_f__mutmut_{number}": "survived" for number in (1, 2, 8, 9)}
    assert gate.unexplained(survivors, explained) == ["reference.x_f__mutmut_8", "reference.x_f__mutmut_9"]


def test_list_items_that_name_no_mutant_are_not_explanations() -> None:
    page = "- `tests/adapters/thirdparty/`: need optional libraries\n- `reference.x_f__mutmut_4`: same codec\n"
    assert gate.explained_mutants(page) == {"reference.x_f__mutmut_4": "same codec"}


def test_every_survivor_explained_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _write(tmp_path, "mutation.md", EXPLANATIONS)
    argv = [str(_stats(tmp_path)), "--min-score", "95", "--explained", str(doc)]
    assert gate.main([*argv, "--results-command", _printing(tmp_path, SURVIVORS)]) == 0
    assert "explained: 3 of 3 mutants not killed are listed" in capsys.readouterr().out


def test_an_unexplained_survivor_fails_the_gate_even_above_the_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _write(tmp_path, "mutation.md", EXPLANATIONS)
    survivors = (
        SURVIVORS
        + "\n    bpe_conformance.reference.alphabet.x_rule_id__mutmut_2: survived\n    reference.y__mutmut_1: no tests"
    )
    argv = [str(_stats(tmp_path)), "--min-score", "95", "--explained", str(doc)]
    assert gate.main([*argv, "--results-command", _printing(tmp_path, survivors)]) == 1
    out = capsys.readouterr().out
    assert "UNEXPLAINED bpe_conformance.reference.alphabet.x_rule_id__mutmut_2 (survived)" in out
    assert "UNEXPLAINED reference.y__mutmut_1 (no tests)" in out
    assert "explained: 3 of 5" in out


def test_stale_explanations_are_noted_but_do_not_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _write(tmp_path, "mutation.md", EXPLANATIONS)
    one_left = "    reference.x_f__mutmut_1: survived\n    reference.x_f__mutmut_2: killed"
    argv = [str(_stats(tmp_path)), "--explained", str(doc), "--results-command", _printing(tmp_path, one_left)]
    assert gate.main(argv) == 0
    out = capsys.readouterr().out
    assert "reference.x_f__mutmut_2 is listed" in out
    assert "reference.x_f__mutmut_3 is listed" in out


def test_a_failing_results_command_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _write(tmp_path, "mutation.md", EXPLANATIONS)
    failing = shlex.join([sys.executable, "-c", "import sys; sys.exit('no mutants directory')"])
    assert gate.main([str(_stats(tmp_path)), "--explained", str(doc), "--results-command", failing]) == 2
    assert "exited with 1: no mutants directory" in capsys.readouterr().err
    missing = str(tmp_path / "no-such-program")
    assert gate.main([str(_stats(tmp_path)), "--explained", str(doc), "--results-command", missing]) == 2
    assert "cannot run" in capsys.readouterr().err


def test_a_missing_explanations_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(_stats(tmp_path)), "--explained", str(tmp_path / "absent.md")]
    assert gate.main([*argv, "--results-command", _printing(tmp_path, SURVIVORS)]) == 2
    assert "absent.md: cannot read the explanations" in capsys.readouterr().err


# --- the time per module --------------------------------------------------------------------------------


def _meta(
    tmp_path: Path, relative: str, durations: dict[str, float], estimates: dict[str, float] | None = None
) -> None:
    path = tmp_path / "mutants" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"exit_code_by_key": {}, "durations_by_key": durations, "estimated_durations_by_key": estimates or {}}
    path.write_text(json.dumps(document), encoding="utf-8")


def test_times_are_summed_per_module_and_printed_slowest_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _meta(tmp_path, "pkg/reference/counting.py.meta", {"a": 1.0, "b": 2.5})
    _meta(tmp_path, "pkg/checks/training.py.meta", {"c": 10.0})
    _meta(tmp_path, "pkg/checks/untested.py.meta", {})
    times = gate.module_times(tmp_path / "mutants")
    assert [(time.module, time.mutants, time.seconds) for time in times] == [
        ("pkg.checks.training", 1, 10.0),
        ("pkg.reference.counting", 2, 3.5),
    ]
    assert gate.main([str(_stats(tmp_path)), "--times", str(tmp_path / "mutants")]) == 0
    table = capsys.readouterr().out.splitlines()
    rows = [line for line in table if line.startswith("| `")]
    assert rows[0].startswith("| `pkg.checks.training` | 1 | 10 |")
    assert len(rows) == 2


def test_under_the_fork_server_the_estimates_order_the_modules(tmp_path: Path) -> None:
    """mutmut's fork server records 0 s per mutant; the statistics run's estimates still rank the modules."""
    _meta(tmp_path, "pkg/a.py.meta", {"m1": 0.0, "m2": 0.0}, {"m1": 1.0, "m2": 2.0, "not-run": 50.0})
    _meta(tmp_path, "pkg/b.py.meta", {"m3": 0.0}, {"m3": 7.0})
    times = gate.module_times(tmp_path / "mutants")
    assert [(time.module, time.estimated) for time in times] == [("pkg.b", 7.0), ("pkg.a", 3.0)]


def test_the_fork_servers_logged_durations_are_the_seconds_measured(tmp_path: Path) -> None:
    """With ``log_to_file`` on, mutmut's fork server logs each mutant's real duration (its .meta files say 0);
    a mutant run again counts with its last run, and the rotated backups are read oldest first."""
    _meta(tmp_path, "pkg/a.py.meta", {"pkg.a.x_f__mutmut_1": 0.0, "pkg.a.x_f__mutmut_2": 0.0})
    _meta(tmp_path, "pkg/b.py.meta", {"pkg.b.x_g__mutmut_1": 0.0})
    line = "2026-12-03 13:24:53.067 [1612] mutmut.forkserver DEBUG: Completed {}: exit={} ({}s)"
    mutants = tmp_path / "mutants"
    (mutants / "mutmut-debug.log.2").write_text(line.format("pkg.a.x_f__mutmut_1", 1, "9.0") + "\n", encoding="utf-8")
    (mutants / "mutmut-debug.log.1").write_text(line.format("pkg.a.x_f__mutmut_1", 1, "1.5") + "\n", encoding="utf-8")
    current = [
        "2026-12-03 13:24:53.067 [1612] mutmut.forkserver DEBUG: Received mutant: pkg.a.x_f__mutmut_2 (3 tests)",
        line.format("pkg.a.x_f__mutmut_2", 0, "20.25"),
        line.format("pkg.b.x_g__mutmut_1", -9, "4"),
        line.format("pkg.c.x_not_in_any_meta__mutmut_1", 1, "99.0"),
    ]
    (mutants / "mutmut-debug.log").write_text("\n".join(current) + "\n", encoding="utf-8")
    times = gate.module_times(mutants)
    assert [(time.module, time.mutants, time.seconds) for time in times] == [("pkg.a", 2, 21.75), ("pkg.b", 1, 4.0)]


def test_times_of_a_folder_without_meta_files_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gate.main([str(_stats(tmp_path)), "--times", str(tmp_path)]) == 2
    assert "no mutmut .meta files" in capsys.readouterr().err


def test_the_script_runs_on_its_own(tmp_path: Path) -> None:
    import subprocess

    completed = subprocess.run(
        [sys.executable, str(TOOL), str(_stats(tmp_path, killed=900, survived=70)), "--min-score", "95"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 1
    assert "FAIL" in completed.stdout


def test_module_docstring_examples() -> None:
    import doctest

    outcome = doctest.testmod(gate)
    assert outcome.attempted > 0
    assert outcome.failed == 0


# --- the test selection mutmut runs ---------------------------------------------------------------------

_COLLECT_TWICE = """
import io, contextlib, json, sys, tomllib
import pytest

config = tomllib.load(open("pyproject.toml", "rb"))["tool"]["mutmut"]
arguments = ["-q", "--collect-only", *config["pytest_add_cli_args_test_selection"], *config["pytest_add_cli_args"]]


class Collected:
    def __init__(self):
        self.ids = []

    def pytest_collection_finish(self, session):
        self.ids = [item.nodeid for item in session.items]


def collect():
    collected = Collected()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = pytest.main(arguments, plugins=[collected])
    return int(code), collected.ids


first, second = collect(), collect()
print(json.dumps({"codes": [first[0], second[0]], "count": len(first[1]),
                  "changed": sorted(set(first[1]) ^ set(second[1]))}))
"""


def test_the_mutation_selection_keeps_its_node_ids_across_collections() -> None:
    """mutmut records node ids in one collection and selects them by name in forked runs after others.

    An id that changes between in-process collections (pytest escapes a non-ASCII explicit id again each
    time) cannot be selected; the run then fails with a usage error that mutmut counts as a kill.
    """
    import json
    import subprocess

    root = TOOL.parents[1]
    completed = subprocess.run(
        [sys.executable, "-c", _COLLECT_TWICE], cwd=root, capture_output=True, text=True, check=True, timeout=300
    )
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    assert outcome["codes"] == [0, 0]
    assert outcome["count"] > 500
    assert outcome["changed"] == []
