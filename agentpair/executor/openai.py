"""OpenAIExecutor: fills through any OpenAI-compatible endpoint.

OpenAIExecutor is how a hosted diffusion model (e.g. Mercury, served behind an
OpenAI-compatible API) or any chat model serves as the executor. Defaults:
`AGENTPAIR_EXECUTOR_BASE_URL`, `AGENTPAIR_EXECUTOR_MODEL`, `AGENTPAIR_EXECUTOR_API_KEY`,
falling back to the planner's endpoint.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

import jsonschema

from agentpair.executor.protocol import HOLE
from agentpair.llm.endpoint import Endpoint, EndpointError, StructuredOutput
from agentpair.models import FillRequest, FillResult, FillStats


def without_vendor_keywords(node: Any) -> Any:
    """A copy of a JSON schema without `x-*` keywords (property names are kept)."""
    if isinstance(node, list):
        return [without_vendor_keywords(n) for n in node]
    if not isinstance(node, dict):
        return node
    return {k: (without_vendor_keywords(v) if k != "properties" else
                {name: without_vendor_keywords(p) for name, p in v.items()})
            for k, v in node.items() if not k.startswith("x-")}


def constrained_schema(schema: dict[str, Any], allowed: dict[str, list[Any]]) -> dict[str, Any]:
    """The schema with each JSON pointer in `allowed` narrowed to an enum of its allowed values,
    and without vendor notes (`x-*` keywords), which strict endpoints reject."""
    schema = without_vendor_keywords(schema)
    for pointer, values in allowed.items():
        node = schema
        for part in [p for p in pointer.split("/") if p]:
            if node.get("type") == "array":
                node = node.setdefault("items", {})
            node = node.setdefault("properties", {}).setdefault(part, {})
        node["enum"] = list(values)
    return schema


def template_holes(template: str) -> list[str]:
    """Hole names of a code template, in order of first appearance."""
    return list(dict.fromkeys(m.group(1) for m in HOLE.finditer(template)))


def fill_template(template: str, values: dict[str, str]) -> str:
    return HOLE.sub(lambda m: str(values[m.group(1)]), template)


def _holes_schema(template: str) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for match in HOLE.finditer(template):
        props[match.group(1)] = {"type": "string"}
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


SYSTEM_PROMPT = """You fill in structured values for a web agent. Read the context (a page \
snapshot whose elements carry [ref=eN] references, and task facts) and the instruction, and \
answer with JSON matching the schema exactly. Refer to page elements by their ref."""


class OpenAIExecutor:
    """Fills each request through an OpenAI-compatible endpoint with JSON-schema output."""

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        structured_output: StructuredOutput = "auto",
        timeout_s: float = 60.0,
        max_attempts: int = 4,
        max_tokens: int = 512,
    ) -> None:
        base_url = (base_url or os.environ.get("AGENTPAIR_EXECUTOR_BASE_URL")
                    or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1")
        model = (model or os.environ.get("AGENTPAIR_EXECUTOR_MODEL")
                 or os.environ.get("AGENTPAIR_PLANNER_MODEL") or "gpt-4o-mini")
        api_key = (api_key or os.environ.get("AGENTPAIR_EXECUTOR_API_KEY")
                   or os.environ.get("OPENAI_API_KEY"))
        self.endpoint = Endpoint(base_url, model, api_key, structured_output=structured_output,
                                 timeout_s=timeout_s, max_attempts=max_attempts, max_tokens=max_tokens)
        self.name = f"openai:{model}"

    @property
    def api_key(self) -> str:
        return self.endpoint.api_key

    def identity(self) -> dict[str, Any]:
        return {"kind": "openai", **self.endpoint.identity()}

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        return list(await asyncio.gather(*(self._fill_one(r) for r in requests)))

    async def _fill_one(self, request: FillRequest) -> FillResult:
        started = time.perf_counter()
        schema = (constrained_schema(request.schema_, request.allowed) if request.schema_ is not None
                  else _holes_schema(request.template or ""))
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Context:\n{request.context}\n\nInstruction: {request.instruction}"},
        ]
        try:
            completion = await self.endpoint.complete_json(messages, schema, request.kind)
            value = json.loads(completion.text, strict=False)
            jsonschema.validate(value, schema)
        except (EndpointError, json.JSONDecodeError, jsonschema.ValidationError) as exc:
            error = exc.message if isinstance(exc, jsonschema.ValidationError) else str(exc)
            return FillResult(error=f"{type(exc).__name__}: {error}"[:500],
                              stats=FillStats(ms=(time.perf_counter() - started) * 1e3))
        if request.template is not None:
            value = fill_template(request.template, value)
        stats = FillStats(forward_passes=completion.output_tokens, tokens=completion.output_tokens,
                          tokens_per_forward=1.0 if completion.output_tokens else 0.0,
                          ms=(time.perf_counter() - started) * 1e3)
        return FillResult(value=value, stats=stats)

    async def aclose(self) -> None:
        await self.endpoint.aclose()
