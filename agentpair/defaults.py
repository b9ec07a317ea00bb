"""The embedded defaults: which planner, executor and browser an Agent gets when given none."""

from __future__ import annotations

import os

from agentpair.executor import Executor, OpenAIExecutor
from agentpair.planner import OpenAIPlanner, Planner
from tools.base import Environment


def default_planner() -> Planner:
    """OpenAIPlanner on OPENAI_BASE_URL when set, else the embedded llama.cpp planner."""
    if os.environ.get("OPENAI_BASE_URL"):
        return OpenAIPlanner()
    from agentpair.embedded import EmbeddedPlanner

    return EmbeddedPlanner()


async def default_executor(planner: Planner) -> Executor:
    """AGENTPAIR_EXECUTOR_BASE_URL when set, else an OpenAIExecutor on the planner's endpoint."""
    if os.environ.get("AGENTPAIR_EXECUTOR_BASE_URL"):
        return OpenAIExecutor()
    if hasattr(planner, "server"):  # the embedded llama.cpp planner
        return OpenAIExecutor(base_url=planner.base_url, api_key="not-needed", structured_output="llamacpp")
    return OpenAIExecutor(base_url=getattr(getattr(planner, "endpoint", None), "base_url", None),
                          api_key=getattr(planner, "api_key", None))


async def default_browser() -> Environment:
    from tools.browser import Browser

    browser = Browser()
    await browser.start()
    return browser
