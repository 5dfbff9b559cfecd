"""docs/tutorial.md is executed: every command in it prints what the page shows, and every lesson pairs the
reference's trace with a zoo member the suite rejects, on a clause that member breaks.

A transcript may leave lines out (a line ``...``); the rest must appear in order (tools/readme.py, ``matches``).
``python tools/readme.py --update --file docs/tutorial.md`` refreshes the outputs.
"""

from __future__ import annotations

import functools
import re
import shlex
from typing import TYPE_CHECKING

import hypothesis
import pytest

from bpe_conformance.zoo import ZOO
from tests import ROOT
from tests.test_readme import readme

if TYPE_CHECKING:  # loaded from its file by tests/test_readme.py
    from tools.readme import Transcript

TUTORIAL = ROOT / "docs" / "tutorial.md"
TEXT = TUTORIAL.read_text(encoding="utf-8")
TRANSCRIPTS = readme.transcripts(TEXT)
_RECORDED_WITH = re.compile(r"hypothesis (\d+\.\d+\.\d+)")
_LESSON = re.compile(r"^## (\d+)\. (.+)$", re.MULTILINE)
_MEMBER = re.compile(r"--impl bpe_conformance\.zoo:(\w+)")
_FAIL = re.compile(r"^FAIL (\S+) \[(BPE-[A-Z0-9-]+)\]$", re.MULTILINE)


@functools.cache
def printed(command: str) -> str:
    """What ``command`` of the page prints now, run once per process.

    Each test runs its own command, so pytest-xdist's workers share the page's commands out between them (one
    test running every command made a test of minutes, past pytest-timeout's limit on a loaded machine).
    """
    output: str = readme.run_command(command)
    return output


def lessons() -> list[tuple[str, str]]:
    """Each lesson's heading and text, up to the next heading."""
    starts = list(_LESSON.finditer(TEXT))
    ends = [match.start() for match in starts[1:]] + [TEXT.index("\n## ", starts[-1].end())]
    return [(match.group(0), TEXT[match.start() : end]) for match, end in zip(starts, ends, strict=True)]


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda transcript: transcript.command[16:70])
def test_the_command_prints_what_the_tutorial_shows(transcript: Transcript) -> None:
    recorded = _RECORDED_WITH.search(transcript.output)
    if recorded and recorded.group(1) != hypothesis.__version__:
        pytest.skip(
            f"recorded with hypothesis {recorded.group(1)}, {hypothesis.__version__} is installed: "
            "install constraints.txt (tox does) or refresh with `python tools/readme.py --update --file "
            "docs/tutorial.md`"
        )
    assert readme.matches(transcript.output, printed(transcript.command)), (
        f"docs/tutorial.md is out of date for {transcript.command!r}; refresh it with "
        "`python tools/readme.py --update --file docs/tutorial.md`"
    )


def test_there_are_ten_or_so_lessons_in_order() -> None:
    numbers = [int(heading.split(".")[0][3:]) for heading, _ in lessons()]
    assert numbers == list(range(1, len(numbers) + 1))
    assert len(numbers) >= 10


@pytest.mark.parametrize(("heading", "lesson"), lessons(), ids=lambda value: value[:40])
def test_each_lesson_shows_the_reference_and_a_zoo_member_the_suite_rejects(heading: str, lesson: str) -> None:
    """What is right (a trace), who gets it wrong (a member of the zoo), and the counterexample the suite
    found for it (its run, failing on a clause the member breaks)."""
    commands = [transcript for transcript in readme.transcripts(lesson)]
    assert any(transcript.command.startswith("bpe-conformance trace ") for transcript in commands), heading
    runs = [transcript for transcript in commands if _MEMBER.search(transcript.command)]
    assert runs, f"{heading}: no run of a zoo member"
    members = {member.__name__: member for member in ZOO}
    for run in runs:
        named = _MEMBER.search(run.command)
        assert named is not None  # runs holds only the commands it matches
        member = members[named.group(1)]
        assert f"`{member.name}`" in lesson, f"{heading}: the text does not name {member.name}"
        failures = _FAIL.findall(run.output)
        assert failures, f"{heading}: the transcript shows no failure"
        for check, clause in failures:
            assert check in shlex.split(run.command), (heading, check)
            assert clause in (member.clause, *member.also), (heading, member.name, clause)
        assert "inputs: " in run.output, heading
        assert "expected: " in run.output, heading
        assert "actual: " in run.output, heading


def test_a_changed_transcript_is_caught() -> None:
    """The comparison can fail: a counterexample edited by hand no longer matches what the suite prints."""
    run = next(transcript for transcript in TRANSCRIPTS if _FAIL.search(transcript.output))
    edited = run.output.replace("expected: ", "expected: [0], ", 1)
    assert readme.matches(run.output, printed(run.command))
    assert not readme.matches(edited, printed(run.command))
    assert not readme.matches(run.output.replace("...\n", "", 1) + "extra\n", printed(run.command))


def test_the_readme_points_to_the_tutorial() -> None:
    assert "docs/tutorial.md" in (ROOT / "README.md").read_text(encoding="utf-8")
