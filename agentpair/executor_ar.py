"""The AR baseline executor: the same Executor protocol over executor_engine.ar.ARDecoder, a causal
model of the diffusion executor's shape decoding token by token (for `--executor ar-baseline`)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from agentpair.executor_local import WEIGHTS
from agentpair.models import FillRequest, FillResult, FillStats
from executor_engine import FillInput
from executor_engine.ar import ARDecoder


class ARBaselineExecutor:
    """Fills requests with the shipped AR baseline (or a given AR checkpoint) in a worker thread."""

    name = "ar-baseline"

    def __init__(self, checkpoint: str | Path | None = None):
        self.decoder = ARDecoder.load(checkpoint or WEIGHTS / "executor-ar")
        self._lock = threading.Lock()

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        return await asyncio.to_thread(self._fill, requests)

    def _fill(self, requests: list[FillRequest]) -> list[FillResult]:
        inputs = [FillInput(r.instruction, r.context, r.schema_, r.template, dict(r.allowed))
                  for r in requests]
        try:
            with self._lock:
                outputs = self.decoder.fill(inputs)
        except Exception as e:  # the whole batch failed
            return [FillResult(error=f"{type(e).__name__}: {e}") for _ in requests]
        return [FillResult(value=o.value, error=o.error,
                           stats=FillStats(forward_passes=o.nfe, tokens=o.tokens,
                                           tokens_per_forward=o.tokens_per_forward, ms=o.ms))
                for o in outputs]
