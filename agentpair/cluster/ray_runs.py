"""Scenario runs on Ray: the executor and the embedded planner's server as actors that every run
shares, and one runner actor per run at a time, each with a Chromium of its own.

`RayRuns` is what agentpair.bench.concurrency drives: `start()` (a local cluster by `ray.init()`,
or the cluster at `address`), `runners(n)`, `run(scenario, path)` on the next idle runner (the
run's trace comes back as text and is written to `path` here), `close()`. Fills from all runs go
to the one executor actor, whose Batcher denoises those that wait together in the same forwards;
plans come from the one llama.cpp server, listening on its node's address.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Any

import ray

from agentpair.models import FillRequest, FillResult
from agentpair.scenarios.runner import ScenarioReport


@ray.remote(num_cpus=0)
class ExecutorActor:
    """The local diffusion executor, loaded once; every run's fills (an async actor: calls overlap)."""

    def __init__(self) -> None:
        import torch

        from agentpair.executor.local import LocalDiffusionExecutor

        torch.set_num_threads(os.cpu_count() or 1)  # as a process of its own would (Ray sets OMP_NUM_THREADS=1)
        self.executor = LocalDiffusionExecutor()

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        return await self.executor.fill(requests)


@ray.remote(num_cpus=0)
class PlannerActor:
    """The embedded planner's llama.cpp server (it dies with this actor's process)."""

    def __init__(self, slots: int) -> None:
        from agentpair.planner.embedded import EmbeddedPlanner

        self.planner = EmbeddedPlanner(host=ray.util.get_node_ip_address(), slots=slots)

    async def base_url(self) -> str:
        await self.planner.start()
        return self.planner.base_url


class RayExecutor:
    """An Executor whose fills go to an ExecutorActor."""

    name = "local-diffusion"

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    def identity(self) -> dict[str, Any]:
        return {"name": self.name, "on": "ray"}

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        return await self.actor.fill.remote(requests)


@ray.remote(num_cpus=0)
class RunnerActor:
    """One run at a time: an Agent with its own Chromium, the shared planner and executor."""

    def __init__(self, planner_url: str, executor: Any) -> None:
        from agentpair.planner.embedded import EmbeddedPlanner

        self.planner = EmbeddedPlanner(base_url=planner_url)
        self.executor = RayExecutor(executor)
        self.browser: Any = None

    async def start(self) -> None:
        from agentpair.tools.browser import Browser

        self.browser = Browser()
        await self.browser.start()
        await self.planner.start()

    async def run(self, name: str, max_steps: int | None) -> tuple[dict[str, Any], str]:
        """The scenario's report and its trace (JSONL text)."""
        from agentpair.scenarios import loader
        from agentpair.scenarios.runner import run_beside

        scenario = loader.load(name)
        if max_steps:
            scenario = scenario.model_copy(update={"max_steps": max_steps})
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "trace.jsonl"
            report, _ = await run_beside(scenario, self.planner, self.executor, self.browser, trace=str(path))
            return report.model_dump(), path.read_text()

    async def close(self) -> None:
        await self.planner.aclose()
        if self.browser is not None:
            await self.browser.close()


class RayRuns:
    """Scenario runs on a Ray cluster: a local one (`address` None), else the one at `address`."""

    def __init__(self, address: str | None = None, slots: int = 1) -> None:
        """slots: the planner actor's, the most runs that will ask it at once."""
        self.address = address
        self.slots = slots
        self.started_ray = False
        self.idle: asyncio.Queue[Any] = asyncio.Queue()
        self.all: list[Any] = []
        self.planner_url = ""
        self.executor: Any = None
        self.planner: Any = None

    async def start(self) -> None:
        if not ray.is_initialized():
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
            self.started_ray = True
        self.executor = ExecutorActor.remote()
        self.planner = PlannerActor.remote(self.slots)
        self.planner_url = await self.planner.base_url.remote()

    async def runners(self, n: int) -> None:
        """At least `n` runner actors, their browsers started."""
        while len(self.all) < n:
            actor = RunnerActor.remote(self.planner_url, self.executor)
            await actor.start.remote()
            self.all.append(actor)
            self.idle.put_nowait(actor)

    async def run(self, scenario: Any, path: Path, max_steps: int | None = None) -> ScenarioReport:
        actor = await self.idle.get()
        try:
            report, trace = await actor.run.remote(scenario.name, max_steps)
        finally:
            self.idle.put_nowait(actor)
        path.write_text(trace)
        return ScenarioReport.model_validate({**report, "trace": str(path)})

    async def close(self) -> None:
        """Close the runners' browsers, end every actor (the planner's server dies with its), and stop
        the cluster if this started it; a runner that fails to close is ended all the same."""
        await asyncio.gather(*(actor.close.remote() for actor in self.all), return_exceptions=True)
        for actor in [*self.all, self.executor, self.planner]:
            if actor is not None:
                ray.kill(actor)
        self.all.clear()
        self.executor = self.planner = None
        if self.started_ray:
            ray.shutdown()
            self.started_ray = False
