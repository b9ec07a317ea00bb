"""`agentpair bench loop` and the single-model mode it measures the pairing against: aggregation
on synthetic traces, the single-model schema, the loop executing planner-written args with no
executor call, and the real command end to end on the embedded defaults."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from agentpair import Agent, OpenAIPlanner

from agentpair.planner import single_model
from agentpair.bench.loop import CONFIGS, LoopRun, aggregate, config_order, loop_run, pair_ratios
from agentpair.planner.embedded import SHIPPED_LORA
from agentpair.models import Plan, Task
from agentpair.planner.request import PlanRequest
from agentpair.replay.drive import replay
from agentpair.tracing.reader import load_trace
from tests.doubles import ScriptedExecutor, ScriptedPlanner, SleepyEnvironment
from agentpair.bench.fake_endpoint import FakeEndpoint, Reply
from tests.trace_runs import header, span, write_lines
from agentpair.tools.base import Observation

PAGE = '- textbox "Name" [ref=e1]\n- button "Go" [ref=e2]'


def synthetic_trace(path: Path, planner_ms: int, executor_ms: int, tools_ms: int, wall_ms: int,
                    forwards: int = 0) -> Path:
    """A run of one iteration: chat, then a fill (when executor_ms), then a tool; the rest is framework."""
    fill_end = planner_ms + executor_ms
    spans = [span("chat m", "c1", 0, planner_ms, "i1", "planner", **{"gen_ai.usage.input_tokens": 100,
                                                                     "gen_ai.usage.output_tokens": 20})]
    if executor_ms:
        spans.append(span("fill x", "f1", planner_ms, fill_end, "i1", "executor",
                          **{"agentpair.forward_passes": forwards}))
    spans += [span("execute_tool click", "t1", fill_end, fill_end + tools_ms, "i1", "tools"),
              span("iteration 1", "i1", 0, wall_ms, "r0"),
              span("invoke_agent agentpair", "r0", 0, wall_ms, **{"agentpair.stop_reason": "finished"})]
    return write_lines(path, [header(), *spans])


def test_aggregate_gives_medians_ratios_and_the_split_per_config(tmp_path: Path) -> None:
    # (config, scenario, wall ms, success): paired walls 3, 5, 4 s; single model 8, 6; AR 5
    plan = [("paired", "a", 3000, True), ("single_model", "a", 8000, False), ("ar_executor", "a", 5000, True),
            ("paired", "b", 5000, False), ("single_model", "b", 6000, True),
            ("paired", "b", 4000, True)]
    runs = []
    for i, (config, scenario, wall, success) in enumerate(plan):
        executor = 0 if config == "single_model" else 500
        path = synthetic_trace(tmp_path / f"{i}.jsonl", 1000, executor, 400, wall, forwards=10 if executor else 0)
        runs.append(loop_run(config, scenario, i, success, load_trace(path)))
    assert runs[0].spans == 5 and runs[1].spans == 4 and runs[0].split_s == pytest.approx(
        {"planner": 1.0, "executor": 0.5, "tools": 0.4, "framework": 1.1})

    report = aggregate(runs, us_per_span=1000.0)  # 1 ms per span
    configs = report["configs"]
    assert list(configs) == list(CONFIGS)
    paired, single = configs["paired"], configs["single_model"]
    assert paired["runs"] == 3 and paired["wall_s_p50"] == 4.0 and paired["success_rate"] == pytest.approx(2 / 3)
    assert single["wall_s_p50"] == 7.0 and configs["ar_executor"]["wall_s_p50"] == 5.0
    assert report["wall_ratio_paired_vs_single_model"] == pytest.approx(4 / 7)
    assert report["wall_ratio_paired_vs_ar_executor"] == pytest.approx(4 / 5)
    assert paired["planner_calls"] == 1 and paired["planner_tokens"] == {"input": 100, "output": 20}
    assert paired["executor_forward_passes"] == 10 and single["executor_forward_passes"] == 0
    # the split is the mean per run and adds up to the mean wall time
    assert paired["split_s"] == pytest.approx({"planner": 1.0, "executor": 0.5, "tools": 0.4, "framework": 2.1})
    assert single["split_s"]["executor"] == 0 and single["split_s"]["framework"] == pytest.approx(5.6)
    # overheads are the paired configuration's: framework time over wall time; spans x cost / wall
    assert report["framework_overhead_pct"] == pytest.approx((1.1 + 3.1 + 2.1) / 12 * 100)
    assert report["tracing_overhead_pct"] == pytest.approx(5 * 0.001 / 4 * 100)  # median run: 4 s
    by_scenario = report["per_scenario"]
    assert list(by_scenario) == ["a", "b"] and list(by_scenario["b"]["configs"]) == ["paired", "single_model"]
    assert by_scenario["b"]["configs"]["paired"]["wall_s_p50"] == 4.5
    assert by_scenario["b"]["wall_ratio_paired_vs_single_model"] == pytest.approx(4.5 / 6)
    assert by_scenario["b"]["wall_ratio_paired_vs_ar_executor"] is None
    assert by_scenario["a"]["wall_ratio_paired_vs_ar_executor"] == pytest.approx(3 / 5)
    assert len(report["runs"]) == 6 and json.dumps(report)


def single_request(snapshot: str = PAGE, secrets: dict[str, str] | None = None) -> PlanRequest:
    observation = Observation(url="http://127.0.0.1/p", title="P", snapshot=snapshot, refs=[])
    return single_model.single_model_request(Task(goal="type bob, then go", secrets=secrets or {}), observation,
                                             [], [], SleepyEnvironment().tools())


def test_pair_ratios_compare_the_runs_of_one_scenario_run() -> None:
    def run(config: str, scenario: str, number: int, wall_s: float) -> LoopRun:
        return LoopRun(config=config, scenario=scenario, run=number, success=True, wall_s=wall_s, split_s={},
                       planner_calls=1, planner_input_tokens=1, planner_output_tokens=1,
                       executor_forward_passes=0, spans=1, trace="t")

    runs = [run("paired", "a", 1, 9.0), run("ar_executor", "a", 1, 10.0), run("single_model", "a", 1, 30.0),
            run("paired", "a", 2, 12.0), run("ar_executor", "a", 2, 10.0),
            run("paired", "b", 1, 2.0), run("ar_executor", "b", 1, 4.0), run("ar_executor", "b", 2, 1.0)]
    ratios = pair_ratios(runs)
    assert ratios["ar_executor"] == {"pairs": 3, "ratio_p50": pytest.approx(0.9), "paired_faster": 2}
    assert ratios["single_model"] == {"pairs": 1, "ratio_p50": pytest.approx(0.3), "paired_faster": 1}
    assert "paired" not in ratios


def test_each_executor_config_runs_right_after_the_single_model_as_often_as_the_other() -> None:
    sequence = [config for cell in range(4) for config in config_order(CONFIGS, cell)]
    after_single = [b for a, b in zip(sequence, sequence[1:]) if a == "single_model"]
    assert after_single.count("paired") == after_single.count("ar_executor") == 2
    assert [config_order(CONFIGS, cell)[0] for cell in range(4)] == ["paired", "ar_executor"] * 2


def test_the_single_model_schema_takes_one_tool_call_with_refs_from_the_page() -> None:
    request = single_request(PAGE + "\n- text: hunter2-x", secrets={"pw": "hunter2-x"})
    assert request.single_model and request.refs == ["e1", "e2"] and "[ref=e1]" in request.snapshot
    assert "hunter2-x" not in request.snapshot + request.page and "{{secret:pw}}" in request.snapshot
    assert request.tools[1].description.endswith("Args: ref, text?")
    schema = single_model.plan_schema(request)
    jsonschema.Draft202012Validator.check_schema(schema)
    good = {"thought": "", "steps": [{"kind": "act", "instruction": "type bob", "tool": "type",
                                      "args": {"ref": "e1", "text": "bob"}}]}
    jsonschema.validate(good, schema)
    assert Plan.model_validate(good).steps[0].args == {"ref": "e1", "text": "bob"}
    jsonschema.validate({"thought": "", "steps": [{"kind": "finish", "instruction": "", "answer": "ok"}]}, schema)
    step = good["steps"][0]
    bad = [[{**step, "args": {"ref": "e9", "text": "bob"}}],  # not a ref on the page
           [{**step, "args": {"text": "bob"}}],  # no ref
           [{**step, "tool": "scroll"}],  # not a tool here
           [step, step],  # one call per iteration
           [{"kind": "extract", "instruction": "x", "schema": {}}]]  # no executor to extract
    for steps in bad:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"thought": "", "steps": steps}, schema)
    # refs past what the planner sees are not offered
    long_page = PAGE + "\n" + "\n".join(f'- link "Link {i}" [ref=e{i}]' for i in range(3, 200))
    assert "e199" not in single_request(long_page).refs


def test_the_single_model_schema_offers_a_tool_only_the_refs_it_can_act_on() -> None:
    from agentpair.tools.browser import Browser

    observation = Observation(snapshot=PAGE, refs=["e1", "e2"])
    request = single_model.single_model_request(Task(goal="g"), observation, [], [], Browser().tools())
    schema = single_model.plan_schema(request)
    acts = {b["properties"].get("tool", {}).get("const"): b for b in schema["properties"]["steps"]["items"]["anyOf"]}
    ref_enum = {tool: acts[tool]["properties"]["args"]["properties"]["ref"]["enum"] for tool in ("type", "click", "check")}
    assert ref_enum == {"type": ["e1"], "click": ["e1", "e2"], "check": ["e1", "e2"]}  # no checkbox: every ref


def test_the_single_model_schema_compiles_to_a_llama_cpp_grammar() -> None:
    grammar = pytest.importorskip("llama_cpp.llama_grammar")
    from agentpair.tools.browser import Browser

    observation = Observation(snapshot=PAGE, refs=["e1", "e2"])
    request = single_model.single_model_request(Task(goal="g"), observation, [], [], Browser().tools())
    gbnf = grammar.json_schema_to_gbnf(json.dumps(single_model.plan_schema(request)))
    grammar.LlamaGrammar.from_string(gbnf, verbose=False)


PLANS = [
    {"steps": [{"kind": "act", "tool": "type", "instruction": "type bob into Name", "args": {"ref": "e2", "text": "bob"}}]},
    {"steps": [{"kind": "act", "tool": "click", "instruction": "click Go", "args": {"ref": "e1"}}]},
    {"steps": [{"kind": "finish", "answer": "done"}]},
]


async def test_a_single_model_agent_calls_tools_with_the_planner_args_and_no_executor(tmp_path: Path) -> None:
    planner, env = ScriptedPlanner(PLANS), SleepyEnvironment()
    agent = Agent(planner, None, env, single_model=True)
    trace = tmp_path / "single.jsonl"
    result = await agent.run("type bob, then go", trace=trace)
    assert result.finished and result.answer == "done"
    assert env.calls == [("type", {"ref": "e2", "text": "bob"}), ("click", {"ref": "e1", "text": ""})]
    assert agent._executor is None  # no default executor was loaded
    assert all(r.single_model and r.refs == ["e1", "e2"] and "[ref=e2]" in r.snapshot for r in planner.requests)
    tree = load_trace(trace)
    assert tree.fills() == [] and len(tree.tool_calls()) == 2
    assert tree.header.executor == {"name": "none (single model)"}
    # a single-model trace replays as one: same requests, no executor
    replayed = await replay(trace)
    assert replayed.matched and replayed.finished, replayed.divergence


async def test_a_step_with_args_skips_the_executor_and_one_without_them_fails_in_single_model_mode() -> None:
    executor, env = ScriptedExecutor([]), SleepyEnvironment()
    result = await Agent(ScriptedPlanner(PLANS), executor, env).run("go", trace=False)
    assert result.finished and executor.batches == [] and len(env.calls) == 2

    words = [{"steps": [{"kind": "act", "tool": "click", "instruction": "click Go"}]}, PLANS[2]]
    env = SleepyEnvironment()
    result = await Agent(ScriptedPlanner(words), None, env, single_model=True).run("go", trace=False)
    assert env.calls == [] and "single-model" in str(result.steps[0].error)


async def test_openai_planner_asks_a_single_model_request_under_its_own_prompt_and_schema() -> None:
    plan = {"thought": "", "steps": [{"kind": "act", "instruction": "click Go", "tool": "click",
                                      "args": {"ref": "e2"}}]}
    with FakeEndpoint([Reply(content=json.dumps(plan))]) as fake:
        planner = OpenAIPlanner(base_url=fake.base_url, model="m", api_key="k", structured_output="llamacpp")
        reply = await planner.plan(single_request())
        await planner.aclose()
    assert reply.plan.steps[0].args == {"ref": "e2"}
    body = fake.requests[0]["body"]
    assert body["messages"][0]["content"] == single_model.SYSTEM_PROMPT
    assert "[ref=e2]" in body["messages"][1]["content"]
    assert body["response_format"]["schema"] == single_model.plan_schema(single_request())


@pytest.mark.slow
def test_bench_loop_runs_all_three_configurations_on_the_embedded_defaults(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENTPAIR_"))}
    plot = tmp_path / "split.png"
    single_lora = tmp_path / "single.gguf"  # the single model's own adapter (here a copy of the shipped one)
    shutil.copyfile(SHIPPED_LORA, single_lora)
    proc = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "bench", "loop", "--scenarios", "login",
                           "--runs", "1", "--max-steps", "1", "--json", "--plot", str(plot),
                           "--single-model-lora", str(single_lora)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert list(report["configs"]) == list(CONFIGS) and list(report["per_scenario"]) == ["login"]
    for stats in report["configs"].values():
        assert stats["runs"] == 1 and stats["planner_calls"] >= 1 and stats["planner_tokens"]["input"] > 0
        assert set(stats["split_s"]) == {"planner", "executor", "tools", "framework"}
        assert 0 <= stats["success_rate"] <= 1 and stats["wall_s_p50"] > 0
    assert report["configs"]["single_model"]["executor_forward_passes"] == 0
    for key in ("wall_ratio_paired_vs_single_model", "wall_ratio_paired_vs_ar_executor",
                "framework_overhead_pct", "tracing_overhead_pct"):
        assert isinstance(report[key], float) and report[key] >= 0, key
    assert [run["config"] for run in report["runs"]] == list(CONFIGS)
    assert all((tmp_path / run["trace"]).is_file() for run in report["runs"])
    start_urls = {json.loads(span["attributes"]["agentpair.plan_request"])["start_url"]
                  for run in report["runs"] for span in map(json.loads, (tmp_path / run["trace"]).open())
                  if "agentpair.plan_request" in span.get("attributes", {})}
    assert len(start_urls) == 1  # one site address for the three: the planner's prompts differ by nothing else
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the single-model configuration asked its own planner, the others the default one
    assert report["single_model_planner"]["lora"] == str(single_lora)
    loras = {run["config"]: load_trace(tmp_path / run["trace"]).header.planner["lora"] for run in report["runs"]}
    assert loras == {"paired": str(SHIPPED_LORA), "single_model": str(single_lora), "ar_executor": str(SHIPPED_LORA)}
