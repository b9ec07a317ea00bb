"""What a person sees while a run goes on and when it ends: live event lines and a summary table."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from agentpair.agent.events import AgentEvent
from agentpair.models import RunResult

BENCH_COLUMNS = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())  # a bench's bar
STYLE = {"plan": "cyan", "step": "white", "finish": "green", "done": "bold"}


class LiveProgress:
    """An `on_event` callback that prints one line per loop event, with the time since start."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.started = time.perf_counter()

    def __call__(self, event: AgentEvent) -> None:
        elapsed = time.perf_counter() - self.started
        text = event.text if len(event.text) <= 160 else event.text[:157] + "..."
        took = f" ({event.ms:.0f} ms)" if event.ms else ""
        self.console.print(f"[dim]{elapsed:6.1f}s[/dim] [{STYLE[event.kind]}]iter {event.iteration} "
                           f"{event.kind}[/] {text}{took}", highlight=False, markup=True)


def summary_table(title: str, success: bool | None, result: RunResult) -> Table:
    """Success, steps, wall time and its split into planner, executor, tools and framework."""
    table = Table(title=title, show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    if success is not None:
        table.add_row("success", "[green]yes[/green]" if success else "[red]no[/red]")
    table.add_row("finished", "yes" if result.finished else f"no ({result.stop_reason})")
    table.add_row("steps", str(len(result.steps)))
    table.add_row("wall time", f"{result.wall_s:.2f} s")
    table.add_row("start-up (apart)", f"{result.startup_s:.2f} s")
    for category in ("planner", "executor", "tools", "framework"):
        seconds = result.time_s.get(category, 0.0)
        share = seconds / result.wall_s * 100 if result.wall_s else 0.0
        table.add_row(f"  {category}", f"{seconds:.2f} s ({share:.0f}%)")
    if result.trace_path:
        table.add_row("trace", result.trace_path)
    return table


def bench_trace_dir(name: str) -> Path:
    """A new folder under runs/ for one benchmark command's traces: runs/bench-NAME-<time>."""
    folder = Path("runs") / f"bench-{name}-{datetime.now():%Y%m%d-%H%M%S}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
