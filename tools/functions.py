"""Tools from plain typed functions (@tool), and an environment of such tools with no page
(FunctionTools): HTTP APIs, files, calculators, with or without the browser beside them."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import time
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, Field, create_model

from agentpair.tools.base import Observation, Tool, ToolResult

# a value the step asking for the call names, maybe after the argument's name (see agent.step_work)
NAMED = {"x-verbatim": True, "x-labelled": True}
NAMED_TYPES = (str, int, float)  # arguments whose value a step names word for word
SHOWN_RESULTS = 5  # the latest results an environment of function tools shows as its page
RESULT_CHARS = 400  # the most of one result's line it shows


def tool(fn: Callable[..., Any] | None = None, /, *, name: str | None = None,
         description: str | None = None) -> Any:
    """`@tool` or `@tool(name=..., description=...)`: a function, sync or async, as a Tool. Its
    parameters (type hints, defaults, `Annotated[..., Field(...)]`) become the argument model the
    executor fills, or the one pydantic model it takes is; the description is the docstring's
    first paragraph, and its "Args:" lines describe the arguments. It returns a ToolResult, or any
    value, which becomes the result's output; an exception it raises becomes a failed result."""

    def make(fn: Callable[..., Any]) -> Tool:
        tool_name = name or fn.__name__
        model, whole = _args_model(fn, tool_name)
        call_async = inspect.iscoroutinefunction(fn)

        async def run(args: BaseModel) -> ToolResult:
            started = time.perf_counter()
            kwargs = {whole: args} if whole else {key: getattr(args, key) for key in type(args).model_fields}
            try:
                out = await fn(**kwargs) if call_async else await asyncio.to_thread(fn, **kwargs)
            except Exception as exc:  # the tool's own failure, reported to the planner
                return ToolResult.failure(tool_name, f"{tool_name} failed: {type(exc).__name__}: {exc}", started)
            if isinstance(out, ToolResult):
                return out
            return ToolResult(tool=tool_name, ok=True, output=_plain(out), changed_page=True,
                              elapsed_ms=(time.perf_counter() - started) * 1e3)

        return Tool(name=tool_name, description=description or _summary(fn.__doc__) or tool_name,
                    args_model=model, run=run)

    return make(fn) if fn is not None else make


def _args_model(fn: Callable[..., Any], tool_name: str) -> tuple[type[BaseModel], str | None]:
    """The argument model, and the parameter to pass it whole to (where the function takes one model)."""
    hints = typing.get_type_hints(fn, include_extras=True)
    params = [p for p in inspect.signature(fn).parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if len(params) == 1 and inspect.isclass(hint := hints.get(params[0].name)) and issubclass(hint, BaseModel):
        return hint, params[0].name
    said = _arg_descriptions(fn.__doc__)
    fields: dict[str, Any] = {}
    for p in params:
        hint = hints.get(p.name, str)
        extra = NAMED if _named(hint) else None
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (hint, Field(default, description=said.get(p.name), json_schema_extra=extra))
    camel = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", tool_name) if part)
    return create_model(f"{camel or 'Tool'}Args", **fields), None


def _named(hint: Any) -> bool:
    """A string or number argument, or an optional one: a step names its value."""
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    options = [a for a in typing.get_args(hint) if a is not type(None)] if union else [hint]
    return len(options) == 1 and options[0] in NAMED_TYPES


def _summary(doc: str | None) -> str:
    """A docstring's first paragraph, on one line."""
    return " ".join(inspect.cleandoc(doc or "").split("\n\n")[0].split())


def _arg_descriptions(doc: str | None) -> dict[str, str]:
    """`name: what it is` lines under a docstring's "Args:" heading (Google style)."""
    text = inspect.cleandoc(doc or "")
    body = text.split("Args:", 1)[1] if "Args:" in text else ""
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"^\s+(\w+)(?: \([^)]*\))?: (.+)$", body, re.M)}


def _plain(value: Any) -> Any:
    """A result as JSON-ready data (a pydantic model dumped)."""
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


class FunctionTools:
    """An environment of tools with no page: each observation (kind "results") lists, in its
    snapshot, the latest SHOWN_RESULTS calls of its tools that ran, one line each with the
    arguments and what came back (`result of add(a=2, b=3): 5`), which is what the planner and the
    executor read, so a later step can use a value a call returned. A call refused for its
    arguments never ran: the run's history says so."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.results: list[ToolResult] = []
        self._calls: list[str] = []  # each result's line, in the order the calls ran
        self._tools = [t.model_copy(update={"run": self._recorded(t)}) for t in tools]

    def _recorded(self, tool: Tool) -> Callable[[BaseModel], Any]:
        async def run(args: BaseModel) -> ToolResult:
            result = await tool.run(args)
            self.results.append(result)
            self._calls.append(result_line(tool.name, args.model_dump(mode="json"), result))
            return result

        return run

    def tools(self) -> list[Tool]:
        return list(self._tools)

    async def observe(self) -> Observation:
        return Observation(kind="results", title="tool results",
                           snapshot="\n".join(self._calls[-SHOWN_RESULTS:]) or "no tool has run yet")


def result_line(name: str, args: dict[str, Any], result: ToolResult) -> str:
    """One call as the planner and the executor read it: `result of name(key=value, ...): output`
    (values as JSON), or `...: FAILED error`; at most RESULT_CHARS characters."""
    called = ", ".join(f"{key}={_json(value)}" for key, value in args.items())
    said = _json(result.output) if result.ok else f"FAILED {result.error}"
    line = " ".join(f"result of {name}({called}): {said}".split())
    return line if len(line) <= RESULT_CHARS else line[:RESULT_CHARS - 1] + "…"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
