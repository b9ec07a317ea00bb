"""The whole loop on real Chromium with doubles that follow each scenario's scripted solution,
through the runner and through `agentpair run --json`."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from agentpair import Agent
from agentpair.cli import run as cli_run
from agentpair.cli.main import main
from agentpair.scenarios.loader import list_names, load
from agentpair.scenarios.runner import run_scenario
from tests.scenarios.solution_doubles import SolutionExecutor, SolutionPlanner
from agentpair.tools.browser import Browser


def solution(name: str) -> tuple[list, object]:
    module = importlib.import_module(f"tests.scenarios.test_scenario_{name}")
    return module.SOLUTION, getattr(module, "ANSWER", None)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("name", list_names())
async def test_the_loop_following_the_solution_succeeds(name: str, browser: Browser, tmp_path: Path) -> None:
    steps, answer = solution(name)
    agent = Agent(SolutionPlanner(steps, answer), SolutionExecutor(), browser, trace_dir=tmp_path)
    report, result = await run_scenario(load(name), agent, trace=str(tmp_path / "run.jsonl"))
    assert report.success, (report.reasons, [(s.step.instruction, s.error) for s in result.steps if not s.ok])
    assert report.finished and report.steps == len(steps) + 1
    assert report.trace and Path(report.trace).is_file()


def _cli(monkeypatch, capsys, steps, answer, *args: str) -> tuple[int, dict]:
    monkeypatch.setattr(cli_run, "_agent", lambda _args: Agent(
        SolutionPlanner(steps, answer), SolutionExecutor(), Browser(navigation_timeout_ms=5000)))
    code = main(["run", *args, "--json"])
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_cli_run_json_reports_success_and_the_time_split(monkeypatch, capsys, tmp_path: Path) -> None:
    steps, answer = solution("login")
    code, out = _cli(monkeypatch, capsys, steps, answer, "login", "--trace", str(tmp_path / "t.jsonl"))
    assert code == 0 and out["success"] and out["finished"] and out["scenario"] == "login"
    assert set(out["breakdown_s"]) == {"planner", "executor", "tools", "framework"}
    assert out["trace"] == str(tmp_path / "t.jsonl") and out["steps"] == len(steps) + 1
    assert abs(sum(out["breakdown_s"].values()) - out["wall_s"]) < 0.01 * out["wall_s"]
    spans = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert "startup" in [s.get("name") for s in spans]  # started inside the run: start-up is in its trace


def test_cli_run_exits_1_when_the_check_fails(monkeypatch, capsys) -> None:
    steps, answer = solution("login")
    code, out = _cli(monkeypatch, capsys, steps[:-1], answer, "login", "--no-trace")
    assert code == 1 and not out["success"] and out["finished"] and out["trace"] is None


def test_cli_run_usage_errors_exit_2(capsys) -> None:
    assert main(["run", "no-such-scenario"]) == 2
    said = " ".join(capsys.readouterr().err.split())  # the console wraps long lines where the path ends
    assert "available: checkout, config" in said
    assert main(["run", "--goal", "do it"]) == 2
    with pytest.raises(SystemExit) as bad_url:  # argparse: before anything starts
        main(["run", "--goal", "do it", "--start-url", "not-a-url"])
    assert bad_url.value.code == 2 and "http(s) URL" in " ".join(capsys.readouterr().err.split())
    assert main(["run", "../scenarios/login"]) == 2  # the console wraps long lines: compare words
    assert "not a scenario name but a path" in " ".join(capsys.readouterr().err.split())
    with pytest.raises(SystemExit):  # argparse: a usage error, exit 2
        main(["run", "login", "--run-timeout", "-1"])


@pytest.mark.asyncio(loop_scope="module")
async def test_an_unreachable_start_page_ends_the_run_with_a_clear_reason(browser: Browser, tmp_path: Path) -> None:
    agent = Agent(SolutionPlanner([]), SolutionExecutor(), browser, trace_dir=tmp_path)
    result = await agent.run("open the page", start_url="http://127.0.0.1:9/", trace=tmp_path / "t.jsonl")
    assert not result.finished and "the start page http://127.0.0.1:9/ failed" in result.stop_reason
    assert result.iterations == 0
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    assert any('"start_task"' in line for line in lines)


class _Recording(SolutionPlanner):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.requests: list = []

    async def plan(self, request):  # type: ignore[override]
        self.requests.append(request)
        return await super().plan(request)


@pytest.mark.asyncio(loop_scope="module")
async def test_the_loop_tells_the_planner_which_steps_changed_nothing_on_this_page(browser: Browser,
                                                                                   tmp_path: Path) -> None:
    save = ("click", {"ref": ["button", "Save for later"]})  # the shop's button does nothing
    add = ("click", {"ref": ["button", "Add Braided USB-C cable, 2 m to cart"]})  # the cart count changes
    planner = _Recording([save, add, save])
    agent = Agent(planner, SolutionExecutor(), browser, trace_dir=tmp_path)
    await run_scenario(load("checkout"), agent, trace=False)
    said = [json.dumps(save[1]), json.dumps(add[1])]
    assert planner.requests[0].unchanged == []
    assert planner.requests[1].unchanged == [said[0]]  # the same page, as it was
    assert planner.requests[2].unchanged == []  # a new state of the page: anything may work again


def test_the_planner_timeout_option_reaches_the_endpoint(monkeypatch) -> None:
    from agentpair.cli.main import build_parser, planner_from_args

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    args = build_parser().parse_args(["run", "login", "--planner-timeout", "2.5"])
    assert planner_from_args(args).endpoint.timeout_s == 2.5


def test_the_grounding_option_reaches_an_endpoint_planner_and_the_embedded_one(monkeypatch) -> None:
    from agentpair.cli.main import build_parser, planner_from_args

    def grounding(*options: str) -> str | None:
        return planner_from_args(build_parser().parse_args(["run", "login", *options])).grounding.mode

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert grounding("--grounding", "heuristic") == "heuristic" and grounding() is None
    assert grounding("--grounding", "structural") == "structural"
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert grounding() == "heuristic"  # embedded: the full pack
    assert grounding("--grounding", "none") is None and grounding("--grounding", "structural") == "structural"


def test_the_schema_mode_option_reaches_an_endpoint_planner(monkeypatch) -> None:
    from agentpair.cli.main import build_parser, planner_from_args

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert planner_from_args(build_parser().parse_args(["run", "login"])).schema_mode == "pattern"
    assert planner_from_args(build_parser().parse_args(["run", "login", "--schema-mode", "strict"])).schema_mode == "strict"
    args = ["run", "login", "--planner-base-url", "http://127.0.0.1:9/v1", "--schema-mode", "strict"]
    assert planner_from_args(build_parser().parse_args(args)).schema_mode == "strict"
