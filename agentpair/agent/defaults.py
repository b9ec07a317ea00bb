"""The embedded defaults: which planner, executor and browser an Agent gets when given none."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from agentpair.executor import Executor, OpenAIExecutor
from agentpair.planner.request import Planner
from agentpair.planner.client import OpenAIPlanner
from agentpair.tools.base import Environment


def default_planner(single_model: bool = False, slots: int = 1, **options: Any) -> Planner:
    """OpenAIPlanner on OPENAI_BASE_URL when set, else the embedded llama.cpp planner (with the
    adapter for single-model mode when `single_model`, decoding `slots` calls side by side for runs
    at once); `options` go to OpenAIPlanner (timeout_s, ...)."""
    if os.environ.get("OPENAI_BASE_URL"):
        return OpenAIPlanner(**options)
    from agentpair.planner.embedded import EmbeddedPlanner

    return EmbeddedPlanner(single_model=single_model, slots=slots, **options)


async def default_executor() -> Executor:
    """AGENTPAIR_EXECUTOR_BASE_URL when set, else the diffusion model shipped with agentpair."""
    if os.environ.get("AGENTPAIR_EXECUTOR_BASE_URL"):
        return OpenAIExecutor()
    from agentpair.executor.local import LocalDiffusionExecutor

    return await asyncio.to_thread(LocalDiffusionExecutor)


async def default_browser() -> Environment:
    from agentpair.tools.browser import Browser

    browser = Browser()
    await browser.start()
    return browser
