"""Progress events the agent loop emits while it runs (shown live by the CLI)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

EventKind = Literal["plan", "step", "finish", "done"]


class AgentEvent(BaseModel):
    kind: EventKind
    iteration: int
    text: str
    ms: float = 0.0
