"""The shared vocabulary of a run: Task, Step, Plan, FillRequest, FillResult, RunResult.

Everything that crosses a boundary (planner, executor, tools, trace) is one of these.
"""

from __future__ import annotations

from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, model_validator

from agentpair.tools.base import secret_placeholder

StepKind = Literal["act", "extract", "code", "finish"]
FillKind = Literal["tool_args", "extract", "code"]
Category = Literal["planner", "executor", "tools", "framework", "startup"]


class Task(BaseModel):
    """What the user wants done, and the limits the run keeps to."""

    goal: str
    start_url: str | None = None
    allowed_origins: list[str] = Field(default_factory=list)
    max_steps: int = Field(20, ge=1)
    timeout_s: float = Field(300.0, gt=0)
    output_schema: dict[str, Any] | None = None
    secrets: dict[str, str] = Field(default_factory=dict, repr=False)

    def secret_placeholders(self) -> dict[str, str]:
        """Name -> placeholder: all that the planner, executor and trace may see of secrets."""
        return {name: secret_placeholder(name) for name in self.secrets}

    def public_view(self) -> dict[str, Any]:
        """The task as it may be shown to models and traces (secret values replaced)."""
        data = self.model_dump(exclude={"secrets"})
        data["secrets"] = self.secret_placeholders()
        return data


class Step(BaseModel):
    """One step of a plan. The planner describes targets in words; the executor grounds them."""

    kind: StepKind
    instruction: str = Field("", description="what to do, in words (target, value)")
    tool: str | None = Field(None, description="act: the tool to call, e.g. click, type")
    args: dict[str, Any] | None = Field(
        None, description="act: the tool's arguments when the planner wrote them itself (single-model mode); "
                          "the executor is then not called")
    schema_: dict[str, Any] | None = Field(
        None, alias="schema", description="extract: JSON schema of the value to extract"
    )
    template: str | None = Field(None, description="code: text with holes like {{name:24}}")
    target: str | None = Field(None, description="code: the element to type the filled text into")
    answer: Any = Field(None, description="finish: the final answer")

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    @model_validator(mode="after")
    def _fields_for_kind(self) -> Step:
        if self.kind == "act" and not self.tool:
            raise ValueError("an act step names its tool")
        if self.kind == "extract" and not self.schema_:
            raise ValueError("an extract step carries a JSON schema")
        if self.kind == "extract" and (problem := _schema_problem(self.schema_)):
            raise ValueError(f"the extract schema is not a JSON Schema: {problem}")
        if self.kind == "extract" and (undefined := _undefined_required(self.schema_)):
            raise ValueError(f"the extract schema requires {', '.join(undefined)} but its properties do not "
                             "define them")
        if self.kind == "code" and not self.template:
            raise ValueError("a code step carries a template")
        return self


def _schema_problem(schema: Any) -> str | None:
    """Why `schema` is not a valid JSON Schema (as its draft's meta-schema says), or None."""
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"{exc.message} at {'/'.join(map(str, exc.path)) or 'the top'}"
    return None


def _undefined_required(schema: Any, where: str = "") -> list[str]:
    """The fields an object schema (or one nested in it) requires without defining them."""
    if not isinstance(schema, dict):
        return []
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    out = [where + str(name) for name in schema.get("required", []) if name not in props] \
        if schema.get("type", "object") == "object" else []
    for name, sub in props.items():
        out += _undefined_required(sub, f"{where}{name}.")
    return out + _undefined_required(schema.get("items"), f"{where}[].")


class Plan(BaseModel):
    """The planner's answer: the steps to take from the current observation."""

    thought: str = ""
    steps: list[Step] = Field(min_length=1)


class FillStats(BaseModel):
    forward_passes: int = 0
    tokens: int = 0
    tokens_per_forward: float = 0.0
    ms: float = 0.0
    engine_batch: int = Field(0, description="requests filled in the same engine call, other runs' included")


class FillRequest(BaseModel):
    """One thing for the executor to produce: tool arguments, an extraction, or filled code."""

    kind: FillKind
    instruction: str
    context: str = ""
    schema_: dict[str, Any] | None = Field(None, alias="schema")
    template: str | None = None
    allowed: dict[str, list[Any]] = Field(
        default_factory=dict, description="JSON pointer -> allowed values, e.g. /ref -> refs"
    )
    tied: list[list[str]] = Field(
        default_factory=list, description="groups of pointers that take their values from the same place in "
                                          "their allowed lists (every record's field from one table column)")
    distinct: list[list[str]] = Field(
        default_factory=list, description="groups of pointers that take different values (a form's fields, "
                                          "each given one of the values an instruction quotes)")

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    @model_validator(mode="after")
    def _schema_or_template(self) -> FillRequest:
        if (self.schema_ is None) == (self.template is None):
            raise ValueError("a fill request carries either a schema or a template")
        return self


class FillResult(BaseModel):
    value: Any = None
    stats: FillStats = Field(default_factory=FillStats)
    error: str | None = None


class StepRecord(BaseModel):
    """What happened to one step: its fill, the tool call and its result."""

    iteration: int
    step: Step
    fill: FillResult | None = None
    tool_args: dict[str, Any] | None = None
    ok: bool = True
    error: str | None = None
    output: Any = None
    changed_page: bool = Field(False, description="the tool call may have changed the page (ToolResult.changed_page)")
    disabled: bool = Field(False, description="the tool failed on a disabled element (ToolResult.disabled)")
    refused: bool = Field(False, description="a button the planner's grounding refused to press before its form held "
                                             "what the goal gives (Grounding.refusal): it did not run")


class RunResult(BaseModel):
    finished: bool
    answer: Any = None
    extracted: list[Any] = Field(default_factory=list)
    steps: list[StepRecord] = Field(default_factory=list)
    iterations: int = 0
    stop_reason: str = ""
    wall_s: float = 0.0
    startup_s: float = 0.0
    time_s: dict[str, float] = Field(default_factory=dict, description="per category")
    trace_path: str | None = None
