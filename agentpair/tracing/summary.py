"""Latency attribution of a traced run: wall time split by category, tool and iteration, the
critical path, and the planner's and executor's token counts (`summarize`)."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from agentpair.tracing.attribution import categorize, union_length
from agentpair.tracing.reader import RunTree, SpanRecord

Interval = tuple[str, float, float]
Offset = Callable[[int], float]


class IterationRow(BaseModel):
    number: int
    start_s: float = Field(description="offset from the start of the run")
    wall_s: float
    categories_s: dict[str, float]
    plan: list[str] = Field(default_factory=list, description="the planner's steps, one line each")
    tool_calls: list[str] = Field(default_factory=list)


class CriticalStep(BaseModel):
    name: str
    category: str
    start_s: float = Field(description="offset from the start of the run")
    duration_s: float


class TraceSummary(BaseModel):
    """Where a run's time went; the categories add up to `wall_s`."""

    path: str
    agent: str = ""
    planner: str = ""
    executor: str = ""
    goal: str = ""
    complete: bool
    finished: bool | None = None
    stop_reason: str | None = None
    wall_s: float
    categories_s: dict[str, float]
    shares: dict[str, float]
    tools_detail_s: dict[str, float] = Field(description="tools time by tool name, observe and start_task apart")
    startup_s: float
    iterations: list[IterationRow]
    critical_path: list[CriticalStep]
    critical_path_s: float
    planner_calls: int
    planner_input_tokens: int
    planner_output_tokens: int
    planner_cost_ms: dict[str, float] = Field(default_factory=dict, description="the planner calls' time, summed, "
                                              "where the server said where it went (agentpair.llm.llamacpp_server): "
                                              "prompt, decode, sample, grammar, http and the rest of the call")
    executor_calls: int
    executor_forward_passes: int
    executor_tokens: int
    tokens_per_forward: float
    tool_calls: int
    warnings: list[str] = Field(default_factory=list)


def wall_window(tree: RunTree) -> tuple[int, int, list[str]]:
    """The run's [start, end) in ns: its invoke_agent span from the end of start-up (a child of it
    since trace format 3, before it until then), else the first to the last span."""
    root = tree.root
    if root is not None:
        return max([root.start_ns, *(s.end_ns for s in tree.by_category("startup"))]), root.end_ns, []
    spans = [s for s in tree.spans if s.category != "startup"]
    if not spans:
        return 0, 0, ["no span was recorded after start-up"]
    warning = ("the run has no invoke_agent span (it did not finish): its wall time is taken from the "
               "first to the last recorded span")
    return min(s.start_ns for s in spans), max(s.end_ns for s in spans), [warning]


def summarize(tree: RunTree) -> TraceSummary:
    start_ns, end_ns, warnings = wall_window(tree)
    wall = (end_ns - start_ns) / 1e9
    spans = [s for s in tree.spans if s.category != "startup"]

    def offset(ns: int) -> float:
        return (ns - start_ns) / 1e9

    intervals = [(s.category or "", offset(s.start_ns), offset(s.end_ns)) for s in spans if s.category]
    categories = categorize(intervals, 0.0, wall)
    header, root = tree.header, tree.root
    fills = tree.fills()
    chats = tree.planner_calls()
    forwards = sum(_int(s.attr("agentpair.forward_passes")) for s in fills)
    tokens = sum(_int(s.attr("agentpair.tokens")) for s in fills)
    path = critical_path(spans, offset)
    return TraceSummary(
        path=tree.path, agent=header.agent, planner=_identity_name(header.planner),
        executor=_executor_name(tree), goal=str(header.task.get("goal", "")), complete=root is not None,
        finished=root.attr("agentpair.finished") if root else None,
        stop_reason=root.attr("agentpair.stop_reason") if root else None,
        wall_s=wall, categories_s=categories,
        shares={k: (v / wall if wall > 0 else 0.0) for k, v in categories.items()},
        tools_detail_s=tools_detail(spans, offset, wall),
        startup_s=union_length((s.start_ns, s.end_ns) for s in tree.by_category("startup")) / 1e9,
        iterations=[_iteration_row(it, intervals, offset) for it in tree.iterations()],
        critical_path=path, critical_path_s=sum(step.duration_s for step in path),
        planner_calls=len(chats),
        planner_input_tokens=sum(_int(s.attr("gen_ai.usage.input_tokens")) for s in chats),
        planner_output_tokens=sum(_int(s.attr("gen_ai.usage.output_tokens")) for s in chats),
        planner_cost_ms=planner_cost(chats),
        executor_calls=len(fills), executor_forward_passes=forwards, executor_tokens=tokens,
        tokens_per_forward=tokens / forwards if forwards else 0.0,
        tool_calls=len(tree.tool_calls()), warnings=[*tree.warnings, *warnings],
    )


def planner_cost(chats: list[SpanRecord]) -> dict[str, float]:
    """Where the planner calls' time went, summed over calls that say (agentpair.planner.* attributes):
    prompt, decode, sample, grammar (build and sampler set-up), http, and `other` (the rest of the call
    in the server: chat template, tokenizing, detokenizing); {} where no call says."""
    said = lambda span, key: float(span.attr(f"agentpair.planner.{key}") or 0.0)
    timed = [s for s in chats if s.attr("agentpair.planner.call_ms") is not None]
    if not timed:
        return {}
    parts = {"prompt": "prompt_ms", "decode": "predicted_ms", "sample": "sample_ms", "http": "http_ms"}
    cost = {name: sum(said(s, key) for s in timed) for name, key in parts.items()}
    cost["grammar"] = sum(said(s, "grammar_build_ms") + said(s, "sampler_init_ms") for s in timed)
    inside = sum(said(s, "call_ms") for s in timed)
    cost["other"] = max(0.0, inside - sum(v for k, v in cost.items() if k != "http"))
    return cost


def tool_key(span: SpanRecord) -> str:
    """The name a tools span is counted under: the tool's name, or observe / start_task."""
    return str(span.attr("gen_ai.tool.name") or span.name.removeprefix("execute_tool "))


def tools_detail(spans: list[SpanRecord], offset: Offset, wall: float) -> dict[str, float]:
    """Tools time per tool name inside [0, wall); where two overlap, the one seen first gets the instant."""
    by_name: dict[str, list[tuple[float, float]]] = {}
    for span in spans:
        if span.category == "tools":
            start, end = max(0.0, offset(span.start_ns)), min(wall, offset(span.end_ns))
            if end > start:
                by_name.setdefault(tool_key(span), []).append((start, end))
    detail, seen, covered = {}, [], 0.0
    for name, intervals in by_name.items():
        seen += intervals
        total = union_length(seen)
        detail[name], covered = total - covered, total
    return detail


def critical_path(spans: list[SpanRecord], offset: Offset) -> list[CriticalStep]:
    """The chain of leaf spans that sets the end time: from the last to end, each step back is the
    leaf that ended last before the current one started (parallel work off the chain drops out)."""
    leaves = sorted((s for s in spans if not s.children), key=lambda s: (s.end_ns, s.start_ns))
    if not leaves:
        return []
    ends = [s.end_ns for s in leaves]
    position = len(leaves) - 1
    chain = [leaves[position]]
    while True:
        position = min(bisect.bisect_right(ends, chain[-1].start_ns), position) - 1
        if position < 0:
            break
        chain.append(leaves[position])
    return [CriticalStep(name=s.name, category=s.category or "framework", start_s=offset(s.start_ns),
                         duration_s=s.duration_s) for s in reversed(chain)]


def _iteration_row(span: SpanRecord, intervals: list[Interval], offset: Offset) -> IterationRow:
    start, end = offset(span.start_ns), offset(span.end_ns)
    chat = next((c for c in span.children if c.category == "planner" or c.name == "plan forced"), None)
    plan = chat.data("agentpair.plan", {}) if chat else {}
    steps = plan.get("steps", []) if isinstance(plan, dict) else []
    return IterationRow(
        number=span.attr("agentpair.iteration"), start_s=start, wall_s=end - start,
        categories_s=categorize(intervals, start, end), plan=[step_line(s) for s in steps],
        tool_calls=[tool_key(s) for s in span.walk() if s.name.startswith("execute_tool ")],
    )


def step_line(step: dict[str, Any]) -> str:
    kind, tool = step.get("kind", "?"), step.get("tool")
    what = f"{kind} {tool}" if tool else kind
    if kind == "finish":
        answer = step.get("answer")
        return f"finish: {step.get('instruction', '')}" + (f" -> {answer!r}" if answer is not None else "")
    return f"{what}: {step.get('instruction', '')}"


def _identity_name(identity: dict[str, Any]) -> str:
    return str(identity.get("model") or identity.get("name") or identity.get("kind") or "")


def _executor_name(tree: RunTree) -> str:
    fills = tree.fills()
    return str(fills[0].attr("agentpair.executor")) if fills else _identity_name(tree.header.executor)


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0
