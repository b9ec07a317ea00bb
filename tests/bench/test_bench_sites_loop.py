"""`agentpair bench sites` through the real loop and real Chromium, with doubles that follow a reference
solution: a dev family's question answered from the page it read is a grounded success; an answer
with a value no page showed is neither; the per-family totals add up."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentpair.agent.loop import Agent
from agentpair.bench.sites.run import aggregate, bench_sites, draw, run_case
from tests.doubles import ScriptedExecutor, ScriptedPlanner
from tests.scenarios.solution_doubles import SolutionExecutor, SolutionPlanner


def reference(task: str, seed: int) -> tuple[list, dict]:
    """The first steps of an accounts task's solution: find the target user by email and open them."""
    case = draw("accounts", task, seed)
    user = case.site.users[case.site.target]
    steps = [("type", {"ref": ["textbox", "Find a user"], "text": user["email"]}),
             ("click", {"ref": ["button", "Find"]}), ("click", {"ref": ["link", user["name"]]})]
    return steps, user


@pytest.mark.asyncio
async def test_a_question_answered_from_the_page_read_is_a_grounded_success(tmp_path: Path) -> None:
    steps, user = reference("ask-last-sign-in", 0)
    answer = {"team": user["team"], "last_sign_in": user["last"]}
    async with Agent(SolutionPlanner(steps, answer), SolutionExecutor()) as agent:
        run = await run_case(agent, "accounts", "ask-last-sign-in", 0, 8, str(tmp_path / "right.jsonl"))
    assert run.success and run.question and run.grounded is True, run
    assert run.steps == len(steps) + 1 and run.planner_calls == len(steps) + 1 and run.stop_reason == "finished"


@pytest.mark.asyncio
async def test_an_action_taken_in_chromium_through_a_confirmation_is_what_the_site_records(tmp_path: Path) -> None:
    steps, user = reference("deactivate", 2)
    steps += [("click", {"ref": ["link", "Deactivate account"]}), ("click", {"ref": ["button", "Deactivate"]})]
    async with Agent(SolutionPlanner(steps, "done"), SolutionExecutor()) as agent:
        run = await run_case(agent, "accounts", "deactivate", 2, 10, str(tmp_path / "deactivate.jsonl"))
    assert run.success and not run.question and run.grounded is None, run
    assert run.steps == len(steps) + 1


@pytest.mark.asyncio
async def test_an_answer_with_a_value_no_page_showed_is_neither_right_nor_grounded(tmp_path: Path) -> None:
    steps, user = reference("ask-last-sign-in", 0)
    answer = {"team": user["team"], "last_sign_in": "31 December 2024"}
    async with Agent(SolutionPlanner(steps, answer), SolutionExecutor()) as agent:
        run = await run_case(agent, "accounts", "ask-last-sign-in", 0, 8, str(tmp_path / "wrong.jsonl"))
    assert not run.success and run.grounded is False
    assert any("lacks" in r for r in run.reasons)


@pytest.mark.asyncio
async def test_a_family_runs_every_template_and_the_totals_count_them(tmp_path: Path) -> None:
    finish = {"steps": [{"kind": "finish", "instruction": "done", "answer": "done"}]}
    async with Agent(ScriptedPlanner([finish]), ScriptedExecutor([])) as agent:
        runs = await bench_sites(agent, "dev", ["accounts"], [3], 4, tmp_path)
    assert [r.task for r in runs] == ["deactivate", "change-role", "ask-last-sign-in"]
    assert not any(r.success for r in runs) and all(r.planner_calls == 1 for r in runs)
    report = aggregate(runs)
    assert report["success_rate"] == 0.0 and report["per_family"]["accounts"]["runs"] == 3
    assert report["answers"] == 1 and report["answer_grounded_pct"] == 0.0  # "done" is on no page
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == [
        "accounts-ask-last-sign-in-3.jsonl", "accounts-change-role-3.jsonl", "accounts-deactivate-3.jsonl"]
