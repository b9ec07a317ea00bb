"""The `agentpair trace summary|html` and `agentpair replay` commands: argparse wiring and output.

A trace that cannot be read is a usage error (exit 2, no traceback); so is one cut off mid-line,
after its valid prefix has been shown.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import urllib.error
import urllib.request
from urllib.parse import urlsplit
from typing import Any

from rich.console import Console
from rich.table import Table

from agentpair.errors import UsageError
from agentpair.replay.drive import ReplayResult, replay
from agentpair.tracing.reader import RunTree, TraceError, load_trace
from agentpair.tracing.summary import TraceSummary, summarize
from agentpair.tracing.waterfall import write_waterfall

console = Console(stderr=True)

COLUMNS = ("planner", "executor", "tools", "framework")


def add_trace_commands(sub: Any) -> None:
    """Add `trace summary`, `trace html` and `replay` to the top-level subparsers."""
    from agentpair.cli.options import writable_file

    trace = sub.add_parser("trace", help="read a run's trace: where its time went, as a table or a page")
    trace_sub = trace.add_subparsers(dest="trace_command", required=True)
    summary = trace_sub.add_parser("summary", help="time by category, tool and iteration; tokens")
    summary.add_argument("trace", help="a trace file (.jsonl) written by a run")
    summary.add_argument("--json", action="store_true", help="print the summary as JSON")
    summary.set_defaults(handler=_summary)
    html = trace_sub.add_parser("html", help="write a self-contained waterfall page of the run")
    html.add_argument("trace", help="a trace file (.jsonl) written by a run")
    html.add_argument("-o", "--output", type=writable_file, required=True, help="the HTML file to write")
    html.set_defaults(handler=_html)

    rerun = sub.add_parser("replay", help="re-run a traced run's loop on its recorded plans and check it")
    rerun.add_argument("trace", help="a trace file (.jsonl) written by a run")
    rerun.add_argument("--tools", choices=["recorded", "live"], default="recorded",
                       help="serve recorded tool results (default, offline) or act on the recorded start page")
    rerun.add_argument("--executor", default="recorded",
                       help="recorded (default), default, openai, or a local checkpoint directory (what-if)")
    rerun.add_argument("--secret", action="append", default=[], metavar="NAME=VALUE",
                       help="a secret's value for a live replay (repeatable)")
    rerun.add_argument("--write-trace", type=writable_file, metavar="PATH", help="also trace the replay to PATH")
    rerun.add_argument("--json", action="store_true", help="print the result as JSON")
    rerun.set_defaults(handler=_replay)


def _load(path: str) -> RunTree:
    try:
        return load_trace(path)
    except TraceError as exc:
        raise UsageError(str(exc)) from exc


def _finish(tree: RunTree, warnings: list[str]) -> int:
    """Print the warnings; exit 2 when the file was cut off (what was shown is its valid prefix)."""
    for warning in warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    if tree.truncated:
        console.print(f"[red]error:[/red] {tree.path} is cut off mid-line: the output above covers its "
                      "valid prefix only", highlight=False)
        return 2
    return 0


async def _summary(args: argparse.Namespace) -> int:
    tree = _load(args.trace)
    summary = summarize(tree)
    if args.json:
        print(summary.model_dump_json(indent=2))
    else:
        print_summary(summary, Console())
    return _finish(tree, summary.warnings)


async def _html(args: argparse.Namespace) -> int:
    tree = _load(args.trace)
    path = write_waterfall(tree, args.output)
    console.print(f"wrote {path}", highlight=False)
    return _finish(tree, tree.warnings)


def print_summary(summary: TraceSummary, out: Console) -> None:
    state = (f"finished: {summary.finished} ({summary.stop_reason})" if summary.complete
             else "did not finish (no invoke_agent span)")
    out.print(f"[bold]{summary.goal}[/bold]\nagent {summary.agent} · planner {summary.planner} · "
              f"executor {summary.executor} · {state}", highlight=False)
    categories = Table(title=f"wall {summary.wall_s:.3f} s (start-up {summary.startup_s:.3f} s apart)")
    for name in ("category", "seconds", "share"):
        categories.add_column(name, justify="left" if name == "category" else "right")
    for name in COLUMNS:
        categories.add_row(name, f"{summary.categories_s[name]:.3f}", f"{100 * summary.shares[name]:.1f}%")
    tools = Table(title="tools")
    tools.add_column("tool")
    tools.add_column("seconds", justify="right")
    for name, seconds in summary.tools_detail_s.items():
        tools.add_row(name, f"{seconds:.3f}")
    iterations = Table(title="iterations")
    for name in ("#", "wall", *COLUMNS, "plan"):
        iterations.add_column(name, justify="left" if name == "plan" else "right")
    for it in summary.iterations:
        iterations.add_row(str(it.number), f"{it.wall_s:.3f}", *(f"{it.categories_s[c]:.3f}" for c in COLUMNS),
                           "; ".join(it.plan))
    out.print(categories, tools, iterations)
    out.print(f"planner: {summary.planner_calls} calls, {summary.planner_input_tokens} tokens in, "
              f"{summary.planner_output_tokens} out · executor: {summary.executor_calls} calls, "
              f"{summary.executor_forward_passes} forward passes, {summary.tokens_per_forward:.2f} tokens "
              f"per forward · {summary.tool_calls} tool calls\ncritical path: {len(summary.critical_path)} "
              f"spans, {summary.critical_path_s:.3f} s of {summary.wall_s:.3f} s", highlight=False)
    if summary.planner_cost_ms:
        out.print("planner time: " + ", ".join(f"{name} {ms / 1000:.3f} s" for name, ms in summary.planner_cost_ms.items())
                  + f" (decode {summary.planner_output_tokens} tokens)", highlight=False)


def _secrets(pairs: list[str]) -> dict[str, str]:
    secrets = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--secret takes NAME=VALUE, not {pair!r}")
        secrets[name] = value
    return secrets


async def _executor(choice: str) -> Any:
    """`recorded`, or a live executor chosen as for `agentpair run` (what-if replay)."""
    if choice == "recorded":
        return "recorded"
    from agentpair.cli.run import make_executor
    from agentpair.agent.defaults import default_executor

    return make_executor(choice, None) or await default_executor()


def _reachable(url: str) -> bool:
    if not url.startswith(("http://", "https://")):
        return False
    try:
        urllib.request.urlopen(url, timeout=5).close()
    except urllib.error.HTTPError:
        return True  # the server answered
    except (urllib.error.URLError, OSError, ValueError):
        return False
    return True


async def _replay(args: argparse.Namespace) -> int:
    tree = _load(args.trace)
    secrets = _secrets(args.secret)
    executor = await _executor(args.executor)
    try:
        result = await _run_replay(args, tree, executor, secrets)
    except (TraceError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    finally:
        close = getattr(executor, "aclose", None)
        if close is not None:
            await close()
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print_replay(result, Console())
    code = _finish(tree, result.warnings)
    return code or (0 if result.matched else 1)


async def _run_replay(args: argparse.Namespace, tree: RunTree, executor: Any, secrets: dict[str, str]) -> ReplayResult:
    options = {"executor": executor, "secrets": secrets, "write_trace": args.write_trace}
    if args.tools == "recorded":
        return await replay(args.trace, **options)
    scenario = tree.header.labels.get("scenario")
    if scenario:
        return await _replay_scenario(args.trace, tree, scenario, options)
    url = str(tree.header.task.get("start_url") or "")
    if not url:
        raise UsageError("--tools live acts on the recorded task's start page, but this trace's task has "
                         "no start_url")
    if not await asyncio.to_thread(_reachable, url):
        raise UsageError(f"--tools live acts on the recorded start page, but {url} is not reachable")
    from agentpair.tools.browser import Browser

    async with Browser() as browser:
        return await replay(args.trace, tools="live", environment=browser, **options)


async def _replay_scenario(trace: str, tree: RunTree, name: str, options: dict[str, Any]) -> ReplayResult:
    """Serve the recorded scenario's site again on its recorded port and replay against it."""
    from agentpair.scenarios import loader as scenarios
    from agentpair.tools.browser import Browser

    try:
        scenario = scenarios.load(name)
    except scenarios.ScenarioError as exc:
        raise UsageError(f"the trace played scenario {name!r}: {exc}") from exc
    port = urlsplit(str(tree.header.task.get("start_url") or "")).port or 0
    options["secrets"] = {**scenario.secrets, **options["secrets"]}
    try:
        server = scenario.serve(port)
    except OSError as exc:
        raise UsageError(f"cannot serve scenario {name!r} on its recorded port {port} again: {exc}") from exc
    async with server, Browser() as browser:
        return await replay(trace, tools="live", environment=browser, **options)


def print_replay(result: ReplayResult, out: Console) -> None:
    if result.divergence is None:
        out.print(f"[green]matched[/green] the recording ({result.iterations} iterations"
                  f"{', finished as recorded' if result.success else ''})", highlight=False)
    else:
        d = result.divergence
        out.print(f"[red]diverged[/red] at iteration {d.iteration}, step {d.step} ({d.kind}, {d.span}): "
                  f"{d.message}", highlight=False)
        out.print("expected:", json.dumps(d.expected, indent=1, ensure_ascii=False, default=str), highlight=False)
        out.print("actual:", json.dumps(d.actual, indent=1, ensure_ascii=False, default=str), highlight=False)
    out.print(f"recorded wall {result.recorded_wall_s:.3f} s · replay {result.replay_wall_s:.3f} s · "
              f"model calls {result.model_calls}", highlight=False)
    if result.fills:
        fills = Table(title=f"executor {result.executor} on the recorded requests")
        for name in ("iteration", "requests", "same output", "recorded ms", "replay ms"):
            fills.add_column(name, justify="right")
        for f in result.fills:
            fills.add_row(str(f.iteration), str(f.requests), "yes" if f.equal else "no",
                          f"{f.recorded_ms:.1f}", f"{f.replay_ms:.1f}")
        out.print(fills)
