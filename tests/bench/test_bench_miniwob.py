"""`agentpair bench miniwob` on the real task pages of the miniwob package, in Chromium: the episode
is seeded and started, the agent gets only the utterance, stops once the page says the episode is
over, and the page's raw reward is what is reported."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentpair.agent.loop import Agent
from agentpair.bench.miniwob import TASKS, aggregate, bench_miniwob, miniwob_html, serve
from agentpair.errors import UsageError
from tests.doubles import ScriptedExecutor, ScriptedPlanner

CLICK = {"steps": [{"kind": "act", "tool": "click", "instruction": "click the Click Me! button"}]}
FINISH = {"steps": [{"kind": "finish", "instruction": "done", "answer": "done"}]}


def test_every_task_of_the_fixed_list_is_in_the_package() -> None:
    html = miniwob_html()
    assert len(TASKS) == 40 == len(set(TASKS))
    assert all((html / "miniwob" / f"{task}.html").is_file() for task in TASKS)


@pytest.mark.asyncio
async def test_an_episode_ends_when_the_page_says_so_and_reports_its_reward(tmp_path) -> None:
    # click-test's one button ends the episode with reward 1; the plan would click it forever
    planner = ScriptedPlanner([CLICK])
    async with Agent(planner, ScriptedExecutor([{"ref": "e5"}] * 5)) as agent:
        [episode] = await bench_miniwob(agent, ["click-test"], [3], max_steps=5, trace_dir=tmp_path)
    assert episode.utterance == "Click the button." == planner.requests[0].goal
    assert episode.stop_reason == "stopped: should_stop" and episode.done
    assert episode.reward == 1.0 and episode.success and episode.steps == 1
    assert (tmp_path / "click-test-3.jsonl").is_file()


@pytest.mark.asyncio
async def test_an_episode_the_agent_never_ends_scores_zero_and_seeds_repeat_the_problem(tmp_path) -> None:
    planner = ScriptedPlanner([FINISH])
    async with Agent(planner, ScriptedExecutor([])) as agent:
        episodes = await bench_miniwob(agent, ["email-inbox-forward-nl"], [7, 7, 8], max_steps=3, trace_dir=None)
    assert [e.reward for e in episodes] == [0.0] * 3 and not any(e.done or e.success for e in episodes)
    assert episodes[0].stop_reason == "finished"
    assert episodes[0].utterance == episodes[1].utterance != episodes[2].utterance  # same seed, same task
    report = aggregate(episodes)
    assert report["success_rate"] == 0.0 and report["per_task"]["email-inbox-forward-nl"]["episodes"] == 3


class OverlapPlanner(ScriptedPlanner):
    """A scripted planner that counts the calls it answers at the same time."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.now = self.most = 0

    async def plan(self, request):
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            return await super().plan(request)
        finally:
            self.now -= 1


@pytest.mark.asyncio
async def test_episodes_run_n_at_a_time_each_in_its_own_context_and_come_back_in_task_order(tmp_path) -> None:
    planner = OverlapPlanner([CLICK], delay_s=0.3)
    async with Agent(planner, ScriptedExecutor([{"ref": "e5"}] * 3)) as agent:
        episodes = await bench_miniwob(agent, ["click-test"], [3, 4, 5], max_steps=5, trace_dir=tmp_path, concurrency=2)
    assert [e.seed for e in episodes] == [3, 4, 5] and all(e.success and e.steps == 1 for e in episodes)
    assert planner.most == 2 and len(planner.requests) == 3
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == [f"click-test-{n}.jsonl" for n in (3, 4, 5)]
    with pytest.raises(UsageError, match="--concurrency"):
        await bench_miniwob(agent, ["click-test"], [3], max_steps=1, trace_dir=None, concurrency=0)


def test_the_page_server_serves_core_and_tasks_on_loopback() -> None:
    import httpx

    with serve(miniwob_html()) as base:
        assert base.startswith("http://127.0.0.1:")
        assert "startEpisodeReal" in httpx.get(f"{base}/core/core.js").text
        assert httpx.get(f"{base}/miniwob/click-test.html").status_code == 200


@pytest.mark.slow
def test_the_cli_runs_an_episode_on_the_embedded_defaults_and_prints_json(tmp_path) -> None:
    out = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "bench", "miniwob", "--tasks", "click-test",
                          "--seeds", "0", "--max-steps", "3", "--json"],
                         capture_output=True, text=True, timeout=280, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    [episode] = report["episodes"]
    assert episode["task"] == "click-test" and episode["utterance"] == "Click the button."
    assert episode["done"] == (episode["stop_reason"] == "stopped: should_stop")
    assert report["success_rate"] == float(episode["success"]) and 1 <= episode["steps"] <= 3


def test_an_unknown_task_is_a_usage_error() -> None:
    out = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "bench", "miniwob", "--tasks", "no-such-task"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "no-such-task" in out.stderr
