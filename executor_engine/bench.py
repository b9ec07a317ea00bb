"""A fixed fill workload (tool calls with allowed refs, extractions, code templates) and its timings.

`run_bench(engine)` returns the numbers `agentpair bench executor` reports; `bench_executor`
falls back to a tiny random-weight checkpoint when no model is given.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from executor_engine.engine import Engine, FillInput
from executor_engine.sampler import Sampler, ThresholdSampler
from executor_engine.testing import make_tiny_checkpoint

ITEMS = ["Blue shirt", "Red hat", "Green socks", "Black jeans", "White sneakers", "Grey scarf"]


def page_context(n: int) -> tuple[str, list[str]]:
    """An accessibility-snapshot-like page of about 300 tokens, and its element refs."""
    lines, refs = [f"- heading \"Shop page {n}\" [level=1]"], []
    for i, item in enumerate(ITEMS):
        ref = f"e{10 * n + i}"
        refs.append(ref)
        lines.append(f"- listitem: link \"{item} ${9 + i}.{i}9\" [ref={ref}] - button \"Add {item} "
                     f"to cart\" [ref={ref}b]")
    lines += ["- textbox \"Search\" [ref=s1]", "- button \"Sign in\" [ref=s2]"]
    return "\n".join(lines), refs + ["s1", "s2"]


def workload() -> list[FillInput]:
    """Eight fills over two pages: four tool calls, two extractions, two code templates."""
    reqs = []
    for n in range(2):
        ctx, refs = page_context(n)
        reqs += [
            FillInput("click the Red hat link", ctx, {"type": "object", "properties": {
                "ref": {"type": "string"}}, "required": ["ref"]}, allowed={"/ref": refs}),
            FillInput("type 'wool scarf' into the search box", ctx, {"type": "object", "properties": {
                "ref": {"type": "string"}, "text": {"type": "string", "maxLength": 40},
                "submit": {"type": "boolean"}}, "required": ["ref", "text"]}, allowed={"/ref": refs}),
            FillInput("extract the first three products with prices", ctx, {
                "type": "array", "maxItems": 3, "items": {"type": "object", "properties": {
                    "name": {"type": "string", "maxLength": 24}, "price": {"type": "number"}},
                    "required": ["name", "price"]}}),
            FillInput("sum the prices in the cart", ctx,
                      template="total = sum({{expr:12}})\nprint(f\"{{fmt:8}}\")"),
        ]
    return reqs


def _timed(engine: Engine, reqs: list[FillInput], sampler: Sampler, use_cache: bool = True) -> float:
    t = time.perf_counter()
    outs = engine.fill(reqs, sampler, use_cache)
    errors = [o.error for o in outs if o.error]
    if errors:
        raise RuntimeError(f"bench fill failed: {errors[0]}")
    return time.perf_counter() - t


def run_bench(engine: Engine, sampler: Sampler | None = None, model: str = "") -> dict[str, Any]:
    """Run the workload alone, in batches of 1/8/32, and cached vs uncached."""
    sampler = sampler or ThresholdSampler()
    reqs = workload()
    engine.fill(reqs[:2], sampler)  # warm-up
    singles = [engine.fill([r], sampler)[0] for r in reqs]
    fills_per_s = {}
    for b in (1, 8, 32):
        batch = (reqs * (b // len(reqs) + 1))[: max(b, len(reqs))]
        elapsed = sum(_timed(engine, batch[i : i + b], sampler) for i in range(0, len(batch), b))
        fills_per_s[b] = round(len(batch) / elapsed, 2)
    cached, uncached = _timed(engine, reqs, sampler, True), _timed(engine, reqs, sampler, False)
    return {
        "model": model or engine.cfg.layout,
        "fills": len(reqs),
        "nfe_per_fill": sum(o.nfe for o in singles) / len(singles),
        "slot_tokens_per_forward": round(sum(o.tokens for o in singles)
                                         / max(sum(o.nfe for o in singles), 1), 3),
        "fill_ms_p50": round(statistics.median(o.ms for o in singles), 2),
        "fills_per_s_batch": fills_per_s,
        "cached_vs_uncached_speedup": round(uncached / cached, 2),
    }


def bench_executor(model: str | Path | None = None, device: str = "auto",
                   sampler: Sampler | None = None) -> dict[str, Any]:
    """run_bench on a checkpoint directory, or on a tiny random-weight one when model is None."""
    if model is not None:
        return run_bench(Engine.load(model, device=device), sampler, str(model))
    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine.load(make_tiny_checkpoint(tmp, "agentpair", seed=0), device=device)
        return run_bench(engine, sampler, "tiny random-weight agentpair checkpoint")
