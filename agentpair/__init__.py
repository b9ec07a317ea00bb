"""agentpair: an autoregressive planner paired with a diffusion executor, driving tools, traced."""

__version__ = "0.1.0"

from agentpair.agent import Agent  # noqa: E402
from agentpair.events import AgentEvent  # noqa: E402
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

__all__ = [
    "Agent", "AgentEvent", "Executor", "FillRequest", "FillResult", "FillStats", "OpenAIExecutor",
    "OpenAIPlanner", "Plan", "PlanReply", "PlanRequest", "Planner", "PlannerError", "RunResult",
    "Step", "StepRecord", "Task", "__version__",
]
