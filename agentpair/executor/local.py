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
from agentpair.executor.refusal import refusal
from executor_engine import Engine, FillInput, FillOutput, Sampler, ThresholdSampler, UnfitValues
from executor_engine.template import pointer_parts

WEIGHTS = Path(__file__).resolve().parents[1] / "weights"
SHIPPED_SAMPLER = ThresholdSampler(block_length=64, threshold=0.9)  # as evaluated
CONTEXT_REF = re.compile(r"\[ref=(f\d+)?e\d+\]")
PLAIN_REF = re.compile(r"e\d+")


class Batcher:
    """One engine call at a time, over every request waiting for it: the fills that concurrent runs ask
    for while a call runs (or in the same turn of the event loop) go into the next call together, so
    the engine denoises them in the same forwards. Each result's `stats.engine_batch` says how many
    requests its call held. A caller that stops waiting (a run's timeout) leaves the others' results
    coming; the call is told to stop (before its next forward) once none waits for it."""

    def __init__(self, fill: Callable[[list[FillRequest], threading.Event], list[FillResult]]) -> None:
        self._run = fill
        self._waiting: list[tuple[list[FillRequest], asyncio.Future[list[FillResult]]]] = []
        self._calls: asyncio.Task[None] | None = None

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        future: asyncio.Future[list[FillResult]] = asyncio.get_running_loop().create_future()
        self._waiting.append((requests, future))
        if self._calls is None or self._calls.done():
            self._calls = asyncio.create_task(self._serve())
        return await future

    async def _serve(self) -> None:
        while self._waiting:
            await asyncio.sleep(0)  # the fills asked for in this turn of the loop join this call
            batch = [(requests, future) for requests, future in self._waiting if not future.done()]
            self._waiting = []
            if batch:
                await self._call(batch)

    async def _call(self, batch: list[tuple[list[FillRequest], asyncio.Future[list[FillResult]]]]) -> None:
        cancel = threading.Event()

        def dropped(_: object) -> None:
            if all(future.cancelled() for _, future in batch):
                cancel.set()

        for _, future in batch:
            future.add_done_callback(dropped)
        requests = [r for reqs, _ in batch for r in reqs]
        try:
            results = await asyncio.to_thread(self._run, requests, cancel)
        except BaseException as exc:  # the engine's own errors come back as results; this is the loop's
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            raise
        at = 0
        for reqs, future in batch:
            mine = results[at:at + len(reqs)]
            at += len(reqs)
            for result in mine:
                result.stats.engine_batch = len(requests)
            if not future.done():
                future.set_result(mine)


class LocalDiffusionExecutor:
    """Fills requests with a local diffusion LM; the engine runs in a worker thread, over the requests
    of every run waiting for it at once (Batcher)."""

    name = "local-diffusion"

    def __init__(self, checkpoint: str | Path | None = None, device: str = "auto",
                 dtype: str | None = None, sampler: Sampler | None = None,
                 use_cache: bool = True):
        self.engine = Engine.load(checkpoint or WEIGHTS / "executor", device=device, dtype=dtype)
        self.sampler = sampler or (SHIPPED_SAMPLER if checkpoint is None else ThresholdSampler())
        self.use_cache = use_cache
        self._lock = threading.Lock()  # one engine call at a time
        self._batcher = Batcher(self._fill)

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        return await self._batcher.fill(requests)

    def _fill(self, requests: list[FillRequest], cancel: threading.Event) -> list[FillResult]:
        with self._lock:
            return fill_with(lambda inputs: self.engine.fill(inputs, self.sampler, self.use_cache, cancel),
                             requests)


def fill_with(run: Callable[[list[FillInput]], list[FillOutput]], requests: list[FillRequest]) -> list[FillResult]:
    """Run an engine-level fill over agentpair's requests; a failure of the whole batch becomes
    each request's error (e.g. out of memory), never an exception; values a step gave that the
    schema does not take, a refusal in plain words (agentpair.executor.refusal)."""
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
        error = refusal(o.cause) if isinstance(o.cause, UnfitValues) else o.error
        results.append(FillResult(value=value, error=error,
                                  stats=FillStats(forward_passes=o.nfe, tokens=o.tokens,
                                                  tokens_per_forward=o.tokens_per_forward, ms=o.ms)))
    return results


def _unframed(r: FillRequest) -> tuple[FillInput, str, list[str]]:
    """The engine's input for a request, without the frame prefix (`f1`) that all its context's
    refs carry; with the prefix taken off and the allowed pointers rewritten ("", [] if none)."""
    allowed = dict(r.allowed)
    prefixes = {m.group(1) for m in CONTEXT_REF.finditer(r.context)}
    if r.template is not None or len(prefixes) != 1 or None in prefixes:
        return FillInput(r.instruction, r.context, r.schema_, r.template, allowed, r.tied, r.distinct), "", []
    prefix = prefixes.pop()
    framed = re.compile(re.escape(prefix) + PLAIN_REF.pattern)
    pointers = [p for p, values in allowed.items()
                if values and all(isinstance(v, str) and framed.fullmatch(v) for v in values)]
    for p in pointers:
        allowed[p] = [v[len(prefix):] for v in allowed[p]]
    context = r.context.replace(f"[ref={prefix}e", "[ref=e")
    return FillInput(r.instruction, context, r.schema_, None, allowed, r.tied, r.distinct), prefix, pointers


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
