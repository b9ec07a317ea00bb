"""What tools produce and how a tool is declared: Observation, ToolResult, Tool, Toolbox.

Tools know nothing of models: a tool is an argument model (whose JSON schema the executor
fills), a description, and an async function that carries the call out.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from agentpair.tools import spellings

SECRET_PLACEHOLDER = re.compile(r"\{\{secret:([A-Za-z0-9_.-]+)\}\}")


def secret_placeholder(name: str) -> str:
    """The text that stands for a secret everywhere but at the moment of typing."""
    return "{{secret:" + name + "}}"


def fill_secrets(text: str, secrets: dict[str, str]) -> str:
    """Replace `{{secret:name}}` placeholders by their values; unknown names raise KeyError."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in secrets:
            raise KeyError(f"unknown secret {name!r} (known: {sorted(secrets)})")
        return secrets[name]

    return SECRET_PLACEHOLDER.sub(value, text)


@functools.lru_cache(maxsize=256)
def _replacer(pairs: tuple[tuple[str, str], ...]) -> spellings.Replacer:
    return spellings.Replacer(pairs)


def replace_forms(text: str, pairs: list[tuple[str, str]]) -> str:
    """Each value of `pairs` (value, replacement) replaced in text in any spelling agentpair.tools.spellings
    finds; longer values first, so that a secret holding another is replaced whole."""
    return _replacer(tuple(pairs))(text) if pairs and text else text


def mask_secrets(text: str, secrets: dict[str, str]) -> str:
    """Replace every secret value occurring in text, in any spelling (agentpair.tools.spellings), by
    its placeholder."""
    return replace_forms(text, [(secret, secret_placeholder(name)) for name, secret in secrets.items() if secret])


class BrowserError(Exception):
    """A page-level failure with a message meant for the agent (raised by the browser's actions);
    `disabled`: the element it acted on was disabled (another control sets it)."""

    def __init__(self, message: str, disabled: bool = False) -> None:
        super().__init__(message)
        self.disabled = disabled


class Observation(BaseModel):
    """What a tool environment shows of the world at one moment: a page, or the results of its
    function tools' calls (kind "results", agentpair.tools.functions.FunctionTools)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["page", "results"] = "page"
    url: str = ""
    title: str = ""
    snapshot: str = Field("", description="accessibility snapshot; elements carry [ref=eN]; of kind "
                          "\"results\": one line per call's result")
    text: str = Field("", description="visible-text excerpt")
    refs: list[str] = Field(default_factory=list, description="refs present in the snapshot")
    notices: list[str] = Field(
        default_factory=list, description="what the environment reports since the last look, e.g. blocked navigations"
    )
    field_values: dict[str, str] = Field(
        default_factory=dict, description="ref -> a field's exact value, where the snapshot shows it trimmed"
    )
    non_submit_buttons: list[str] = Field(
        default_factory=list, description="refs of the buttons of a form with a submit button that do not send it "
        "(type button or reset)"
    )


class ToolResult(BaseModel):
    """The outcome of one tool call: ok with an optional output, or an error that says why."""

    tool: str
    ok: bool
    output: Any = None
    error: str | None = None
    elapsed_ms: float = 0.0
    changed_page: bool = Field(False, description="the call may have changed what observe() sees")
    disabled: bool = Field(False, description="it failed because the element was disabled")

    @classmethod
    def failure(cls, tool: str, error: str, started: float) -> ToolResult:
        return cls(tool=tool, ok=False, error=error, elapsed_ms=(time.perf_counter() - started) * 1e3)


ToolFn = Callable[[BaseModel], Awaitable[ToolResult]]


@functools.cache
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


class Tool(BaseModel):
    """A named action: its argument model's JSON schema is what the executor fills."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    description: str
    args_model: type[BaseModel]
    run: ToolFn = Field(exclude=True)

    def args_schema(self) -> dict[str, Any]:
        """The argument model's JSON schema (computed once per model; do not mutate it)."""
        return _json_schema(self.args_model)

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        started = time.perf_counter()
        try:
            args = self.args_model.model_validate(arguments)
        except Exception as exc:  # pydantic ValidationError, TypeError on non-dicts
            return ToolResult.failure(self.name, f"invalid arguments for {self.name}: {exc}", started)
        return await self.run(args)


@runtime_checkable
class Environment(Protocol):
    """What the agent loop acts on: something to observe and the tools that change it."""

    async def observe(self) -> Observation: ...

    def tools(self) -> list[Tool]: ...


class Toolbox:
    """A registry of tools by name; environments contribute theirs and users add their own."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __iter__(self):
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)
