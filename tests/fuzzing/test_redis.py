"""One Redis database shared by campaigns on several machines, with a real ``redis-server`` on 127.0.0.1.

Each "machine" is a process of its own, started from a directory of its own with its own cache dir and
hypothesis storage: only the Redis database is shared. Skipped, with the reason, where ``redis-server``
or the ``redis`` client is not installed (``tox -e fuzz-redis`` installs both).
"""

from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.running.database import KEY_PREFIX
from tests.fuzzing.helpers import MakeHarness, validate_summary, wait_for
from tests.support import redis_server as redis_server_module
from tests.support.fuzz_subjects import LONG_TEXT_BYTES
from tests.support.redis_server import RedisServer, running_redis

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process checks read /proc"),
]

ZOO_MEMBER = "bpe_conformance.zoo:TiesToLargestPair"
RARE_BUG = "tests.support.fuzz_subjects:LongTextsLoseTheirLastId"


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    directory = tmp_path / "redis"
    directory.mkdir()
    with running_redis(directory) as server:
        yield server


def test_a_port_another_server_took_is_given_up_for_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Parallel test processes choose ports too: the server a test gets is the one it started, never a neighbour's."""
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    with running_redis(tmp_path / "first") as first:
        chosen = iter([first.port])  # the first choice is a port the neighbour holds
        real_free_port = redis_server_module.free_port
        monkeypatch.setattr(redis_server_module, "free_port", lambda: next(chosen, 0) or real_free_port())
        with running_redis(tmp_path / "second") as second:
            assert second.port != first.port
            assert second.process is not None
            assert int(second.client().info("server")["process_id"]) == second.process.pid
        assert first.client().ping()


def _keys(server: RedisServer, db: int) -> list[bytes]:
    return sorted(server.client(db).keys("*"))


def test_a_campaign_saves_to_redis_and_run_replays_it_in_seconds(
    make_harness: MakeHarness, tmp_path: Path, redis_server: RedisServer
) -> None:
    url = redis_server.url(1)
    fuzzer, runner = make_harness("fuzzer"), make_harness("runner")
    fuzzed = fuzzer.run(
        "fuzz",
        "--impl",
        ZOO_MEMBER,
        "--isolation",
        "inprocess",
        "--check",
        "tie-break",
        "--duration",
        "60s",
        "--max-failures",
        "1",
        "--jobs",
        "1",
        "--seed",
        "11",
        "--database",
        url,
        "--json",
        "fuzz.json",
    )
    assert fuzzed.returncode == 1, fuzzed.stderr
    # --max-failures stops the workers, but what they found while stopping is reported too.
    found = validate_summary(fuzzer.directory / "fuzz.json")["failures"]
    assert f"--database {url} --check tie-break" in found[0]["reproduce"]
    keys = _keys(redis_server, 1)
    assert keys
    assert all(key.startswith(KEY_PREFIX) for key in keys)
    assert _keys(redis_server, 0) == []  # the /DB of the URL is the database used

    started = time.monotonic()
    replayed = runner.run(
        "run",
        "--impl",
        ZOO_MEMBER,
        "--isolation",
        "inprocess",
        "--check",
        "tie-break",
        "--database",
        url,
        "--json",
        "run.json",
    )
    assert replayed.returncode == 1, replayed.stderr
    assert time.monotonic() - started < 60
    (result,) = json.loads((runner.directory / "run.json").read_text())["results"]
    assert result["counterexample"]["inputs"] in [finding["counterexample"]["inputs"] for finding in found]
    assert fuzzer.leftovers() == []
    assert runner.leftovers() == []


def test_two_campaigns_with_different_seeds_share_one_redis_database(
    make_harness: MakeHarness, tmp_path: Path, redis_server: RedisServer
) -> None:
    """Machine A fuzzes round-trip, machine B encode-trained, at once, into one Redis database; a third
    machine's ``run`` fails each check with the counterexample the other found, although the same run without
    the database passes: only the shared database could have given it those failures. (A campaign cut short
    under load may save an example it had not finished shrinking; the run then shrinks it further, to
    another trigger of the same rare bug: a text of at least ``LONG_TEXT_BYTES``.)"""
    url = redis_server.url(3)
    machines = {name: make_harness(name) for name in ("a", "b", "c")}
    campaigns = {
        check: machines[name].start(
            "fuzz",
            "--impl",
            RARE_BUG,
            "--isolation",
            "inprocess",
            "--check",
            check,
            "--duration",
            "150s",
            "--max-failures",
            "1",
            "--jobs",
            "1",
            "--seed",
            seed,
            "--database",
            url,
            "--json",
            "fuzz.json",
        )
        for name, check, seed in (("a", "round-trip", "1"), ("b", "encode-trained", "2"))
    }
    findings = {}
    for (check, campaign), name in zip(campaigns.items(), ("a", "b"), strict=True):
        _, stderr = campaign.communicate(timeout=240)
        assert campaign.returncode == 1, stderr
        found = validate_summary(machines[name].directory / "fuzz.json")["failures"]
        assert {finding["check"] for finding in found} == {check}
        assert all(len(finding["counterexample"]["inputs"]["text"].encode()) >= LONG_TEXT_BYTES for finding in found)
        findings[check] = [finding["counterexample"]["inputs"] for finding in found]

    third = machines["c"]
    checks = [word for check in findings for word in ("--check", check)]
    alone = third.run("run", "--impl", RARE_BUG, "--isolation", "inprocess", *checks, "--quiet")
    assert alone.returncode == 0, f"the run found the bug on its own, so this proves nothing: {alone.stdout}"
    shared = third.run(
        "run", "--impl", RARE_BUG, "--isolation", "inprocess", *checks, "--database", url, "--json", "run.json"
    )
    assert shared.returncode == 1, shared.stderr
    results = json.loads((third.directory / "run.json").read_text())["results"]
    assert {result["check"]: result["outcome"] for result in results} == dict.fromkeys(findings, "fail")
    for result in results:
        inputs = result["counterexample"]["inputs"]
        assert inputs in findings[result["check"]] or len(inputs["text"].encode()) >= LONG_TEXT_BYTES, inputs
    assert all(machine.leftovers() == [] for machine in machines.values())


@pytest.mark.slow  # the client retries a lost server for seconds before giving up: tox -e fuzz-redis runs it
def test_a_redis_server_lost_mid_campaign_ends_it_with_a_harness_error_not_a_verdict(
    make_harness: MakeHarness, redis_server: RedisServer
) -> None:
    harness = make_harness()
    campaign = harness.start(
        "fuzz",
        "--impl",
        ZOO_MEMBER,
        "--isolation",
        "inprocess",
        "--check",
        "tie-break",
        "--duration",
        "90s",
        "--jobs",
        "1",
        "--database",
        redis_server.url(2),
        "--json",
        "s.json",
    )
    assert wait_for(lambda: bool(_keys(redis_server, 2)), 60)  # a failure has been saved: the worker is at work
    redis_server.kill()
    stdout, stderr = campaign.communicate(timeout=120)
    summary = validate_summary(harness.directory / "s.json")
    assert summary["summary"]["stop_reason"] == "database-failed", stdout[-2000:]
    assert f"the example database {redis_server.url(2)} failed" in summary["summary"]["error"]
    # A failure found and saved before the server went is still a failure; nothing else is blamed on the
    # implementation: every failure reported is the zoo member's tie-break bug.
    assert campaign.returncode == (1 if summary["failures"] else 2), stderr
    assert all(failure["outcome"] == "fail" for failure in summary["failures"])
    assert harness.leftovers() == []
