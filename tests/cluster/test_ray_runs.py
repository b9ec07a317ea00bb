"""`agentpair bench scenarios --ray`: two bundled scenarios through a local Ray cluster (the `ray` extra),
their traces written here, the executor's fills batched in its actor, nothing left running after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")


def ours() -> list[str]:
    """The command lines of the processes a run through Ray starts: Ray's own, its workers, the planner's
    server, the runners' Playwright drivers and Chromiums."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        marks = ("raylet", "gcs_server", "ray::", "default_worker.py", "agentpair.llm.llamacpp_server",
                 "playwright/driver", "chrom")
        if any(mark in line for mark in marks):
            found.append(line)
    return found


@pytest.mark.slow
def test_two_scenarios_run_through_a_local_ray_cluster_and_leave_nothing_running(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENTPAIR_", "RAY_ADDRESS"))}
    before = ours()
    proc = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "bench", "scenarios", "--scenarios", "login,config",
                           "--runs", "1", "--concurrency", "2", "--ray", "--json"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=400, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["on"] == "ray" and list(report["levels"]) == ["2"]
    figures = report["levels"]["2"]
    assert figures["runs"] == 2 and figures["success_rate"] == 1.0
    assert figures["executor_batch_mean"] >= 1  # the fills' engine calls, as the executor actor made them
    traces = sorted(p.name for p in (tmp_path / report["trace_dir"]).glob("*.jsonl"))
    assert traces == ["c2-config-1.jsonl", "c2-login-1.jsonl"]
    header = json.loads((tmp_path / report["trace_dir"] / traces[0]).read_text().splitlines()[0])
    assert header["planner"]["kind"] == "embedded-llamacpp"
    left = [line for line in ours() if line not in before]
    assert left == [], left


def test_ray_takes_the_embedded_planner_only(tmp_path: Path) -> None:
    env = {**os.environ, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    proc = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "bench", "scenarios", "--scenarios", "login",
                           "--ray", "--json"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, check=False)
    assert proc.returncode != 0 and "--ray runs the embedded planner" in proc.stderr
