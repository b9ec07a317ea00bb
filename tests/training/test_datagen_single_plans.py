"""The single-model planner data: one example per step, requests exactly as the single-model agent
builds them, targets its grounded schema allows, and refs that name the element the step names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema

from agentpair.bench.planner import plan_correct
from agentpair.training.datagen.plans import build
from agentpair.training.datagen.single_plans import ordered_args
from agentpair.planner.request import PlanRequest
from agentpair.planner.client import plan_messages
from agentpair.planner.single_model import plan_schema


def test_arguments_come_in_the_order_a_grammar_writes_them() -> None:
    schema = {"properties": {"text": {}, "submit": {}, "ref": {}}, "required": ["ref", "text"]}
    assert list(ordered_args({"submit": False, "ref": "e3", "text": "x"}, schema)) == ["text", "ref", "submit"]
    assert ordered_args({"ref": "e3", "other": 1}, schema) == {"ref": "e3"}


def test_a_rendered_split_holds_single_model_requests_and_their_steps(tmp_path: Path) -> None:
    paths = build(tmp_path, {"train": 14, "heldout": 7}, single_model=True)
    assert {p.name for p in paths.values()} == {"train-single.jsonl", "heldout-single.jsonl"}
    rows = [json.loads(line) for path in paths.values() for line in path.read_text().splitlines()]
    assert {r["split"] for r in rows} == {"train", "heldout"} and len(rows) > 21  # forms take a step per field
    acts = 0
    for row in rows:
        request = PlanRequest.model_validate(row["request"])
        assert request.single_model and row["messages"] == plan_messages(request)
        plan = json.loads(row["target"])
        jsonschema.validate(plan, plan_schema(request, grounded=True))
        assert plan_correct(plan, row["reference"], row["values"])
        (step,) = plan["steps"]
        ref = (step.get("args") or {}).get("ref")
        if ref:  # the element on the page with that ref bears the name the instruction gives
            acts += 1
            line = next(x for x in request.snapshot.splitlines() if f"[ref={ref}]" in x)
            name = re.search(r'"([^"]+)"', line).group(1)
            assert name.casefold() in step["instruction"].casefold()
    assert acts > len(rows) // 2
    shown = 0  # the next step of a plan sees what the step before typed (as at run time)
    for row, after in zip(rows, rows[1:]):
        (step,) = row["reference"]["steps"]
        if step.get("tool") != "type" or (after["split"], after["episode"], after["call"]) != (
                row["split"], row["episode"], row["call"]):
            continue
        line = next(x for x in after["request"]["snapshot"].splitlines() if f"[ref={step['args']['ref']}]" in x)
        assert " ".join(step["args"]["text"].split()) in line  # a snapshot shows text on one line
        shown += 1
    assert shown
