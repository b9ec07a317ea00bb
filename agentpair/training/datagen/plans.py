"""Planner training data: episodes of ten task families on generated sites (one held out whole),
their pages rendered once in Chromium, and one example per planner call, its messages built exactly as at run time:
`python -m agentpair.training.datagen.plans --out data/planner --train 1200 --heldout 150`."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import jsonschema
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from agentpair.training.datagen.families import buy, login, navigate, search
from agentpair.training.datagen.families_forms import config, extract_facts, form
from agentpair.training.datagen.families_widgets import copy, describe, numbers, pick
from agentpair.training.datagen.plan_vocab import WORDS
from agentpair.training.datagen.screens import open_pages
from agentpair.training.datagen.sites import Episode, Move
from agentpair.training.datagen.vocab import VOCABS
from agentpair.models import Plan, Step, StepRecord, Task
from agentpair.planner.request import ToolInfo, plan_request, plan_schema
from agentpair.planner.client import plan_messages
from agentpair.tools.base import Observation
from agentpair.tools.browser import Browser
from agentpair.tools.snapshot import find_ref

FAMILIES: dict[str, Callable[..., Episode]] = {
    "login": login, "search": search, "navigate": navigate, "buy": buy, "form": form,
    "extract": extract_facts, "code": config, "describe": describe, "pick": pick, "copy": copy,
    "numbers": numbers}
HELDOUT_FAMILIES = {"numbers"}  # never trained on: held-out figures on a family, not only on names
SEEDS = {"train": 2000, "heldout": 9500}  # not the executor's seeds; held-out has its own vocabulary
Walk = Callable[[Browser, Episode, int], Awaitable[list[Any]]]  # an episode's pages, as a run sees them


def episodes(split: str, n: int, seed: int | None = None) -> list[tuple[Episode, int]]:
    """Episodes holding n planner calls, the families in equal shares: (episode, calls to use)."""
    rng = random.Random(SEEDS[split] if seed is None else seed)
    out = []
    families = [make for name, make in FAMILIES.items() if split != "train" or name not in HELDOUT_FAMILIES]
    for i, make in enumerate(families):
        quota = n // len(families) + (i < n % len(families))
        while quota > 0:
            episode = make(rng, VOCABS[split], WORDS[split])
            take = min(quota, len(episode.calls))
            out.append((episode, take))
            quota -= take
    return out


def episode_key(episode: Episode, take: int) -> str:
    raw = json.dumps([episode.secrets, [[c.screen.url, c.screen.html] for c in episode.calls[:take]]])
    return hashlib.sha1(raw.encode()).hexdigest()


async def _walk(browser: Browser, episode: Episode, take: int) -> list[Observation]:
    """Open the episode's pages one after the other in one fresh context, as a run would (refs
    after the first page carry Playwright's frame prefix, f1e3, ...); a page the previous call
    also saw is not observed again."""
    open_screen = await open_pages(browser, episode)
    out: list[Observation] = []
    for i, call in enumerate(episode.calls[:take]):
        if i and call.screen == episode.calls[i - 1].screen:
            out.append(out[-1])
            continue
        await open_screen(call.screen)
        out.append(await browser.observe())
    return out


async def render(chosen: list[tuple[Episode, int]], cache: Path, advance: Callable[[], None] = lambda: None,
                 workers: int = 2, walk: Walk | None = None) -> list[Any]:
    """Each chosen episode's observations as `walk` takes them (default: one per call), cached by
    episode and walk; `workers` browsers render in parallel."""
    walk = walk or _walk
    seen: dict[str, Any] = {}
    if cache.is_file():
        for line in cache.read_text().splitlines():
            row = json.loads(line)
            seen[row["key"]] = _loaded(row["observations"])
    keys = [episode_key(ep, take) + ("" if walk is _walk else f":{walk.__name__}") for ep, take in chosen]
    todo = asyncio.Queue()
    for key, (ep, take) in zip(keys, chosen):
        if key in seen:
            advance()
        else:
            todo.put_nowait((key, ep, take))
    cache.parent.mkdir(parents=True, exist_ok=True)

    async def worker(out: Any) -> None:
        async with Browser() as browser:
            while not todo.empty():
                key, episode, take = todo.get_nowait()
                seen[key] = await walk(browser, episode, take)
                out.write(json.dumps({"key": key, "observations": _dumped(seen[key])}) + "\n")
                advance()
    if not todo.empty():
        with cache.open("a") as out:
            await asyncio.gather(*(worker(out) for _ in range(min(workers, todo.qsize()))))
    return [seen[k] for k in keys]


def _dumped(observations: Any) -> Any:
    if isinstance(observations, list):
        return [_dumped(o) for o in observations]
    return observations.model_dump()


def _loaded(row: Any) -> Any:
    return [_loaded(o) for o in row] if isinstance(row, list) else Observation(**row)


def record(iteration: int, move: Move, observation: Observation) -> StepRecord:
    """A step as the agent records it once run: the tool arguments the executor gave (the ref of
    the element it picked on this page), ok or the failure, an extraction's output."""
    args = None
    if move.element is not None:
        args = {"ref": find_ref(observation.snapshot, *move.element, exact=True), **move.args}
    elif move.step["kind"] == "act":
        args = dict(move.args)
    if move.step["kind"] == "code":
        args = {"ref": args["ref"], "text": args["text"]} if args else None
    error = move.error.replace("{ref}", args["ref"]) if move.error and args else move.error
    return StepRecord(iteration=iteration, step=Step.model_validate(move.step), tool_args=args,
                      ok=move.error is None, error=error,
                      output=move.output if move.step["kind"] == "extract" else None)


def examples(split: str, index: int, episode: Episode, take: int, observations: list[Observation],
             tools: list[ToolInfo]) -> list[dict[str, Any]]:
    """One example per planner call of the episode: the request the agent would build there
    (history, memory and page as the run left them) and the plan for this page."""
    task = Task(goal=episode.goal, start_url=episode.calls[0].screen.url, secrets=episode.secrets,
                output_schema=episode.output_schema)
    schema = plan_schema([t.name for t in tools], episode.output_schema)
    records: list[StepRecord] = []
    memory: list[Any] = []
    out = []
    for iteration, (call, observation) in enumerate(zip(episode.calls[:take], observations), start=1):
        request = plan_request(task, observation, list(memory), list(records), tools)
        plan = call.plan()
        jsonschema.validate(plan, schema)
        Plan.model_validate(plan)
        out.append({"split": split, "family": episode.family, "episode": index, "call": iteration,
                    "messages": plan_messages(request), "target": json.dumps(plan, ensure_ascii=False),
                    "reference": plan, "values": [m.values for m in call.moves],
                    "request": request.model_dump()})
        for move in call.records():
            records.append(record(iteration, move, observation))
            if move.step["kind"] == "extract" and move.error is None:
                memory.append(move.output)
    return out


def browser_tools() -> list[ToolInfo]:
    """The browser's tools as the agent lists them to the planner."""
    return [ToolInfo(name=t.name, description=t.description) for t in Browser().tools()]


def build(out: Path, sizes: dict[str, int], seed: int | None = None, console: Console | None = None,
          single_model: bool = False) -> dict[str, Path]:
    """Write {split}.jsonl for each split in `sizes` (n examples each); pages cached in out/pages.jsonl.
    single_model: {split}-single.jsonl instead, the same episodes as a single model's steps
    (datagen.single_plans)."""
    from agentpair.training.datagen import single_plans  # it builds on this module

    console = console or Console(stderr=True)
    chosen = {split: episodes(split, n, seed) for split, n in sizes.items()}
    everything = [pair for picked in chosen.values() for pair in picked]
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("rendering episodes", total=len(everything))
        walk = single_plans.walk_steps if single_model else None
        rendered = iter(asyncio.run(render(everything, out / "pages.jsonl", lambda: progress.advance(bar),
                                           walk=walk)))
    tools, paths = browser_tools(), {}
    for split, picked in chosen.items():
        rows, left_out = [], 0
        for index, (episode, take) in enumerate(picked):
            if single_model:
                made, refused = single_plans.examples(split, index, episode, take, next(rendered))
                rows += made
                left_out += refused
            else:
                rows += examples(split, index, episode, take, next(rendered), tools)
        paths[split] = out / f"{split}{'-single' if single_model else ''}.jsonl"
        paths[split].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        if left_out:
            console.print(f"{split}: {left_out} steps outside the single model's grounded schema left out")
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="data/planner")
    ap.add_argument("--train", type=int, default=1200, help="training examples (planner calls)")
    ap.add_argument("--heldout", type=int, default=150, help="held-out examples (unseen sites and wording)")
    ap.add_argument("--seed", type=int, help="one seed for both splits instead of their fixed ones")
    ap.add_argument("--single-model", action="store_true",
                    help="write {split}-single.jsonl: the same episodes, one example per step a single model "
                         "takes, its tool arguments written out")
    args = ap.parse_args()
    console = Console(stderr=True)
    started = time.perf_counter()
    paths = build(Path(args.out), {"train": args.train, "heldout": args.heldout}, args.seed, console,
                  args.single_model)
    for split, path in paths.items():
        rows = [json.loads(line) for line in path.open()]
        families = Counter(r["family"] for r in rows)
        console.print(f"{split}: {len(rows)} examples -> {path} ({dict(sorted(families.items()))})")
    console.print(f"took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
