"""The agent loop (loop.py: observe -> plan -> fill -> act), its run state and events, what each plan
step asks the executor for (step_work, code_holes, render), and the embedded defaults (defaults)."""

from agentpair.agent.events import AgentEvent
from agentpair.agent.loop import Agent

__all__ = ["Agent", "AgentEvent"]
