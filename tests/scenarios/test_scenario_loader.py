"""Loading scenarios: every shipped one is valid; bad files and names give clear errors."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agentpair.scenarios.loader import ScenarioError, list_names, load


def test_at_least_eight_scenarios_load_and_make_tasks() -> None:
    names = list_names()
    assert len(names) >= 8 and "injection" in names
    for name in names:
        scenario = load(name)
        task = scenario.task("http://127.0.0.1:9/")
        assert task.start_url.startswith("http://127.0.0.1:9/") and task.allowed_origins[0] == "http://127.0.0.1:9"
        assert task.goal == scenario.goal and task.max_steps == scenario.max_steps


def test_missing_name_lists_the_available_ones() -> None:
    with pytest.raises(ScenarioError, match="available: .*checkout.*login"):
        load("no-such-scenario")


def write(root: Path, text: str) -> None:
    (root / "bad" / "site").mkdir(parents=True)
    (root / "bad" / "site" / "index.html").write_text("<h1>x</h1>")
    (root / "bad" / "scenario.toml").write_text(text)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('goal = "x"\nmax_steps = 0\n[success]\n', "max_steps"),
        ('[success]\n', "goal"),
        ('goal = "x"\ncolour = "red"\n[success]\n', "colour"),
        ('goal = "x"\n[success]\nurl_contain = "/a"\n', "success.url_contain"),
        ('goal = "x"\nstart = "missing.html"\n[success]\n', "start"),
        ('goal = "x\n', "not valid TOML"),
        ('goal = "x"\n[success.answer]\nprice = 1\n', "output_schema"),
    ],
)
def test_malformed_file_names_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    write(tmp_path, text)
    with pytest.raises(ScenarioError) as error:
        load("bad", root=tmp_path)
    assert str(tmp_path / "bad" / "scenario.toml") in str(error.value) and field in str(error.value)


def test_server_records_state_and_hides_checked_secrets() -> None:
    scenario = load("login")
    with scenario.serve() as server:
        def post(body: dict) -> int:
            request = urllib.request.Request(server.url + "/api/login", json.dumps(body).encode(),
                                             {"Content-Type": "application/json"})
            try:
                return urllib.request.urlopen(request).status
            except urllib.error.HTTPError as exc:
                return exc.code

        assert post({"username": "ada.lovelace", "password": "nope"}) == 401
        assert post({"username": "ada.lovelace", "password": scenario.secrets["password"]}) == 200
        state = json.loads(urllib.request.urlopen(server.url + "/api/login").read())
        assert state == {"username": "ada.lovelace", "password": "<checked>"}
        assert scenario.secrets["password"] not in json.dumps(server.state)
        assert b"Sign in" in urllib.request.urlopen(server.url + "/login.html").read()
