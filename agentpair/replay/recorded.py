"""Recorded stand-ins for replay: a planner, executor and environment that serve a trace's calls
back in order, and checked wrappers for live parts; each checks every new request against the
recorded one and raises DivergenceError at the first difference."""

from __future__ import annotations

import time
from collections import deque
from typing import Any, Literal, NoReturn

from pydantic import BaseModel, ConfigDict, Field

from agentpair.executor.protocol import Executor
from agentpair.models import FillRequest, FillResult, Plan
from agentpair.planner.grounding.layer import Grounding
from agentpair.planner.request import PlannerError, PlanReply, PlanRequest
from agentpair.tracing.reader import RunTree, SpanRecord, decode
from agentpair.tracing.redaction import Redactor
from agentpair.tracing.spans import attr_value, plain
from agentpair.tools.base import Environment, Observation, Tool, ToolResult

DivergenceKind = Literal["planner_request", "fill_request", "tool_call", "observation", "outcome"]
PLAN_REQUEST_FIELDS = ("goal", "url", "title", "page", "memory", "history")
OBSERVATION_FIELDS = ("url", "title", "snapshot", "text", "refs")


class Divergence(BaseModel):
    """Where a replay first did something else than the recorded run, and what differed."""

    iteration: int = Field(description="the loop iteration (0: before the first planner call)")
    step: int = Field(description="the call's place in its iteration: 1 the planner, then fills, tools, observes")
    kind: DivergenceKind
    span: str = Field("", description="the recorded span it was checked against")
    message: str
    expected: Any = Field(None, description="the recorded values that differ (None: no such call recorded)")
    actual: Any = Field(None, description="the replay's values for them")


class DivergenceError(Exception):
    def __init__(self, divergence: Divergence) -> None:
        super().__init__(divergence.message)
        self.divergence = divergence


class EndOfRecording(Exception):
    """A recording of an unfinished run has no more calls: the replay stops there."""


class FillComparison(BaseModel):
    """A what-if executor's answer to one recorded fill, next to the recorded one."""

    iteration: int
    requests: int
    equal: bool
    recorded: list[Any]
    actual: list[Any]
    recorded_ms: float
    replay_ms: float


class Recording:
    """A trace's calls as queues, and the replay's position: iteration, and step within it
    (1 is the planner call, then each fill, tool call and observe in order)."""

    def __init__(self, tree: RunTree, redactor: Redactor) -> None:
        self.tree = tree
        self.redactor = redactor
        self.queues: dict[str, deque[SpanRecord]] = {
            "planner_request": deque(tree.planner_calls()), "fill_request": deque(tree.fills()),
            "tool_call": deque(tree.tool_calls()), "observation": deque(tree.observations())}
        self.iteration = 0
        self.step = 0

    def remaining(self) -> int:
        return sum(len(q) for q in self.queues.values())

    def normal(self, value: Any) -> Any:
        """A value as the trace would hold it: secrets redacted, through JSON and back."""
        return decode(attr_value(self.redactor.value(plain(value))))

    def next(self, kind: DivergenceKind, actual: Any) -> SpanRecord:
        """Advance to the replay's next call of this kind; return the recorded call it must match."""
        if kind == "planner_request":
            self.iteration, self.step = self.iteration + 1, 1
        else:
            self.step += 1
        queue = self.queues[kind]
        if queue:
            return queue.popleft()
        if not self.tree.complete:
            raise EndOfRecording(f"the recording ends before {kind.replace('_', ' ')} "
                                 f"{self.iteration}.{self.step}")
        self.diverge(kind, "", f"the recorded run made no further {kind.replace('_', ' ')}", None, actual)

    def diverge(self, kind: DivergenceKind, span: str, message: str, expected: Any, actual: Any) -> NoReturn:
        raise DivergenceError(Divergence(iteration=self.iteration, step=self.step, kind=kind, span=span,
                                         message=message, expected=expected, actual=actual))

    def check(self, kind: DivergenceKind, span: str, expected: Any, actual: Any) -> None:
        fields, expected_part, actual_part = difference(expected, actual)
        if fields is not None:
            where = f" in {', '.join(fields)}" if fields else ""
            self.diverge(kind, span, f"{kind.replace('_', ' ')} differs from the recorded one{where} "
                                          f"(iteration {self.iteration}, step {self.step})",
                         expected_part, actual_part)


def difference(expected: Any, actual: Any, prefix: str = "") -> tuple[list[str] | None, Any, Any]:
    """(differing fields, or None when equal; the expected and actual parts that differ)."""
    if expected == actual:
        return None, None, None
    if isinstance(expected, dict) and isinstance(actual, dict):
        keys = [k for k in {**expected, **actual} if expected.get(k) != actual.get(k)]
        return ([prefix + k for k in keys], {k: expected.get(k) for k in keys},
                {k: actual.get(k) for k in keys})
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        index = next(i for i, (e, a) in enumerate(zip(expected, actual)) if e != a)
        return difference(expected[index], actual[index], f"{prefix}[{index}].")
    return [prefix.rstrip(".")] if prefix else [], expected, actual


def pick(data: Any, fields: tuple[str, ...]) -> dict[str, Any]:
    return {k: data.get(k) for k in fields} if isinstance(data, dict) else {}


def recorded_error(span: SpanRecord) -> str:
    """A failed span's error message, without the exception type the tracer put in front."""
    message = span.status_message or "failed"
    name, _, rest = message.partition(": ")
    return rest if rest and name.isidentifier() else message


class RecordedPlanner:
    """Answers each planner call with the recorded plan, after checking the request."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self._identity = dict(recording.tree.header.planner)
        self.name = str(self._identity.get("name") or self._identity.get("model") or "recorded")
        # the loop takes forced steps and refuses steps as the recorded planner's grounding did (traces
        # before it had modes said "grounded": true or false)
        legacy = self._identity.get("grounded", self._identity.get("kind") == "embedded-llamacpp")
        self.grounding = Grounding(self._identity.get("grounding", "heuristic" if legacy else None))

    def identity(self) -> dict[str, Any]:
        return dict(self._identity)

    async def plan(self, request: PlanRequest) -> PlanReply:
        actual = pick(self.recording.normal(request), PLAN_REQUEST_FIELDS)
        span = self.recording.next("planner_request", actual)
        expected = pick(span.data("agentpair.plan_request"), PLAN_REQUEST_FIELDS)
        self.recording.check("planner_request", span.name, expected, actual)
        if span.status == "ERROR":
            raise PlannerError(recorded_error(span))
        return PlanReply(plan=Plan.model_validate(span.data("agentpair.plan")),
                         model=str(span.attr("gen_ai.response.model", "")),
                         input_tokens=span.attr("gen_ai.usage.input_tokens", 0),
                         output_tokens=span.attr("gen_ai.usage.output_tokens", 0),
                         raw=str(span.attr("agentpair.response", "")))


def fill_span(recording: Recording, requests: list[FillRequest]) -> SpanRecord:
    """The recorded fill these requests must match (checked)."""
    actual = recording.normal(requests)
    span = recording.next("fill_request", actual)
    recording.check("fill_request", span.name, span.data("agentpair.fill_requests", []), actual)
    return span


def recorded_results(span: SpanRecord) -> list[FillResult]:
    if span.status == "ERROR":
        raise RuntimeError(recorded_error(span))
    return [FillResult.model_validate(r) for r in span.data("agentpair.fill_results", [])]


class RecordedExecutor:
    """Answers each fill with the recorded results, after checking the requests."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        fills = recording.tree.fills()
        self.name = str(fills[0].attr("agentpair.executor") if fills else "recorded")
        self._identity = dict(recording.tree.header.executor)

    def identity(self) -> dict[str, Any]:
        return dict(self._identity)

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        return recorded_results(fill_span(self.recording, requests))


class ComparedExecutor:
    """A what-if executor on the recorded requests: checks them, then compares its answers."""

    def __init__(self, inner: Executor, recording: Recording) -> None:
        self.inner = inner
        self.recording = recording
        self.name = inner.name
        self.calls = 0
        self.comparisons: list[FillComparison] = []

    def identity(self) -> dict[str, Any]:
        return self.inner.identity() if hasattr(self.inner, "identity") else {"name": self.inner.name}

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        span = fill_span(self.recording, requests)
        started = time.perf_counter()
        self.calls += 1
        results = await self.inner.fill(requests)
        replay_ms = (time.perf_counter() - started) * 1e3
        recorded = [r.value for r in recorded_results(span)]
        actual = [self.recording.normal(r.value) for r in results]
        self.comparisons.append(FillComparison(
            iteration=self.recording.iteration, requests=len(requests), equal=recorded == actual,
            recorded=recorded, actual=actual, recorded_ms=span.duration_s * 1e3, replay_ms=replay_ms))
        return results


class _ServedTool(Tool):
    """A tool whose calls go through `run` with their raw arguments (checked there)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    schema_: dict[str, Any]

    def args_schema(self) -> dict[str, Any]:
        return self.schema_

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        return await self.run(arguments)  # type: ignore[arg-type]


class _AnyArgs(BaseModel):
    model_config = ConfigDict(extra="allow")


def _tool_call(recording: Recording, name: str, arguments: Any) -> SpanRecord:
    actual = {"name": name, "arguments": recording.normal(arguments)}
    span = recording.next("tool_call", actual)
    expected = {"name": span.attr("gen_ai.tool.name"), "arguments": span.data("gen_ai.tool.call.arguments")}
    recording.check("tool_call", span.name, expected, actual)
    return span


class RecordedEnvironment:
    """Serves the recorded observations and tool results in order, checking each tool call."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        tree = recording.tree
        self._tools = [_ServedTool(name=t["name"], description=t.get("description", ""), args_model=_AnyArgs,
                                   run=self._serve(t["name"]), schema_=t.get("args_schema", {"type": "object"}))
                       for t in tree.header.tools]

    async def start_task(self, start_url: str | None = None, allowed_origins: Any = (),
                         secrets: dict[str, str] | None = None) -> None:
        """Nothing to start: the recorded observations already show the start page."""

    async def observe(self) -> Observation:
        span = self.recording.next("observation", None)
        return Observation.model_validate(span.data("agentpair.observation", {}))

    def tools(self) -> list[Tool]:
        return list(self._tools)

    def _serve(self, name: str) -> Any:
        async def serve(arguments: Any) -> ToolResult:
            span = _tool_call(self.recording, name, arguments)
            if span.status == "ERROR":
                raise RuntimeError(recorded_error(span))
            return ToolResult.model_validate(span.data("gen_ai.tool.call.result"))

        return serve


class CheckedEnvironment:
    """A live environment whose observations and tool calls are checked against the recording."""

    def __init__(self, inner: Environment, recording: Recording) -> None:
        self.inner = inner
        self.recording = recording

    async def start_task(self, start_url: str | None = None, allowed_origins: Any = (),
                         secrets: dict[str, str] | None = None) -> None:
        if hasattr(self.inner, "start_task"):
            await self.inner.start_task(start_url=start_url, allowed_origins=allowed_origins,  # type: ignore[attr-defined]
                                        secrets=secrets)

    async def observe(self) -> Observation:
        observation = await self.inner.observe()
        actual = pick(self.recording.normal(observation), OBSERVATION_FIELDS)
        span = self.recording.next("observation", actual)
        expected = pick(span.data("agentpair.observation"), OBSERVATION_FIELDS)
        self.recording.check("observation", span.name, expected, actual)
        return observation

    def tools(self) -> list[Tool]:
        """The live tools under the argument schemas the run recorded, so the executor is asked
        what it was asked then even where a tool's schema has changed since (e.g. `x-roles`)."""
        recorded = {t["name"]: t.get("args_schema") for t in self.recording.tree.header.tools}
        return [_ServedTool(name=t.name, description=t.description, args_model=t.args_model,
                            run=self._checked(t), schema_=recorded.get(t.name) or t.args_schema())
                for t in self.inner.tools()]

    def _checked(self, tool: Tool) -> Any:
        async def call(arguments: Any) -> ToolResult:
            span = _tool_call(self.recording, tool.name, arguments)
            result = await tool(arguments)
            recorded = span.data("gen_ai.tool.call.result", {})
            recorded = recorded if isinstance(recorded, dict) else {}
            if result.ok != recorded.get("ok"):
                self.recording.check("tool_call", span.name, {"ok": recorded.get("ok"), "error": recorded.get("error")},
                                     {"ok": result.ok, "error": result.error})
            return result

        return call
