"""`agentpair bench miniwob`: MiniWoB++ tasks, which nobody here wrote, run by the project's own Agent.

The task pages come from the `miniwob` PyPI package (`pip install --no-deps miniwob`: only its
HTML/JS assets are used) and are served on a loopback HTTP server. Each episode loads its task
page in the agent's Chromium, seeds the page's random generator, lifts the episode's time limit
(a CPU planner is not judged by the clock), starts the episode, hides the suite's score board
(not part of the task) and gives the agent only the task's utterance (core.getUtterance). The agent runs until it finishes, runs out of steps, or the
page reports the episode over (WOB_DONE_GLOBAL, checked after every tool call); the raw reward
is then read from the page (WOB_RAW_REWARD_GLOBAL, in [-1, 1]; 0 when the episode never ended).
Success is a reward above 0, as the suite's tables count it.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib.util
import statistics
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel
from rich.console import Console

from agentpair.bench.loopback import serve_loopback
from agentpair.errors import UsageError

# The development and report list fixed by issue 36 (the rest of the suite is not tuned on).
TASKS = (
    "click-checkboxes-large", "click-checkboxes-soft", "click-checkboxes-transfer",
    "click-collapsible-2-nodelay", "click-menu", "click-scroll-list", "click-tab-2-easy",
    "click-tab-2-medium", "click-tab-2", "click-test", "click-test-2", "click-widget", "copy-paste",
    "email-inbox", "email-inbox-delete", "email-inbox-forward-nl", "email-inbox-important",
    "email-inbox-reply", "email-inbox-star-reply", "enter-date", "enter-time", "find-word",
    "focus-text-2", "form-sequence", "form-sequence-2", "login-user-popup", "multi-layouts",
    "multi-orderings", "phone-book", "read-table-2", "social-media", "social-media-some",
    "social-media-all", "book-flight-nodelay", "choose-date-easy", "use-spinner", "simple-arithmetic",
    "odd-or-even", "find-greatest", "unicode-test",
)
DEV_SEEDS = (0, 1, 2, 3, 4)
REPORT_SEEDS = (100, 101, 102)
EPISODE_MS = 3_600_000  # the page's own limit, lifted: a slow CPU planner is not judged by the clock
START_JS = """async (seed) => {
  for (let i = 0; i < 200 && (typeof core === 'undefined' || !WOB_TASK_READY); i++)
    await new Promise(r => setTimeout(r, 25));
  Math.seedrandom(seed);
  core.EPISODE_MAX_TIME = %d;
  core.startEpisodeReal();
  const display = document.getElementById('reward-display');  // the score board is not the task
  if (display) display.style.display = 'none';
  const said = core.getUtterance();  // a few tasks return {utterance, fields}
  return typeof said === 'string' ? said : said.utterance;
}""" % EPISODE_MS
OUTCOME_JS = "() => [WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_REASON]"
console = Console(stderr=True)


class Episode(BaseModel):
    """One task and seed, as the agent ran it and the page scored it."""

    task: str
    seed: int
    utterance: str
    reward: float
    success: bool
    done: bool
    steps: int
    wall_s: float
    stop_reason: str
    reason: str | None = None
    trace: str | None = None


def miniwob_html() -> Path:
    """The `html/` folder of the installed miniwob package, or a usage error saying how to install it."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError("the MiniWoB++ benchmark needs its task pages: pip install --no-deps miniwob")
    html = Path(next(iter(spec.submodule_search_locations))) / "html"
    if not (html / "core" / "core.js").is_file():
        raise UsageError(f"the miniwob package at {html.parent} has no html/core/core.js")
    return html


def task_names(tasks: str) -> list[str]:
    """`all` (the fixed list) or task names separated by commas; an unknown name is a usage error."""
    if tasks == "all":
        return list(TASKS)
    names = [t.strip() for t in tasks.split(",") if t.strip()]
    html = miniwob_html()
    missing = [n for n in names if not (html / "miniwob" / f"{n}.html").is_file()]
    if missing:
        raise UsageError(f"no MiniWoB++ task named {', '.join(missing)}")
    return names


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@contextmanager
def serve(html: Path) -> Iterator[str]:
    """Serve the task pages on a free loopback port; yields the base URL."""
    with serve_loopback(functools.partial(_QuietHandler, directory=str(html))) as url:
        yield url


async def run_episode(agent: Any, base_url: str, task: str, seed: int, max_steps: int,
                      trace: str | bool = False) -> Episode:
    """Start `task` with `seed` in the agent's browser, let the agent work from the utterance alone,
    and read the page's raw reward. The agent must be started (it owns a Browser)."""
    await agent.start()
    browser = agent.browser
    start = await browser.start_task(start_url=f"{base_url}/miniwob/{task}.html", allowed_origins=[base_url])
    if start is not None and not start.ok:
        raise RuntimeError(f"the task page {task} did not load: {start.error}")
    utterance = await browser.page.evaluate(START_JS, seed)

    async def outcome() -> tuple[bool, float, str | None]:
        """(done, raw reward, reason) as the page says; a page that is no task page any more (the
        agent navigated away) ends the episode with reward 0."""
        try:
            done, reward, reason = await browser.page.evaluate(OUTCOME_JS)
        except PlaywrightError:
            return True, 0.0, f"the page left the task ({browser.page.url})"
        return bool(done), float(reward), reason

    async def episode_over() -> bool:
        return (await outcome())[0]

    result = await agent.run(utterance, allowed_origins=[base_url], max_steps=max_steps, trace=trace,
                             labels={"miniwob": task, "seed": str(seed)}, should_stop=episode_over)
    done, reward, reason = await outcome()
    return Episode(task=task, seed=seed, utterance=utterance, reward=reward, success=reward > 0,
                   done=done, steps=len(result.steps), wall_s=result.wall_s,
                   stop_reason=result.stop_reason, reason=reason, trace=result.trace_path)


def aggregate(episodes: list[Episode]) -> dict[str, Any]:
    """Overall success rate and mean reward, then per task (in run order), then every episode."""
    def stats(group: list[Episode]) -> dict[str, Any]:
        return {"episodes": len(group), "success_rate": sum(e.success for e in group) / len(group),
                "mean_reward": statistics.fmean(e.reward for e in group),
                "wall_s_p50": statistics.median(e.wall_s for e in group),
                "steps_mean": statistics.fmean(e.steps for e in group)}

    tasks = list(dict.fromkeys(e.task for e in episodes))
    return {**stats(episodes), "per_task": {t: stats([e for e in episodes if e.task == t]) for t in tasks},
            "episodes": [e.model_dump() for e in episodes]}


async def bench_miniwob(agent: Any, tasks: list[str], seeds: list[int], max_steps: int, trace_dir: Path | None,
                        on_episode: Callable[[Episode], None] = lambda e: None, concurrency: int = 1) -> list[Episode]:
    """Every task with every seed on one started agent, or `concurrency` at a time, each by an Agent of
    its own over the agent's planner and executor in a browser context of its own; in task order."""
    from agentpair.agent.loop import Agent

    if concurrency < 1:
        raise UsageError(f"--concurrency must be 1 or more, not {concurrency}")
    with serve(miniwob_html()) as base_url:
        async def one(runner: Any, task: str, seed: int) -> Episode:
            trace = str(trace_dir / f"{task}-{seed}.jsonl") if trace_dir else False
            try:
                episode = await run_episode(runner, base_url, task, seed, max_steps, trace)
            except Exception as exc:  # one broken episode is reported, not the end of the benchmark
                episode = Episode(task=task, seed=seed, utterance="", reward=0.0, success=False, done=False,
                                  steps=0, wall_s=0.0, stop_reason=f"error: {type(exc).__name__}: {exc}"[:300])
            on_episode(episode)
            return episode

        todo = [(task, seed) for task in tasks for seed in seeds]
        if concurrency == 1:
            return [await one(agent, task, seed) for task, seed in todo]
        await agent.start()
        idle: asyncio.Queue[Any] = asyncio.Queue()
        for _ in range(concurrency):
            idle.put_nowait(Agent(agent.planner, agent.executor, agent.browser.sibling()))

        async def next_free(task: str, seed: int) -> Episode:
            runner = await idle.get()
            try:
                return await one(runner, task, seed)
            finally:
                idle.put_nowait(runner)

        try:
            return list(await asyncio.gather(*(next_free(task, seed) for task, seed in todo)))
        finally:
            while not idle.empty():
                await idle.get_nowait().browser.close()


def add_arguments(parser: argparse.ArgumentParser, count: Callable[[str], int]) -> None:
    """The options of `bench miniwob`; `count` parses the numbers of steps and episodes at a time."""
    parser.add_argument("--suite", choices=("dev", "all"), default="dev",
                        help="dev: issue 36's 40 tasks; all: every task the miniwob package ships that a "
                             "text-only agent can attempt, rates counting every task shipped")
    parser.add_argument("--tasks", default="all", help="all (the whole suite chosen), or task names "
                                                       "separated by commas")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(DEV_SEEDS),
                        help=f"episode seeds (development: {DEV_SEEDS}; report: {REPORT_SEEDS})")
    parser.add_argument("--max-steps", type=count, default=15, metavar="N", help="steps per episode")
    parser.add_argument("--concurrency", type=count, default=1, metavar="N",
                        help="episodes at a time, each in a browser context of its own, sharing the planner and executor")
    parser.add_argument("--json", action="store_true")
