"""The embedded default planner: OpenAIPlanner pointed at llama.cpp's server (agentpair.llm.llamacpp)
running SmolLM2-135M-Instruct with the planning LoRA adapter trained here
(agentpair/weights/planner-lora.gguf), started and stopped with the planner.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agentpair.llm.llamacpp import SMOLLM2_FILE, EmbeddedModelError, LlamaServer
from agentpair.planner.request import PlanReply, PlanRequest
from agentpair.planner.client import OpenAIPlanner
from agentpair.planner.grounding.layer import Grounding

WEIGHTS = Path(__file__).resolve().parents[1] / "weights"
SHIPPED_LORA = WEIGHTS / "planner-lora.gguf"  # python -m agentpair.training.planner_lora
# the same model's adapter for single-model mode, trained on its format too (datagen.single_plans)
SINGLE_MODEL_LORA = WEIGHTS / "planner-lora-single.gguf"


def endpoint_configured() -> bool:
    """Whether the user pointed agentpair at an endpoint (else the embedded planner is used)."""
    return bool(os.environ.get("OPENAI_BASE_URL"))


# The longest plan in the planning data is about 200 SmolLM2 tokens; a longer reply from the
# embedded model is a loop. At its speed on 2 cores 1,024 tokens outlast the 60 s request timeout,
# and the timeout is retried: one looping call once cost a scenario run its whole 300 s.
PLAN_MAX_TOKENS = 384


class EmbeddedPlanner:
    """The default planner: OpenAIPlanner pointed at a LlamaServer that it starts and stops."""

    def __init__(self, model: str | Path | None = None, *, lora: str | Path | bool | None = None,
                 single_model: bool = False, n_ctx: int = 4096, base_url: str | None = None,
                 host: str = "127.0.0.1", slots: int = 1, **planner_options: object) -> None:
        """lora: an adapter GGUF; None = the shipped adapter for the default model (none for
        another model), the single-model one with `single_model`; False = the bare model.
        base_url: such a server already running, another EmbeddedPlanner's (a cluster's planner
        actor, agentpair.cluster): asked, not started or stopped. host: the address its own server
        listens on (loopback; a cluster node's address where other nodes ask it). slots: the calls
        its server decodes side by side (for runs at once: their tokens share forwards)."""
        self._shared_url = base_url
        if lora is None and model is None:
            lora = SINGLE_MODEL_LORA if single_model else SHIPPED_LORA
            if not lora.is_file():
                raise EmbeddedModelError(f"the planner adapter {lora} is missing from this install")
        self.server = LlamaServer(model, lora=lora or None, n_ctx=n_ctx, host=host, slots=slots)
        self._options = {"max_tokens": PLAN_MAX_TOKENS, "grounding": "heuristic", "describe_tools": False,
                         **planner_options}
        self.grounding = Grounding(self._options["grounding"])  # type: ignore[arg-type]  # heuristic by default
        self._planner: OpenAIPlanner | None = None
        self.name = "embedded:" + (Path(model).name if model else SMOLLM2_FILE)

    @property
    def base_url(self) -> str:
        return self._shared_url or self.server.base_url

    def identity(self) -> dict[str, object]:
        return {"kind": "embedded-llamacpp", "grounding": self.grounding.mode, "model": self.name.split(":", 1)[1],
                "lora": str(self.server.lora) if self.server.lora else None}

    async def start(self) -> None:
        if self._planner is None:
            if not self._shared_url:
                await asyncio.to_thread(self.server.start)
            self._planner = OpenAIPlanner(self.base_url, model=self.name, api_key="not-needed",
                                          structured_output="llamacpp",
                                          **self._options)  # type: ignore[arg-type]

    async def plan(self, request: PlanRequest) -> PlanReply:
        await self.start()
        assert self._planner is not None
        return await self._planner.plan(request)

    async def aclose(self) -> None:
        if self._planner is not None:
            await self._planner.aclose()
            self._planner = None
        self.server.stop()
