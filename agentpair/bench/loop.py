"""`agentpair bench loop`: the pairing measured against a single-model agent, side by side.

One planner, started once, drives three configurations for each scenario and run, interleaved
forward and back (paired, single_model, ar_executor, then ar_executor, single_model, paired, ...),
so that machine drift, and the planner's prompt cache left by the run before, hit all alike; each
scenario and run is on one site address, so that the planner's prompts differ only by what the
configurations did:

- paired: the planner + the default executor (the shipped diffusion model);
- single_model: the planner writes every tool call itself, no executor (agentpair.planner.single_model);
- ar_executor: the planner + the AR baseline executor, which isolates what diffusion decoding buys.

Every run is traced, and all figures are read back from the trace files: wall time (start-up
excluded), its split into planner, executor, tools and framework, planner calls and tokens,
executor forward passes, span counts. Tracing overhead is measured directly, not as a difference
of noisy end-to-end times: the cost of one span (agentpair.bench.tracing) times a run's spans,
over that run's wall time. Counts and the split are means per run; wall time is the median.

The running of configurations (`run_configs`), the per-run figures (`loop_run`, `run_stats`) and
the choice of scenarios (`scenario_names`) are shared with `agentpair bench scenarios`
(agentpair.bench.scenarios), which runs the paired configuration alone.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import statistics
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from rich.console import Console
from rich.table import Table

from agentpair.tracing.reader import RunTree, load_trace
from agentpair.tracing.summary import summarize

CONFIGS = {
    "paired": "planner + diffusion executor (the default)",
    "single_model": "the planner writes each tool call; no executor",
    "ar_executor": "planner + AR baseline executor",
}
CATEGORIES = ("planner", "executor", "tools", "framework")
console = Console(stderr=True)


class LoopRun(BaseModel):
    """One traced run of one configuration, as read back from its trace."""

    config: str
    scenario: str
    run: int
    success: bool
    wall_s: float
    split_s: dict[str, float]
    planner_calls: int
    planner_input_tokens: int
    planner_output_tokens: int
    executor_forward_passes: int
    tool_calls: int = Field(0, description="the steps that acted in the browser")
    spans: int
    stop_reason: str = ""
    reasons: list[str] = Field(default_factory=list, description="why the scenario's check failed")
    trace: str


def loop_run(config: str, scenario: str, run: int, success: bool, tree: RunTree,
             reasons: Sequence[str] = ()) -> LoopRun:
    summary = summarize(tree)
    return LoopRun(
        config=config, scenario=scenario, run=run, success=success, wall_s=summary.wall_s,
        split_s={c: summary.categories_s.get(c, 0.0) for c in CATEGORIES},
        planner_calls=summary.planner_calls, planner_input_tokens=summary.planner_input_tokens,
        planner_output_tokens=summary.planner_output_tokens,
        executor_forward_passes=summary.executor_forward_passes, tool_calls=summary.tool_calls,
        spans=sum(1 for s in tree.spans if s.category != "startup"),
        stop_reason=summary.stop_reason or "", reasons=list(reasons), trace=tree.path,
    )


def run_stats(runs: list[LoopRun]) -> dict[str, Any]:
    """Success rate, median wall time, means per run (calls, tokens, passes, the split) over `runs`."""

    def mean(value: Callable[[LoopRun], float]) -> float:
        return sum(value(r) for r in runs) / len(runs)

    wall = sum(r.wall_s for r in runs)
    return {
        "runs": len(runs),
        "success_rate": mean(lambda r: float(r.success)),
        "wall_s_p50": statistics.median(r.wall_s for r in runs),
        "planner_calls": mean(lambda r: r.planner_calls),
        "planner_calls_per_run": mean(lambda r: r.planner_calls),  # issue 37's names for the same means
        "steps_per_run": mean(lambda r: r.tool_calls),
        "planner_share_pct": sum(r.split_s["planner"] for r in runs) / wall * 100 if wall > 0 else 0.0,
        "planner_tokens": {"input": mean(lambda r: r.planner_input_tokens),
                           "output": mean(lambda r: r.planner_output_tokens)},
        "executor_forward_passes": mean(lambda r: r.executor_forward_passes),
        "split_s": {c: mean(lambda r, c=c: r.split_s[c]) for c in CATEGORIES},
        "framework_pct": sum(r.split_s["framework"] for r in runs) / wall * 100 if wall > 0 else 0.0,
        "spans_p50": statistics.median(r.spans for r in runs),
    }


def config_stats(runs: list[LoopRun], us_per_span: float) -> dict[str, Any]:
    """One configuration's figures over its runs, with its tracing overhead (median over runs)."""
    tracing = [us_per_span * r.spans / 1e6 / r.wall_s * 100 for r in runs if r.wall_s > 0]
    return {"description": CONFIGS[runs[0].config], **run_stats(runs),
            "tracing_pct": statistics.median(tracing) if tracing else 0.0}


def _ratio(configs: dict[str, dict[str, Any]], other: str) -> float | None:
    if "paired" not in configs or other not in configs or configs[other]["wall_s_p50"] <= 0:
        return None
    return configs["paired"]["wall_s_p50"] / configs[other]["wall_s_p50"]


def _block(runs: list[LoopRun], us_per_span: float) -> dict[str, Any]:
    configs = {c: config_stats([r for r in runs if r.config == c], us_per_span)
               for c in CONFIGS if any(r.config == c for r in runs)}
    return {"configs": configs, "wall_ratio_paired_vs_single_model": _ratio(configs, "single_model"),
            "wall_ratio_paired_vs_ar_executor": _ratio(configs, "ar_executor")}


def pair_ratios(runs: list[LoopRun]) -> dict[str, dict[str, Any]]:
    """Per other configuration, over the scenario runs both ran: the median of paired wall / its
    wall, and in how many the paired run was faster. Run by run on the same prompts, this moves
    less with which runs land mid-list than a ratio of two medians does."""
    by_cell: dict[tuple[str, int], dict[str, float]] = {}
    for r in runs:
        by_cell.setdefault((r.scenario, r.run), {})[r.config] = r.wall_s
    result = {}
    for other in (c for c in CONFIGS if c != "paired"):
        pairs = [(cell["paired"], cell[other]) for cell in by_cell.values()
                 if "paired" in cell and cell.get(other, 0) > 0]
        if pairs:
            result[other] = {"pairs": len(pairs), "ratio_p50": statistics.median(a / b for a, b in pairs),
                             "paired_faster": sum(a < b for a, b in pairs)}
    return result


def aggregate(runs: list[LoopRun], us_per_span: float) -> dict[str, Any]:
    """Overall and per-scenario figures; the overheads are the paired configuration's (the product)."""
    overall = _block(runs, us_per_span)
    paired = overall["configs"].get("paired", {})
    scenarios = list(dict.fromkeys(r.scenario for r in runs))
    return {
        **overall,
        "pair_ratios": pair_ratios(runs),
        "framework_overhead_pct": paired.get("framework_pct"),
        "tracing_overhead_pct": paired.get("tracing_pct"),
        "tracing_us_per_span": us_per_span,
        "per_scenario": {s: _block([r for r in runs if r.scenario == s], us_per_span) for s in scenarios},
        "runs": [r.model_dump() for r in runs],
    }


def scenario_names(spec: str) -> list[str]:
    """`all` or comma-separated names -> scenario names, each checked to load (UsageError if not)."""
    from agentpair.scenarios import loader as scenarios
    from agentpair.errors import UsageError

    names = scenarios.list_names() if spec == "all" else [n.strip() for n in spec.split(",")]
    try:
        for name in names:
            scenarios.load(name)
    except scenarios.ScenarioError as exc:
        raise UsageError(str(exc)) from exc
    return names


def planner_label(planner: Any) -> str:
    identity = planner.identity() if hasattr(planner, "identity") else {}
    return str(identity.get("model") or planner.name)


def planner_identity(planner: Any) -> dict[str, Any]:
    """The planner as the report names it: model and, for the embedded one, its adapter."""
    identity = planner.identity() if hasattr(planner, "identity") else {}
    return {"model": planner_label(planner), "lora": identity.get("lora")}


async def _executor(config: str) -> Any:
    """The executor a configuration runs with (None for the single model)."""
    from agentpair.agent import defaults
    from agentpair.executor.ar import ARBaselineExecutor

    if config == "paired":
        return await defaults.default_executor()
    return await asyncio.to_thread(ARBaselineExecutor) if config == "ar_executor" else None


def site_port() -> int:
    """A free loopback port below the kernel's ephemeral range (32768 up), so no client socket
    takes it between the configurations that serve a scenario's site on it in turn."""
    while True:
        port = random.randrange(20000, 32768)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


def config_order(configs: Sequence[str], cell: int) -> list[str]:
    """The order of the configurations in the `cell`-th scenario run: as given, then reversed.

    The planner's server keeps the last prompt's cache, and the single model's prompt starts
    differently: in a fixed order the configuration after it paid for the whole system prompt
    on every first call (0.6 s a run), the other never. Back and forth, each pays half the time.
    """
    return list(configs) if cell % 2 == 0 else list(reversed(configs))


async def run_configs(planner: Any, names: list[str], runs: int, max_steps: int | None, trace_dir: Path,
                      configs: Sequence[str] = tuple(CONFIGS),
                      on_run: Callable[[LoopRun], None] = lambda run: None,
                      single_planner: Any = None) -> tuple[list[LoopRun], float]:
    """Run every scenario `runs` times in each of `configs`, interleaved, each run traced under
    `trace_dir`; returns the runs as read back from their traces and the start-up time.
    `single_planner`: the one the single-model configuration asks (default: `planner`).

    The executors and the browser are started here (once) and closed at the end; the planners are
    the caller's to close.
    """
    from agentpair.agent import defaults
    from agentpair.scenarios import loader as scenarios
    from agentpair.agent.loop import Agent
    from agentpair.scenarios.runner import run_scenario

    chosen = [scenarios.load(name) for name in names]
    if max_steps:
        chosen = [s.model_copy(update={"max_steps": max_steps}) for s in chosen]
    started = time.perf_counter()
    executors = {c: await _executor(c) for c in configs}
    browser = await defaults.default_browser()
    rows: list[LoopRun] = []
    try:
        agents = {c: Agent(single_planner or planner if c == "single_model" else planner, executors[c], browser,
                           single_model=c == "single_model") for c in configs}
        for agent in agents.values():
            await agent.start()  # the planners' servers start here, once: outside every wall time
        startup_s = time.perf_counter() - started
        trace_dir.mkdir(parents=True, exist_ok=True)
        cells = [(run, scenario) for run in range(1, runs + 1) for scenario in chosen]
        for cell, (run, scenario) in enumerate(cells):
            port = site_port()  # one site address for all configurations: the planner reads it
            # in every prompt, and a different port number alone can flip its greedy choices
            for config in config_order(configs, cell):
                agent = agents[config]
                path = trace_dir / f"{scenario.name}-{run}-{config}.jsonl"
                report, _ = await run_scenario(scenario, agent, trace=str(path), port=port)
                rows.append(loop_run(config, scenario.name, run, report.success, load_trace(path), report.reasons))
                on_run(rows[-1])
    finally:
        await browser.close()
    return rows, startup_s


async def bench_loop(planner: Any, names: list[str], runs: int, max_steps: int | None, trace_dir: Path,
                     on_run: Callable[[LoopRun], None] = lambda run: None,
                     single_planner: Any = None) -> dict[str, Any]:
    """Run every scenario `runs` times in each configuration, interleaved, and aggregate the traces."""
    from agentpair.bench.tracing import bench_tracing

    rows, startup_s = await run_configs(planner, names, runs, max_steps, trace_dir, on_run=on_run,
                                        single_planner=single_planner)
    tracing = await asyncio.to_thread(bench_tracing)
    single = single_planner or planner
    return {"planner": planner_label(planner), "single_model_planner": planner_identity(single),
            "scenarios": names, "runs_per_scenario": runs,
            "max_steps": max_steps, "startup_s": startup_s, "trace_dir": str(trace_dir),
            **aggregate(rows, tracing["tracing_us_per_span"])}


def _print_tables(report: dict[str, Any]) -> None:
    out = Console()
    table = Table(title=f"agentpair bench loop: {report['planner']}, {', '.join(report['scenarios'])}, "
                        f"{report['runs_per_scenario']} run(s) each")
    for column in ("config", "success", "wall p50", "planner calls", "tokens in/out", "fwd passes",
                   *CATEGORIES):
        table.add_column(column, justify="left" if column == "config" else "right")
    for name, stats in report["configs"].items():
        split = stats["split_s"]
        table.add_row(name, f"{stats['success_rate']:.0%}", f"{stats['wall_s_p50']:.1f} s",
                      f"{stats['planner_calls']:.1f}",
                      f"{stats['planner_tokens']['input']:.0f}/{stats['planner_tokens']['output']:.0f}",
                      f"{stats['executor_forward_passes']:.0f}", *(f"{split[c]:.1f} s" for c in CATEGORIES))
    out.print(table)
    for scenario, block in report["per_scenario"].items():
        walls = ", ".join(f"{c} {s['wall_s_p50']:.1f} s ({s['success_rate']:.0%})" for c, s in block["configs"].items())
        out.print(f"{scenario}: {walls}", highlight=False)
    ratio = lambda value: "n/a" if value is None else f"{value:.2f}"
    out.print(f"wall ratio paired / single model: {ratio(report['wall_ratio_paired_vs_single_model'])}; "
              f"paired / AR executor: {ratio(report['wall_ratio_paired_vs_ar_executor'])}\n"
              + "".join(f"per scenario run, paired / {other}: median {p['ratio_p50']:.2f}, paired faster in "
                        f"{p['paired_faster']} of {p['pairs']}\n" for other, p in report["pair_ratios"].items())
              + f"framework overhead {report['framework_overhead_pct']:.2f}% of wall time; tracing overhead "
              f"{report['tracing_overhead_pct']:.2f}% ({report['tracing_us_per_span']:.0f} us per span)\n"
              f"plot: {report['plot']}; traces: {report['trace_dir']}", highlight=False)


def _single_model_planner(planner: Any, lora: str | None) -> Any:
    """The single-model configuration's planner: for the embedded one, the same model with the
    adapter trained on single-model steps as well (or `lora`); a planner endpoint answers both."""
    from agentpair.planner.embedded import EmbeddedPlanner
    from agentpair.errors import UsageError

    if not isinstance(planner, EmbeddedPlanner):
        if lora:
            raise UsageError("--single-model-lora is an adapter for the embedded planner; it cannot go with "
                             "a planner endpoint")
        return None
    return EmbeddedPlanner(lora=Path(lora)) if lora else EmbeddedPlanner(single_model=True)


async def main(args: argparse.Namespace, planner: Any) -> int:
    """The `agentpair bench loop` command: progress on stderr, then a table (or JSON on stdout)."""
    import importlib.util
    import json

    from agentpair.errors import UsageError
    from agentpair.bench.plot_split import plot_split

    if importlib.util.find_spec("matplotlib") is None:
        raise UsageError("the plot needs matplotlib: pip install 'agentpair[bench]'")
    names = scenario_names(args.scenarios)
    total = len(names) * args.runs * len(CONFIGS)
    done: list[LoopRun] = []

    def progress(run: LoopRun) -> None:
        done.append(run)
        console.print(f"[dim]{len(done)}/{total}[/dim] {run.scenario} run {run.run} [bold]{run.config}[/bold]: "
                      f"{'[green]success[/green]' if run.success else '[red]failed[/red]'} in {run.wall_s:.1f} s "
                      f"(planner {run.split_s['planner']:.1f} s, executor {run.split_s['executor']:.1f} s) "
                      f"{run.stop_reason}", highlight=False)

    single_planner = _single_model_planner(planner, args.single_model_lora)
    trace_dir = Path("runs") / f"bench-loop-{datetime.now():%Y%m%d-%H%M%S}"
    console.print("starting the planner, both executors and Chromium (not timed)")
    try:
        report = await bench_loop(planner, names, args.runs, args.max_steps, trace_dir, progress, single_planner)
    finally:
        for each in (planner, single_planner):
            if hasattr(each, "aclose"):
                await each.aclose()
    title = f"time split per run: {', '.join(names)} ({args.runs} run(s) each), planner {report['planner']}"
    report["plot"] = str(plot_split(report["configs"], args.plot, title))
    if args.json:
        print(json.dumps(report))
    else:
        _print_tables(report)
    return 0
