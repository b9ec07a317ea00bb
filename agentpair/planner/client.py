"""The planner: OpenAIPlanner, which asks any OpenAI-compatible endpoint for a plan under the Plan JSON
schema (or the one its grounding, agentpair.planner.grounding.layer, narrows to the page), validates it
with pydantic, and re-asks once with the validation error. What it is asked and answers: agentpair.planner.request.
"""

from __future__ import annotations

import json
import os
from typing import Any, Literal

import jsonschema
from pydantic import ValidationError

from agentpair.llm.endpoint import Attempt, Endpoint, EndpointError, StructuredOutput
from agentpair.llm.strict import strict_schema
from agentpair.models import Plan
from agentpair.planner import single_model
from agentpair.planner.grounding.layer import Grounding, GroundingMode
from agentpair.planner.request import (PlannerError, PlanReply, PlanRequest, plan_schema, render_user_message,
                                       system_prompt)


def plan_messages(request: PlanRequest, describe_tools: bool = False) -> list[dict[str, str]]:
    """The chat messages of a planner call (`describe_tools`: with each tool's description, not only
    its name); planner training data is built with this too, names only."""
    return [{"role": "system", "content": prompt_and_schema(request)[0]},
            {"role": "user", "content": render_user_message(request, describe_tools)}]


def prompt_and_schema(request: PlanRequest) -> tuple[str, dict[str, Any]]:
    """The system prompt and plan schema a request is answered under: paired or single-model."""
    if request.single_model:
        return single_model.SYSTEM_PROMPT, single_model.plan_schema(request)
    return system_prompt(request), plan_schema([t.name for t in request.tools], request.output_schema)


SchemaMode = Literal["pattern", "strict"]
DEFAULT_MODEL = "gpt-4o-mini"  # asked for where no model is named and the server does not say its own


class OpenAIPlanner:
    """A planner on any OpenAI-compatible endpoint (OpenAI, OpenRouter, vLLM, llama.cpp, ...).

    Defaults: `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `AGENTPAIR_PLANNER_MODEL` (else the one model the
    server lists, else DEFAULT_MODEL).
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        structured_output: StructuredOutput = "auto",
        timeout_s: float = 60.0,
        max_attempts: int = 4,
        backoff_s: float = 0.5,
        max_tokens: int = 1024,
        grounding: GroundingMode | None = None,
        schema_mode: SchemaMode | None = None,
        describe_tools: bool = True,
    ) -> None:
        """grounding: what the page and the task allow a plan (grounding.layer): "structural" (the
        page's elements, the values given), "heuristic" (also the rules read from the goal's values
        and the page's structure: grounding.schema), or None (the plain plan schema).
        schema_mode: "pattern" sends schemas as they are (regex patterns, bounds: llama.cpp and vLLM
        compile them into a grammar), "strict" in the subset OpenAI-style strict structured outputs
        enforce (llm.strict); default strict for api.openai.com, else pattern. Either way the reply
        is validated against the schema sent and the one it stands for. describe_tools: the prompt
        gives each tool's description, not only its name (the embedded planner was trained on names)."""
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        model = model or os.environ.get("AGENTPAIR_PLANNER_MODEL")
        self._ask_model = model is None  # the server's own, when it serves exactly one (see start)
        self.endpoint = Endpoint(
            base_url, model or DEFAULT_MODEL, api_key or os.environ.get("OPENAI_API_KEY"),
            structured_output=structured_output, timeout_s=timeout_s, max_attempts=max_attempts,
            backoff_s=backoff_s, max_tokens=max_tokens,
        )
        self.name = f"openai:{self.endpoint.model}"
        self.grounding = Grounding(grounding)
        self.schema_mode: SchemaMode = schema_mode or ("strict" if "api.openai.com" in base_url else "pattern")
        self.describe_tools = describe_tools

    @property
    def api_key(self) -> str:
        return self.endpoint.api_key

    def identity(self) -> dict[str, Any]:
        """What a trace records; with no model named, `model` is None until start-up has asked the server."""
        identity = {"kind": "openai", **self.endpoint.identity(), "grounding": self.grounding.mode,
                    "schema_mode": self.schema_mode}
        return {**identity, "model": None} if self._ask_model else identity

    async def start(self) -> None:
        """With no model named: the one model the server lists (/v1/models), as a local llama.cpp or
        vLLM server serves one; DEFAULT_MODEL where it lists several or none, or cannot list. Once."""
        if not self._ask_model:
            return
        self._ask_model = False
        served = await self.endpoint.served_models()
        if len(served) == 1:
            self.endpoint.model = served[0]
            self.name = f"openai:{served[0]}"

    async def plan(self, request: PlanRequest) -> PlanReply:
        await self.start()  # where no agent started it
        if request.single_model:
            schema = single_model.plan_schema(request, grounded=self.grounding.mode is not None)
        else:
            schema = self.grounding.schema(request)
        messages = plan_messages(request, self.describe_tools)
        strict = self.schema_mode == "strict"
        sent = strict_schema(schema) if strict else schema
        attempts: list[Attempt] = []
        usage = [0, 0]
        timings: dict[str, float] = {}
        error = ""
        for _ in range(2):
            try:
                completion = await self.endpoint.complete_json(messages, sent, "plan", strict=strict)
            except EndpointError as exc:
                raise PlannerError(str(exc), attempts + exc.attempts) from exc
            attempts += completion.attempts
            usage[0] += completion.input_tokens
            usage[1] += completion.output_tokens
            if completion.timings:
                waited = completion.attempts[-1].ms - completion.timings.get("call_ms", 0.0)
                for key, value in {**completion.timings, "http_ms": max(0.0, waited)}.items():
                    timings[key] = timings.get(key, 0.0) + value
            try:
                data = json.loads(completion.text, strict=False)
                if strict:
                    _validate(data, sent)
                    data = _nulls_off(data)
                data = _required_tied(data) if self.grounding.mode is not None else data
                plan = Plan.model_validate(data)  # its words first, then the schema it was asked under
                _validate(data, schema)
            except (json.JSONDecodeError, ValidationError, jsonschema.ValidationError) as exc:
                error = _short_error(exc) if isinstance(exc, ValidationError) else \
                    f"{'/'.join(map(str, exc.absolute_path)) or 'plan'}: {exc.message[:300]}" \
                    if isinstance(exc, jsonschema.ValidationError) else f"not JSON: {exc}"
                messages += [
                    {"role": "assistant", "content": completion.text},
                    {"role": "user", "content": f"That plan is invalid: {error}. Answer again with "
                                                 "a JSON plan that matches the schema."},
                ]
                continue
            return PlanReply(
                plan=plan, model=completion.model, input_tokens=usage[0], output_tokens=usage[1],
                raw=completion.text, attempts=[vars(a) for a in attempts], timings=timings, messages=messages,
            )
        raise PlannerError(f"{self.endpoint.base_url} (model {self.endpoint.model}) gave an invalid plan "
                           f"twice: {error}", attempts)

    async def aclose(self) -> None:
        await self.endpoint.aclose()


def _required_tied(plan: Any) -> Any:
    """A grounded plan with each extract schema's `required` cut to the names its properties define:
    a grammar cannot tie the two lists, and a small planner asked again writes the same list again."""
    for step in plan.get("steps", []) if isinstance(plan, dict) and isinstance(plan.get("steps"), list) else []:
        schema = step.get("schema") if isinstance(step, dict) else None
        if isinstance(schema, dict) and isinstance(schema.get("required"), list) \
                and isinstance(schema.get("properties"), dict):
            schema["required"] = [name for name in schema["required"] if name in schema["properties"]]
    return plan


def _validate(data: Any, schema: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError (its most relevant error) where `data` breaks `schema`."""
    if (error := jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))) is not None:
        raise error


def _nulls_off(data: Any) -> Any:
    """A strict reply with the nulls standing for absent optional properties left out."""
    if isinstance(data, dict):
        return {k: _nulls_off(v) for k, v in data.items() if v is not None}
    return [_nulls_off(v) for v in data] if isinstance(data, list) else data


def _short_error(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'plan'}: {e['msg']}" for e in exc.errors()[:5])
