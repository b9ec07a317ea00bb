"""The soak's counters (read from /proc) see what a run could leak: a child process, an open file,
memory held; and the command reports them around real runs of a bundled scenario."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from agentpair.bench.soak import resources


def test_the_counters_see_a_child_process_an_open_file_and_memory_held() -> None:
    before = resources()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with open(__file__) as held, socket.socket() as plug:
            ballast = bytearray(64 * 1024 * 1024)  # touched below, so it is resident
            ballast[:: 4096] = b"x" * len(ballast[:: 4096])
            during = resources()
            assert held.readable() and plug.fileno() >= 0
    finally:
        child.kill()
        child.wait()
    assert during.processes == before.processes + 1
    assert during.open_fds >= before.open_fds + 2
    assert during.fds_by_kind.get("socket", 0) == before.fds_by_kind.get("socket", 0) + 1  # told apart by kind
    assert during.fds_by_kind["file"] >= before.fds_by_kind.get("file", 0) + 1
    assert during.rss_mb - before.rss_mb > 50
    del ballast
    assert resources().processes == before.processes


def test_the_command_reports_counts_around_real_runs() -> None:
    cli = Path(sys.executable).parent / "agentpair"  # its own process: nothing else of the tests' runs under it
    out = subprocess.run([str(cli), "bench", "soak", "--scenario", "extract", "--runs", "1", "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout)
    assert report["successes"] == 1 and report["runs"] == 1
    assert report["before"]["processes"] > 0  # the planner's server and the browser run under this process
    assert report["after_close"]["processes"] == 0  # and are gone once the agent is closed
    assert {"processes_delta", "open_fds_delta", "rss_growth_mb"} <= set(report)


def test_runs_side_by_side_are_counted_too() -> None:
    cli = Path(sys.executable).parent / "agentpair"
    out = subprocess.run([str(cli), "bench", "soak", "--scenario", "extract", "--runs", "2", "--concurrency", "2",
                          "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout)
    assert report["successes"] == 2 and report["concurrency"] == 2
    assert report["after_close"]["processes"] == 0
