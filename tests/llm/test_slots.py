"""Planner calls decoded side by side (agentpair.llm.slots): on the real server, calls asked at once
share forwards and each gets its own plan and its own timings; a call finds the slot that holds its
prompt; a call outside the schema path still runs, alone."""

from __future__ import annotations

import asyncio
import json
import types

import httpx
import jsonschema

from agentpair.llm.slots import Slots
from agentpair.planner.embedded import EmbeddedPlanner
from agentpair.planner.grounding.schema import grounded_plan_schema
from tests.llm.test_planner_server import REQUEST

GOALS = ["Sign in as toli.lolalo with {{secret:password}}, then open Messages.",
         "Sign in as ada.byron with {{secret:password}}.",
         "Open the Forgot it? page."]


def test_a_call_takes_the_free_slot_that_holds_most_of_its_prompt() -> None:
    slots = Slots(types.SimpleNamespace(n_batch=8), 3)  # no forward runs here: the choice alone
    first, second, third = slots.free
    first.tokens, second.tokens = [1, 2, 3, 4], [1, 2, 9]
    with slots.slot([1, 2, 3, 7]) as slot:
        assert slot is first and slots.running == 1
        with slots.slot([1, 2, 9, 9]) as other:
            assert other is second
            with slots.slot([5]) as last:
                assert last is third and not slots.free
    assert slots.running == 0 and len(slots.free) == 3


async def plans(slots: int) -> None:
    planner = EmbeddedPlanner(slots=slots)
    requests = [REQUEST.model_copy(update={"goal": goal}) for goal in GOALS]
    await planner.start()
    try:
        await asyncio.gather(*[planner.plan(r) for r in requests])  # each slot now holds its call's prompt
        replies = await asyncio.gather(*[planner.plan(r) for r in requests])
        for request, reply in zip(requests, replies):
            jsonschema.validate(json.loads(reply.raw), grounded_plan_schema(request))
            assert reply.timings["prompt_n"] < 20  # its own slot held its prompt: only the end was evaluated
        forwards = [reply.timings["forwards_n"] for reply in replies]
        calls_ms = [reply.timings["call_ms"] for reply in replies]
        assert len(set(zip(forwards, calls_ms))) == len(replies)  # each response says its own call's figures
        assert sum(reply.timings["shared_forwards_n"] for reply in replies) > 0  # calls' tokens shared forwards
        # a call outside the schema path (sampling, no grammar) runs on the context alone, beside them
        async with httpx.AsyncClient(timeout=60) as client:
            plain = await client.post(f"{planner.base_url}/chat/completions", json={
                "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 8, "temperature": 0.7})
        assert plain.status_code == 200 and plain.json()["choices"][0]["message"]["content"]
    finally:
        await planner.aclose()


def test_calls_asked_at_once_get_their_own_plans_and_timings() -> None:
    asyncio.run(plans(slots=3))
