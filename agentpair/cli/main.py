"""The `agentpair` command line: plan, run, scenarios, bench, trace and replay.

Exit codes: 0 success, 1 the task failed, 2 a usage or configuration error.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from rich.console import Console

from agentpair.version import __version__
from agentpair.cli.options import http_url, planner_from_args, planner_options
from agentpair.errors import UsageError

console = Console(stderr=True)


async def _plan(args: argparse.Namespace) -> int:
    from agentpair.planner.request import PlannerError, PlanRequest, ToolInfo
    from agentpair.tools.browser import Browser

    planner = planner_from_args(args)
    try:
        if hasattr(planner, "start"):
            with console.status("starting the planner"):
                await planner.start()
        request = PlanRequest(goal=args.goal, start_url=args.start_url,
                              tools=[ToolInfo(name=t.name, description=t.description) for t in Browser().tools()])
        try:
            reply = await planner.plan(request)
        except PlannerError as exc:
            console.print(f"[red]planner error:[/red] {exc}")
            return 1
    finally:
        if hasattr(planner, "aclose"):
            await planner.aclose()
    if args.json:
        print(reply.plan.model_dump_json(by_alias=True))
    else:
        console.print(f"[bold]Plan[/bold] from {planner.name}: {reply.plan.thought}")
        for i, step in enumerate(reply.plan.steps, 1):
            console.print(f"  {i}. [cyan]{step.kind}[/cyan] {step.tool or ''} {step.instruction}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentpair",
        description="Fast, cheap, traceable agents: an AR planner paired with a diffusion executor.",
    )
    parser.add_argument("--version", action="version", version=f"agentpair {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    plan = sub.add_parser("plan", help="print a validated plan for a goal from the configured planner")
    plan.add_argument("goal")
    plan.add_argument("--start-url", type=http_url, metavar="URL")
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    planner_options(plan)
    plan.set_defaults(handler=_plan)

    from agentpair.cli.bench import add_bench_commands
    from agentpair.cli.run import add_run_commands

    add_run_commands(sub)
    add_bench_commands(sub)
    from agentpair.cli.trace import add_trace_commands

    add_trace_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return asyncio.run(args.handler(args))
    except UsageError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 2
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/yellow]")
        return 130


if __name__ == "__main__":
    sys.exit(main())
