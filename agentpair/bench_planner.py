"""`agentpair bench planner`: the embedded planner (optionally with a LoRA adapter) on held-out
planner examples: how often its plan is valid, how often it is right (plan_correct), how fast."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentpair.models import Plan
from agentpair.planner import Planner, PlannerError, PlanRequest

HELDOUT_EXAMPLES = 150


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def step_text(step: dict[str, Any]) -> str:
    """Everything a step says in words: its instruction, answer, template, target, schema fields,
    the arguments a single model wrote."""
    answer = step.get("answer")
    if not isinstance(answer, str):
        answer = "" if answer is None else json.dumps(answer, ensure_ascii=False)
    parts = [step.get("instruction") or "", step.get("template") or "", step.get("target") or "", answer,
             " ".join((step.get("schema") or {}).get("properties", {})),
             " ".join(str(v) for v in (step.get("args") or {}).values())]
    return _norm(" ".join(parts))


def plan_correct(plan: Plan | dict[str, Any], reference: dict[str, Any], values: list[list[str]]) -> bool:
    """A plan is correct when its steps have the reference's kinds and tools, in order, each step
    says every value the reference step carries (typed text, names, labels, answers) and, where the
    reference writes a tool's arguments (a single model's step), has those very arguments."""
    steps = (plan.model_dump(by_alias=True) if isinstance(plan, Plan) else plan).get("steps", [])
    wanted = reference["steps"]
    if [(s.get("kind"), s.get("tool")) for s in steps] != [(s["kind"], s.get("tool")) for s in wanted]:
        return False
    if any(w.get("args") is not None and s.get("args") != w["args"] for s, w in zip(steps, wanted)):
        return False
    return all(_norm(str(value)) in step_text(step) for step, said in zip(steps, values) for value in said)


def ensure_heldout(data: Path) -> None:
    """Generate the held-out examples when the file is missing (fixed seed; renders in Chromium):
    heldout-single.jsonl holds a single model's steps, any other name the paired planner's calls."""
    if not data.is_file():
        from agentpair.datagen.plans import build

        build(data.parent, {"heldout": HELDOUT_EXAMPLES}, single_model=data.name.endswith("-single.jsonl"))


def load(data: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The held-out examples (generated when missing); `limit` keeps N spread over the split."""
    ensure_heldout(data)
    rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    if limit and limit < len(rows):
        rows = [rows[i * len(rows) // limit] for i in range(limit)]
    return rows


async def evaluate(planner: Planner, rows: list[dict[str, Any]],
                   progress: Callable[[int, int], None] = lambda done, total: None,
                   wrong: Path | None = None) -> dict[str, Any]:
    """Ask the planner for each example's plan, through its normal request path, and score it;
    with `wrong`, write each wrong or failed plan there beside its reference (JSONL, as it goes)."""
    results = []
    out = wrong.open("w") if wrong else None
    for row in rows:
        request = PlanRequest.model_validate(row["request"])
        started = time.perf_counter()
        try:
            plan: Plan | None = (await planner.plan(request)).plan
        except PlannerError:
            plan = None
        ms = (time.perf_counter() - started) * 1e3
        correct = plan is not None and plan_correct(plan, row["reference"], row["values"])
        results.append((row["family"], plan is not None, correct, ms))
        if out and not correct:
            out.write(json.dumps({"index": len(results) - 1, "family": row["family"], "goal": request.goal,
                                  "url": request.url, "history": request.history,
                                  "plan": plan.model_dump(by_alias=True, exclude_none=True) if plan else None,
                                  "reference": row["reference"]}, ensure_ascii=False) + "\n")
            out.flush()
        progress(len(results), len(rows))
    if out:
        out.close()
    return summarize(results)


def summarize(results: list[tuple[str, bool, bool, float]]) -> dict[str, Any]:
    """(family, valid, correct, ms) per call -> rates overall and per family, median latency."""
    def rates(part: list[tuple[str, bool, bool, float]]) -> dict[str, Any]:
        n = len(part)
        return {"examples": n, "validity": sum(r[1] for r in part) / n if n else 0.0,
                "correctness": sum(r[2] for r in part) / n if n else 0.0,
                "call_ms_p50": statistics.median(r[3] for r in part) if n else 0.0}
    families = sorted({r[0] for r in results})
    return {**rates(results), "per_family": {f: rates([r for r in results if r[0] == f]) for f in families}}


def bench_planner(data: Path, limit: int | None = None, lora: Path | bool | None = None,
                  progress: Callable[[int, int], None] = lambda done, total: None,
                  wrong: Path | None = None) -> dict[str, Any]:
    """The embedded planner on the held-out examples (lora as EmbeddedPlanner takes it: None = shipped;
    wrong: where to write the wrong plans, see evaluate)."""
    from agentpair.embedded import EmbeddedPlanner

    rows = load(data, limit)

    async def run() -> dict[str, Any]:
        planner = EmbeddedPlanner(lora=lora)
        try:
            await planner.start()
            return {"model": planner.name, "lora": planner.identity()["lora"], "data": str(data),
                    **await evaluate(planner, rows, progress, wrong)}
        finally:
            await planner.aclose()

    return asyncio.run(run())
