"""The local diffusion executor: agentpair's Executor protocol over executor_engine.Engine.

With no checkpoint it loads the shipped model (agentpair/weights/executor, trained here).

The shipped models were trained on snapshots whose refs read `[ref=e12]`; after a navigation
Playwright prefixes the main frame's refs with its frame (`[ref=f1e12]`). So when every ref in a
schema request's context carries the same prefix, the model sees plain `eN` refs (context and
all-ref allowed lists) and the prefix is put back on the refs it returns. Mixed prefixes (iframes)
and template requests (free text that could not be mapped back) go to the model unchanged."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentpair.models import FillRequest, FillResult, FillStats
from executor_engine import Engine, FillInput, FillOutput, Sampler, ThresholdSampler
from executor_engine.template import pointer_parts

WEIGHTS = Path(__file__).resolve().parents[1] / "weights"
SHIPPED_SAMPLER = ThresholdSampler(block_length=64, threshold=0.9)  # as evaluated
CONTEXT_REF = re.compile(r"\[ref=(f\d+)?e\d+\]")
PLAIN_REF = re.compile(r"e\d+")


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
        return await in_worker_thread(self._fill, requests)

    def _fill(self, requests: list[FillRequest], cancel: threading.Event) -> list[FillResult]:
        with self._lock:
            return fill_with(lambda inputs: self.engine.fill(inputs, self.sampler, self.use_cache, cancel),
                             requests)


async def in_worker_thread(fill: Callable[[list[FillRequest], threading.Event], list[FillResult]],
                           requests: list[FillRequest]) -> list[FillResult]:
    """Run a blocking fill in a worker thread. A thread cannot be stopped, so when the awaiting
    task is cancelled (a run's timeout) the fill is told to stop before its next forward, and the
    engine is free for the next run instead of finishing a fill nobody waits for."""
    cancel = threading.Event()
    try:
        return await asyncio.to_thread(fill, requests, cancel)
    except asyncio.CancelledError:
        cancel.set()
        raise


def fill_with(run: Callable[[list[FillInput]], list[FillOutput]], requests: list[FillRequest]) -> list[FillResult]:
    """Run an engine-level fill over agentpair's requests; a failure of the whole batch becomes
    each request's error (e.g. out of memory), never an exception."""
    unframed = [_unframed(r) for r in requests]
    try:
        outputs = run([i for i, _, _ in unframed])
    except Exception as e:
        return [FillResult(error=f"{type(e).__name__}: {e}") for _ in requests]
    results = []
    for o, (_, prefix, pointers) in zip(outputs, unframed):
        value = o.value
        for pointer in pointers:
            value = _reframed(value, pointer_parts(pointer), prefix)
        results.append(FillResult(value=value, error=o.error,
                                  stats=FillStats(forward_passes=o.nfe, tokens=o.tokens,
                                                  tokens_per_forward=o.tokens_per_forward, ms=o.ms)))
    return results


def _unframed(r: FillRequest) -> tuple[FillInput, str, list[str]]:
    """The engine's input for a request, without the frame prefix (`f1`) that all its context's
    refs carry; with the prefix taken off and the allowed pointers rewritten ("", [] if none)."""
    allowed = dict(r.allowed)
    prefixes = {m.group(1) for m in CONTEXT_REF.finditer(r.context)}
    if r.template is not None or len(prefixes) != 1 or None in prefixes:
        return FillInput(r.instruction, r.context, r.schema_, r.template, allowed), "", []
    prefix = prefixes.pop()
    framed = re.compile(re.escape(prefix) + PLAIN_REF.pattern)
    pointers = [p for p, values in allowed.items()
                if values and all(isinstance(v, str) and framed.fullmatch(v) for v in values)]
    for p in pointers:
        allowed[p] = [v[len(prefix):] for v in allowed[p]]
    context = r.context.replace(f"[ref={prefix}e", "[ref=e")
    return FillInput(r.instruction, context, r.schema_, None, allowed), prefix, pointers


def _reframed(value: Any, parts: list[str], prefix: str) -> Any:
    """`value` with the prefix put back on the plain ref at the pointer `parts`, if one is there."""
    if not parts:
        return prefix + value if isinstance(value, str) and PLAIN_REF.fullmatch(value) else value
    key, rest = parts[0], parts[1:]
    if isinstance(value, dict) and key in value:
        value[key] = _reframed(value[key], rest, prefix)
    elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
        value[int(key)] = _reframed(value[int(key)], rest, prefix)
    return value
