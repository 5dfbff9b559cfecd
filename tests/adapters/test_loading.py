"""load_implementation: every way of naming an implementation, and a clear HarnessError for every mistake."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import uuid
from typing import TYPE_CHECKING, Any

import pytest

from bpe_conformance.adapters import SHORTCUTS, load_implementation, resolve_factory, split_spec
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.errors import HarnessError
from bpe_conformance.reference import Tokenizer
from tests import ROOT

if TYPE_CHECKING:
    from pathlib import Path

    from bpe_conformance.adapters.subject import Subject

HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
NODE = shutil.which("node")

pytestmark = pytest.mark.timeout(60)

TOKENIZER_MODULE = """
from bpe_conformance.reference import Tokenizer


class MyTokenizer(Tokenizer):
    name = "my-tokenizer"
    version = "0.3"


def make():
    return MyTokenizer()


class Namespace:
    Nested = MyTokenizer
"""


@pytest.fixture
def module_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh, uniquely named module holding a tokenizer, in the current directory."""
    name = f"tok_{uuid.uuid4().hex[:12]}"
    (tmp_path / f"{name}.py").write_text(TOKENIZER_MODULE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setattr(sys, "path", list(sys.path))  # load_implementation may add the cwd
    return name


@pytest.fixture
def hostile_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hostile fixtures importable, here and in child processes (through PYTHONPATH)."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.syspath_prepend(str(HOSTILE))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(HOSTILE)]))


def trains_like_the_spec(subject: Subject) -> bool:
    try:
        return subject.train(["abab", "acac"], 32) == [(97, 98), (97, 99)] and subject.encode("abac") == [258, 259]
    finally:
        subject.close()


# -- what can be loaded ------------------------------------------------------------------------------


@pytest.mark.parametrize("isolation", ["inprocess", "process"])
@pytest.mark.parametrize(("spec", "name"), [("reference", "reference"), ("reference-literal", "reference-literal")])
def test_the_bundled_reference_shortcuts(spec: str, name: str, isolation: str) -> None:
    subject = load_implementation(spec, isolation=isolation)
    assert isinstance(subject, InProcessSubject if isolation == "inprocess" else ProcessSubject)
    assert subject.info.name == name
    assert trains_like_the_spec(subject)


def test_shortcuts_name_the_bundled_classes() -> None:
    assert SHORTCUTS == {
        "reference": "bpe_conformance.reference:Tokenizer",
        "reference-literal": "bpe_conformance.reference:LiteralTokenizer",
    }


@pytest.mark.parametrize("isolation", ["inprocess", "process"])
@pytest.mark.parametrize("attribute", ["MyTokenizer", "make", "Namespace.Nested"])
def test_a_module_in_the_current_directory(module_in_cwd: str, attribute: str, isolation: str) -> None:
    subject = load_implementation(f"{module_in_cwd}:{attribute}", isolation=isolation)
    assert (subject.info.name, subject.info.version) == ("my-tokenizer", "0.3")
    assert trains_like_the_spec(subject)


def test_process_isolation_is_the_default(module_in_cwd: str) -> None:
    subject = load_implementation(f"{module_in_cwd}:MyTokenizer")
    assert isinstance(subject, ProcessSubject)
    with subject:
        assert module_in_cwd not in sys.modules  # the harness never imported it


def test_a_command_line(hostile_on_path: None) -> None:
    command = shlex.join([sys.executable, "-m", "bpe_conformance.adapters.host", "bpe_conformance.reference:Tokenizer"])
    subject = load_implementation(f"cmd:{command}", timeout=5.0)
    assert isinstance(subject, ProcessSubject)
    assert subject.timeout == 5.0
    assert trains_like_the_spec(subject)


def test_a_command_line_cannot_run_in_process() -> None:
    """A command is always its own process: asking for in-process isolation is a usage error, not ignored."""
    with pytest.raises(HarnessError, match="always runs in its own process"):
        load_implementation("cmd:node bpe.mjs", isolation="inprocess")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_node_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    subject = load_implementation("cmd: node tests/fixtures/node/bpe.mjs ")
    assert subject.info.language == "javascript"
    assert trains_like_the_spec(subject)


def test_split_spec_reads_dotted_modules_and_attributes() -> None:
    assert split_spec("a.b.c:D.e") == ("a.b.c", "D.e")


def test_resolve_factory_returns_the_class() -> None:
    from bpe_conformance.reference import LiteralTokenizer

    assert resolve_factory("bpe_conformance.reference:LiteralTokenizer") is LiteralTokenizer


# -- what is a mistake -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("", "an implementation is 'module:attr', 'cmd:<command line>'"),
        ("   ", "an implementation is 'module:attr'"),
        ("reference.Tokenizer", "reference.Tokenizer: an implementation is 'module:attr'"),
        ("reference:", "reference:: an implementation is"),
        (":Tokenizer", ":Tokenizer: an implementation is"),
        ("bpe_conformance.reference:Token izer", "an implementation is"),
        ("my-module:Tokenizer", "an implementation is"),
    ],
)
@pytest.mark.parametrize("isolation", ["inprocess", "process"])
def test_malformed_specs(spec: str, problem: str, isolation: str) -> None:
    with pytest.raises(HarnessError, match=problem):
        load_implementation(spec, isolation=isolation)


def test_a_spec_must_be_a_string() -> None:
    with pytest.raises(HarnessError, match="got None"):
        load_implementation(None)  # type: ignore[arg-type]  # not a str, on purpose


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"isolation": "thread"}, "isolation must be one of process, inprocess, not 'thread'"),
        ({"timeout": 0}, "timeout must be a positive number of seconds, not 0"),
        ({"timeout": True}, "timeout must be a positive number of seconds, not True"),
        ({"timeout": "5"}, "timeout must be a positive number of seconds, not '5'"),
    ],
)
def test_bad_options(options: dict[str, Any], problem: str) -> None:
    with pytest.raises(HarnessError, match=problem):
        load_implementation("reference", **options)


@pytest.mark.parametrize("isolation", ["inprocess", "process"])
@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("no_such_module_anywhere:Tokenizer", "no module named 'no_such_module_anywhere' on the Python path"),
        (
            "bpe_conformance.reference.no_such_submodule:Tokenizer",
            "no module named 'bpe_conformance.reference.no_such_submodule'",
        ),
        ("bpe_conformance.reference:NoSuchClass", "module 'bpe_conformance.reference' has no attribute 'NoSuchClass'"),
        (
            "bpe_conformance.reference:Tokenizer.no_such_thing",
            "object 'bpe_conformance.reference.Tokenizer' has no attribute 'no_such_thing'",
        ),
        ("hostile_impls:NOT_CALLABLE", r"NOT_CALLABLE is not a class or a zero-argument callable \(it is 42\)"),
        ("hostile_impls:failing_factory", "calling it raised RuntimeError: vocabulary file tokenizer.json is missing"),
        ("hostile_impls:NotAnImplementation", "does not implement the plug-in contract: missing train, encode, decode"),
        ("broken_on_import:Tokenizer", "importing 'broken_on_import' raised ZeroDivisionError"),
        ("imports_missing_dependency:Tokenizer", "importing 'imports_missing_dependency' failed: No module named"),
    ],
)
def test_python_mistakes(
    hostile_on_path: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spec: str,
    problem: str,
    isolation: str,
) -> None:
    (tmp_path / "broken_on_import.py").write_text("1 / 0\n", encoding="utf-8")
    (tmp_path / "imports_missing_dependency.py").write_text("import numpyy_not_installed\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(HOSTILE), str(tmp_path)]))
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(HarnessError, match=problem) as raised:
        load_implementation(spec, isolation=isolation, timeout=5.0)
    if isolation == "process":
        assert "handshake failed" in str(raised.value) or "SetupError" in str(raised.value)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("cmd:", "the command line is empty"),
        ("cmd:   ", "the command line is empty"),
        ("cmd:'unbalanced", "cannot split the command line: No closing quotation"),
        ("cmd:/no/such/executable --flag", "executable '/no/such/executable' not found"),
        ("cmd:no-such-program-bpe-conformance", "executable 'no-such-program-bpe-conformance' not found"),
        (f"cmd:{ROOT / 'pyproject.toml'}", r"not found \(or not executable\)"),
    ],
)
def test_command_mistakes(spec: str, problem: str) -> None:
    with pytest.raises(HarnessError, match=problem):
        load_implementation(spec)


def test_a_command_that_is_not_an_implementation() -> None:
    with pytest.raises(HarnessError, match=r"handshake failed: closed its stdout before answering: .* code 0"):
        load_implementation(f"cmd:{shlex.join([sys.executable, '-c', 'pass'])}")


def test_a_command_whose_handshake_times_out() -> None:
    silent = shlex.join([sys.executable, str(HOSTILE / "silent.py")])
    with pytest.raises(HarnessError, match=r"handshake failed: no answer within 3 s \(process group killed\)"):
        load_implementation(f"cmd:{silent}", timeout=0.5)


def test_a_command_that_speaks_another_protocol_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    command = shlex.join([sys.executable, str(HOSTILE / "wrong_version.py")])
    with pytest.raises(HarnessError, match="protocol version mismatch: the harness speaks 1, the implementation 2"):
        load_implementation(f"cmd:{command}")


class _EncodeOnly:
    """An encode-only implementation (tiktoken-style): it declares what it can do and has no train."""

    capabilities: tuple[str, ...] = ("load", "encode", "decode")

    def __init__(self) -> None:
        self._tokenizer = Tokenizer()

    def load(self, rules: list[tuple[int, int]]) -> None:
        self._tokenizer.load(rules)

    def encode(self, text: str) -> list[int]:
        return self._tokenizer.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self._tokenizer.decode(ids)


class _DeclaresLoadWithoutIt(_EncodeOnly):
    capabilities = ("load", "encode", "decode", "train")


def test_an_encode_only_implementation_needs_only_what_it_declares() -> None:
    subject = InProcessSubject(_EncodeOnly)
    assert subject.info.capabilities == frozenset({"load", "encode", "decode"})
    subject.load([(97, 98)])
    assert subject.encode("abab") == [258, 258]


def test_a_declared_capability_without_its_method_is_refused() -> None:
    with pytest.raises(TypeError, match="missing train"):
        InProcessSubject(_DeclaresLoadWithoutIt)
