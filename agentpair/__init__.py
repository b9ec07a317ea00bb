"""agentpair: an autoregressive planner paired with a diffusion executor, driving tools, traced."""

from agentpair.version import __version__  # noqa: E402

from agentpair.agent import Agent, AgentEvent  # noqa: E402
from agentpair.executor import Executor, OpenAIExecutor  # noqa: E402
from agentpair.models import (  # noqa: E402
    FillRequest,
    FillResult,
    FillStats,
    Plan,
    RunResult,
    Step,
    StepRecord,
    Task,
)
from agentpair.planner import OpenAIPlanner, Planner, PlannerError, PlanReply, PlanRequest  # noqa: E402
from agentpair.tools.base import Environment, Observation, Tool, ToolResult  # noqa: E402
from agentpair.tools.functions import FunctionTools, tool  # noqa: E402

# loaded when first used: each pulls a heavy dependency (torch, llama.cpp's client, Chromium's driver)
_LAZY = {"LocalDiffusionExecutor": "agentpair.executor.local", "ARBaselineExecutor": "agentpair.executor.ar",
         "EmbeddedPlanner": "agentpair.planner.embedded", "Browser": "agentpair.tools.browser", "replay": "agentpair.replay.drive",
         "replay_sync": "agentpair.replay.drive", "scenarios": "agentpair.scenarios"}


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module 'agentpair' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(_LAZY[name])
    return module if name == "scenarios" else getattr(module, name)


__all__ = [
    "ARBaselineExecutor", "Agent", "AgentEvent", "Browser", "EmbeddedPlanner", "Environment", "Executor",
    "FillRequest", "FillResult", "FillStats", "FunctionTools", "LocalDiffusionExecutor", "Observation", "OpenAIExecutor",
    "OpenAIPlanner", "Plan", "PlanReply", "PlanRequest", "Planner", "PlannerError", "RunResult", "Step",
    "StepRecord", "Task", "Tool", "ToolResult", "__version__", "replay", "replay_sync", "scenarios", "tool",
]
