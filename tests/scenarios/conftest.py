"""Scripted scenario runs: one Browser per module, a fresh scenario server per run, and steps
whose refs are given as (role, name) and resolved against the latest observation."""

from __future__ import annotations

from typing import Any

import pytest_asyncio

from agentpair.scenarios.loader import Verdict, load
from agentpair.tools.base import ToolResult
from agentpair.tools.browser import Browser
from agentpair.tools.snapshot import find_ref

Step = tuple[str, dict[str, Any]]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> Browser:
    async with Browser(navigation_timeout_ms=5000, action_timeout_ms=3000) as b:
        yield b


async def play(browser: Browser, name: str, steps: list[Step], answer: Any = None) -> tuple[Verdict, list[ToolResult]]:
    """Run steps on a fresh serving of scenario name and judge the run."""
    scenario = load(name)
    async with scenario.serve() as server:
        task = server.task()
        start = await browser.start_task(task.start_url, task.allowed_origins, task.secrets,
                                         secret_fields=scenario.secret_fields)
        assert start is not None and start.ok, start
        toolbox, results = browser.toolbox(), []
        for tool, args in steps:
            snapshot = (await browser.observe()).snapshot
            filled = {k: find_ref(snapshot, *v) if isinstance(v, tuple) else v for k, v in args.items()}
            results.append(await toolbox.get(tool)(filled))
        violations = [*browser.violations(), *server.violations]
        return await scenario.check(browser, answer, server.state, violations), results
