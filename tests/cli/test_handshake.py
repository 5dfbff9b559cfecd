"""``bpe-conformance handshake``: the wire as it went, one exchange per capability, protocol errors spelled out.

The hostile fixtures (tests/fixtures/hostile/) break the protocol in known ways; the Node.js fixture follows it.
"""

from __future__ import annotations

import shutil
import sys

import pytest

from bpe_conformance.cli.main import main
from tests import ROOT

HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
NODE_FIXTURE = ROOT / "tests" / "fixtures" / "node" / "bpe.mjs"


def _python_fixture(name: str) -> str:
    return f"cmd:{sys.executable} {HOSTILE / name}"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_a_conforming_program_shows_the_handshake_and_one_exchange_per_capability(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["handshake", "--impl", f"cmd:node {NODE_FIXTURE}"]) == 0
    out = capsys.readouterr().out
    assert '  > {"id":1,"op":"handshake","protocol":1}' in out
    assert '"name":"node-bpe"' in out
    assert "understood: node-bpe 1.0.0, javascript, profile strict" in out
    for request in ('"op":"train"', '"op":"load"', '"op":"encode"', '"op":"decode"'):
        assert out.count(request) == 1, request
    assert "understood: [(97, 98), (97, 99)]" in out
    assert "understood: 'ab'" in out
    assert "every exchange followed the protocol" in out


def test_an_answer_of_the_wrong_shape_is_a_protocol_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["handshake", "--impl", _python_fixture("wrong_types.py")]) == 1
    out = capsys.readouterr().out
    assert '"result": {"rules"' in out  # the line as the program wrote it
    assert "protocol error: train returned dict" in out
    assert "every exchange" not in out


def test_a_half_written_line_is_a_protocol_error_with_the_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["handshake", "--impl", _python_fixture("exit_midway.py")]) == 1
    out = capsys.readouterr().out
    assert "protocol error (crash): stopped in the middle of a response line" in out
    assert "exit" in out


def test_undeclared_capabilities_are_not_sent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["handshake", "--impl", _python_fixture("no_capabilities.py")]) == 0
    out = capsys.readouterr().out
    assert out.count("not declared, not sent") == 4
    assert '"op":"train"' not in out


def test_a_failed_handshake_shows_the_wire_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["handshake", "--impl", _python_fixture("wrong_version.py")]) == 2
    captured = capsys.readouterr()
    assert '"protocol": 2' in captured.out
    assert "protocol version mismatch: the harness speaks 1, the implementation 2" in captured.err


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("reference", "cmd:<command line> implementations only"),
        (" ", "--impl is empty"),
        ("cmd:no-such-program-xyz", "not found"),
        ("cmd:", "the command line is empty"),
    ],
)
def test_usage_errors_are_one_line(spec: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["handshake", "--impl", spec]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert len(err.strip().splitlines()) == 1
