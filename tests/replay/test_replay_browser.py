"""Replay of a run in a real browser: recorded (offline), live on the same site (API and CLI),
and live on a changed site, which diverges at the first observation that shows the change."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agentpair import Agent
from agentpair.cli.main import main
from agentpair.models import FillRequest, FillResult
from agentpair.replay.drive import replay
from agentpair.agent.step_work import named_refs
from tests.doubles import ScriptedPlanner
from agentpair.tools.browser import Browser
from agentpair.tools.snapshot import refs_in

PAGE = """<!doctype html><html><head><title>Profile</title></head><body>
<form onsubmit="event.preventDefault(); document.getElementById('out').textContent = 'Saved ' +
  document.getElementById('name').value;">
<label>Full name <input id="name"></label> <label>Password <input id="pw" type="password"></label>
<button type="submit">{button}</button></form><p id="out"></p></body></html>"""
PLANS = [
    {"steps": [{"kind": "act", "tool": "type", "instruction": 'type bob into "Full name"'},
               {"kind": "act", "tool": "type", "instruction": 'type the password into "Password"'},
               {"kind": "act", "tool": "click", "instruction": 'click "Save"'}]},
    {"steps": [{"kind": "finish", "instruction": "saved", "answer": "saved"}]},
]
TEXTS = {"Full name": "bob", "Password": "{{secret:pw}}"}
SECRETS = {"pw": "hunter2-Sesame"}


class GroundingExecutor:
    """Finds the element whose quoted label the instruction names in the snapshot."""

    name = "grounding"

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]:
        return [FillResult(value=self._value(r)) for r in requests]

    def _value(self, request: FillRequest) -> dict[str, Any]:
        label = re.search(r'"([^"]+)"', request.instruction).group(1)
        ref = re.search(rf'"{label}".*\[ref=(e\d+)\]', request.context).group(1)
        return {"ref": ref, "text": TEXTS[label]} if "text" in request.schema_["properties"] else {"ref": ref}


def without_ref_roles(trace: str) -> str:
    """A trace as an agentpair without `x-roles` wrote it: plain ref schemas, refs of every role allowed."""
    rows = [json.loads(line) for line in trace.splitlines()]
    for row in rows:
        for tool in row.get("tools", []) if row.get("type") in ("header", "startup") else []:
            tool["args_schema"].get("properties", {}).get("ref", {}).pop("x-roles", None)
        attributes = row.get("attributes") or {}
        if "agentpair.fill_requests" in attributes:
            requests = json.loads(attributes["agentpair.fill_requests"])
            for request in requests:
                request["schema"]["properties"].get("ref", {}).pop("x-roles", None)
                if "/ref" in request["allowed"]:  # still those of the element it names (named_refs)
                    request["allowed"]["/ref"] = named_refs(request["context"], refs_in(request["context"]),
                                                            request["instruction"])
            attributes["agentpair.fill_requests"] = json.dumps(requests)
    return "".join(json.dumps(row) + "\n" for row in rows)


class Site:
    def __init__(self) -> None:
        self.button = "Save"
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                body = PAGE.format(button=site.button).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"


@pytest.fixture
def site() -> Iterator[Site]:
    site = Site()
    thread = threading.Thread(target=site.server.serve_forever, daemon=True)
    thread.start()
    yield site
    site.server.shutdown()
    site.server.server_close()


async def test_browser_run_replays_recorded_and_live(site: Site, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "run.jsonl"
    async with Browser() as browser:
        agent = Agent(ScriptedPlanner(PLANS), GroundingExecutor(), browser, trace_dir=tmp_path)
        run = await agent.run("save the profile", start_url=site.url, secrets=SECRETS, trace=trace)
    assert run.finished and [s.ok for s in run.steps] == [True, True, True, True]
    assert "hunter2" not in trace.read_text()

    offline = await replay(trace)
    assert offline.matched and offline.success and offline.model_calls == 0

    async with Browser() as browser:
        live = await replay(trace, tools="live", environment=browser, secrets=SECRETS)
    assert live.matched and live.success, live.divergence

    code = await asyncio.to_thread(main, ["replay", str(trace), "--tools", "live", "--secret", "pw=hunter2-Sesame"])
    assert code == 0 and "matched the recording" in capsys.readouterr().out

    older = tmp_path / "older.jsonl"  # as recorded before tools declared their refs' roles
    older.write_text(without_ref_roles(trace.read_text()))
    async with Browser() as browser:
        live_older = await replay(older, tools="live", environment=browser, secrets=SECRETS)
    assert live_older.matched and live_older.success, live_older.divergence

    site.button = "Store"
    async with Browser() as browser:
        changed = await replay(trace, tools="live", environment=browser, secrets=SECRETS)
    d = changed.divergence
    assert (d.iteration, d.step, d.kind) == (0, 1, "observation")
    assert 'button "Save"' in d.expected["snapshot"] and 'button "Store"' in d.actual["snapshot"]
