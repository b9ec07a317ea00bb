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
from agentpair.planner.client import plan_messages
from agentpair.planner.grounding.forced import forced_steps
from agentpair.planner.request import Planner, PlannerError, PlanRequest

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


def forced_agree(forced: list[dict[str, Any]], reference: dict[str, Any], values: list[list[str]]) -> bool:
    """Steps taken without the planner agree with the reference plan when they are its first steps:
    the same kinds and tools in order, each saying the values the reference step carries; a finish
    agrees with a finish (what a reference's finish answers in words is made up, not read)."""
    wanted = reference["steps"][:len(forced)]
    if len(wanted) < len(forced) or [(s.get("kind"), s.get("tool")) for s in forced] != \
            [(s["kind"], s.get("tool")) for s in wanted]:
        return False
    return all(_norm(str(value)) in step_text(step) for step, said in zip(forced, values)
               if not (step["kind"] == "finish" and isinstance(step.get("answer"), str)) for value in said)


def forced_agreement(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The grounding's forced steps (grounding.forced, taken without the planner) on the held-out
    calls: on how many they fire, on how many of those they agree with the reference (forced_agree)."""
    fired = agree = 0
    for row in rows:
        if steps := forced_steps(PlanRequest.model_validate(row["request"])):
            fired += 1
            agree += forced_agree([s.model_dump(by_alias=True) for s in steps], row["reference"], row["values"])
    return {"forced_fired": fired, "forced_agree": agree}


def ensure_heldout(data: Path) -> None:
    """Generate the held-out examples when the file is missing (fixed seed; renders in Chromium):
    heldout-single.jsonl holds a single model's steps, any other name the paired planner's calls."""
    if not data.is_file():
        from agentpair.training.datagen.plans import build

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
                   wrong: Path | None = None, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Ask the planner for each example's plan, through its normal request path, and score it;
    with `wrong`, write each wrong or failed plan there beside its reference (JSONL, as it goes);
    `calls` gets each answered call's timings (PlanReply.timings), output tokens and messages."""
    calls = [] if calls is None else calls
    results = []
    out = wrong.open("w") if wrong else None
    for row in rows:
        request = PlanRequest.model_validate(row["request"])
        started = time.perf_counter()
        try:
            reply = await planner.plan(request)
            plan: Plan | None = reply.plan
            calls.append({**reply.timings, "output_tokens": reply.output_tokens, "messages": plan_messages(request)})
        except PlannerError:
            plan = None
        ms = (time.perf_counter() - started) * 1e3
        if plan is not None:
            calls[-1]["client_ms"] = ms
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
    from agentpair.llm.llamacpp import default_gguf
    from agentpair.planner.embedded import EmbeddedPlanner

    rows = load(data, limit)

    async def run() -> dict[str, Any]:
        planner = EmbeddedPlanner(lora=lora)
        calls: list[dict[str, Any]] = []
        try:
            await planner.start()
            scores = await evaluate(planner, rows, progress, wrong, calls)
            free = [await unconstrained(planner.base_url, call) for call in calls]
        finally:
            await planner.aclose()
        bare = bare_ms_per_token(planner.server.served or default_gguf())
        return {"model": planner.name, "lora": planner.identity()["lora"], "data": str(data), **scores,
                **cost_breakdown(calls, free, bare), **forced_agreement(rows)}

    return asyncio.run(run())


async def unconstrained(base_url: str, call: dict[str, Any]) -> dict[str, float]:
    """The same messages answered with no grammar, for at most as many tokens as the constrained call
    gave, on the same server: its timings (agentpair.llm.llamacpp_server), compared per token. (Forbidding
    the end of text would need a logit bias, which llama-cpp-python applies in Python over the whole
    vocabulary at every token: it would slow the unconstrained side, not measure it.)"""
    import httpx

    from agentpair.llm.endpoint import TIMINGS_HEADER

    body = {"messages": call["messages"], "max_tokens": max(1, int(call["output_tokens"])), "temperature": 0.0}
    async with httpx.AsyncClient(timeout=120) as client:
        response = await client.post(f"{base_url}/chat/completions", json=body)
    response.raise_for_status()
    return json.loads(response.headers.get(TIMINGS_HEADER, "{}"))



def _per_token(timings: dict[str, float]) -> float | None:
    """A call's time per completion token, its prompt aside: (call - prompt) / tokens decoded."""
    n = timings.get("predicted_n", 0)
    return (timings["call_ms"] - timings.get("prompt_ms", 0.0)) / n if n and "call_ms" in timings else None


def cost_breakdown(calls: list[dict[str, Any]], free: list[dict[str, float]], bare_ms: float) -> dict[str, Any]:
    """Medians over the answered calls of where a planner call's time goes (issue 37's fields):
    prompt, decode per token, sampling under the grammar per token, grammar build, HTTP and JSON,
    forwards a call (the prompt's included), the share of guessed tokens kept (agentpair.llm.drafts);
    constrained_overhead_pct: the constrained calls' time per token over the same prompts' unconstrained
    time per token (same lengths, same server), less one; per_token_vs_bare: the planner path's time per
    completion token (client wait less prompt, over tokens) over llama.cpp's own decode per token."""
    med = lambda values: statistics.median(values) if values else 0.0
    timed = [c for c in calls if c.get("call_ms")]
    constrained = [t for c in timed if (t := _per_token(c)) is not None]
    plain = [t for f in free if (t := _per_token(f)) is not None]
    path = [(c["client_ms"] - c.get("prompt_ms", 0.0)) / c["output_tokens"] for c in timed
            if c.get("client_ms") and c.get("output_tokens")]
    return {
        "prompt_ms": med([c.get("prompt_ms", 0.0) for c in timed]),
        "prompt_tokens_evaluated": med([c.get("prompt_n", 0) for c in timed]),
        "decode_ms_per_token": med([c["predicted_ms"] / c["predicted_n"] for c in timed if c.get("predicted_n")]),
        "sample_ms_per_token": med([c["sample_ms"] / c["sample_n"] for c in timed if c.get("sample_n")]),
        "grammar_build_ms": med([c.get("grammar_build_ms", 0.0) + c.get("sampler_init_ms", 0.0) for c in timed]),
        "http_ms": med([c.get("http_ms", 0.0) for c in timed]),
        "output_tokens_p50": med([c["output_tokens"] for c in timed]),
        "forwards_p50": med([c["forwards_n"] for c in timed if c.get("forwards_n")]),
        "guesses_kept_pct": 100 * sum(c.get("accepted_n", 0) for c in timed) / drafted
        if (drafted := sum(c.get("drafted_n", 0) for c in timed)) else None,
        "constrained_overhead_pct": (med(constrained) / med(plain) - 1) * 100 if constrained and plain else None,
        "bare_decode_ms_per_token": bare_ms,
        "per_token_vs_bare": med(path) / bare_ms if path and bare_ms else None,
    }


def bare_ms_per_token(model: Path, tokens: int = 64) -> float:
    """llama.cpp's own greedy decode time per token, through its API in this process, at the server's
    thread count, with the model the server runs (the adapter merged in): the floor a planner call's
    tokens could cost."""
    import os

    from llama_cpp import Llama

    llm = Llama(str(model), n_ctx=1024, n_threads=os.cpu_count() or 1,
                verbose=False)
    try:
        llm.eval(llm.tokenize(b"Plan a web agent's next steps on the page shown, as JSON."))
        times = []
        for _ in range(tokens):
            token = int(llm.scores[llm.n_tokens - 1].argmax())
            started = time.perf_counter()
            llm.eval([token])
            times.append((time.perf_counter() - started) * 1e3)
        return statistics.median(times)
    finally:
        llm.close()
