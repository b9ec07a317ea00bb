"""The planner against llama.cpp's stock OpenAI-compatible server started by hand (`python -m
llama_cpp.server`, not the embedded path), grounded, in both schema modes: the model name comes from
/v1/models and every plan holds only what the page and goal offer."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import jsonschema
import pytest

from agentpair import OpenAIPlanner
from agentpair.llm.llamacpp import default_gguf, free_port
from agentpair.planner.embedded import SHIPPED_LORA
from agentpair.planner.grounding.schema import grounded_plan_schema
from agentpair.training.datagen.plans import browser_tools
from tests.grounding_helpers import request

pytestmark = pytest.mark.slow
PAGE = ('- heading "Find a recipe" [level=1] [ref=e1]\n- searchbox "Recipe search" [ref=e2]\n'
        '- button "Search" [ref=e3]\n- link "Home" [ref=e4]')
GOAL = "Search the recipes for lentil soup."


@pytest.fixture(scope="module")
def stock_server():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(default_gguf()), "--lora_path",
                             str(SHIPPED_LORA), "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"{base_url}/models", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    try:
        yield base_url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.parametrize("mode", ["pattern", "strict"])
async def test_grounded_plans_from_a_stock_llama_cpp_server_in_either_schema_mode(stock_server: str, mode: str) -> None:
    planner = OpenAIPlanner(base_url=stock_server, grounding="heuristic", schema_mode=mode, timeout_s=120)
    asked = request(goal=GOAL, snapshot=PAGE).model_copy(update={"tools": browser_tools(), "secret_names": []})
    await planner.start()  # what a trace's startup record and first planner span then name
    assert planner.identity()["model"].endswith(".gguf")
    reply = await planner.plan(asked)
    await planner.aclose()
    assert planner.endpoint.model.endswith(".gguf")  # the one model the server lists, not a default name
    jsonschema.validate(reply.plan.model_dump(mode="json", by_alias=True, exclude_none=True), grounded_plan_schema(asked))
    assert reply.plan.steps and reply.attempts[-1]["outcome"] == "ok"
