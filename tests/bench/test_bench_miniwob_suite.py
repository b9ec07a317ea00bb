"""`agentpair bench miniwob --suite all`: every task the installed miniwob package ships is attempted or
left out with a reason its page bears out, the default list is issue 36's, and the suite's rates
count every shipped task."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

import pytest

from agentpair.bench import miniwob_suite
from agentpair.bench.miniwob import TASKS, Episode, add_arguments, miniwob_html, task_names
from agentpair.bench.miniwob_suite import (
    LEFT_OUT, LEFT_OUT_KINDS, attempted_tasks, pages_without_environment, shipped_tasks, suite_names, suite_report,
)
from agentpair.errors import UsageError

# What no attempted page outside the development list may need: a drag, a canvas, a text selection, a pointer position.
POINTER_ONLY = re.compile(r"<canvas|draggable|sortable|resizable|getSelection|\.slider\(|pageX|mousemove")


def page(task: str) -> str:
    return (miniwob_html() / "miniwob" / f"{task}.html").read_text()


def test_every_shipped_task_is_attempted_or_left_out_with_a_reason() -> None:
    shipped, attempted = shipped_tasks(), attempted_tasks()
    assert len(shipped) == 125 == len(set(shipped))  # the package's registered environments, as BrowserGym runs
    assert set(attempted) | set(LEFT_OUT) == set(shipped) and not set(attempted) & set(LEFT_OUT)
    assert len(attempted) == len(set(attempted)) == 91
    assert all(kind in LEFT_OUT_KINDS and reason.strip() for kind, reason in LEFT_OUT.values())
    assert pages_without_environment() == ["button-delay", "chase-circle", "hover-shape", "moving-items", "simon-says"]


def test_each_left_out_page_holds_the_mark_of_its_reason_and_no_other_attempted_page_needs_the_pointer() -> None:
    unmarked = [t for t, (kind, _) in LEFT_OUT.items() if not re.search(LEFT_OUT_KINDS[kind], page(t))]
    assert unmarked == []
    pointer = [t for t in attempted_tasks() if t not in TASKS and POINTER_ONLY.search(page(t))]
    assert pointer == []


def test_the_default_stays_issue_36s_list_which_the_suite_attempts_first_and_whole() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser, int)
    args = parser.parse_args([])
    assert args.suite == "dev" and task_names(args.tasks) == list(TASKS)
    assert attempted_tasks()[:40] == list(TASKS) and not set(TASKS) & set(LEFT_OUT)


def test_naming_tasks_in_the_suite() -> None:
    assert suite_names("all") == attempted_tasks()
    assert suite_names("click-test, use-colorwheel") == ["click-test", "use-colorwheel"]
    with pytest.raises(UsageError, match="drag-box is left out of the suite: the answer is an element dragged"):
        suite_names("click-test,drag-box")
    with pytest.raises(UsageError, match="no MiniWoB\\+\\+ task named no-such-task"):
        suite_names("no-such-task")


def test_a_left_out_name_the_package_no_longer_ships_is_an_error(monkeypatch) -> None:
    monkeypatch.setitem(miniwob_suite.LEFT_OUT, "drag-gone", ("drag", "a task of another version"))
    with pytest.raises(UsageError, match="drag-gone"):
        attempted_tasks()


def episode(task: str, seed: int, reward: float) -> Episode:
    return Episode(task=task, seed=seed, utterance="u", reward=reward, success=reward > 0, done=True, steps=2,
                   wall_s=1.0, stop_reason="stopped: should_stop")


def test_the_rates_count_every_shipped_task_and_every_task_is_listed() -> None:
    episodes = [episode("click-test", 100, 1.0), episode("click-test", 101, 0.8),
                episode("enter-text", 100, -1.0), episode("enter-text", 101, 1.0)]
    report = suite_report(episodes, shipped_tasks(), [100, 101])
    assert report["success_rate"] == 3 / 250 and report["success_rate_attempted"] == 3 / 4
    assert (report["tasks_shipped"], report["tasks_attempted"], report["tasks_left_out"]) == (125, 2, 34)
    listed = {t["task"]: t for t in report["suite_tasks"]}
    assert list(listed) == shipped_tasks()
    assert listed["click-test"] | {"outcomes": None} == {
        "task": "click-test", "development": True, "attempted": True, "left_out": None, "episodes": 2,
        "successes": 2, "mean_reward": 0.9, "outcomes": None}
    assert listed["enter-text"]["outcomes"] == [{"seed": 100, "success": False, "reward": -1.0},
                                                {"seed": 101, "success": True, "reward": 1.0}]
    assert not listed["enter-text"]["development"] and listed["enter-text"]["successes"] == 1
    assert listed["drag-box"]["left_out"].startswith("drag: ") and not listed["drag-box"]["attempted"]
    assert listed["focus-text"] | {"task": None} == {  # shipped, not run this time: counted, not attempted
        "task": None, "development": False, "attempted": False, "left_out": None, "episodes": 0,
        "successes": 0, "mean_reward": None, "outcomes": []}


@pytest.mark.slow
def test_the_cli_runs_the_suite_on_named_tasks_and_reports_every_shipped_task(tmp_path) -> None:
    out = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "bench", "miniwob", "--suite", "all",
                          "--tasks", "click-test", "--seeds", "0", "--max-steps", "3", "--json"],
                         capture_output=True, text=True, timeout=280, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    [run] = [t for t in report["suite_tasks"] if t["attempted"]]
    assert run["task"] == "click-test" and run["development"] and len(report["suite_tasks"]) == 125
    assert report["success_rate"] == run["successes"] / 125 and report["success_rate_attempted"] == run["successes"]
    assert report["pages_without_environment"] == pages_without_environment() and report["tasks_left_out"] == 34


def test_a_left_out_task_named_on_the_command_line_is_a_usage_error() -> None:
    out = subprocess.run([sys.executable, "-m", "agentpair.cli.main", "bench", "miniwob", "--suite", "all",
                          "--tasks", "draw-line"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "draw-line is left out" in out.stderr
