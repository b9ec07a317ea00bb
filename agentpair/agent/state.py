"""The mutable state of one agent run: its memory, records, and the steps that changed nothing,
failed, or led back to a page it had planned on, where (what the grounded schema offers no more)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import jsonschema

from agentpair.models import RunResult, Step, StepRecord, Task
from agentpair.planner.page_view import page_state
from agentpair.tools.base import Observation

STOPPED = "stopped: should_stop"  # the stop reason of a run its caller's should_stop ended


class RunState:
    """Mutable state of one run."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.memory: list[Any] = []
        self.records: list[StepRecord] = []
        self.iteration = 0
        self.answer: Any = None
        self.unchanged: dict[str, list[str]] = {}  # page_state -> act steps that left that page as it was
        self.planned_on: set[str] = set()  # the page states the run planned on
        self.inert: dict[str, Counter[str]] = {}  # URL (no fragment) -> how often each step left it as it was
        self.finished = False
        self.stop_reason = ""
        self.should_stop: Callable[[], Awaitable[bool]] | None = None  # Agent.run's, read after each tool call

    def left_as_it_was(self, observation: Observation, instruction: str) -> None:
        self.unchanged.setdefault(page_state(observation), []).append(instruction)
        self.inert.setdefault(observation.url.split("#")[0], Counter())[instruction] += 1

    def moved(self, before: Observation, after: Observation, instruction: str) -> None:
        """A step that changed the page or failed: where it left the page as it was (a go back with
        nowhere to go), or led back to a page the run planned on before (a menu toggled shut), it is
        not offered again where it was taken, so that the run does not go round."""
        if (state := page_state(after)) == page_state(before) or state in self.planned_on:
            self.left_as_it_was(before, instruction)

    def unchanged_on(self, observation: Observation) -> list[str]:
        """The steps not to offer again here: those that left this very page state as it was, and
        those that did so twice on this URL in any state (a "Save for later" that never does a thing)."""
        twice = [i for i, n in self.inert.get(observation.url.split("#")[0], Counter()).items() if n >= 2]
        return list(dict.fromkeys([*self.unchanged.get(page_state(observation), []), *twice]))

    def steps_done(self) -> int:
        """Steps taken toward max_steps: not a finish, nor a click refused before it ran (premature_click)."""
        return sum(1 for r in self.records if r.step.kind != "finish" and not r.refused)

    def result(self, wall_s: float, startup_s: float, time_s: dict[str, float], trace_path: str | None) -> RunResult:
        """The run's outcome as it leaves the loop: answer, what was read, every step, the time split."""
        return RunResult(finished=self.finished, answer=self.answer, steps=self.records, iterations=self.iteration,
                         extracted=[r.output for r in self.records if r.step.kind == "extract" and r.ok],
                         stop_reason=self.stop_reason, wall_s=wall_s, startup_s=startup_s, time_s=time_s,
                         trace_path=trace_path)

    def finish(self, step: Step) -> StepRecord:
        """A finish step's record: its answer (else the last thing read) checked against the task's
        answer schema; a valid one ends the run."""
        answer = step.answer if step.answer is not None or not self.memory else self.memory[-1]
        record = StepRecord(iteration=self.iteration, step=step, output=answer)
        if self.task.output_schema is not None:
            try:
                jsonschema.validate(answer, self.task.output_schema)
            except jsonschema.ValidationError as exc:
                record.ok, record.error = False, f"answer does not match the output schema: {exc.message}"
        self.records.append(record)
        if record.ok:
            self.finished, self.answer, self.stop_reason = True, answer, "finished"
        return record
