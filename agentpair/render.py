"""How an observation and the task's facts are rendered as the executor's context text.

One function, so the executor sees the same format at run time as in its training data.
"""

from __future__ import annotations

import json
from typing import Any

from agentpair.models import Task
from tools.base import Observation

TEXT_CHARS_FOR_EXECUTOR = 800


def executor_context(task: Task, observation: Observation, memory: list[Any] | None = None) -> str:
    """The text the executor may read: page snapshot with refs, visible text, task facts, memory."""
    lines = [f"Goal: {task.goal}"]
    if task.secrets:
        lines.append("Secrets: " + ", ".join("{{secret:" + name + "}}" for name in sorted(task.secrets)))
    if memory:
        lines.append("Memory: " + json.dumps(memory, ensure_ascii=False))
    lines.append(f"URL: {observation.url}")
    lines.append(f"Title: {observation.title}")
    lines.append("Snapshot:\n" + observation.snapshot)
    if observation.text:
        lines.append("Text:\n" + observation.text[:TEXT_CHARS_FOR_EXECUTOR])
    return "\n".join(lines)
