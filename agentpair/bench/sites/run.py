"""`agentpair bench sites`: every task template of the chosen families, drawn per seed, served on
loopback and run by the project's Agent; judged from what the site recorded and the answer's values.
Reads each run's trace for its planner calls and for the pages it saw (answer_grounded_pct)."""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from agentpair.progress import BENCH_COLUMNS, bench_trace_dir
from agentpair.bench.sites import SEEDS, SPLITS
from agentpair.bench.sites.base import Case, serve
from agentpair.bench.sites.judge import grounded, judge
from agentpair.errors import UsageError
from agentpair.tracing.reader import TraceError, load_trace

console = Console(stderr=True)


class SiteRun(BaseModel):
    """One task of one family on one seed, as the agent ran it and the site judged it."""

    family: str
    task: str
    seed: int
    goal: str
    success: bool
    steps: int
    wall_s: float
    planner_calls: int
    answer: Any = None
    question: bool
    grounded: bool | None = None
    stop_reason: str
    reasons: list[str]
    trace: str | None = None


def draw(family: str, task: str, seed: int) -> Case:
    """The case `task` of `family` draws for `seed`: the same site and goal every time."""
    return {**SPLITS["dev"], **SPLITS["report"]}[family][task](random.Random(f"{family}/{task}/{seed}"))


def family_names(split: str, names: str | None) -> list[str]:
    """The split's families, or those named (each must belong to the split)."""
    families = SPLITS[split]
    chosen = [n.strip() for n in names.split(",") if n.strip()] if names else list(families)
    unknown = [n for n in chosen if n not in families]
    if unknown:
        raise UsageError(f"no family {', '.join(unknown)} in the {split} split; it has {', '.join(families)}")
    return chosen


def read_trace(path: str | None) -> tuple[int, list[str]]:
    """(planner calls, the text of every page the run observed) from a run's trace."""
    if not path:
        return 0, []
    try:
        tree = load_trace(path)
    except TraceError:
        return 0, []
    seen = []
    for span in tree.observations():
        observation = span.data("agentpair.observation") or {}
        seen += [str(observation.get("text", "")), str(observation.get("snapshot", ""))]
    return len(tree.planner_calls()), seen


async def run_case(agent: Any, family: str, task: str, seed: int, max_steps: int, trace: str | bool) -> SiteRun:
    """Serve the drawn site, run its goal with `agent` from its start page, judge the outcome."""
    case = draw(family, task, seed)
    with serve(case.site) as base:
        result = await agent.run(case.goal, start_url=base + case.start, allowed_origins=[base], max_steps=max_steps,
                                 trace=trace, labels={"sites": family, "task": task, "seed": str(seed)})
    with case.site.lock:
        actions = list(case.site.actions)
    reasons = judge(case.expect, actions, result.answer)
    calls, seen = read_trace(result.trace_path)
    question = case.expect.answer is not None
    return SiteRun(family=family, task=task, seed=seed, goal=case.goal, success=not reasons, steps=len(result.steps),
                   wall_s=result.wall_s, planner_calls=calls, answer=result.answer, question=question,
                   grounded=grounded(result.answer, seen) if question and result.answer not in (None, "") else None,
                   stop_reason=result.stop_reason, reasons=reasons, trace=result.trace_path)


async def bench_sites(agent: Any, split: str, families: list[str], seeds: list[int], max_steps: int,
                      trace_dir: Path, on_run: Callable[[SiteRun], None] = lambda r: None) -> list[SiteRun]:
    """Every template of every family on every seed, one after another on one agent, each traced."""
    runs = []
    for family in families:
        for task in SPLITS[split][family]:
            for seed in seeds:
                trace = str(trace_dir / f"{family}-{task}-{seed}.jsonl")
                try:
                    run = await run_case(agent, family, task, seed, max_steps, trace)
                except Exception as exc:  # one broken run is reported, not the end of the benchmark
                    run = SiteRun(family=family, task=task, seed=seed, goal="", success=False, steps=0, wall_s=0.0,
                                  planner_calls=0, question=False, stop_reason=f"error: {type(exc).__name__}: {exc}"[:300],
                                  reasons=["the run raised"])
                on_run(run)
                runs.append(run)
    return runs


def stats(runs: list[SiteRun]) -> dict[str, Any]:
    answers = [r for r in runs if r.grounded is not None]
    return {"runs": len(runs), "success_rate": sum(r.success for r in runs) / len(runs),
            "steps": statistics.fmean(r.steps for r in runs), "wall_s": statistics.fmean(r.wall_s for r in runs),
            "wall_s_p50": statistics.median(r.wall_s for r in runs),
            "planner_calls": statistics.fmean(r.planner_calls for r in runs),
            "answers": len(answers),
            "answer_grounded_pct": 100 * sum(bool(r.grounded) for r in answers) / len(answers) if answers else None}


def aggregate(runs: list[SiteRun]) -> dict[str, Any]:
    """Totals (means per run), then per family and per family/task, then every run."""
    families = list(dict.fromkeys(r.family for r in runs))
    tasks = list(dict.fromkeys(f"{r.family}/{r.task}" for r in runs))
    return {**stats(runs), "per_family": {f: stats([r for r in runs if r.family == f]) for f in families},
            "per_task": {t: stats([r for r in runs if f"{r.family}/{r.task}" == t]) for t in tasks},
            "episodes": [r.model_dump() for r in runs]}


def _print_table(report: dict[str, Any]) -> None:
    table = Table(title=f"agentpair bench sites ({report['split']}): {report['planner']}, seeds {report['seeds']}")
    for column in ("family / task", "success", "steps", "planner calls", "wall", "grounded"):
        table.add_column(column, justify="left" if column == "family / task" else "right")
    rows = [*report["per_family"].items(), *report["per_task"].items(), ("all", report)]
    for name, s in rows:
        pct = "" if s["answer_grounded_pct"] is None else f"{s['answer_grounded_pct']:.0f}%"
        table.add_row(name, f"{s['success_rate']:.0%}", f"{s['steps']:.1f}", f"{s['planner_calls']:.1f}",
                      f"{s['wall_s']:.1f} s", pct, end_section=name in (list(report["per_family"])[-1], rows[-2][0]))
    Console().print(table)


async def main(args: argparse.Namespace, planner: Any) -> int:
    """The `agentpair bench sites` command: progress on stderr, then a table (or JSON on stdout)."""
    from agentpair.agent.loop import Agent
    from agentpair.bench.loop import planner_label

    families = family_names(args.split, args.families)
    seeds = args.seeds or list(SEEDS[args.split])
    total = sum(len(SPLITS[args.split][f]) for f in families) * len(seeds)
    trace_dir = bench_trace_dir(f"sites-{args.split}")
    console.print("starting the planner, the executor and Chromium (not timed)")
    async with Agent(planner=planner) as agent:
        with Progress(*BENCH_COLUMNS, console=console) as progress:
            bar = progress.add_task(f"{args.split} site tasks", total=total)

            def on_run(r: SiteRun) -> None:
                verdict = "[green]success[/green]" if r.success else "[red]failed[/red]"
                why = "" if r.success else f": {'; '.join(r.reasons)[:200]}"
                progress.console.print(f"{r.family}/{r.task} seed {r.seed}: {verdict}, {r.steps} steps, "
                                       + escape(f"{r.wall_s:.1f} s ({r.stop_reason}){why}"), highlight=False)
                progress.advance(bar)

            begun = time.perf_counter()
            runs = await bench_sites(agent, args.split, families, seeds, args.max_steps, trace_dir, on_run)
            wall_s = time.perf_counter() - begun
        label = planner_label(agent.planner)
    report = {"planner": label, "split": args.split, "families": families, "seeds": seeds,
              "max_steps": args.max_steps, "total_wall_s": wall_s, "trace_dir": str(trace_dir), **aggregate(runs)}
    if args.json:
        print(json.dumps(report, default=str))
    else:
        _print_table(report)
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", choices=list(SPLITS), default="dev",
                        help="dev: the families to develop on; report: held out, only read for figures")
    parser.add_argument("--families", help="families of the split, separated by commas (default: all of them)")
    parser.add_argument("--seeds", type=int, nargs="+",
                        help=f"seeds (default per split: dev {SEEDS['dev']}, report {SEEDS['report']})")
    parser.add_argument("--max-steps", type=int, default=20, metavar="N", help="steps per run")
    parser.add_argument("--json", action="store_true")
