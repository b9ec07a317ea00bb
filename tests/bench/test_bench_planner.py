"""The planner bench's scorer (plan_correct), its summary, and a run on a stand-in planner."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentpair.bench.planner import HELDOUT_EXAMPLES, evaluate, forced_agree, forced_agreement, load, plan_correct
from agentpair.training.datagen.plans import build
from agentpair.models import Plan
from agentpair.planner.request import PlannerError, PlanReply, PlanRequest

LOGIN = {"thought": "Fill in the sign-in form and submit it.", "steps": [
    {"kind": "act", "instruction": "type ada.lovelace into the Username field", "tool": "type"},
    {"kind": "act", "instruction": "type {{secret:password}} into the Password field", "tool": "type"},
    {"kind": "act", "instruction": "click the Sign in button", "tool": "click"}]}
LOGIN_VALUES = [["ada.lovelace", "Username"], ["{{secret:password}}", "Password"], ["Sign in"]]
PRICE = {"type": "object", "properties": {"price_usd": {"type": "number"}}}
EXTRACT = {"thought": "Read.", "steps": [{"kind": "extract", "instruction": "extract the price of the Teal mug",
                                          "schema": PRICE}]}
FINISH = {"thought": "Done.", "steps": [{"kind": "finish", "instruction": "report the extracted facts",
                                         "answer": {"price_usd": 101.99, "weight_kg": 1.0}}]}
CODE = {"thought": "Fill.", "steps": [
    {"kind": "code", "instruction": "fill in the service template: name kota-api, port 8080",
     "template": 'name = "{{name:16}}"\nport = {{port:6}}\n', "target": "the Config box"},
    {"kind": "act", "instruction": "click the Create service button", "tool": "click"}]}


def edited(plan: dict, index: int, **changes: object) -> dict:
    steps = [dict(s) for s in plan["steps"]]
    steps[index].update(changes)
    return {**plan, "steps": steps}


def test_the_reference_and_a_reworded_plan_are_correct() -> None:
    assert plan_correct(LOGIN, LOGIN, LOGIN_VALUES)
    reworded = edited(LOGIN, 0, instruction="Enter ADA.LOVELACE in the  username box")
    assert plan_correct(Plan.model_validate(reworded), LOGIN, LOGIN_VALUES)
    assert plan_correct(edited(FINISH, 0, answer={"weight_kg": 1, "price_usd": 101.99}), FINISH, [["101.99", "1"]])
    assert plan_correct(EXTRACT, EXTRACT, [["Teal mug", "price_usd"]])
    assert plan_correct(CODE, CODE, [["kota-api", "8080", "Config"], ["Create service"]])


@pytest.mark.parametrize("plan, reference, values", [
    (edited(LOGIN, 0, instruction="type ada into the Username field"), LOGIN, LOGIN_VALUES),  # wrong value
    (edited(LOGIN, 2, instruction="click the Create account button"), LOGIN, LOGIN_VALUES),  # wrong button
    (edited(LOGIN, 1, instruction="type s3cret into the Password field"), LOGIN, LOGIN_VALUES),  # no placeholder
    (edited(LOGIN, 2, tool="press"), LOGIN, LOGIN_VALUES),  # wrong tool
    ({**LOGIN, "steps": LOGIN["steps"][:2]}, LOGIN, LOGIN_VALUES),  # a step short
    ({**LOGIN, "steps": LOGIN["steps"][::-1]}, LOGIN, LOGIN_VALUES),  # wrong order
    ({"thought": "", "steps": [{"kind": "finish", "answer": "done"}]}, LOGIN, LOGIN_VALUES),  # gives up
    (edited(FINISH, 0, answer={"price_usd": 110.99, "weight_kg": 1.0}), FINISH, [["101.99", "1"]]),
    (edited(EXTRACT, 0, schema={"type": "object", "properties": {"price": {"type": "number"}}}),
     EXTRACT, [["Teal mug", "price_usd"]]),  # another field name
    (edited(CODE, 0, instruction="fill in the service template", template="name = kota-api"),
     CODE, [["kota-api", "8080", "Config"], ["Create service"]]),  # a setting left out
    (edited(CODE, 0, target="the Notes box"), CODE, [["kota-api", "8080", "Config"], ["Create service"]]),
], ids=["value", "button", "secret", "tool", "short", "order", "gives-up", "answer", "field", "setting", "box"])
def test_wrong_plans_are_not_correct(plan: dict, reference: dict, values: list[list[str]]) -> None:
    assert not plan_correct(plan, reference, values)


SINGLE = {"thought": "", "steps": [{"kind": "act", "instruction": "type ada into the Username field", "tool": "type",
                                    "args": {"ref": "e5", "text": "ada", "submit": False}}]}


@pytest.mark.parametrize("args", [{"ref": "e6", "text": "ada", "submit": False}, {"ref": "e5", "text": "ada"}, None],
                         ids=["other-ref", "an-arg-left-out", "no-args"])
def test_a_single_models_step_is_correct_only_with_the_references_arguments(args: dict | None) -> None:
    assert plan_correct(SINGLE, SINGLE, [["ada", "Username"]])
    assert not plan_correct(edited(SINGLE, 0, args=args), SINGLE, [["ada", "Username"]])


class StandIn:
    """Answers from a table of goals; an unknown goal is an invalid plan."""

    name = "stand-in"

    def __init__(self, answers: dict[str, dict]) -> None:
        self.answers = answers

    def identity(self) -> dict:
        return {"kind": "test"}

    async def plan(self, request: PlanRequest) -> PlanReply:
        if request.goal not in self.answers:
            raise PlannerError("gave an invalid plan twice")
        return PlanReply(plan=Plan.model_validate(self.answers[request.goal]))


def test_evaluate_reports_validity_correctness_and_latency_per_family(tmp_path: Path) -> None:
    rows = [{"family": "login", "request": {"goal": "a"}, "reference": LOGIN, "values": LOGIN_VALUES},
            {"family": "login", "request": {"goal": "b"}, "reference": LOGIN, "values": LOGIN_VALUES},
            {"family": "extract", "request": {"goal": "c"}, "reference": EXTRACT, "values": [["Teal mug"]]}]
    planner = StandIn({"a": LOGIN, "b": edited(LOGIN, 2, instruction="click Register")})
    seen = []
    wrong = tmp_path / "wrong.jsonl"
    report = asyncio.run(evaluate(planner, rows, lambda done, total: seen.append((done, total)), wrong))
    assert report["examples"] == 3 and seen[-1] == (3, 3)
    written = [json.loads(line) for line in wrong.read_text().splitlines()]
    assert [(w["index"], w["goal"]) for w in written] == [(1, "b"), (2, "c")]
    assert written[0]["plan"]["steps"][2]["instruction"] == "click Register" and written[1]["plan"] is None
    assert written[1]["reference"] == EXTRACT
    assert report["validity"] == pytest.approx(2 / 3) and report["correctness"] == pytest.approx(1 / 3)
    assert report["per_family"]["login"] == {**report["per_family"]["login"], "validity": 1.0, "correctness": 0.5}
    assert report["per_family"]["extract"]["validity"] == 0.0 and report["call_ms_p50"] >= 0
    data = tmp_path / "heldout.jsonl"
    data.write_text("".join(json.dumps({**r, "i": i}) + "\n" for i, r in enumerate(rows * 4)))
    assert [r["i"] for r in load(data, limit=4)] == [0, 3, 6, 9]


def test_the_cost_breakdown_takes_medians_and_compares_with_the_unconstrained_and_bare_decodes() -> None:
    from agentpair.bench.planner import cost_breakdown

    calls = [{"prompt_ms": 100.0, "prompt_n": 200, "predicted_ms": 500.0, "predicted_n": 50, "sample_ms": 25.0,
              "sample_n": 50, "grammar_build_ms": 2.0, "sampler_init_ms": 1.0, "http_ms": 4.0, "call_ms": 640.0,
              "client_ms": 650.0, "output_tokens": 50, "forwards_n": 20, "drafted_n": 10, "accepted_n": 6},
             {"prompt_ms": 300.0, "prompt_n": 400, "predicted_ms": 1000.0, "predicted_n": 100, "sample_ms": 50.0,
              "sample_n": 100, "grammar_build_ms": 4.0, "sampler_init_ms": 1.0, "http_ms": 6.0, "call_ms": 1370.0,
              "client_ms": 1380.0, "output_tokens": 100, "forwards_n": 30, "drafted_n": 10, "accepted_n": 2}]
    free = [{"prompt_ms": 0.0, "predicted_n": 50, "call_ms": 500.0}, {"prompt_ms": 0.0, "predicted_n": 100,
                                                                      "call_ms": 1000.0}]
    cost = cost_breakdown(calls, free, bare_ms=8.0)
    assert cost["prompt_ms"] == 200.0 and cost["decode_ms_per_token"] == 10.0 and cost["sample_ms_per_token"] == 0.5
    assert cost["grammar_build_ms"] == 4.0 and cost["http_ms"] == 5.0
    assert round(cost["constrained_overhead_pct"], 6) == 7.5  # (540/50 + 1070/100) / 2 per token vs 10 unconstrained
    assert round(cost["per_token_vs_bare"], 6) == round(((550 / 50) + (1080 / 100)) / 2 / 8.0, 6)
    assert cost["forwards_p50"] == 25 and cost["guesses_kept_pct"] == 40.0  # (6 + 2) of (10 + 10) guesses kept
    assert cost_breakdown([], [], 8.0)["constrained_overhead_pct"] is None


def test_steps_taken_without_the_planner_agree_when_they_begin_the_reference() -> None:
    typed = [LOGIN["steps"][0]]
    assert forced_agree(typed, LOGIN, LOGIN_VALUES)  # the first of the reference's steps
    assert not forced_agree([{**typed[0], "instruction": "type ada into the Username field"}], LOGIN, LOGIN_VALUES)
    assert not forced_agree([LOGIN["steps"][2]], LOGIN, LOGIN_VALUES)  # a click before the form is filled
    done = [{"kind": "finish", "instruction": "the goal is done", "answer": "the goal is done"}]
    assert forced_agree(done, FINISH, [["made-up words"]])  # a finish's words are not read off the page
    assert not forced_agree(done, CODE, [[], []])  # finished before the code step


def test_steps_taken_without_the_planner_agree_with_the_held_out_references(tmp_path: Path) -> None:
    """On held-out calls (sites and wordings no rule was written against) the forced steps fire
    and every one of them begins the reference plan."""
    found = forced_agreement(load(build(tmp_path, {"heldout": HELDOUT_EXAMPLES})["heldout"]))
    assert found["forced_fired"] >= 15
    assert found["forced_agree"] == found["forced_fired"]
