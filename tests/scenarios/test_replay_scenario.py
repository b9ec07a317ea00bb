"""Record a bundled scenario, then replay it: recorded (offline, no model call), live against its
site served again, live against a site whose button was renamed, and from an edited trace."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from agentpair import Agent

from agentpair.scenarios import loader as scenarios
from agentpair.cli.main import main
from tests.scenarios.solution_doubles import SolutionExecutor, SolutionPlanner
from tests.scenarios.test_scenario_login import SOLUTION
from agentpair.tools.browser import Browser


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "login.jsonl"

    async def record() -> None:
        async with Browser() as browser:
            agent = Agent(SolutionPlanner(SOLUTION), SolutionExecutor(), browser)
            report, _ = await scenarios.load("login").run(agent, trace=str(path))
            assert report.success

    asyncio.run(record())
    return path


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["replay", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_recorded_replay_matches_offline_with_no_model_call(recorded: Path, capsys) -> None:
    code, out = replay(capsys, str(recorded))
    assert code == 0 and out["matched"] and out["success"] and out["model_calls"] == 0


def test_live_replay_serves_the_scenario_again_and_matches(recorded: Path, capsys) -> None:
    code, out = replay(capsys, str(recorded), "--tools", "live")
    assert code == 0 and out["matched"] and out["success"], json.dumps(out["divergence"])[:3000]


def test_live_replay_on_a_changed_site_reports_where_it_diverged(recorded: Path, capsys, tmp_path: Path,
                                                                 monkeypatch) -> None:
    shutil.copytree(scenarios.SCENARIOS_DIR / "login", tmp_path / "login")
    page = tmp_path / "login" / "site" / "login.html"
    page.write_text(page.read_text().replace(">Sign in</button>", ">Log in</button>"))
    monkeypatch.setattr(scenarios, "SCENARIOS_DIR", tmp_path)
    code, out = replay(capsys, str(recorded), "--tools", "live")
    divergence = out["divergence"]
    assert code == 1 and not out["matched"]
    assert divergence["kind"] == "observation" and divergence["iteration"] == 1  # the login page, after the first click
    assert "Sign in" in json.dumps(divergence["expected"]) and "Log in" in json.dumps(divergence["actual"])


def test_an_edited_planner_output_diverges_at_that_call(recorded: Path, capsys, tmp_path: Path) -> None:
    lines = recorded.read_text().splitlines()
    chats = [i for i, line in enumerate(lines) if json.loads(line).get("name") == "chat solution"]
    span = json.loads(lines[chats[1]])
    plan = json.loads(span["attributes"]["agentpair.plan"])
    plan["steps"][0]["instruction"] = plan["steps"][0]["instruction"].replace("ada.lovelace", "mallory")
    span["attributes"]["agentpair.plan"] = json.dumps(plan)
    lines[chats[1]] = json.dumps(span)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n")
    code, out = replay(capsys, str(edited))
    assert code == 1 and out["divergence"]["iteration"] == span["attributes"]["agentpair.iteration"] == 2
    assert "mallory" in json.dumps(out["divergence"]["actual"])
