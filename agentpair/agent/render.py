"""How an observation and the task's facts are rendered as the executor's context text.

One function, so the executor sees the same format at run time as in its training data.
"""

from __future__ import annotations

import json
from typing import Any

from agentpair.models import Task
from agentpair.tools.base import Observation, mask_secrets


def executor_context(task: Task, observation: Observation, memory: list[Any] | None = None) -> str:
    """The text the executor may read: task facts, memory and the page snapshot with refs (or, where
    the run has no page, its tools' latest results), every secret value (in any encoding
    mask_secrets knows) as its placeholder.

    The page's flat text is left out: the snapshot already holds every visible string, and
    the repeat would cost a third of the context's tokens on every fill."""
    lines = [f"Goal: {task.goal}"]
    if task.secrets:
        lines.append("Secrets: " + ", ".join("{{secret:" + name + "}}" for name in sorted(task.secrets)))
    if memory:
        lines.append("Memory: " + json.dumps(memory, ensure_ascii=False))
    if observation.kind == "results":
        lines.append("Results:\n" + observation.snapshot)
    else:
        lines += [f"URL: {observation.url}", f"Title: {observation.title}", "Snapshot:\n" + observation.snapshot]
    return mask_secrets("\n".join(lines), task.secrets)  # a secret written into the goal goes no further
