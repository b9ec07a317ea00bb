"""Single-model planner data: the episodes of datagen.plans, one example per step a single model
takes (agentpair.planner.single_model): its request (the page with refs, each tool with its arguments)
and its one-step plan with the tool's arguments written out, refs read off the rendered page.
`python -m agentpair.training.datagen.plans --out data/planner --train 3600 --heldout 150 --single-model`."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from agentpair.training.datagen.screens import open_pages
from agentpair.training.datagen.sites import Episode, Move
from agentpair.models import Plan, Step, StepRecord, Task
from agentpair.planner.client import plan_messages
from agentpair.planner.single_model import plan_schema, single_model_request
from agentpair.tools.base import Observation, Tool
from agentpair.tools.browser import Browser
from agentpair.tools.snapshot import find_ref


def ordered_args(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments in the order a grammar writes them: required ones first, each group in schema order."""
    required = schema.get("required", [])
    names = sorted(schema.get("properties", {}), key=lambda n: n not in required)
    return {n: args[n] for n in names if n in args}


def single_step(move: Move, observation: Observation, tools: dict[str, Tool]) -> dict[str, Any] | None:
    """The step a single model takes for a paired plan's move: an act with its arguments (a code
    step becomes typing the code into its field), a finish as it is; None for an extract, since
    a single model reads values into its answer."""
    kind = move.step["kind"]
    if kind == "extract":
        return None
    if kind == "finish":
        return dict(move.step)
    args = dict(move.args)
    if move.element is not None:
        args = {"ref": find_ref(observation.snapshot, *move.element, exact=True), **args}
    step = dict(move.step)
    if kind == "code":
        step = {"kind": "act", "instruction": f"type the code into {move.step['target']}", "tool": "type"}
    return {**step, "args": ordered_args(args, tools[step["tool"]].args_schema())}


EDITS = ("type", "select", "check")  # tools that change a field, not the page


async def walk_steps(browser: Browser, episode: Episode, take: int) -> list[list[Observation]]:
    """Each call's page before each of its steps, as a single model sees it: the field edits
    among the steps before it run in Chromium first, so a typed value shows, and a call on the page
    the previous call saw finds them there. Clicks and a plan's last step are not run: where they
    lead is the next call's page."""
    open_screen = await open_pages(browser, episode)
    tools = {t.name: t for t in browser.tools()}
    out: list[list[Observation]] = []
    for i, call in enumerate(episode.calls[:take]):
        if not (i and call.screen == episode.calls[i - 1].screen):
            await open_screen(call.screen)
        seen = [await browser.observe()]
        for move in call.moves[:-1]:
            step = single_step(move, seen[-1], tools)
            if step is not None and step.get("tool") in EDITS:
                await tools[step["tool"]](step["args"])
                seen.append(await browser.observe())
            else:
                seen.append(seen[-1])
        out.append(seen)
    return out


def ran_record(iteration: int, step: dict[str, Any], error: str | None) -> StepRecord:
    args = step.get("args")
    error = error.replace("{ref}", args.get("ref", "")) if error and args else error
    return StepRecord(iteration=iteration, step=Step.model_validate(step), tool_args=args, ok=error is None,
                      error=error)


def examples(split: str, index: int, episode: Episode, take: int,
             observations: list[list[Observation]]) -> tuple[list[dict[str, Any]], int]:
    """One example per step of the episode's plans, each on the page as that step finds it
    (walk_steps); the history holds what ran. Returns the examples and how many steps were left
    out because the single model's grounded schema does not allow them there."""
    task = Task(goal=episode.goal, start_url=episode.calls[0].screen.url, secrets=episode.secrets,
                output_schema=episode.output_schema)
    tools = Browser().tools()
    by_name = {t.name: t for t in tools}
    records: list[StepRecord] = []
    out, refused = [], 0
    for number, (call, pages) in enumerate(zip(episode.calls[:take], observations), start=1):
        done: list[StepRecord] = []
        for move, observation in zip(call.moves, pages):
            step = single_step(move, observation, by_name)
            if step is None:
                continue
            request = single_model_request(task, observation, [], records + done, tools)
            plan = {"thought": call.thought, "steps": [step]}
            try:
                jsonschema.validate(plan, plan_schema(request, grounded=True))
            except jsonschema.ValidationError:
                refused += 1
                break  # the later steps of this plan would follow one the schema refuses
            Plan.model_validate(plan)
            out.append({"split": split, "family": episode.family, "episode": index, "call": number,
                        "messages": plan_messages(request), "target": json.dumps(plan, ensure_ascii=False),
                        "reference": plan, "values": [move.values], "request": request.model_dump()})
            done.append(ran_record(len(records) + len(done) + 1, step, None))
        for move in call.records():
            if (step := single_step(move, pages[0], by_name)) is not None:
                records.append(ran_record(len(records) + 1, step, move.error))
    return out, refused
