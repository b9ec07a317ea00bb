"""`agentpair bench scenarios`: every bundled scenario, N times, on the embedded defaults.

The default planner (started once, outside every wall time) and the default executor run each
scenario as `agentpair run` does; this is bench loop's paired configuration alone
(agentpair.bench.loop.run_configs), every run traced. Reported per scenario and overall: the
success rate, the median wall time, the mean time split per run (planner, executor, tools,
framework) read from the traces, and for every failed run the scenario check's reasons and the
run's stop reason, so that a failure can be told to be the planner's or the executor's.
"""

from __future__ import annotations

import argparse
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from agentpair.progress import BENCH_COLUMNS
from agentpair.bench.loop import (
    CATEGORIES,
    LoopRun,
    planner_label,
    run_configs,
    run_stats,
    scenario_names,
)

console = Console(stderr=True)


def failures(runs: list[LoopRun]) -> list[dict[str, Any]]:
    """The failed runs: which run, the check's reasons, the stop reason and the trace to read."""
    return [{"run": r.run, "stop_reason": r.stop_reason, "reasons": r.reasons, "trace": r.trace}
            for r in runs if not r.success]


def aggregate(runs: list[LoopRun]) -> dict[str, Any]:
    """Overall figures, then per scenario (in run order) with its failures, then every run.

    As in bench loop, a block's `runs` is its number of runs and the top-level `runs` the runs
    themselves.
    """
    scenarios = list(dict.fromkeys(r.scenario for r in runs))
    per_scenario = {}
    for name in scenarios:
        mine = [r for r in runs if r.scenario == name]
        per_scenario[name] = {**run_stats(mine), "failures": failures(mine)}
    return {**run_stats(runs), "per_scenario": per_scenario, "runs": [r.model_dump() for r in runs]}


def _print_table(report: dict[str, Any]) -> None:
    """The table (planner calls and the split are means per run; failed runs counted by stop
    reason), then each failed run's check reasons."""
    out = Console()
    table = Table(title=f"agentpair bench scenarios: {report['planner']}, "
                        f"{report['runs_per_scenario']} run(s) each")
    for column in ("scenario", "success", "wall p50", "calls", *CATEGORIES, "failed"):
        table.add_column(column, justify="left" if column in ("scenario", "failed") else "right")
    last = list(report["per_scenario"])[-1]
    for name, stats in [*report["per_scenario"].items(), ("all", report)]:
        stops = Counter(r["stop_reason"] or "?" for r in report["runs"]
                        if not r["success"] and name in ("all", r["scenario"]))
        table.add_row(name, f"{stats['success_rate']:.0%}", f"{stats['wall_s_p50']:.1f} s",
                      f"{stats['planner_calls']:.1f}", *(f"{stats['split_s'][c]:.1f} s" for c in CATEGORIES),
                      ", ".join(f"{n}: {stop}" for stop, n in stops.items()), end_section=name == last)
    out.print(table)
    for name, stats in report["per_scenario"].items():
        for failure in stats["failures"]:
            out.print(f"[red]{name} run {failure['run']}[/red] ({failure['stop_reason']}): "
                      f"{'; '.join(failure['reasons'])}", highlight=False)
    out.print(f"start-up {report['startup_s']:.1f} s (not in wall times); traces: {report['trace_dir']}",
              highlight=False)


async def main(args: argparse.Namespace, planner: Any) -> int:
    """The `agentpair bench scenarios` command: a progress bar on stderr, then a table (or JSON on stdout)."""
    if getattr(args, "concurrency", None) or getattr(args, "ray", False):
        return await main_concurrency(args, planner)
    import json

    names = scenario_names(args.scenarios)
    trace_dir = Path("runs") / f"bench-scenarios-{datetime.now():%Y%m%d-%H%M%S}"
    console.print("starting the planner, the executor and Chromium (not timed)")
    with Progress(*BENCH_COLUMNS, console=console) as progress:
        bar = progress.add_task("scenario runs", total=len(names) * args.runs)

        def on_run(run: LoopRun) -> None:
            outcome = "[green]success[/green]" if run.success else f"[red]failed[/red] ({run.stop_reason})"
            progress.console.print(f"{run.scenario} run {run.run}: {outcome} in {run.wall_s:.1f} s", highlight=False)
            progress.advance(bar)

        try:
            rows, startup_s = await run_configs(planner, names, args.runs, args.max_steps, trace_dir,
                                                configs=("paired",), on_run=on_run)
        finally:
            if hasattr(planner, "aclose"):
                await planner.aclose()
    report = {"planner": planner_label(planner), "scenarios": names, "runs_per_scenario": args.runs,
              "max_steps": args.max_steps, "startup_s": startup_s, "trace_dir": str(trace_dir), **aggregate(rows)}
    if args.json:
        print(json.dumps(report))
    else:
        _print_table(report)
    return 0


async def main_concurrency(args: argparse.Namespace, planner: Any) -> int:
    """`--concurrency N,M`: each level's runs side by side, in this process or on Ray with `--ray`
    (agentpair.bench.concurrency)."""
    import json

    from agentpair.bench.concurrency import InProcess, run_levels

    if args.ray:
        from agentpair.cluster.ray_runs import RayRuns  # the `ray` extra
        from agentpair.planner.embedded import EmbeddedPlanner

        if not isinstance(planner, EmbeddedPlanner):
            raise SystemExit("--ray runs the embedded planner as an actor; an endpoint's planner is not supported with it")

        pool: Any = RayRuns(args.ray_address, slots=max(args.concurrency or [1]))
    else:
        pool = InProcess(planner)
    names = scenario_names(args.scenarios)
    chosen = args.concurrency or [1]
    trace_dir = Path("runs") / f"bench-concurrency-{datetime.now():%Y%m%d-%H%M%S}"
    console.print("starting the planner, the executor and Chromium (not timed)")
    with Progress(*BENCH_COLUMNS, console=console) as progress:
        bar = progress.add_task("scenario runs", total=len(names) * args.runs * len(chosen))

        def on_run(level: int, run: LoopRun) -> None:
            outcome = "[green]success[/green]" if run.success else f"[red]failed[/red] ({run.stop_reason})"
            progress.console.print(f"concurrency {level}: {run.scenario} run {run.run}: {outcome} in {run.wall_s:.1f} s",
                                   highlight=False)
            progress.advance(bar)

        try:
            levels, rows, startup_s = await run_levels(pool, names, args.runs, chosen, args.max_steps,
                                                       trace_dir, on_run)
        finally:
            if hasattr(planner, "aclose"):
                await planner.aclose()
    base = levels[chosen[0]]["throughput_runs_per_min"]
    for figures in levels.values():
        figures["throughput_vs_first"] = figures["throughput_runs_per_min"] / base if base else 0.0
    report = {"planner": planner_label(planner), "on": "ray" if args.ray else "in-process", "scenarios": names,
              "runs_per_scenario": args.runs, "startup_s": startup_s, "trace_dir": str(trace_dir),
              "levels": {str(k): v for k, v in levels.items()}, "runs": [r.model_dump() for r in rows]}
    if args.json:
        print(json.dumps(report))
    else:
        table = Table(title=f"agentpair bench scenarios --concurrency: {report['planner']}")
        for column in ("concurrency", "runs/min", "x first", "success", "latency p50", "p95", "planner wait"):
            table.add_column(column, justify="right")
        for level, f in levels.items():
            table.add_row(str(level), f"{f['throughput_runs_per_min']:.1f}", f"{f['throughput_vs_first']:.2f}",
                          f"{f['success_rate']:.0%}", f"{f['latency_s_p50']:.1f} s", f"{f['latency_s_p95']:.1f} s",
                          f"{f['planner_queue_s_mean']:.1f} s")
        Console().print(table)
    return 0
