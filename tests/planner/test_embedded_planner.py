"""The embedded planner on the real llama.cpp server: valid plans, the CLI, and no orphan process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from agentpair import OpenAIPlanner, Plan
from agentpair.llm.llamacpp import LlamaServer
from agentpair.planner.embedded import PLAN_MAX_TOKENS, SINGLE_MODEL_LORA, EmbeddedPlanner
from agentpair.training.datagen.plans import browser_tools
from agentpair.planner.grounding.schema import grounded_plan_schema
from agentpair.planner.request import PlanRequest, ToolInfo
from agentpair.planner.page_view import compact_page, page_names

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
TOOLS = [ToolInfo(name="click", description="click an element"), ToolInfo(name="type", description="type text")]


def llama_servers() -> set[int]:
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"agentpair.llm.llamacpp_server" in (entry / "cmdline").read_bytes():
                    pids.add(int(entry.name))
            except OSError:
                pass
    return pids


def alive(pid: int) -> bool:
    try:
        return (Path(f"/proc/{pid}/stat").read_text().split()[2]) != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def server():
    with LlamaServer() as running:
        yield running


def test_the_server_runs_with_the_top_token_tried_first(server: LlamaServer) -> None:
    assert server.pid in llama_servers()
    assert server._log is not None
    server._log.seek(0)
    assert b"top token first under a grammar: on" in server._log.read()


async def test_openai_planner_on_llama_cpp_returns_a_validated_plan(server: LlamaServer) -> None:
    planner = OpenAIPlanner(base_url=server.base_url, model="smollm2")
    reply = await planner.plan(PlanRequest(goal="Log in as alice", tools=TOOLS,
                                           page='- textbox "Username" [ref=e1]\n- button "Log in" [ref=e2]'))
    await planner.aclose()
    assert isinstance(reply.plan, Plan) and reply.plan.steps
    assert all(s.tool in (None, "click", "type") for s in reply.plan.steps)
    assert reply.input_tokens > 0 and reply.output_tokens > 0
    # llama.cpp rejects OpenAI's json_schema format: auto mode switched without spending a retry
    assert reply.attempts[-1]["format"] == "llamacpp"


async def test_each_call_says_where_its_time_went_and_a_repeated_prompt_comes_from_the_cache(
        server: LlamaServer) -> None:
    planner = OpenAIPlanner(base_url=server.base_url, model="smollm2", structured_output="llamacpp")
    # a prompt no test of this module's server asked before; fixed, as greedy decoding of the bare model
    # loops until the token limit on some goals (a goal with the pid in it: 1 of 30 pids tried)
    request = PlanRequest(goal="Log in as bob", tools=TOOLS,
                          page='- textbox "Username" [ref=e1]\n- button "Log in" [ref=e2]')
    first, again = await planner.plan(request), await planner.plan(request)
    await planner.aclose()
    for reply in (first, again):
        timed = reply.timings
        # each answer token was chosen by the model or forced by the schema (the end token is chosen, not counted)
        assert timed["sample_n"] + timed["forced_n"] - reply.output_tokens in (0, 1)
        assert timed["sample_n"] > 0 and timed["forced_n"] > 0
        assert 0 < timed["forwards_n"] < reply.output_tokens  # forced tokens and kept guesses share forwards
        assert timed.get("accepted_n", 0) <= timed["drafted_n"]
        parts = timed["prompt_ms"] + timed["predicted_ms"] + timed["sample_ms"] + timed["grammar_build_ms"]
        assert 0 < parts <= timed["call_ms"] and timed["http_ms"] >= 0
    # the same prompt: its tokens are cached; its last one and the first forced ones are evaluated
    assert first.timings["prompt_n"] > 20 and again.timings["prompt_n"] < 10


def test_a_schemas_grammar_is_built_once() -> None:
    from llama_cpp.llama_grammar import LlamaGrammar

    from agentpair.llm.llamacpp_server import from_json_schema

    schema = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert from_json_schema(LlamaGrammar, schema) is from_json_schema(LlamaGrammar, schema)
    assert from_json_schema(LlamaGrammar, schema.replace("integer", "string")) is not from_json_schema(
        LlamaGrammar, schema)


async def test_a_finish_answer_follows_the_output_schema(server: LlamaServer) -> None:
    planner = OpenAIPlanner(base_url=server.base_url, model="smollm2", structured_output="llamacpp")
    schema = {"type": "object", "properties": {"price": {"type": "number"}}, "required": ["price"]}
    reply = await planner.plan(PlanRequest(goal="Report the price 12.5 as the answer now.", tools=TOOLS,
                                           output_schema=schema))
    await planner.aclose()
    for step in reply.plan.steps:
        if step.kind == "finish":
            assert isinstance(step.answer, dict) and isinstance(step.answer["price"], (int, float))


async def test_under_the_grounded_schema_the_bare_model_names_only_what_page_and_goal_hold(
        server: LlamaServer) -> None:
    snapshot = ('- textbox "Member ID" [ref=e1]\n- textbox "Password" [ref=e2]\n- button "Let me in" [ref=e3]\n'
                '- link "Forgot it?" [ref=e4]\n- button "Say \\"hi\\"" [ref=e5]')  # a quote: said without
    request = PlanRequest(goal="Sign in as toli.lolalo with {{secret:password}}.", page=compact_page(snapshot),
                          names=page_names(snapshot), secret_names=["password"], tools=browser_tools())
    planner = OpenAIPlanner(base_url=server.base_url, model="smollm2", structured_output="llamacpp", grounding="heuristic")
    reply = await planner.plan(request)
    await planner.aclose()
    jsonschema.validate(json.loads(reply.raw, strict=False), grounded_plan_schema(request))  # the bare model, unguided, does not


async def test_with_an_answer_schema_half_read_the_bare_model_can_only_read_the_rest(server: LlamaServer) -> None:
    snapshot = '- heading "Tern 40 Pro" [ref=e1]\n- text: $1,499.00\n- button "Add to cart" [ref=e2]'
    answer = {"type": "object", "required": ["name", "price_usd"],
              "properties": {"name": {"type": "string"}, "price_usd": {"type": "number"}}}
    request = PlanRequest(goal="Report the name and price of the Tern 40 Pro.", page=compact_page(snapshot),
                          names=page_names(snapshot), tools=browser_tools(), output_schema=answer,
                          memory=[{"price_usd": 1499.0}])
    planner = OpenAIPlanner(base_url=server.base_url, model="smollm2", structured_output="llamacpp", grounding="heuristic")
    reply = await planner.plan(request)
    await planner.aclose()
    jsonschema.validate(json.loads(reply.raw, strict=False), grounded_plan_schema(request))  # the server compiled the const
    assert all(step.kind != "finish" for step in reply.plan.steps)
    assert all(step.schema_["properties"].keys() == {"name"} for step in reply.plan.steps if step.kind == "extract")


async def test_the_embedded_planner_caps_a_reply_so_a_loop_ends_before_the_timeout() -> None:
    planner = EmbeddedPlanner()
    try:
        reply = await planner.plan(PlanRequest(goal="Log in as alice", tools=TOOLS))
        assert planner._planner is not None and reply.output_tokens > 0
        assert planner._planner.endpoint.max_tokens == PLAN_MAX_TOKENS
    finally:
        await planner.aclose()
    assert EmbeddedPlanner(max_tokens=64)._options["max_tokens"] == 64


async def test_in_single_model_mode_the_shipped_adapter_gives_the_ref_of_the_element_its_step_names() -> None:
    from agentpair.models import Task
    from agentpair.planner.single_model import single_model_request
    from agentpair.tools.base import Observation
    from agentpair.tools.browser import Browser

    page = ('- heading "Members" [level=1] [ref=e1]\n- link "Help" [ref=e2] [cursor=pointer]\n'
            '- textbox "Member ID" [ref=e3]\n- textbox "Password" [ref=e4]\n- button "Enter" [ref=e5]')
    task = Task(goal="Log in as lia.moro with password {{secret:password}}", secrets={"password": "pw"})
    request = single_model_request(task, Observation(url="http://club.test/login", title="Members", snapshot=page),
                                   [], [], Browser().tools())
    planner = EmbeddedPlanner(single_model=True)
    try:
        (step,) = (await planner.plan(request)).plan.steps
    finally:
        await planner.aclose()
    assert planner.identity()["lora"] == str(SINGLE_MODEL_LORA)
    assert step.kind == "act" and step.tool == "type" and step.args
    named = next(line for line in page.splitlines() if f"[ref={step.args['ref']}]" in line).split('"')[1]
    assert named in step.instruction and step.args["text"] in step.instruction


def test_cli_plan_with_no_environment_prints_a_valid_plan_and_leaves_no_server() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENTPAIR_"))}
    before = llama_servers()
    proc = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "plan",
                           "Log in as alice and open the billing page", "--json"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    plan = Plan.model_validate_json(proc.stdout.strip().splitlines()[-1])
    assert plan.steps
    time.sleep(0.5)
    assert llama_servers() - before == set()


CHILD = """
import sys, threading, time
import httpx
sys.path.insert(0, {root!r})
from agentpair.llm.llamacpp import LlamaServer
server = LlamaServer().start()
# a request still being answered when the parent dies: 3,000 tokens, the end tokens barred
body = {{"prompt": "1, 2, 3,", "max_tokens": 3000, "logit_bias": {{"0": -100, "2": -100}}}}
threading.Thread(target=lambda: httpx.post(server.base_url + "/completions", json=body, timeout=600),
                 daemon=True).start()
time.sleep(1.0)
print(server.pid, flush=True)
time.sleep(600)
"""


def test_the_server_dies_with_a_killed_parent_even_mid_request() -> None:
    """Nobody is left to read the reply, so the server must not finish it first (about a minute
    of decoding here); a server that is told to shut down gracefully would."""
    parent = subprocess.Popen([sys.executable, "-c", CHILD.format(root=str(ROOT))], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    assert alive(child)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(child)


def test_agentpair_run_end_to_end_on_the_embedded_defaults(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENTPAIR_"))}
    before = llama_servers()
    trace = tmp_path / "e2e.jsonl"
    proc = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "run", "login", "--json", "--max-steps", "2",
                           "--trace", str(trace)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=400)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["scenario"] == "login" and out["trace"] == str(trace) and out["steps"] >= 1
    assert out["startup_s"] > 0 and set(out["breakdown_s"]) == {"planner", "executor", "tools", "framework"}
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert lines[0]["type"] == "header" and any(s.get("name", "").startswith("invoke_agent") for s in lines[1:])
    time.sleep(0.5)
    assert llama_servers() - before == set()
