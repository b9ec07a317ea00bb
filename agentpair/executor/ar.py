"""The AR baseline executor: the same Executor protocol over executor_engine.ar.ARDecoder, a causal
model of the diffusion executor's shape decoding token by token (for `--executor ar-baseline`)."""

from __future__ import annotations

import threading
from pathlib import Path

from agentpair.executor.local import WEIGHTS, Batcher, fill_with
from agentpair.models import FillRequest, FillResult
from executor_engine.ar import ARDecoder


class ARBaselineExecutor:
    """Fills requests with the shipped AR baseline (or a given AR checkpoint) in a worker thread, batched
    across runs as the diffusion executor's are (Batcher)."""

    name = "ar-baseline"

    def __init__(self, checkpoint: str | Path | None = None, device: str = "auto"):
        self.decoder = ARDecoder.load(checkpoint or WEIGHTS / "executor-ar", device=device)
        self._lock = threading.Lock()
        self._batcher = Batcher(self._fill)

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        return await self._batcher.fill(requests)

    def _fill(self, requests: list[FillRequest], cancel: threading.Event) -> list[FillResult]:
        with self._lock:
            return fill_with(lambda inputs: self.decoder.fill(inputs, cancel), requests)
