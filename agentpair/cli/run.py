"""`agentpair run` and `agentpair scenarios list`: run a scenario or an ad-hoc goal, live, then judge it."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from rich.console import Console

from agentpair.errors import UsageError

console = Console(stderr=True)


def make_executor(choice: str, planner: Any) -> Any:
    """`default` -> None (the agent's default), `openai` -> OpenAIExecutor (its own endpoint, else the
    planner's), `ar-baseline` -> the shipped AR baseline, else a diffusion checkpoint directory."""
    if choice == "default":
        return None
    if choice == "openai":
        from agentpair.executor.openai import OpenAIExecutor

        if planner is None or os.environ.get("AGENTPAIR_EXECUTOR_BASE_URL"):
            return OpenAIExecutor()
        if hasattr(planner, "server"):  # the embedded llama.cpp planner
            return OpenAIExecutor(base_url=planner.base_url, api_key="not-needed", structured_output="llamacpp")
        endpoint = planner.endpoint
        return OpenAIExecutor(base_url=endpoint.base_url, model=endpoint.model, api_key=endpoint.api_key)
    try:
        if choice == "ar-baseline":
            from agentpair.executor.ar import ARBaselineExecutor

            return ARBaselineExecutor()
        if Path(choice).is_dir():
            from agentpair.executor.local import LocalDiffusionExecutor

            return LocalDiffusionExecutor(checkpoint=choice)
    except Exception as exc:  # CheckpointError and friends name the file or tensor
        raise UsageError(f"cannot load the {choice} executor: {exc}") from exc
    raise UsageError(f"--executor is default, openai, ar-baseline or a checkpoint directory, not {choice!r}")


def _agent(args: argparse.Namespace) -> Any:
    from agentpair.agent.loop import Agent
    from agentpair.cli.options import planner_from_args
    from agentpair.progress import LiveProgress
    from agentpair.tools.browser import Browser

    planner = planner_from_args(args)
    if args.single_model and args.executor != "default":
        raise UsageError("--single-model runs no executor: drop --executor")
    executor = None if args.single_model else make_executor(args.executor, planner)
    return Agent(planner, executor, Browser(headless=not args.headed), single_model=args.single_model,
                 on_event=None if args.json else LiveProgress(console))


async def _run(args: argparse.Namespace) -> int:
    from agentpair.scenarios import loader as scenarios
    from agentpair.models import Task
    from agentpair.progress import summary_table
    from agentpair.scenarios.runner import report, run_scenario

    if bool(args.scenario) == bool(args.goal):
        raise UsageError("give a SCENARIO name, or --goal with --start-url")
    if args.goal and not args.start_url:
        raise UsageError("--goal needs --start-url")
    scenario = None
    if args.scenario:
        try:
            scenario = scenarios.load(args.scenario)
        except scenarios.ScenarioError as exc:
            raise UsageError(str(exc)) from exc
    trace: bool | Path = False if args.no_trace else (args.trace or True)
    agent = _agent(args)
    try:  # the run starts the agent itself, so that its trace holds start-up too
        if scenario is not None:
            if args.max_steps:
                scenario = scenario.model_copy(update={"max_steps": args.max_steps})
            if args.run_timeout:
                scenario = scenario.model_copy(update={"timeout_s": args.run_timeout})
            result_report, result = await run_scenario(scenario, agent, trace=trace)
        else:
            task = Task(goal=args.goal, start_url=args.start_url, allowed_origins=args.allow or [],
                        max_steps=args.max_steps or 20, timeout_s=args.run_timeout or 300.0)
            result = await agent.run(task, trace=trace)
            result_report = report("ad-hoc", result.finished, result)
    finally:
        await agent.aclose()
    if not args.json:
        console.print(summary_table(f"agentpair run {result_report.scenario}", result_report.success, result))
        for reason in result_report.reasons:
            console.print(f"[red]check:[/red] {reason}", highlight=False)
    elif result_report.trace:
        console.print(f"trace: {result_report.trace}")
    if args.json:
        print(result_report.model_dump_json())
    return 0 if result_report.success else 1


async def _list(args: argparse.Namespace) -> int:
    from agentpair.scenarios import loader as scenarios

    names = scenarios.list_names()
    if args.json:
        print(json.dumps(names))
        return 0
    for name in names:
        try:
            description = scenarios.load(name).description
        except scenarios.ScenarioError as exc:
            description = f"[red]malformed:[/red] {exc}"
        Console().print(f"[bold]{name}[/bold]  {description}", highlight=False)
    return 0


def add_run_commands(sub: argparse._SubParsersAction) -> None:
    from agentpair.cli.options import allowed_origin, http_url, planner_options, positive_int, positive_seconds, writable_file

    run = sub.add_parser("run", help="run a bundled scenario (or an ad-hoc --goal) and judge it")
    run.add_argument("scenario", nargs="?", help="a name from `agentpair scenarios list`")
    run.add_argument("--goal", help="an ad-hoc goal instead of a scenario")
    run.add_argument("--start-url", type=http_url, metavar="URL", help="with --goal: where to start")
    run.add_argument("--allow", action="append", type=allowed_origin, metavar="ORIGIN", help="with --goal: another allowed origin")
    where = run.add_mutually_exclusive_group()
    where.add_argument("--trace", type=writable_file, metavar="PATH", help="trace file (default runs/<time>-<name>.jsonl)")
    where.add_argument("--no-trace", action="store_true", help="write no trace")
    run.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    run.add_argument("--headed", action="store_true", help="show the browser window")
    run.add_argument("--executor", default="default", help="default (the shipped diffusion model), openai, ar-baseline or a checkpoint directory")
    run.add_argument("--max-steps", type=positive_int, metavar="N", help="stop after N steps (default: the scenario's)")
    run.add_argument("--run-timeout", type=positive_seconds, metavar="S",
                     help="end the run after S seconds (default: the scenario's, else 300)")
    run.add_argument("--single-model", action="store_true",
                     help="the planner writes each tool call itself, one per iteration; no executor")
    planner_options(run)
    run.set_defaults(handler=_run)

    listing = sub.add_parser("scenarios", help="the bundled scenarios")
    actions = listing.add_subparsers(dest="action", required=True)
    names = actions.add_parser("list", help="list the bundled scenarios")
    names.add_argument("--json", action="store_true")
    names.set_defaults(handler=_list)
