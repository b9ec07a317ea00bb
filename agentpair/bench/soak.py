"""`agentpair bench soak`: one bundled scenario run N times by one Agent in one process (`async with
Agent()`, the embedded defaults; `--concurrency` M: M runs at a time over its planner, executor and
Chromium), with this process's child processes, open file descriptors and
resident memory counted before and after: what a long-lived service that embeds the library would
leak. Linux: the counts are read from /proc."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentpair.scenarios.runner import ScenarioReport


class Resources(BaseModel):
    processes: int  # descendants of this process (the planner's server, Chromium's)
    by_name: dict[str, int]  # the same, counted by their command's name
    open_fds: int
    fds_by_kind: dict[str, int] = {}  # the same, by what they are: socket, pipe, anon_inode:[eventfd], file
    rss_mb: float  # this process
    tree_rss_mb: float  # this process and its descendants


def _parent(pid: str) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])  # the name may hold spaces and parentheses


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            children.setdefault(_parent(pid), []).append(int(pid))
        except (OSError, ValueError, IndexError):  # gone meanwhile
            continue
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _name(pid: int) -> str:
    """The process's command name, with Chromium's process type where it has one ("chromium renderer"),
    and a utility process's service ("chromium utility storage.mojom.StorageService")."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            name = f.read().strip()
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read()
    except OSError:
        return "?"
    kind = m.group(1).decode() if (m := re.search(rb"--type=([\w-]+)", cmdline)) else ""
    service = m.group(1).decode() if (m := re.search(rb"--utility-sub-type=([\w.-]+)", cmdline)) else ""
    return " ".join(p for p in (name, kind, service) if p)


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            kb = next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
    except OSError:
        return 0.0
    return kb / 1024


def fd_kinds() -> dict[str, int]:
    """This process's open files counted by kind: "socket", "pipe", an anon_inode's name, else "file"."""
    kinds: list[str] = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed since it was listed (the listing's own)
            continue
        kinds.append(target.split(":")[0] if target.startswith(("socket:", "pipe:")) else
                     target if target.startswith("anon_inode:") else "file")
    return {k: kinds.count(k) for k in sorted(set(kinds))}


def resources() -> Resources:
    """This process's resources now, after a garbage collection."""
    gc.collect()
    me = os.getpid()
    tree = descendants(me)
    own = _rss_mb(me)
    names = [_name(p) for p in tree]
    return Resources(processes=len(tree), by_name={n: names.count(n) for n in sorted(set(names))},
                     open_fds=len(os.listdir("/proc/self/fd")), fds_by_kind=fd_kinds(), rss_mb=round(own, 1),
                     tree_rss_mb=round(own + sum(_rss_mb(p) for p in tree), 1))


async def bench_soak(name: str, runs: int, on_run: Callable[[int, ScenarioReport], None] = lambda i, report: None,
                     concurrency: int = 1) -> dict[str, Any]:
    """Run scenario `name` once to warm up, count, run it `runs` times more (each traced to a
    temporary file, as a service would trace; this process's RSS after each), count again; then
    close the agent and count once more. With `concurrency` N, N runs go on at a time, each an
    Agent of its own over the first one's planner and executor, in a context of the first one's
    Chromium (Browser.sibling)."""
    from agentpair.agent.defaults import default_planner
    from agentpair.agent.loop import Agent
    from agentpair.scenarios.runner import run_beside
    from agentpair.scenarios import loader as scenarios
    from agentpair.scenarios.runner import run_scenario

    scenario = scenarios.load(name)
    successes, done = 0, 0
    with tempfile.TemporaryDirectory() as traces:
        async with Agent(planner=default_planner(slots=concurrency)) as agent:
            await run_scenario(scenario, agent, trace=str(Path(traces) / "warm-up.jsonl"))
            before, by_run = resources(), []
            gate = asyncio.Semaphore(concurrency)

            async def one(i: int) -> None:
                nonlocal successes, done
                trace = str(Path(traces) / f"{i}.jsonl")
                async with gate:
                    report, _ = await (run_beside(scenario, agent.planner, agent.executor, agent.browser, trace=trace)
                                       if concurrency > 1 else run_scenario(scenario, agent, trace=trace))
                successes += report.success
                by_run.append(round(_rss_mb(os.getpid()), 1))
                on_run(done, report)
                done += 1

            await asyncio.gather(*(one(i) for i in range(runs)))
            after = resources()
        closed = resources()
    return {"scenario": name, "runs": runs, "concurrency": concurrency, "successes": successes, "before": before.model_dump(),
            "after": after.model_dump(), "after_close": closed.model_dump(),
            "processes_delta": after.processes - before.processes, "open_fds_delta": after.open_fds - before.open_fds,
            "rss_growth_mb": round(after.rss_mb - before.rss_mb, 1),
            "tree_rss_growth_mb": round(after.tree_rss_mb - before.tree_rss_mb, 1), "rss_mb_by_run": by_run}
