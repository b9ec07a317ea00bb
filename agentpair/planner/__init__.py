"""The planner: the client for any OpenAI-compatible model (client), what it is asked as data (request),
its view of a page (page_view), the grounded plan schema (grounding/), single-model mode and the
embedded default planner (embedded)."""

from agentpair.planner.client import OpenAIPlanner
from agentpair.planner.request import Planner, PlannerError, PlanReply, PlanRequest, ToolInfo

__all__ = ["OpenAIPlanner", "PlanReply", "PlanRequest", "Planner", "PlannerError", "ToolInfo"]
