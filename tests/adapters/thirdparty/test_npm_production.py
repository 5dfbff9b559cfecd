"""The npm encoders in production configuration (specs/protocol.md 3.4; docs/findings-production.md P21-P24).

Skipped unless ``npm ci`` has installed them beside the adapters. Each finding is reproduced here by hand,
a few lines of node on the library alone (no harness, no protocol), with the ranks the library ships. The
harness's verdicts on the real files run under ``tox -e production-npm`` (``BPE_REAL_VOCABULARIES``).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from bpe_conformance.adapters import load_implementation
from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.adapters.thirdparty import NPM_DIRECTORY, NPM_PRODUCTION_ADAPTERS, npm_installed
from bpe_conformance.checks.production import PRODUCTION_CHECKS
from bpe_conformance.cli import main as cli
from bpe_conformance.dialects.production import ProductionSetup, bind_vocabulary
from bpe_conformance.reference.pretokenization import CL100K
from bpe_conformance.reference.vocabulary import tiktoken_text
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.settings import EFFORTS
from tests.support.production_subjects import VOCABULARY

MISSING = [package for _, package, _ in NPM_PRODUCTION_ADAPTERS.values() if not npm_installed(package)]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"{', '.join(MISSING)} not installed (npm ci in {NPM_DIRECTORY}, or tox -e production-npm)"
)
CHECKS = {check.name: check for check in PRODUCTION_CHECKS}
LOADING = "cmd:node conformance/adapters/thirdparty/npm/js_tiktoken_production.mjs --load cl100k"


def node(script: str) -> object:
    """What a module script prints as JSON on its last line, run by node beside the npm adapters (no harness)."""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=NPM_DIRECTORY,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _spec(label: str, encoding: str) -> str:
    return f"{NPM_PRODUCTION_ADAPTERS[label][0]} {encoding}"


@pytest.mark.parametrize("label", sorted(NPM_PRODUCTION_ADAPTERS))
def test_each_adapter_names_its_built_in_vocabulary_and_profile(label: str) -> None:
    for encoding, profile in (("cl100k_base", "cl100k"), ("o200k_base", "o200k")):
        subject = load_implementation(_spec(label, encoding))
        try:
            assert isinstance(subject, ProcessSubject)
            assert subject.vocabulary_support.built_in == encoding
            assert not subject.vocabulary_support.loads
            assert subject.info.profile == profile
            assert subject.info.language == "javascript"
        finally:
            subject.close()


def test_an_unknown_encoding_is_one_line_and_exit_2() -> None:
    argv = shlex.split(_spec("gpt-tokenizer", "p99k_base").removeprefix("cmd:"))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "usage:" in done.stderr


def test_a_js_encoder_loading_the_vocabulary_over_the_protocol_passes_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """js-tiktoken given a small vocabulary by load_vocabulary: cl100k's split, exact ids, with the chunks."""
    rank_file = tmp_path / "small.tiktoken"
    rank_file.write_text(tiktoken_text(VOCABULARY))
    argv = ["run", "--impl", LOADING, "--vocabulary", str(rank_file), "--json", str(tmp_path / "r.json")]
    assert cli.main([*argv, "--check", "production-encode", "--check", "production-roundtrip"]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["config"]["isolation"] == "process"
    assert report["config"]["vocabulary"]["size"] == VOCABULARY.size
    assert "PASSED" in capsys.readouterr().out


# -- P21: js-tiktoken's merge loop is quadratic in a chunk's length ------------------------------------


def test_p21_by_hand_js_tiktoken_takes_quadratic_time_on_one_long_chunk() -> None:
    """Eight times the text, about sixty times the time (tiktoken: eight); the ids themselves are right."""
    times = node(
        """
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
const bytes = Array.from({ length: 256 }, (_, b) => Buffer.of(b));
const pieces = [...bytes, ...['aa', 'aaaa', 'aaaaaaaa'].map((p) => Buffer.from(p))];
const bpe_ranks = `! 0 ${pieces.map((p) => p.toString('base64')).join(' ')}`;
const enc = new Tiktoken({ pat_str: cl100k.pat_str, special_tokens: {}, bpe_ranks });
enc.encode('a'.repeat(500), [], []);
const time = (n) => {
  const t = performance.now();
  const ids = enc.encode('a'.repeat(n), [], []);
  if (ids.length !== n / 8 || ids.some((id) => id !== 258)) throw new Error('wrong ids');
  return performance.now() - t;
};
console.log(JSON.stringify([time(1000), time(8000)]));
"""
    )
    assert isinstance(times, list)
    short, long = times
    assert long > 16 * short, times  # linear would be about 8 times


# -- P22: js-tiktoken's decode drops an unknown id ---------------------------------------------------


def test_p22_by_hand_js_tiktoken_decodes_an_unknown_id_to_nothing() -> None:
    decoded = node(
        """
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
const enc = new Tiktoken(cl100k);
console.log(JSON.stringify([enc.decode([15339]), enc.decode([15339, 100256]), enc.decode([100256])]));
"""
    )
    assert decoded == ["hello", "hello", ""]  # 100256 is neither a piece nor a special of cl100k_base


def test_p22_the_unknown_id_check_rejects_it_on_a_loaded_vocabulary() -> None:
    bound = bind_vocabulary(load_implementation(LOADING), ProductionSetup(CL100K, VOCABULARY))
    try:
        result = run_check(CHECKS["production-unknown-id"], bound, EFFORTS["dev"], seed=0)
    finally:
        bound.close()
    assert result.outcome is Outcome.FAIL
    assert result.clause == "BPE-INPUT-IDS"
    assert f"decode accepted the unknown id {VOCABULARY.size}" in result.message


# -- P23: gpt-tokenizer's o200k_base has other special tokens than tiktoken's ------------------------


def test_p23_by_hand_gpt_tokenizer_o200k_puts_endofprompt_at_another_id() -> None:
    ids = node(
        """
import * as gpt from 'gpt-tokenizer/encoding/o200k_base';
import { get_encoding } from 'tiktoken';
const text = '<|endofprompt|>';
let refused = null;
try { gpt.decode([200018]); } catch (error) { refused = error.message; }
console.log(JSON.stringify({
  gpt: gpt.encode(text, { allowedSpecial: new Set([text]) }),
  gpt200000: gpt.decode([200000]),
  refused,
  tiktoken: Array.from(get_encoding('o200k_base').encode(text, 'all')),
}));
"""
    )
    assert ids == {
        "gpt": [200006],
        "gpt200000": "<|fim_prefix|>",
        "refused": "Token 200018 is not in the byte pair encoder.",
        "tiktoken": [200018],
    }


# -- P24: decoding an unknown id raises an error of neither family ------------------------------------


def test_p24_by_hand_gpt_tokenizer_and_tiktoken_wasm_refuse_an_unknown_id_with_plain_errors() -> None:
    errors = node(
        """
import * as gpt from 'gpt-tokenizer/encoding/cl100k_base';
import { get_encoding } from 'tiktoken';
const caught = (call) => {
  try { call(); return null; } catch (error) { return [error.constructor.name, error.message]; }
};
console.log(JSON.stringify([caught(() => gpt.decode([100256])),
  caught(() => get_encoding('cl100k_base').decode(Uint32Array.from([100256])))]));
"""
    )
    assert errors == [["Error", "Token 100256 is not in the byte pair encoder."], ["RuntimeError", "unreachable"]]


# -- the harness's verdicts on the real files (tox -e production-npm) -----------------------------------

FOLDER = os.environ.get("BPE_REAL_VOCABULARIES")
real_files = pytest.mark.skipif(not FOLDER, reason="BPE_REAL_VOCABULARIES is not set (tox -e production-npm)")


def _judge(label: str, encoding: str, *extra: str) -> int:
    rank_file = Path(str(FOLDER)) / f"{encoding}.tiktoken"
    return cli.main(["run", "--impl", _spec(label, encoding), "--vocabulary", str(rank_file), "--quiet", *extra])


@real_files
@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_real_files_tiktoken_wasm_conforms_at_the_algorithm_level(encoding: str) -> None:
    assert _judge("tiktoken-wasm", encoding, "--level", "algorithm") == 0


@real_files
def test_real_files_gpt_tokenizer_cl100k_conforms_at_the_algorithm_level() -> None:
    assert _judge("gpt-tokenizer", "cl100k_base", "--level", "algorithm") == 0


@real_files
def test_real_files_gpt_tokenizer_o200k_is_refused_before_judging(capsys: pytest.CaptureFixture[str]) -> None:
    assert _judge("gpt-tokenizer", "o200k_base", "--level", "algorithm") == 2
    err = capsys.readouterr().err
    assert "built-in vocabulary 'o200k_base' is not" in err
    assert "decode([200018]) raised Error" in err


@real_files
def test_real_files_js_tiktoken_times_out_on_a_long_run(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    assert _judge("js-tiktoken", "cl100k_base", "--check", "production-long-runs", "--json", str(report)) == 1
    (result,) = json.loads(report.read_text())["results"]
    assert result["outcome"] == "timeout"
