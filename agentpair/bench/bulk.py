"""`agentpair bench executor --workload bulk`: every record of a generated table or list of cards
(10-16 of them) read into an array of objects in one fill, as a run asks for it (the agent's own
fill_requests), and every field of a generated form of 20-26 text fields filled from one
instruction (agent.form_fill), by the diffusion executor and the AR baseline side by side,
request by request."""

from __future__ import annotations

import asyncio
import random
import statistics
from pathlib import Path
from typing import Any

import torch

from agentpair.agent.form_fill import form_fill
from agentpair.agent.render import executor_context
from agentpair.agent.step_work import fill_requests
from agentpair.executor.local import SHIPPED_SAMPLER, WEIGHTS, fill_with
from agentpair.models import FillRequest, FillResult, Step, Task
from agentpair.tools.base import Observation, Toolbox
from agentpair.training.datagen.build import render_all
from agentpair.training.datagen.pages_bulk import bulk_example, bulk_page
from agentpair.training.datagen.pages_long_forms import long_form_example, long_form_page
from agentpair.training.datagen.vocab import VOCABS
from executor_engine.ar import ARDecoder
from executor_engine.engine import Engine

SEED = 9700  # the workload's pages: a seed and a vocabulary executor training never draws
FORM_SEED = 9800  # the forms': the same held-out vocabulary
BulkCase = tuple[FillRequest, Any]  # the request, and the value it should come to


def bulk_cases(n: int, cache: Path, seed: int = SEED) -> list[BulkCase]:
    """n bulk extractions of held-out pages, each rendered in Chromium (cached by page)."""
    rng, words = random.Random(seed), VOCABS["heldout"]
    pages = [bulk_page(rng, words, words.one(rng, "site")) for _ in range(n)]
    rendered = asyncio.run(render_all(pages, cache))
    cases = []
    for page, (obs, _) in zip(pages, rendered):
        ex = bulk_example(rng, page)
        cases.append((bulk_request(ex["instruction"], ex["schema"], obs, page.goal), ex["target"]))
    return cases


def form_cases(n: int, cache: Path, seed: int = FORM_SEED) -> list[BulkCase]:
    """n long forms of held-out pages, each filled from one instruction, rendered in Chromium."""
    rng, words = random.Random(seed), VOCABS["heldout"]
    pages = [long_form_page(rng, words, words.one(rng, "site")) for _ in range(n)]
    cases = []
    for page, (obs, _) in zip(pages, asyncio.run(render_all(pages, cache))):
        ex = long_form_example(rng, page)
        context = executor_context(Task(goal=page.goal, start_url=obs.url), obs)
        cases.append((form_fill(ex["instruction"], context, obs)[0], ex["target"]))
    return cases


def bulk_request(instruction: str, schema: dict[str, Any], obs: Observation, goal: str) -> FillRequest:
    """The fill an extract step with this schema asks for on this page, as a run makes it."""
    step = Step(kind="extract", instruction=instruction, schema=schema)
    context = executor_context(Task(goal=goal, start_url=obs.url), obs)
    return fill_requests(step, context, obs, Toolbox([]))[0]


def slots(target: Any) -> list[tuple[tuple[Any, ...], Any]]:
    """Every leaf value of a target, keyed by its path: one slot per record's field."""
    if isinstance(target, dict):
        return [((k, *path), v) for k, sub in target.items() for path, v in slots(sub)]
    if isinstance(target, list):
        return [((i, *path), v) for i, sub in enumerate(target) for path, v in slots(sub)]
    return [((), target)]


def slot_hits(value: Any, target: Any) -> list[bool]:
    """Per slot of the target: the filled value has it, of the same type."""
    got = dict(slots(value)) if value is not None else {}
    return [path in got and got[path] == v and type(got[path]) is type(v) for path, v in slots(target)]


def _side(results: list[FillResult], cases: list[BulkCase]) -> dict[str, Any]:
    hits = [slot_hits(r.value, t) for r, (_, t) in zip(results, cases)]
    return {"accuracy_slot": round(sum(map(sum, hits)) / max(sum(map(len, hits)), 1), 4),
            "accuracy_request": round(sum(all(h) for h in hits) / max(len(hits), 1), 4),
            "forwards_p50": statistics.median(r.stats.forward_passes for r in results),
            "no_forward": sum(r.stats.forward_passes == 0 for r in results),
            "ms_p50": round(statistics.median(r.stats.ms for r in results), 1),
            "errors": sum(r.error is not None for r in results)}


def bench_bulk(n: int = 24, cache: Path = Path("data/executor/pages-bulk.jsonl"), model: str | Path | None = None,
               ar_model: str | Path | None = None, device: str = "cpu") -> dict[str, Any]:
    """The bulk workload's report: n tables or lists and n long forms; over all of them and per
    kind, slots per request, and for each executor accuracy per slot and per request, forwards and
    ms per request; their ratios per request, as medians."""
    torch.set_num_threads(1)  # as the held-out evaluation: one core, the other left to the machine
    kinds = {"records": bulk_cases(n, cache), "form": form_cases(n, cache.with_name("pages-long-forms.jsonl"))}
    engine = Engine.load(model or WEIGHTS / "executor", device=device)
    decoder = ARDecoder.load(ar_model or WEIGHTS / "executor-ar", device=device)
    sampler = SHIPPED_SAMPLER
    sides = {"diffusion": lambda r: fill_with(lambda inputs: engine.fill(inputs, sampler), [r])[0],
             "ar": lambda r: fill_with(decoder.fill, [r])[0]}
    cases = [case for group in kinds.values() for case in group]
    for fill in sides.values():  # warm-up
        fill(cases[0][0])
    out: dict[str, list[FillResult]] = {name: [] for name in sides}
    for i, (request, _) in enumerate(cases):  # alternating who goes first, so drift hits both alike
        for name in (list(sides) if i % 2 == 0 else list(sides)[::-1]):
            out[name].append(sides[name](request))
    report = {"model": str(model or "shipped"), "ar_model": str(ar_model or "shipped"), "workload": "bulk",
              "device": str(engine.device), **_report(cases, out["diffusion"], out["ar"]), "by_kind": {}}
    at = 0
    for kind, group in kinds.items():
        report["by_kind"][kind] = _report(group, out["diffusion"][at:at + len(group)], out["ar"][at:at + len(group)])
        at += len(group)
    report["sampler"] = {"threshold": sampler.threshold, "block_length": sampler.block_length}
    return report


def _ratio(diffusion: int, ar: int) -> float:
    """Diffusion forwards over AR forwards for one request; 1 where neither needs one (the offers
    decided it: no side is ahead), as if AR needed one where only diffusion does."""
    return 1.0 if diffusion == ar == 0 else diffusion / max(ar, 1)


def _report(cases: list[BulkCase], d: list[FillResult], a: list[FillResult]) -> dict[str, Any]:
    counts = [len(slots(t)) for _, t in cases]
    return {
        "requests": len(cases),
        "slots_per_request": {"min": min(counts), "p50": statistics.median(counts), "max": max(counts),
                              "share_ge_20": round(sum(c >= 20 for c in counts) / len(counts), 3)},
        "diffusion": _side(d, cases), "ar": _side(a, cases),
        "forwards_ratio_vs_ar": round(statistics.median(_ratio(x.stats.forward_passes, y.stats.forward_passes)
                                                        for x, y in zip(d, a)), 3),
        "speedup_vs_ar": round(statistics.median(y.stats.ms / max(x.stats.ms, 1e-6) for x, y in zip(d, a)), 2),
    }
