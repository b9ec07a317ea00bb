"""Schemas in the strict subset (llm.strict): closed objects, everything required, finite patterns as
enums; and the planner's strict mode sends them and reads the reply back."""

from __future__ import annotations

import json

import jsonschema

from agentpair import OpenAIPlanner
from agentpair.bench.fake_endpoint import FakeEndpoint, Reply
from agentpair.llm.strict import pattern_texts, strict_schema
from agentpair.planner.grounding.schema import grounded_plan_schema
from tests.grounding_helpers import request

FORM = '- textbox "Name" [ref=e1]\n- textbox "E-mail" [ref=e2]\n- button "Join" [ref=e3]\n- link "Rules" [ref=e4]'


def test_a_finite_pattern_is_spelt_out_and_anything_else_stays_a_pattern() -> None:
    assert pattern_texts(r"^type (Ada|Bo\?) into the (Name|E[.]mail) (field|box)$") == sorted(
        f"type {v} into the {f} {k}" for v in ("Ada", "Bo?") for f in ("Name", "E.mail") for k in ("field", "box"))
    assert pattern_texts(r"^go( to)?$") == ["go", "go to"]
    assert pattern_texts(r'^go to( [^"\\]*)?$') is None and pattern_texts(r"^a\d$") is None
    assert pattern_texts("(a|b)") is None  # not anchored: it matches inside longer texts


def test_objects_are_closed_and_what_was_optional_is_required_and_nullable() -> None:
    schema = {"type": "object", "required": ["a"], "properties": {
        "a": {"type": "string", "maxLength": 5, "x-roles": ["textbox"]}, "b": {"const": "k"},
        "c": {"type": "object", "properties": {"d": {"type": "integer", "minimum": 1}}}}}
    strict = strict_schema(schema)
    assert strict["required"] == ["a", "b", "c"] and strict["additionalProperties"] is False
    assert strict["properties"]["a"] == {"type": "string"}
    assert strict["properties"]["b"] == {"enum": ["k", None]}
    inner = strict["properties"]["c"]["anyOf"][0]
    assert inner["required"] == ["d"] and inner["properties"]["d"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert "maxLength" in schema["properties"]["a"]  # the input is left as it was


def test_a_grounded_plan_schema_in_strict_form_is_a_valid_schema_with_the_same_offers() -> None:
    typed = ['[1] act type: type Ada Byron into the Name field {"ref": "e1"} -> ok']
    schema = grounded_plan_schema(request(goal="Join as Ada Byron, e-mail ada@example.org.", snapshot=FORM, history=typed))
    strict = strict_schema(schema)
    jsonschema.Draft202012Validator.check_schema(strict)
    texts = json.dumps(strict)
    assert "type ada@example.org into the E-mail field" in texts and "click the Join button" in texts
    assert '"const"' not in texts and "maxLength" not in texts


async def test_strict_mode_sends_strict_and_takes_a_reply_with_nulls() -> None:
    reply = {"thought": "t", "steps": [
        {"kind": "code", "instruction": "write it", "template": "x = {{x}}", "target": None},  # optional: null
        {"kind": "finish", "instruction": "done", "answer": "ok"}]}
    with FakeEndpoint([Reply(content=json.dumps(reply)), Reply(content=json.dumps({**reply, "extra": 1})),
                       Reply(content=json.dumps(reply))]) as fake:
        planner = OpenAIPlanner(base_url=fake.base_url, model="m", schema_mode="strict", structured_output="json_schema")
        plan = await planner.plan(request(goal="Say ok.", snapshot=FORM))
        again = await planner.plan(request(goal="Say ok.", snapshot=FORM))  # a reply off the schema sent: asked again
    sent = fake.requests[0]["body"]["response_format"]["json_schema"]
    assert sent["strict"] is True and sent["schema"]["additionalProperties"] is False
    assert plan.plan.steps[0].target is None and plan.plan.steps[1].answer == "ok"
    assert len(fake.requests) == 3 and "invalid" in fake.requests[2]["body"]["messages"][-1]["content"]
    assert again.plan == plan.plan
    assert OpenAIPlanner(base_url="https://api.openai.com/v1", api_key="k").schema_mode == "strict"
    assert OpenAIPlanner(base_url="http://127.0.0.1:8080/v1").schema_mode == "pattern"
