"""The local diffusion executor: agentpair's Executor protocol over executor_engine.Engine.

With no checkpoint it loads the shipped model (agentpair/weights/executor, trained here)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

from agentpair.models import FillRequest, FillResult, FillStats
from executor_engine import Engine, FillInput, FillOutput, Sampler, ThresholdSampler

WEIGHTS = Path(__file__).parent / "weights"
SHIPPED_SAMPLER = ThresholdSampler(block_length=64, threshold=0.9)  # as evaluated


class LocalDiffusionExecutor:
    """Fills requests with a local diffusion LM; the engine runs in a worker thread."""

    name = "local-diffusion"

    def __init__(self, checkpoint: str | Path | None = None, device: str = "auto",
                 dtype: str | None = None, sampler: Sampler | None = None,
                 use_cache: bool = True):
        self.engine = Engine.load(checkpoint or WEIGHTS / "executor", device=device, dtype=dtype)
        self.sampler = sampler or (SHIPPED_SAMPLER if checkpoint is None else ThresholdSampler())
        self.use_cache = use_cache
        self._lock = threading.Lock()  # one engine call at a time

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        return await asyncio.to_thread(self._fill, requests)

    def _fill(self, requests: list[FillRequest]) -> list[FillResult]:
        with self._lock:
            return fill_with(lambda inputs: self.engine.fill(inputs, self.sampler, self.use_cache), requests)


def fill_with(run: Callable[[list[FillInput]], list[FillOutput]], requests: list[FillRequest]) -> list[FillResult]:
    """Run an engine-level fill over agentpair's requests; a failure of the whole batch becomes
    each request's error (e.g. out of memory), never an exception."""
    inputs = [FillInput(r.instruction, r.context, r.schema_, r.template, dict(r.allowed)) for r in requests]
    try:
        outputs = run(inputs)
    except Exception as e:
        return [FillResult(error=f"{type(e).__name__}: {e}") for _ in requests]
    return [FillResult(value=o.value, error=o.error,
                       stats=FillStats(forward_passes=o.nfe, tokens=o.tokens,
                                       tokens_per_forward=o.tokens_per_forward, ms=o.ms))
            for o in outputs]
