"""The production matrix (matrix --production DIR): rows run as run --vocabulary runs them, one document, escaped pages.

Offline: the rows are the broken ports of tests/support/broken_ports.py on a vocabulary trained in the test
and written as ``cl100k_base.tiktoken``; the real encoders are judged in ``tox -e production-matrix``.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.cli.main import main
from bpe_conformance.matrix.page import render_page
from bpe_conformance.matrix.production import (
    PRODUCTION_ROWS,
    ProductionRow,
    ProductionRowResult,
    run_production_matrix,
)
from bpe_conformance.matrix.production_render import PRODUCTION_HEADING, production_markdown
from bpe_conformance.matrix.record import content_problems, dumps_matrix, matrix_document, read_matrix, validate_matrix
from bpe_conformance.matrix.render import render_markdown
from bpe_conformance.reference.pretokenization import CL100K
from bpe_conformance.reference.vocabulary import tiktoken_text
from bpe_conformance.results.outcomes import CheckResult, Outcome, VocabularyRecord
from tests.matrix.fabricated import HOSTILE
from tests.support.vocabularies import trained_vocabulary

if TYPE_CHECKING:
    from pathlib import Path

PORTS = "tests.support.broken_ports"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("vocabularies")
    vocabulary = trained_vocabulary(merges=200, special_tokens=dict(CL100K.special_tokens))
    (path / "cl100k_base.tiktoken").write_text(tiktoken_text(vocabulary), encoding="utf-8")
    return path


ROWS = (
    ProductionRow("correct-port · cl100k_base", f"{PORTS}:CorrectPort", "cl100k_base"),
    ProductionRow("specials-honoured · cl100k_base", f"{PORTS}:SpecialsHonoured", "cl100k_base"),
    ProductionRow("absent · cl100k_base", "no_such_module:Encoder", "cl100k_base", "no_such_module", "impl-x"),
    ProductionRow("correct-port · o200k_base", f"{PORTS}:CorrectPort", "o200k_base"),
)


def test_every_row_is_judged_or_listed_with_its_reason(folder: Path) -> None:
    results, missing = run_production_matrix(folder, seed=0, rows=ROWS, say=lambda line: None)
    assert [result.row.label for result in results] == ["correct-port · cl100k_base", "specials-honoured · cl100k_base"]
    assert missing == [
        "absent · cl100k_base: skipped, no_such_module is not installed (pip install '.[impl-x]')",
        f"correct-port · o200k_base: skipped, o200k_base.tiktoken is not in {folder}",
    ]
    correct, honoured = results
    assert {item.outcome for item in correct.results} == {Outcome.PASS}
    encode = next(item for item in honoured.results if item.check == "production-encode")
    assert encode.outcome is Outcome.FAIL
    assert encode.clause == "BPE-SPECIAL-ORDINARY"

    document = matrix_document([], [], 0, "dev", (results, missing))
    assert validate_matrix(document) == []
    assert content_problems(document) == []
    rows = document["production"]["rows"]
    assert rows[0]["levels"] == {"algorithm": "conforms (4/4)", "interface": "conforms (1/1)"}
    cell = rows[1]["cells"]["production-encode"]
    assert cell["cell"] == "fail"
    assert cell["clause"] == "BPE-SPECIAL-ORDINARY"
    assert "<|" in cell["counterexample"]["inputs"]["text"]
    assert cell["reproduce"].startswith(f"bpe-conformance run --impl {PORTS}:SpecialsHonoured --vocabulary cl100k_base")
    markdown = "\n".join(production_markdown(document))
    assert "**fail** BPE-SPECIAL-ORDINARY: " in markdown
    assert "&#124;" in markdown


def _hostile_result() -> ProductionRowResult:
    failed = CheckResult(
        "production-encode",
        "BPE-PRETOK-SPLIT",
        ("BPE-PRETOK-SPLIT",),
        "",
        Outcome.FAIL,
        HOSTILE,
        3,
        0.1,
        counterexample={"inputs": {"text": HOSTILE}, "expected": [1], "actual": [2]},
    )
    return ProductionRowResult(
        ProductionRow(f"evil {HOSTILE}", f"pkg:C{HOSTILE}", "cl100k_base"),
        HOSTILE,
        f"1.0 | {HOSTILE} [x](http://e)",
        "cl100k",
        VocabularyRecord("cl100k", "/somewhere/cl100k_base.tiktoken", 3, (), "a" * 64),
        [failed],
    )


def test_implementation_strings_are_escaped_in_both_pages() -> None:
    document = matrix_document([], [], 0, "dev", ([_hostile_result()], []))
    assert validate_matrix(document) == []
    markdown = render_markdown(document)
    section = markdown.split(PRODUCTION_HEADING, 1)[1]
    for raw in ("</script>", "<b>", "[x](http://e)", "| <"):
        assert raw not in section
    assert "\udc80" not in markdown
    assert "&#92;udc80" in section
    page = render_page(document)
    production = page.split('<section class="production">', 1)[1]
    assert "<script>alert" not in production
    assert "&lt;/script&gt;" in production
    assert page.count("</script>") == 2  # the data and the page's own script; nothing a text could close


def test_a_crafted_document_cannot_choose_its_reproduce_command(tmp_path: Path) -> None:
    document = json.loads(dumps_matrix(matrix_document([], [], 0, "dev", ([_hostile_result()], []))))
    cell = document["production"]["rows"][0]["cells"]["production-encode"]
    cell["reproduce"] = "bpe-conformance run x; rm -rf ~"
    path = tmp_path / "m.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    shown = read_matrix(path)["production"]["rows"][0]["cells"]["production-encode"]["reproduce"]
    assert "rm -rf ~;" not in shown
    assert shown.startswith("bpe-conformance run --impl 'pkg:C")


def test_the_command_adds_the_production_table_to_a_document_and_keeps_it(tmp_path: Path) -> None:
    # An empty folder: no row runs (each is listed with its reason), so the test needs no library and no time.
    folder = tmp_path / "empty"
    folder.mkdir()
    source = tmp_path / "old.json"
    source.write_text(dumps_matrix(matrix_document([], [], 0, "dev")), encoding="utf-8")
    out = {name: tmp_path / f"m.{name}" for name in ("md", "html", "json")}
    options = ["--output", str(out["md"]), "--html", str(out["html"]), "--json", str(out["json"])]
    assert main(["matrix", "--from", str(source), "--production", str(folder), *options]) == 0
    document = read_matrix(out["json"])
    assert document["production"]["rows"] == []
    assert len(document["production"]["not_run"]) == len(PRODUCTION_ROWS)
    assert document["generated_by"]["command"].endswith("--production VOCABULARIES")
    assert PRODUCTION_HEADING in out["md"].read_text(encoding="utf-8")
    # Rendered again without --production, the document's production matrix is kept as it was.
    again = tmp_path / "again.json"
    # (every file named: in a checkout, an option left out means the checkout's docs/matrix.* file)
    assert main(["matrix", "--from", str(out["json"]), *options[:4], "--json", str(again)]) == 0
    assert read_matrix(again)["production"] == document["production"]


def test_a_missing_folder_exits_2_before_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "old.json"
    source.write_text(dumps_matrix(matrix_document([], [], 0, "dev")), encoding="utf-8")
    named = [f"--{option}={tmp_path / option}" for option in ("output", "html", "json")]
    code = main(["matrix", "--from", str(source), *named, "--production", "/no/such"])
    assert code == 2
    assert "--production /no/such: not a directory" in capsys.readouterr().err


def test_a_cmd_row_is_given_the_vocabulary_over_the_protocol_and_judged_like_any_other(folder: Path) -> None:
    # The correct port, not the literal reference encoder: the subject is the vocabulary's way over the protocol,
    # and the port's heap merge judges the same in a fraction of the literal encoder's time.
    host = f"cmd:{sys.executable} -m bpe_conformance.adapters.host"
    row = ProductionRow("cmd · cl100k_base", f"{host} {PORTS}:CorrectPort", "cl100k_base")
    results, missing = run_production_matrix(folder, seed=0, rows=[row], say=lambda line: None)
    assert missing == []
    (result,) = results
    algorithm = [item.outcome for item in result.results if item.level == "algorithm"]
    assert Outcome.PASS in algorithm
    # The vocabulary arrived intact: nothing deviates (a loaded machine may still time a long run out).
    assert Outcome.FAIL not in algorithm


def test_an_npm_row_without_its_package_is_listed_with_the_command_that_installs_it(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bpe_conformance.matrix.production.npm_installed", lambda package: False)
    npm_rows = [row for row in PRODUCTION_ROWS if row.spec.startswith("cmd:node ")]
    assert {row.vocabulary for row in npm_rows} == {"cl100k_base", "o200k_base"}
    results, missing = run_production_matrix(folder, seed=0, rows=npm_rows, say=lambda line: None)
    assert results == []
    assert len(missing) == len(npm_rows)
    assert all("npm ci --prefix" in line for line in missing)
