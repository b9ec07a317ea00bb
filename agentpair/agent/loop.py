"""The agent loop: observe -> plan -> fill -> act -> observe, traced span by span.

All steps of a plan that read the same observation go to the executor in one batched fill;
their tool calls then run in order, and the loop re-observes when an action changes the page.
"""

from __future__ import annotations

import asyncio
import time
from contextvars import ContextVar
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import SpanKind

from agentpair.tracing.attribution import categorize
from agentpair.agent.events import AgentEvent
from agentpair.executor.protocol import Executor
from agentpair.models import FillResult, Plan, RunResult, Step, StepRecord, Task
from agentpair.planner.request import Planner, PlannerError, PlanReply, ToolInfo, plan_request
from agentpair.planner.grounding.schema import FORCED
from agentpair.planner.language.steps import read_step
from agentpair.planner.page_view import page_state
from agentpair.planner.tool_view import told_args
from agentpair.agent.render import executor_context
from agentpair.tracing.redaction import Redactor
from agentpair.agent.state import STOPPED, RunState
from agentpair.planner.single_model import single_model_request
from agentpair.agent.step_work import fill_requests, tool_call
from agentpair.tracing.spans import (OPENINFERENCE_KIND, RunRecorder, SpanHandle, default_trace_path, io_attributes,
                                     reply_attributes)
from agentpair.tools.base import Environment, Observation, Tool, Toolbox, ToolResult, mask_secrets


_RUN_REDACTOR: ContextVar[Redactor] = ContextVar("agentpair_run_redactor", default=Redactor())  # for events
IDEMPOTENT = {"check", "select", "type"}  # tools whose step, said twice, does what it did once


def _plan_text(steps: list[Step]) -> str:  # a plan as the live progress shows it
    return "; ".join(f"{s.kind} {s.tool or ''} {s.instruction}".strip() for s in steps)


def _identity(part: Any) -> dict[str, Any]:
    return part.identity() if hasattr(part, "identity") else {"name": type(part).__name__}


class Agent:
    """Pairs a planner with an executor over an environment (a browser by default).

    `None` for planner, executor or browser means the embedded defaults: llama.cpp with the
    shipped SmolLM2 planner (or the endpoint in OPENAI_BASE_URL), the default executor, and a
    headless Chromium. What the page and the goal allow a plan is the planner's constraint layer
    (`planner.grounding`, agentpair.planner.grounding.layer): the loop takes the steps it forces and
    refuses what it refuses, whichever planner it is. `single_model=True` makes the planner write
    each tool call itself, one per iteration (agentpair.planner.single_model), and loads no default
    executor.
    """

    def __init__(
        self,
        planner: Planner | None = None,
        executor: Executor | None = None,
        browser: Environment | None = None,
        *,
        tools: Iterable[Tool] = (),
        name: str = "agentpair",
        trace_dir: str | Path = "runs",
        tracer_provider: TracerProvider | None = None,
        on_event: Callable[[AgentEvent], None] | None = None,
        single_model: bool = False,
    ) -> None:
        from agentpair.agent import defaults

        self.planner: Planner = planner or defaults.default_planner(single_model)
        if not isinstance(self.planner, Planner):
            raise TypeError(f"{type(self.planner).__name__} is not a Planner: it needs name, grounding, identity() "
                            "and plan() (see agentpair.planner.request.Planner)")
        self._executor = executor
        self._browser = browser
        self.extra_tools = list(tools)
        self.name = name
        self.trace_dir = Path(trace_dir)
        self.tracer_provider = tracer_provider
        self.on_event = on_event
        self.single_model = single_model
        self.startup_s = 0.0
        self._started = False
        self._owned: list[Any] = []

    @property
    def executor(self) -> Executor:
        if self._executor is None:
            raise RuntimeError("the agent is not started: use `async with Agent()` or `await agent.start()`")
        return self._executor

    @property
    def browser(self) -> Environment:
        if self._browser is None:
            raise RuntimeError("the agent is not started: use `async with Agent()` or `await agent.start()`")
        return self._browser

    async def start(self, recorder: RunRecorder | None = None) -> None:
        """One-time start-up (planner server, executor model, browser), each in a startup span."""
        if self._started:
            return
        from agentpair.agent import defaults

        started = time.perf_counter()
        rec = recorder or RunRecorder(None, Redactor())
        with rec.span("startup", "startup"):
            if hasattr(self.planner, "start"):
                with rec.span("startup planner", "startup"):
                    await self.planner.start()  # type: ignore[attr-defined]
            if self._executor is None and not self.single_model:
                with rec.span("startup executor", "startup"):
                    self._executor = await defaults.default_executor()
                    self._owned.append(self._executor)
            if self._browser is None:
                with rec.span("startup browser", "startup"):
                    self._browser = await defaults.default_browser()
                    self._owned.append(self._browser)
        self.startup_s += time.perf_counter() - started
        self._started = True

    async def aclose(self) -> None:
        for part in [*reversed(self._owned), self.planner]:
            close = getattr(part, "aclose", None) or getattr(part, "close", None)
            if close is not None:
                await close()
        self._owned.clear()
        self._started = False

    async def __aenter__(self) -> Agent:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def run_sync(self, goal: str | Task, **options: Any) -> RunResult:
        """`run` for scripts: starts, runs and closes the agent in a fresh event loop."""

        async def main() -> RunResult:
            try:
                return await self.run(goal, **options)
            finally:
                await self.aclose()

        return asyncio.run(main())

    async def run(
        self,
        goal: str | Task,
        *,
        start_url: str | None = None,
        allowed_origins: list[str] | None = None,
        secrets: dict[str, str] | None = None,
        max_steps: int = 20,
        timeout_s: float = 300.0,
        output_schema: dict[str, Any] | None = None,
        trace: bool | str | Path = True,
        labels: dict[str, str] | None = None,
        should_stop: Callable[[], Awaitable[bool]] | None = None,
    ) -> RunResult:
        """Run one task to its end; `trace` is True (default path), a path, or False. `labels` go
        into the trace header (the runner records the scenario's name there).
        `should_stop` is awaited after every tool call: when it returns True the run ends there
        (stop reason "stopped: should_stop"), e.g. once an episode's page reports it is over.
        With no `start_url` the run starts on the browser's current page.
        """
        task = goal if isinstance(goal, Task) else Task(
            goal=goal, start_url=start_url, allowed_origins=allowed_origins or [],
            secrets=secrets or {}, max_steps=max_steps, timeout_s=timeout_s, output_schema=output_schema)
        path = None if trace is False else (default_trace_path(self.name, self.trace_dir) if trace is True
                                             else Path(trace))
        keys = [getattr(part, "api_key", None) for part in (self.planner, self._executor)]
        recorder = RunRecorder(path, Redactor(task.secrets, [k for k in keys if k]), self.tracer_provider)
        redacting = _RUN_REDACTOR.set(recorder.redactor)
        try:  # the header first, so that a run killed during start-up leaves a trace that says what it was
            recorder.write_header({"agent": self.name, "planner": _identity(self.planner), "task": task.public_view(),
                                   "labels": labels or {}})
            with recorder.span(f"invoke_agent {self.name}", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": self.name, OPENINFERENCE_KIND: "AGENT",
                "agentpair.task": task.public_view(), **io_attributes(task.goal)}) as root:
                await self.start(recorder)  # its spans the root's children: one trace per run
                recorder.write_record("startup", self._started_parts())
                return await self._run(task, recorder, root, should_stop)
        except Exception as exc:  # its message leaves the process too: redacted like the trace
            exc.args = tuple(recorder.redactor.value(list(exc.args)))
            raise
        finally:
            recorder.close()
            _RUN_REDACTOR.reset(redacting)

    def _started_parts(self) -> dict[str, Any]:
        """What start-up settled, for the trace's startup record: executor, environment, tools, time."""
        tools = [{"name": t.name, "description": t.description, "args_schema": t.args_schema()}
                 for t in [*self.browser.tools(), *self.extra_tools]]
        executor = _identity(self._executor) if self._executor is not None else {"name": "none (single model)"}
        return {"planner": _identity(self.planner), "executor": executor,  # the model start-up settled
                "environment": type(self.browser).__name__, "tools": tools, "startup_s": self.startup_s}

    async def _run(self, task: Task, rec: RunRecorder, root: SpanHandle,
                   should_stop: Callable[[], Awaitable[bool]] | None = None) -> RunResult:
        run = RunState(task)
        run.should_stop = should_stop
        started = time.time_ns()
        try:
            async with asyncio.timeout(task.timeout_s):
                await self._loop(run, rec)
        except TimeoutError:
            run.stop_reason = f"timeout after {task.timeout_s:g} s"
        except PlannerError as exc:
            run.stop_reason = f"planner error: {exc}"
        root.update({"agentpair.stop_reason": run.stop_reason, "agentpair.finished": run.finished,
                     "agentpair.answer": run.answer})
        if run.finished:
            root.update(io_attributes(task.goal, run.answer))
        elif run.stop_reason != STOPPED:  # a viewer shows a run that failed as such; one its caller stopped is no failure
            root.fail(run.stop_reason or "the run did not finish")
        ended = time.time_ns()
        self._emit("done", run.iteration, run.stop_reason)
        result = run.result((ended - started) / 1e9, self.startup_s, categorize(rec.intervals, started / 1e9, ended / 1e9),
                            str(rec.path) if rec.path else None)
        return RunResult.model_validate(rec.redactor.value(result.model_dump()))  # what leaves, as the trace has it

    async def _loop(self, run: RunState, rec: RunRecorder) -> None:
        task = run.task
        toolbox = Toolbox([*self.browser.tools(), *self.extra_tools])
        if hasattr(self.browser, "start_task"):
            with rec.span("start_task", "tools", attributes={"url": task.start_url or ""}) as span:
                started = await self.browser.start_task(  # type: ignore[attr-defined]
                    start_url=task.start_url, allowed_origins=task.allowed_origins, secrets=task.secrets)
                span.set("gen_ai.tool.call.result", started)
            if isinstance(started, ToolResult) and not started.ok:
                run.stop_reason = f"the start page {task.start_url} failed: {started.error}"
                return
        observation = await self._observe(rec, task)
        while True:
            if run.steps_done() >= task.max_steps:
                run.stop_reason = f"max_steps ({task.max_steps}) reached"
                return
            run.iteration += 1
            rec.iteration = run.iteration
            with rec.span(f"iteration {run.iteration}"):
                reply = await self._plan(rec, run, observation, toolbox)
                observation = await self._execute(rec, run, reply.plan, observation, toolbox)
            if run.finished or run.stop_reason:
                return

    async def _observe(self, rec: RunRecorder, task: Task) -> Observation:
        with rec.span("observe", "tools") as span:
            observation = await self.browser.observe()
            if task.secrets:  # the environment should have masked them; never let one through
                observation = observation.model_copy(update={
                    field: mask_secrets(getattr(observation, field), task.secrets)
                    for field in ("url", "title", "snapshot", "text")})
            span.set("agentpair.observation", observation)
        return observation

    async def _plan(self, rec: RunRecorder, run: RunState, observation: Observation, toolbox: Toolbox) -> PlanReply:
        run.planned_on.add(page_state(observation))
        if self.single_model:
            request = single_model_request(run.task, observation, run.memory, run.records, list(toolbox),
                                           run.unchanged_on(observation))
        else:
            tools = [ToolInfo(name=t.name, description=t.description, args=told_args(t.args_schema())) for t in toolbox]
            request = plan_request(run.task, observation, run.memory, run.records, tools,
                                   run.unchanged_on(observation))
            if steps := self.planner.grounding.forced(request):
                with rec.span("plan forced", attributes={"agentpair.plan": Plan(thought=FORCED, steps=steps)}):
                    self._emit("plan", run.iteration, _plan_text(steps) + " (forced)")
                return PlanReply(plan=Plan(thought=FORCED, steps=steps), model="grounding")
        identity = self.planner.identity()
        model = str(identity.get("model") or self.planner.name)
        with rec.span(f"chat {model}", "planner", SpanKind.CLIENT, attributes={
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": str(identity.get("kind", "openai")),
            "gen_ai.request.model": model, OPENINFERENCE_KIND: "LLM", "agentpair.plan_request": request}) as span:
            try:
                reply = await self.planner.plan(request)
            except PlannerError as exc:
                for attempt in exc.attempts:
                    span.event("gen_ai.attempt", vars(attempt), attempt.started_ns or None)
                raise
            for attempt in reply.attempts:
                span.event("gen_ai.attempt", attempt, attempt.get("started_ns") or None)
            span.update(reply_attributes(reply, model, request))
        self._emit("plan", run.iteration, _plan_text(reply.plan.steps))
        return reply

    async def _execute(self, rec: RunRecorder, run: RunState, plan: Plan, observation: Observation,
                       toolbox: Toolbox) -> Observation:
        """Carry out a plan's steps; return the observation the next planner call should see. A step
        that sets a box, an option or a field (IDEMPOTENT) is run once however often the plan says it;
        the planner's grounding drops what it would not run (Grounding.to_run)."""
        pending = self.planner.grounding.to_run([s for i, s in enumerate(plan.steps) if s.tool not in IDEMPOTENT
                                                 or read_step(s.instruction).submit
                                                 or all((s.tool, s.instruction) != (t.tool, t.instruction)
                                                        for t in plan.steps[:i])])
        acted = False
        while pending:
            if pending[0].kind == "finish":
                self._finish(rec, run, pending[0])
                return observation
            batch = pending[: next((i for i, s in enumerate(pending) if s.kind == "finish"), len(pending))]
            fills = await self._fill(rec, run, batch, observation, toolbox)
            for done, (step, fill) in enumerate(zip(batch, fills), start=1):
                record, result = await self._act(rec, run, step, fill, toolbox, observation)
                run.records.append(record)
                if result is not None and run.should_stop is not None and await run.should_stop():
                    run.stop_reason = STOPPED
                    return observation
                acted = acted or result is not None
                changed = result is not None and result.changed_page
                if result is not None and record.ok and not changed:  # it cannot have changed the page
                    run.left_as_it_was(observation, step.instruction)
                if not record.ok or changed or run.steps_done() >= run.task.max_steps:
                    before, observation = observation, await self._observe(rec, run.task)
                    if changed or not record.ok:
                        run.moved(before, observation, step.instruction)
                    if not record.ok or run.steps_done() >= run.task.max_steps:
                        return observation
                    pending, acted = pending[done:], False
                    break
            else:
                pending = pending[len(batch):]
        return await self._observe(rec, run.task) if acted else observation

    async def _fill(self, rec: RunRecorder, run: RunState, steps: list[Step], observation: Observation,
                    toolbox: Toolbox) -> list[list[FillResult]]:
        """One batched executor call for every step that reads this observation."""
        context = executor_context(run.task, observation, run.memory)
        per_step = [fill_requests(s, context, observation, toolbox, run.task.secrets, run.task.goal) for s in steps]
        requests = [r for reqs in per_step for r in reqs]
        results: list[FillResult] = []
        if requests and self._executor is None:  # single-model mode: the planner was to write the args
            results = [FillResult(error="no executor runs in single-model mode: give the tool's args")
                       for _ in requests]
        elif requests:
            with rec.span(f"fill {self.executor.name}", "executor", SpanKind.CLIENT, attributes={
                "gen_ai.operation.name": "generate_content", "gen_ai.request.model": self.executor.name,
                OPENINFERENCE_KIND: "LLM", "agentpair.executor": self.executor.name,
                "agentpair.batch_size": len(requests), "agentpair.fill_requests": requests}) as span:
                results = await self.executor.fill(requests)
                if len(results) != len(requests):
                    raise RuntimeError(f"executor {self.executor.name} returned {len(results)} results "
                                       f"for {len(requests)} requests")
                span.set("agentpair.forward_passes", sum(r.stats.forward_passes for r in results))
                span.set("agentpair.engine_batch", max(r.stats.engine_batch for r in results))
                span.set("agentpair.tokens", sum(r.stats.tokens for r in results))
                span.set("gen_ai.usage.output_tokens", sum(r.stats.tokens for r in results))
                span.set("agentpair.fill_results", results)
                asked = [r.model_dump(mode="json", by_alias=True, exclude={"context"}) for r in requests]
                span.update(io_attributes({"context": context, "requests": asked},
                                          [r.model_dump(mode="json", include={"value", "error"}) for r in results]))
                if failed := [r.error for r in results if r.error]:
                    span.fail(f"{len(failed)} of {len(results)} fills failed: {failed[0]}")
        grouped, index = [], 0
        for reqs in per_step:
            grouped.append(results[index:index + len(reqs)])
            index += len(reqs)
        return grouped

    async def _act(self, rec: RunRecorder, run: RunState, step: Step, fills: list[FillResult],
                   toolbox: Toolbox, observation: Observation) -> tuple[StepRecord, ToolResult | None]:
        record = StepRecord(iteration=run.iteration, step=step, fill=fills[0] if fills else None)
        error = next((f.error for f in fills if f.error), None)
        if step.kind == "act" and not fills and step.args is None:
            error = f"unknown tool {step.tool!r} (known: {', '.join(toolbox.names())})"
        # what the planner's grounding refuses now (a submit before the form is filled, a link away
        # from a form typed into and not sent), not offered again on this page as it is
        if not error and (refused := self.planner.grounding.refusal(
                step, lambda: plan_request(run.task, observation, run.memory, run.records, []))):
            error, record.refused = refused
            run.unchanged.setdefault(page_state(observation), []).append(step.instruction)
        if error:
            record.ok, record.error = False, error
            self._emit("step", run.iteration, f"{step.kind}: {step.instruction} -> FAILED: {error}")
            return record, None
        if step.kind == "extract":
            record.output = fills[0].value
            run.memory.append(fills[0].value)
            self._emit("step", run.iteration, f"extract -> {fills[0].value!r}")
            return record, None
        if step.kind == "code" and not step.target:
            record.output = fills[0].value
            run.memory.append(fills[0].value)
            return record, None
        name, args = tool_call(step, fills)
        result = await self._call_tool(rec, toolbox, name, args)
        record.tool_args, record.ok, record.error, record.output = args, result.ok, result.error, result.output
        record.changed_page, record.disabled = result.changed_page, result.disabled
        self._emit("step", run.iteration, f"{name} {args} -> {'ok' if result.ok else 'FAILED: ' + str(result.error)}",
                   result.elapsed_ms)
        return record, result

    async def _call_tool(self, rec: RunRecorder, toolbox: Toolbox, name: str, args: dict[str, Any]) -> ToolResult:
        tool = toolbox.get(name)
        with rec.span(f"execute_tool {name}", "tools", attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, OPENINFERENCE_KIND: "TOOL",
            "gen_ai.tool.call.arguments": args}) as span:
            if tool is None:
                result = ToolResult(tool=name, ok=False, error=f"unknown tool {name!r}")
            else:
                result = await tool(args)
            span.set("gen_ai.tool.call.result", result)
            if not result.ok:
                span.fail(result.error or "the tool call failed")
        return result

    def _finish(self, rec: RunRecorder, run: RunState, step: Step) -> None:
        record = run.finish(step)
        self._emit("finish", run.iteration, repr(record.output) if record.ok else str(record.error))

    def _emit(self, kind: str, iteration: int, text: str, ms: float = 0.0) -> None:
        if self.on_event is not None:  # shown live: redacted like the trace
            self.on_event(AgentEvent(kind=kind, iteration=iteration, text=_RUN_REDACTOR.get().text(text), ms=ms))
