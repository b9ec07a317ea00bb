"""Runs a bundled scenario with an agent: serves its site, runs the task, judges the outcome."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from agentpair.agent.loop import Agent
from agentpair.models import RunResult

if TYPE_CHECKING:  # a Scenario runs itself through run_scenario
    from agentpair.scenarios.loader import Scenario


class ScenarioReport(BaseModel):
    """One scenario run as the CLI and the benchmarks report it."""

    scenario: str
    success: bool
    finished: bool
    answer: Any = None
    steps: int
    wall_s: float
    startup_s: float
    breakdown_s: dict[str, float] = Field(description="planner, executor, tools, framework")
    trace: str | None
    stop_reason: str = ""
    reasons: list[str] = Field(default_factory=list, description="why the check failed")
    violations: list[str] = Field(default_factory=list)


def report(name: str, success: bool, result: RunResult, reasons: list[str] = (),
           violations: list[str] = ()) -> ScenarioReport:
    return ScenarioReport(
        scenario=name, success=success, finished=result.finished, answer=result.answer,
        steps=len(result.steps), wall_s=result.wall_s, startup_s=result.startup_s,
        breakdown_s={k: result.time_s.get(k, 0.0) for k in ("planner", "executor", "tools", "framework")},
        trace=result.trace_path, stop_reason=result.stop_reason, reasons=list(reasons),
        violations=list(violations),
    )


async def run_scenario(scenario: Scenario, agent: Agent, trace: bool | str = True,
                       port: int = 0) -> tuple[ScenarioReport, RunResult]:
    """Serve the scenario's site (on `port`, a free one by default), run its task with `agent`,
    and judge the run with its check."""
    async with scenario.serve(port) as server:
        result = await agent.run(server.task(), trace=trace, labels={"scenario": scenario.name})
        browser = agent.browser
        safety = browser.violations() if hasattr(browser, "violations") else []
        verdict = await scenario.check(browser, result.answer, server.state, [*server.violations, *safety])
    return report(scenario.name, verdict.success, result, verdict.reasons, verdict.violations), result


async def run_beside(scenario: Scenario, planner: Any, executor: Any, chromium: Any,
                     **options: Any) -> tuple[ScenarioReport, RunResult]:
    """`run_scenario` by an Agent of its own over a shared planner and executor, in a browser context of
    its own in the shared Chromium (closed after), so that other runs can go on at the same time."""
    browser = chromium.sibling()
    try:
        return await run_scenario(scenario, Agent(planner, executor, browser), **options)
    finally:
        await browser.close()
