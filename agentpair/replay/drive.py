"""Replay: drive the real agent loop from a trace (recorded plans; recorded or live executor and
tools), stop at the first divergence from the recording, and compare a what-if executor with it."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agentpair.agent.loop import Agent
from agentpair.executor.protocol import Executor
from agentpair.models import RunResult, Task
from agentpair.replay.recorded import (
    CheckedEnvironment,
    ComparedExecutor,
    Divergence,
    DivergenceError,
    EndOfRecording,
    FillComparison,
    RecordedEnvironment,
    RecordedExecutor,
    RecordedPlanner,
    Recording,
    recorded_error,
)
from agentpair.tracing.reader import RunTree, load_trace
from agentpair.tracing.summary import wall_window
from agentpair.tracing.spans import Redactor
from agentpair.tools.base import Environment, secret_placeholder

ToolsMode = Literal["recorded", "live"]


class ReplayResult(BaseModel):
    """How a replay went: whether it matched the recording, and where it first diverged."""

    trace: str
    tools: ToolsMode
    executor: str = Field(description="'recorded', or the what-if executor's name")
    matched: bool = Field(description="no divergence from the recording")
    success: bool = Field(description="matched, and finished as the recorded run did")
    divergence: Divergence | None = None
    model_calls: int = Field(0, description="calls to a live model (0 when fully recorded)")
    iterations: int = 0
    finished: bool | None = None
    answer: Any = None
    stop_reason: str = ""
    recorded_wall_s: float
    replay_wall_s: float
    recorded_executor_s: float | None = Field(None, description="what-if: recorded time of the fills compared")
    replay_executor_s: float | None = Field(None, description="what-if: the new executor's time on them")
    fills: list[FillComparison] = Field(default_factory=list, description="what-if: each fill compared")
    warnings: list[str] = Field(default_factory=list)
    trace_path: str | None = None


def recorded_task(tree: RunTree, secrets: dict[str, str] | None, live: bool) -> Task:
    """The recorded task; secret values from `secrets` (required live), else their placeholders."""
    data = dict(tree.header.task)
    if "goal" not in data:
        raise ValueError(f"{tree.path}: the trace records no task to replay")
    names = sorted(data.pop("secrets", None) or {})
    given = secrets or {}
    missing = [n for n in names if n not in given]
    if live and missing:
        raise ValueError(f"the recorded task uses secrets {', '.join(missing)}: a live replay needs their values")
    return Task.model_validate({**data, "secrets": {n: given.get(n, secret_placeholder(n)) for n in names}})


def recorded_single_model(tree: RunTree) -> bool:
    """Whether the recorded run was a single-model one (its planner wrote the tool calls)."""
    chats = tree.planner_calls()
    return bool(chats and (chats[0].data("agentpair.plan_request") or {}).get("single_model"))


def _environment(tools: str, environment: Environment | None, recording: Recording) -> Any:
    if tools == "recorded":
        if environment is not None:
            raise ValueError("an environment is only used with tools='live'")
        return RecordedEnvironment(recording)
    if tools == "live":
        if environment is None:
            raise ValueError("tools='live' needs an environment (e.g. a Browser on the scenario's site)")
        return CheckedEnvironment(environment, recording)
    raise ValueError(f"tools must be 'recorded' or 'live', not {tools!r}")


def _outcome(recording: Recording, ended: dict[str, Any]) -> Divergence | None:
    """Compare how the replay ended with how the recorded run did (as far as it was recorded)."""
    root = recording.tree.root
    # raised: its status is ERROR and it set no outcome (a run that ended unfinished is ERROR too, with one)
    failed = root is not None and root.status == "ERROR" and root.attr("agentpair.finished") is None
    expected: dict[str, Any] = {"remaining_calls": 0, "error": recorded_error(root) if failed else None}
    if root is not None and not failed:
        expected.update(finished=root.attr("agentpair.finished"), stop_reason=root.attr("agentpair.stop_reason"),
                        answer=root.data("agentpair.answer"))
    actual = {"remaining_calls": recording.remaining(), **{k: ended.get(k) for k in list(expected)[1:]}}
    recording.step += 1
    try:
        recording.check("outcome", root.name if root else "(end of the recording)", expected, actual)
    except DivergenceError as exc:
        return exc.divergence
    return None


async def replay(
    trace_path: str | Path,
    *,
    tools: ToolsMode = "recorded",
    executor: Literal["recorded"] | Executor = "recorded",
    environment: Environment | None = None,
    secrets: dict[str, str] | None = None,
    write_trace: str | Path | None = None,
) -> ReplayResult:
    """Replay a traced run. Fully recorded (the default) is offline and makes no model call.

    `executor`: "recorded", or an Executor to try on the recorded requests (what-if).
    `tools="live"`: act on `environment` (whose observations must match the recorded ones).
    Raises TraceError for an unreadable trace, ValueError for a bad combination of options.
    """
    tree = load_trace(trace_path)
    task = recorded_task(tree, secrets, live=tools == "live")
    recording = Recording(tree, Redactor(task.secrets))
    env = _environment(tools, environment, recording)
    if isinstance(executor, str) and executor != "recorded":
        raise ValueError(f"executor must be 'recorded' or an Executor, not {executor!r}")
    what_if = None if isinstance(executor, str) else ComparedExecutor(executor, recording)
    agent = Agent(RecordedPlanner(recording), what_if or RecordedExecutor(recording), env,
                  name=tree.header.agent or "agentpair", single_model=recorded_single_model(tree))
    warnings = list(tree.warnings)
    run: RunResult | None = None
    divergence: Divergence | None = None
    ended: dict[str, Any] = {}
    started = time.perf_counter()
    try:
        run = await agent.run(task, trace=Path(write_trace) if write_trace else False)
        ended = {"finished": run.finished, "stop_reason": run.stop_reason,
                 "answer": recording.normal(run.answer)}
    except DivergenceError as exc:
        divergence = exc.divergence
    except EndOfRecording as exc:
        warnings.append(f"{exc} (the recorded run did not finish): only its recorded prefix was replayed")
    except RuntimeError as exc:  # the run failed (a recorded failure replays as one): compared below
        ended = {"error": str(exc)}
    wall = run.wall_s if run is not None else time.perf_counter() - started
    if ended:
        divergence = _outcome(recording, ended)
    start_ns, end_ns, _ = wall_window(tree)
    fills = what_if.comparisons if what_if else []
    return ReplayResult(
        trace=str(trace_path), tools=tools, executor=what_if.name if what_if else "recorded",
        matched=divergence is None, success=divergence is None and tree.complete and run is not None,
        divergence=divergence, model_calls=what_if.calls if what_if else 0, iterations=recording.iteration,
        finished=run.finished if run else None, answer=run.answer if run else None,
        stop_reason=run.stop_reason if run else "", recorded_wall_s=(end_ns - start_ns) / 1e9,
        replay_wall_s=wall, fills=fills, warnings=warnings, trace_path=str(write_trace) if write_trace else None,
        recorded_executor_s=sum(f.recorded_ms for f in fills) / 1e3 if what_if else None,
        replay_executor_s=sum(f.replay_ms for f in fills) / 1e3 if what_if else None,
    )


def replay_sync(trace_path: str | Path, **options: Any) -> ReplayResult:
    """`replay` for scripts, in a fresh event loop."""
    return asyncio.run(replay(trace_path, **options))
