"""`agentpair bench miniwob` (the command, `main`), and its `--suite all`: every task the miniwob
package ships, the ones a text-only agent cannot attempt left out with their reasons, and the
suite's rates counting every task.

The tasks shipped are the package's pages (`html/miniwob/*.html`) that it also registers as an
environment (a `subdomain` in `miniwob/envs/miniwob_envs.py`): 125, the set BrowserGym runs. Five
more pages (button-delay, chase-circle, hover-shape, moving-items, simon-says) have no environment;
they are reported as such and counted nowhere.

How the left-out set was decided: each shipped page was loaded in the project's Chromium with its
utterances for ten seeds and the project's page view, and its markup and script read. A task is
left out when what it turns on, in general and not only in some episodes, is held by the page
only as pixels or needs a pointer gesture, in one of six kinds (LEFT_OUT_KINDS): a point chosen by
its position on a drawing, a drag (or a drawn stroke, a resize, a slider's handle), a text
selection made with the mouse, a colour held only as a fill, a shape, size or colour named that
svg or canvas geometry alone holds, or a picture with no text. Each left-out page holds its kind's
mark in its source (the test checks it). A task whose utterance only sometimes names something
visual (click-menu-2's icons) is attempted, and those episodes count as they come out. Issue 36's
development list is attempted whole (form-sequence's slider included): it is what was tuned on.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from agentpair.progress import BENCH_COLUMNS, bench_trace_dir
from agentpair.bench.miniwob import TASKS, Episode, aggregate, bench_miniwob, console, miniwob_html, task_names
from agentpair.errors import UsageError

# Each kind of leaving out, with the mark its pages hold in their source.
LEFT_OUT_KINDS = {
    "position": r"pageX|mousemove|selectAll\('circle'\)",
    "drag": r"(?i)drag|sortable|resizable|\.slider\(|mousedown",
    "selection": r"getSelection|Quill",
    "colour": r"background-color|backgroundColor",
    "shape": r"shapes\.js|<canvas",
    "picture": r"\.png|background-color",
}
LEFT_OUT: dict[str, tuple[str, str]] = {
    "bisect-angle": ("position", "the answer is a point clicked on an svg drawing, scored by its coordinates"),
    "circle-center": ("position", "the answer is a point clicked on an svg drawing, scored by its coordinates"),
    "right-angle": ("position", "the answer is a point clicked on an svg drawing, scored by its coordinates"),
    "find-midpoint": ("position", "the answer is a point clicked on an svg drawing, scored by its coordinates"),
    "grid-coordinate": ("position", "the grid's points are unlabelled svg circles, told apart only by position"),
    "hot-cold": ("position", "the hot area is found by moving the pointer; no element marks it"),
    "draw-circle": ("drag", "the answer is a stroke drawn with the pointer"),
    "draw-line": ("drag", "the answer is a stroke drawn with the pointer"),
    "drag-box": ("drag", "the answer is an element dragged onto another"),
    "drag-circle": ("drag", "the answer is an svg shape dragged in a direction"),
    "drag-cube": ("drag", "the cube turns by dragging it, by how fast the pointer moves"),
    "drag-items": ("drag", "the list is reordered by dragging (jQuery UI sortable)"),
    "drag-items-grid": ("drag", "the grid is reordered by dragging (jQuery UI sortable)"),
    "drag-shapes": ("drag", "the answer is svg shapes dragged into a box"),
    "drag-shapes-2": ("drag", "the answer is svg shapes dragged into boxes by kind"),
    "drag-single-shape": ("drag", "the answer is an svg shape dragged in a direction"),
    "drag-sort-numbers": ("drag", "the list is sorted by dragging (jQuery UI sortable)"),
    "daily-calendar": ("drag", "the event is made by dragging across the day's empty hour slots"),
    "resize-textarea": ("drag", "the answer is a textarea resized by dragging its handle (jQuery UI resizable)"),
    "use-slider": ("drag", "the value is set by dragging a jQuery UI slider handle that has no role or name"),
    "use-slider-2": ("drag", "the values are set by dragging jQuery UI slider handles that have no role or name"),
    "highlight-text": ("selection", "scored from window.getSelection(): text selected by dragging the mouse"),
    "highlight-text-2": ("selection", "scored from window.getSelection(): one paragraph selected with the mouse"),
    "text-editor": ("selection", "a style is applied to a word selected with the mouse in a Quill editor"),
    "click-color": ("colour", "the boxes are empty and told apart only by their background colour"),
    "click-shades": ("colour", "the boxes are empty and told apart only by their background colour"),
    "use-colorwheel-2": ("colour", "the colour to pick is shown only as a swatch's background"),
    "click-shape": ("shape", "the utterance names a shape, size or colour that only svg geometry and fill hold"),
    "count-shape": ("shape", "the utterance counts shapes, sizes or colours that only svg geometry and fill hold"),
    "identify-shape": ("shape", "the figure is a circle, rectangle or triangle drawn in svg, with no text"),
    "count-sides": ("shape", "the shape is drawn on a canvas"),
    "visual-addition": ("picture", "the blocks to count are empty coloured boxes with no text"),
    "number-checkboxes": ("picture", "the example pattern to copy is a picture"),
    "tic-tac-toe": ("picture", "the board's cells are empty boxes and its marks CSS images: no text holds the board"),
}
SUBDOMAIN = re.compile(r'^\s*subdomain = "([^"]+)"', re.M)


class SuiteTask(BaseModel):
    """One shipped task in the suite report: run (its episodes' outcomes) or left out (why)."""

    task: str
    development: bool  # on issue 36's list, tuned on; the others never were
    attempted: bool
    left_out: str | None = None
    episodes: int = 0
    successes: int = 0
    mean_reward: float | None = None
    outcomes: list[dict[str, Any]] = []  # seed, success, reward


def shipped_tasks(html: Path | None = None) -> list[str]:
    """The package's task pages that it registers as environments, sorted."""
    html = html or miniwob_html()
    registry = html.parent / "envs" / "miniwob_envs.py"
    if not registry.is_file():
        raise UsageError(f"the miniwob package at {html.parent} has no envs/miniwob_envs.py")
    registered = set(SUBDOMAIN.findall(registry.read_text()))
    return sorted(p.stem for p in (html / "miniwob").glob("*.html") if p.stem in registered)


def pages_without_environment(html: Path | None = None) -> list[str]:
    """Pages the package ships that it registers no environment for (not tasks of the suite)."""
    html = html or miniwob_html()
    return sorted(set(p.stem for p in (html / "miniwob").glob("*.html")) - set(shipped_tasks(html)))


def attempted_tasks(html: Path | None = None) -> list[str]:
    """Every shipped task not left out, issue 36's list first (in its order), then the rest sorted."""
    shipped = shipped_tasks(html)
    stale = sorted(set(LEFT_OUT) - set(shipped))
    if stale:
        raise UsageError(f"left out but not shipped by the installed miniwob package: {', '.join(stale)}")
    rest = [t for t in shipped if t not in LEFT_OUT and t not in TASKS]
    return [*TASKS, *rest]


def suite_names(tasks: str) -> list[str]:
    """`all` (every attempted task) or some of them by name; a left-out or unknown name is a usage error."""
    attempted = attempted_tasks()
    if tasks == "all":
        return attempted
    names = [t.strip() for t in tasks.split(",") if t.strip()]
    for name in names:
        if name in LEFT_OUT:
            raise UsageError(f"{name} is left out of the suite: {LEFT_OUT[name][1]}")
        if name not in attempted:
            raise UsageError(f"no MiniWoB++ task named {name}")
    return names


def suite_report(episodes: list[Episode], shipped: list[str], seeds: list[int]) -> dict[str, Any]:
    """Rates over every shipped task with every seed (left out and not run count as failures) and over
    the episodes run, and every shipped task listed."""
    listed = []
    for task in shipped:
        runs = [e for e in episodes if e.task == task]
        listed.append(SuiteTask(
            task=task, development=task in TASKS, attempted=bool(runs),
            left_out=": ".join(LEFT_OUT[task]) if task in LEFT_OUT else None, episodes=len(runs),
            successes=sum(e.success for e in runs),
            mean_reward=statistics.fmean(e.reward for e in runs) if runs else None,
            outcomes=[{"seed": e.seed, "success": e.success, "reward": e.reward} for e in runs]))
    successes = sum(e.success for e in episodes if e.task in shipped)
    return {"suite": "all", "tasks_shipped": len(shipped), "tasks_attempted": sum(t.attempted for t in listed),
            "tasks_left_out": sum(t.left_out is not None for t in listed),
            "success_rate": successes / (len(shipped) * len(seeds)),
            "success_rate_attempted": successes / len(episodes) if episodes else 0.0,
            "suite_tasks": [t.model_dump() for t in listed]}


def _print_table(report: dict[str, Any]) -> None:
    table = Table(title=f"agentpair bench miniwob: {report['planner']}, seeds {report['seeds']}")
    for column in ("task", "success", "mean reward", "steps", "wall p50"):
        table.add_column(column, justify="left" if column == "task" else "right")
    last = list(report["per_task"])[-1]
    run = {**report, "success_rate": report.get("success_rate_attempted", report["success_rate"])}
    for name, stats in [*report["per_task"].items(), ("all", run)]:
        table.add_row(name, f"{stats['success_rate']:.0%}", f"{stats['mean_reward']:.2f}",
                      f"{stats['steps_mean']:.1f}", f"{stats['wall_s_p50']:.1f} s", end_section=name == last)
    Console().print(table)
    if report.get("suite") == "all":
        Console().print(f"whole suite: {report['success_rate']:.1%} of {report['tasks_shipped']} tasks shipped "
                        f"({report['tasks_left_out']} left out count as failures), "
                        f"{report['success_rate_attempted']:.1%} of the episodes run")


async def main(args: argparse.Namespace, planner: Any) -> int:
    """The `agentpair bench miniwob` command: progress on stderr, then a table (or JSON on stdout)."""
    import json

    from agentpair.agent.loop import Agent
    from agentpair.bench.loop import planner_label

    miniwob_html()  # a missing package is a usage error before anything starts
    tasks = suite_names(args.tasks) if args.suite == "all" else task_names(args.tasks)
    trace_dir = bench_trace_dir("miniwob")
    console.print("starting the planner, the executor and Chromium (not timed)")
    async with Agent(planner=planner) as agent:
        with Progress(*BENCH_COLUMNS, console=console) as progress:
            bar = progress.add_task("episodes", total=len(tasks) * len(args.seeds))

            def on_episode(e: Episode) -> None:
                verdict = "[green]success[/green]" if e.success else "[red]failed[/red]"
                progress.console.print(f"{e.task} seed {e.seed}: {verdict} reward {e.reward:.2f}, {e.steps} steps, "
                                       f"{e.wall_s:.1f} s ({e.stop_reason})", highlight=False)
                progress.advance(bar)

            begun = time.perf_counter()
            episodes = await bench_miniwob(agent, tasks, args.seeds, args.max_steps, trace_dir, on_episode,
                                           args.concurrency)
            wall_s = time.perf_counter() - begun
        label = planner_label(agent.planner)
    report = {"planner": label, "tasks": tasks, "seeds": args.seeds, "max_steps": args.max_steps,
              "concurrency": args.concurrency, "wall_s": wall_s, "episodes_per_min": len(episodes) / wall_s * 60,
              "trace_dir": str(trace_dir), **aggregate(episodes)}
    if args.suite == "all":
        report.update(suite_report(episodes, shipped_tasks(), args.seeds),
                      pages_without_environment=pages_without_environment())
    if args.json:
        print(json.dumps(report))
    else:
        _print_table(report)
    return 0
