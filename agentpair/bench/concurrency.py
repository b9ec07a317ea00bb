"""`agentpair bench scenarios --concurrency 1,2,4`: the bundled scenarios run N at a time, in one process
(InProcess) or on Ray (`--ray`: agentpair.cluster.ray_runs.RayRuns, a runner process per run at a time).

At each level every scenario runs `runs` times, at most N runs at once, each with its own browser
context (in one shared Chromium in-process), all asking the one planner and the one executor (started
once, outside every time). Reported per level: throughput (runs a minute over the level's wall time),
success rate, per-run latency p50/p95, the planner's queueing (a planner span's time that the server
did not spend on that call: it answers one call at a time) per run, and the mean number of requests
an executor call shared the engine with (fills of concurrent runs batched together).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agentpair.bench.loop import LoopRun, load_trace, loop_run, site_port
from agentpair.tracing.reader import RunTree


def planner_queue_s(tree: RunTree) -> float:
    """The time a run's planner calls waited: each chat span's duration less what the server says the
    call took (its `agentpair.planner.call_ms`): the server answering other runs' calls first, and the
    HTTP round trip (a few ms, all of it when runs go one at a time); 0 for a call that does not say."""
    waited = 0.0
    for span in tree.spans:
        if span.category == "planner" and span.attr("agentpair.planner.call_ms") is not None:
            waited += max(0.0, span.duration_s - span.attr("agentpair.planner.call_ms") / 1e3)
    return waited


def engine_batches(tree: RunTree) -> list[int]:
    """The requests each of a run's executor calls shared the engine with (its own included)."""
    return [int(span.attr("agentpair.engine_batch")) for span in tree.spans
            if span.category == "executor" and span.attr("agentpair.engine_batch")]


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def level_stats(runs: list[LoopRun], queues: list[float], wall_s: float, batches: Sequence[int] = ()) -> dict[str, Any]:
    walls = [r.wall_s for r in runs]
    return {"runs": len(runs), "wall_s": wall_s,
            "throughput_runs_per_min": len(runs) / wall_s * 60 if wall_s > 0 else 0.0,
            "success_rate": sum(r.success for r in runs) / len(runs) if runs else 0.0,
            "latency_s_p50": statistics.median(walls) if walls else 0.0, "latency_s_p95": percentile(walls, 0.95),
            "planner_queue_s_mean": statistics.mean(queues) if queues else 0.0,
            "planner_s_mean": statistics.mean(r.split_s["planner"] for r in runs) if runs else 0.0,
            "executor_forward_passes_mean": statistics.mean(r.executor_forward_passes for r in runs) if runs else 0.0,
            "executor_batch_mean": statistics.mean(batches) if batches else 0.0}


class InProcess:
    """Runs side by side in this process: one planner, one executor, one Chromium with a context a run."""

    def __init__(self, planner: Any) -> None:
        self.planner = planner
        self.gate = asyncio.Semaphore(1)

    async def start(self) -> None:
        from agentpair.agent import defaults
        from agentpair.agent.loop import Agent
        from agentpair.tools.browser import Browser

        self.executor = await defaults.default_executor()
        self.chromium = Browser()
        await self.chromium.start()
        await Agent(self.planner, self.executor, self.chromium).start()  # the planner's server starts here

    async def runners(self, n: int) -> None:
        self.gate = asyncio.Semaphore(n)

    async def run(self, scenario: Any, path: Path, max_steps: int | None = None) -> Any:
        from agentpair.scenarios.runner import run_beside

        if max_steps:
            scenario = scenario.model_copy(update={"max_steps": max_steps})
        async with self.gate:
            report, _ = await run_beside(scenario, self.planner, self.executor, self.chromium, trace=str(path),
                                         port=site_port())
        return report

    async def close(self) -> None:
        await self.chromium.close()
        if hasattr(self.executor, "aclose"):
            await self.executor.aclose()


async def run_levels(pool: Any, names: list[str], runs: int, levels: Sequence[int], max_steps: int | None,
                     trace_dir: Path, on_run: Callable[[int, LoopRun], None] = lambda level, run: None
                     ) -> tuple[dict[int, dict[str, Any]], list[LoopRun], float]:
    """Every scenario `runs` times at each concurrency level, on `pool` (InProcess, or
    agentpair.cluster.ray_runs.RayRuns); returns the levels' figures, every run (as read back from
    its trace), and the start-up time (the pool's, and each level's runners)."""
    from agentpair.scenarios import loader as scenarios

    chosen = [scenarios.load(name) for name in names]
    started = time.perf_counter()
    await pool.start()
    startup_s = time.perf_counter() - started
    trace_dir.mkdir(parents=True, exist_ok=True)
    figures: dict[int, dict[str, Any]] = {}
    every: list[LoopRun] = []
    try:
        for level in levels:
            started = time.perf_counter()
            await pool.runners(level)
            startup_s += time.perf_counter() - started
            rows: list[LoopRun] = []
            queues: list[float] = []
            batches: list[int] = []

            async def one(run: int, scenario: Any) -> None:
                path = trace_dir / f"c{level}-{scenario.name}-{run}.jsonl"
                report = await pool.run(scenario, path, max_steps)
                tree = load_trace(path)
                rows.append(loop_run(f"c{level}", scenario.name, run, report.success, tree, report.reasons))
                queues.append(planner_queue_s(tree))
                batches.extend(engine_batches(tree))
                on_run(level, rows[-1])

            begun = time.perf_counter()
            await asyncio.gather(*(one(run, s) for run in range(1, runs + 1) for s in chosen))
            figures[level] = level_stats(rows, queues, time.perf_counter() - begun, batches)
            every += rows
    finally:
        await pool.close()
    return figures, every, startup_s
