"""The mutable state of one agent run: its memory, records, and the steps that changed nothing
where (what the grounded schema offers no more)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from agentpair.models import StepRecord, Task
from agentpair.planner.page_view import page_state
from tools.base import Observation


class RunState:
    """Mutable state of one run."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.memory: list[Any] = []
        self.records: list[StepRecord] = []
        self.iteration = 0
        self.answer: Any = None
        self.unchanged: dict[str, list[str]] = {}  # page_state -> act steps that left that page as it was
        self.inert: dict[str, Counter[str]] = {}  # URL (no fragment) -> how often each step left it as it was
        self.finished = False
        self.stop_reason = ""
        self.should_stop: Callable[[], Awaitable[bool]] | None = None  # Agent.run's, read after each tool call

    def left_as_it_was(self, observation: Observation, instruction: str) -> None:
        self.unchanged.setdefault(page_state(observation), []).append(instruction)
        self.inert.setdefault(observation.url.split("#")[0], Counter())[instruction] += 1

    def unchanged_on(self, observation: Observation) -> list[str]:
        """The steps not to offer again here: those that left this very page state as it was, and
        those that did so twice on this URL in any state (a "Save for later" that never does a thing)."""
        twice = [i for i, n in self.inert.get(observation.url.split("#")[0], Counter()).items() if n >= 2]
        return list(dict.fromkeys([*self.unchanged.get(page_state(observation), []), *twice]))
