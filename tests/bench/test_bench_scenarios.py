"""`agentpair bench scenarios`: the aggregation on synthetic runs, and the real command end to end
on the embedded defaults (one scenario, one run, one step)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentpair.bench.loop import LoopRun
from agentpair.bench.scenarios import aggregate


def run(scenario: str, number: int, success: bool, wall_s: float, planner_s: float, stop_reason: str = "finished",
        reasons: list[str] | None = None) -> LoopRun:
    split = {"planner": planner_s, "executor": 0.5, "tools": 0.25, "framework": wall_s - planner_s - 0.75}
    return LoopRun(config="paired", scenario=scenario, run=number, success=success, wall_s=wall_s, split_s=split,
                   planner_calls=2, planner_input_tokens=400, planner_output_tokens=40, executor_forward_passes=8,
                   tool_calls=number + 1, spans=12, stop_reason=stop_reason, reasons=reasons or [], trace=f"{scenario}-{number}.jsonl")


def test_aggregate_gives_success_wall_time_and_split_per_scenario_and_overall_with_failure_reasons() -> None:
    runs = [run("login", 1, True, 4.0, 2.0), run("search", 1, False, 9.0, 6.0, "max_steps", ["no answer"]),
            run("login", 2, False, 6.0, 3.0, "finished", ["url lacks /home"]), run("search", 2, True, 5.0, 2.0),
            run("login", 3, True, 5.0, 2.5)]
    report = aggregate(runs)
    assert report["success_rate"] == pytest.approx(3 / 5) and report["wall_s_p50"] == 5.0
    assert report["split_s"] == pytest.approx({"planner": 3.1, "executor": 0.5, "tools": 0.25, "framework": 1.95})
    assert sum(report["split_s"].values()) == pytest.approx(sum(r.wall_s for r in runs) / 5)
    assert report["planner_calls"] == 2 and report["executor_forward_passes"] == 8
    assert report["planner_calls_per_run"] == 2 and report["steps_per_run"] == pytest.approx((2 + 2 + 3 + 3 + 4) / 5)
    assert report["planner_share_pct"] == pytest.approx(15.5 / 29 * 100)  # planner time over wall time, all runs
    assert [r["scenario"] for r in report["runs"]] == ["login", "search", "login", "search", "login"]

    login, search = report["per_scenario"]["login"], report["per_scenario"]["search"]
    assert list(report["per_scenario"]) == ["login", "search"]
    assert login["runs"] == 3 and login["success_rate"] == pytest.approx(2 / 3) and login["wall_s_p50"] == 5.0
    assert login["split_s"]["planner"] == pytest.approx(2.5)
    assert search["wall_s_p50"] == 7.0 and search["success_rate"] == 0.5
    assert login["failures"] == [{"run": 2, "stop_reason": "finished", "reasons": ["url lacks /home"],
                                  "trace": "login-2.jsonl"}]
    assert search["failures"] == [{"run": 1, "stop_reason": "max_steps", "reasons": ["no answer"],
                                   "trace": "search-1.jsonl"}]
    assert json.dumps(report)


@pytest.mark.slow
def test_bench_scenarios_runs_the_default_planner_and_executor_and_reports_json(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENTPAIR_"))}
    proc = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "bench", "scenarios", "--scenarios", "login",
                           "--runs", "1", "--max-steps", "1", "--json"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]  # the exit code is checked here
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["scenarios"] == ["login"] and report["runs_per_scenario"] == 1 and report["max_steps"] == 1
    assert 0 <= report["success_rate"] <= 1 and report["startup_s"] > 0
    assert set(report["split_s"]) == {"planner", "executor", "tools", "framework"}
    login = report["per_scenario"]["login"]
    assert list(report["per_scenario"]) == ["login"] and login["runs"] == 1 and login["wall_s_p50"] > 0
    assert login["planner_calls"] >= 1 and login["split_s"]["planner"] > 0
    assert sum(login["split_s"].values()) == pytest.approx(login["wall_s_p50"], rel=0.01)
    [record] = report["runs"]
    assert record["config"] == "paired" and (tmp_path / record["trace"]).is_file()
    # one step rarely solves login; when it does not, the failure says why
    assert len(login["failures"]) == (0 if record["success"] else 1)
    for failure in login["failures"]:
        assert failure["stop_reason"] and failure["reasons"]
