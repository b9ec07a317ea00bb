"""`agentpair bench scenarios --concurrency`: the planner's waiting read from a trace, a level's figures,
the option's parsing, and the real command at two levels on the embedded defaults."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentpair.bench.concurrency import engine_batches, level_stats, percentile, planner_queue_s
from agentpair.cli.bench import _levels
from agentpair.tracing.reader import RunTree, SpanRecord, TraceHeader
from tests.bench.test_bench_scenarios import run


def chat(start_s: float, end_s: float, call_ms: float | None, http_ms: float = 0.0) -> SpanRecord:
    """A planner span; `http_ms` as the client records it: its whole wait outside the server's call."""
    attributes = {"agentpair.category": "planner"}
    if call_ms is not None:
        attributes |= {"agentpair.planner.call_ms": call_ms, "agentpair.planner.http_ms": http_ms}
    return SpanRecord(name="chat m", trace_id="t", span_id=f"s{start_s}", start_ns=int(start_s * 1e9),
                      end_ns=int(end_s * 1e9), attributes=attributes)


def test_the_planners_waiting_is_its_span_less_what_the_server_spent() -> None:
    spans = [chat(0.0, 1.5, call_ms=1000.0, http_ms=500.0), chat(2.0, 2.5, call_ms=500.0), chat(3.0, 4.0, None)]
    tree = RunTree(path="x", header=TraceHeader(type="header", format="agentpair-trace", version=1), spans=spans, roots=spans)
    assert planner_queue_s(tree) == pytest.approx(0.5)  # 1.5 - 1.0, then 0, and a call that does not say


def test_an_executor_calls_batch_is_read_from_its_fill_spans() -> None:
    fills = [SpanRecord(name="fill local-diffusion", span_id=f"f{n}", start_ns=0, end_ns=1,
                        attributes={"agentpair.category": "executor", "agentpair.engine_batch": n}) for n in (1, 3)]
    spans = [*fills, chat(0.0, 1.0, call_ms=900.0)]
    tree = RunTree(path="x", header=TraceHeader(type="header", format="agentpair-trace", version=1), spans=spans, roots=spans)
    assert engine_batches(tree) == [1, 3]


def test_a_levels_figures() -> None:
    runs = [run("login", 1, True, 4.0, 2.0), run("login", 2, False, 6.0, 3.0), run("search", 1, True, 5.0, 2.5)]
    figures = level_stats(runs, [0.5, 1.0, 1.5], wall_s=9.0, batches=[1, 2, 3])
    assert figures["throughput_runs_per_min"] == pytest.approx(20.0)
    assert figures["success_rate"] == pytest.approx(2 / 3)
    assert figures["latency_s_p50"] == 5.0 and figures["latency_s_p95"] == 6.0
    assert figures["planner_queue_s_mean"] == pytest.approx(1.0) and figures["planner_s_mean"] == pytest.approx(2.5)
    assert figures["executor_batch_mean"] == pytest.approx(2.0)
    assert percentile([], 0.95) == 0.0


def test_levels_are_positive_numbers() -> None:
    assert _levels("1,2,4") == [1, 2, 4]
    for bad in ("0,2", "two", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="positive numbers"):
            _levels(bad)


@pytest.mark.slow
def test_bench_scenarios_at_two_levels_reports_each(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENTPAIR_"))}
    proc = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "bench", "scenarios", "--scenarios", "login",
                           "--runs", "2", "--max-steps", "2", "--concurrency", "1,2", "--json"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert list(report["levels"]) == ["1", "2"] and len(report["runs"]) == 4
    for figures in report["levels"].values():
        assert figures["runs"] == 2 and figures["throughput_runs_per_min"] > 0
        assert figures["latency_s_p95"] >= figures["latency_s_p50"] > 0
        assert figures["executor_batch_mean"] >= 1 or figures["executor_forward_passes_mean"] == 0
    assert report["levels"]["1"]["throughput_vs_first"] == 1.0
    traces = sorted(p.name for p in (tmp_path / report["trace_dir"]).glob("*.jsonl"))
    assert traces == ["c1-login-1.jsonl", "c1-login-2.jsonl", "c2-login-1.jsonl", "c2-login-2.jsonl"]
