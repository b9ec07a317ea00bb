"""Scenarios: load `scenarios/NAME/scenario.toml`, serve the site with its state-recording /api/
endpoints, turn it into a Task, and judge a run (page, recorded state, answer, violations).
"""

from __future__ import annotations

import json
import os
import threading
import tomllib
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, ValidationError

import agentpair.scenarios.bundled as bundled_scenarios
from agentpair.models import Task
from agentpair.tools.base import SECRET_PLACEHOLDER, fill_secrets

SCENARIOS_DIR = Path(os.environ.get("AGENTPAIR_SCENARIOS") or Path(bundled_scenarios.__file__).parent)


class ScenarioError(Exception):
    """A scenario that cannot be found or whose file is malformed."""


class ApiRule(BaseModel):
    """How the server treats POST /api/NAME: required body fields, or a violation to record."""

    model_config = ConfigDict(extra="forbid")
    require: dict[str, str] = Field(default_factory=dict, description="field -> value ({{secret:x}} allowed)")
    error: str = "rejected"
    violation: str | None = None


class ParsedCheck(BaseModel):
    """A recorded text field parsed as TOML or JSON, with dotted keys it must carry."""

    model_config = ConfigDict(extra="forbid")
    field: str
    format: Literal["toml", "json"]
    expect: dict[str, Any]


class SuccessCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")
    url_contains: str | None = None
    text_contains: list[str] = Field(default_factory=list)
    text_absent: list[str] = Field(default_factory=list)
    state: dict[str, Any] = Field(default_factory=dict, description="dotted path -> expected value")
    parsed: ParsedCheck | None = None
    answer: dict[str, Any] | None = None
    tolerance: float = Field(0.01, ge=0, description="relative tolerance for numbers in the answer")


class Verdict(BaseModel):
    success: bool
    reasons: list[str] = Field(default_factory=list)
    violations: list[str] = Field(default_factory=list)


class Scenario(BaseModel):
    """One scenario: the goal, the site, its limits and how success is judged."""

    model_config = ConfigDict(extra="forbid")
    name: str
    goal: str
    description: str = ""
    start: str = "index.html"
    allowed_origins: list[str] = Field(default_factory=list, description="besides the served origin")
    max_steps: int = Field(15, ge=1)
    timeout_s: float = Field(300.0, gt=0)
    secrets: dict[str, str] = Field(default_factory=dict, repr=False)
    secret_fields: dict[str, Literal["password", "any"]] = Field(default_factory=dict)
    output_schema: dict[str, Any] | None = None
    api: dict[str, ApiRule] = Field(default_factory=dict)
    success: SuccessCheck
    root: Path = Field(Path(), exclude=True)

    @property
    def site(self) -> Path:
        return self.root / "site"

    def serve(self, port: int = 0) -> ScenarioServer:
        """The site on a loopback port (a free one by default): `with`/`async with scenario.serve()`."""
        return ScenarioServer(self, port)

    def task(self, base_url: str) -> Task:
        base = base_url.rstrip("/")
        return Task(
            goal=self.goal, start_url=f"{base}/{self.start.lstrip('/')}",
            allowed_origins=[base, *self.allowed_origins], max_steps=self.max_steps,
            timeout_s=self.timeout_s, output_schema=self.output_schema, secrets=dict(self.secrets),
        )

    async def run(self, agent: Any, trace: bool | str = True) -> tuple[Any, Any]:
        """Serve the site, run the task with `agent`, judge it: (ScenarioReport, RunResult)."""
        from agentpair.scenarios.runner import run_scenario

        return await run_scenario(self, agent, trace=trace)

    async def check(
        self, page_or_browser: Any, answer: Any, state: dict[str, Any], violations: list[Any] = ()
    ) -> Verdict:
        """Judge a run: every success criterion must hold and nothing may have been violated."""
        reasons = await self._page_reasons(page_or_browser)
        reasons += _state_reasons(self.success, state) + self._answer_reasons(answer)
        seen = [v if isinstance(v, str) else _describe(v) for v in violations]
        reasons += [f"violation: {v}" for v in seen]
        return Verdict(success=not reasons, reasons=reasons, violations=seen)

    async def _page_reasons(self, page_or_browser: Any) -> list[str]:
        check = self.success
        if not (check.url_contains or check.text_contains or check.text_absent):
            return []
        page = getattr(page_or_browser, "page", page_or_browser)
        if page is None:
            return ["the success check needs the page, and none was given"]
        text = await page.locator("body").inner_text()
        reasons = [f"page text lacks {t!r}" for t in check.text_contains if _norm(t) not in _norm(text)]
        reasons += [f"page text shows {t!r}" for t in check.text_absent if _norm(t) in _norm(text)]
        if check.url_contains and check.url_contains not in page.url:
            reasons.append(f"page {page.url} is not {check.url_contains!r}")
        return reasons

    def _answer_reasons(self, answer: Any) -> list[str]:
        expected = self.success.answer
        if expected is None:
            return []
        if isinstance(answer, str):
            try:
                answer = json.loads(answer)
            except ValueError:
                return [f"the answer is not JSON: {answer[:80]!r}"]
        if self.output_schema:
            try:
                jsonschema.validate(answer, self.output_schema)
            except jsonschema.ValidationError as exc:
                return [f"the answer does not fit the output schema: {exc.message}"]
        if not isinstance(answer, dict):
            return [f"the answer is not an object: {answer!r}"]
        return [
            f"answer {key}={answer.get(key)!r}, expected {value!r}"
            for key, value in expected.items()
            if not _same(answer.get(key), value, self.success.tolerance)
        ]


def _describe(violation: Any) -> str:
    message = getattr(violation, "message", None)
    return message() if callable(message) else str(violation)


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _same(got: Any, want: Any, tolerance: float, strict: bool = False) -> bool:
    """Loose equality (case, spacing, number formats); strict keeps types apart."""
    if strict and type(got) is not type(want) and not {type(got), type(want)} <= {int, float}:
        return False
    if isinstance(want, bool) or isinstance(got, bool):
        return got == want or _norm(str(got)) == _norm(str(want))
    if isinstance(want, (int, float)):
        try:
            return abs(float(got) - want) <= tolerance * max(abs(want), 1e-9)
        except (TypeError, ValueError):
            return False
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_same(g, w, tolerance) for g, w in zip(got, want))
    if isinstance(want, dict):  # a record of an array answer: each expected field alike
        return isinstance(got, dict) and all(_same(got.get(k), w, tolerance) for k, w in want.items())
    return got is not None and _norm(str(got)) == _norm(str(want))


def _lookup(data: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _state_reasons(check: SuccessCheck, state: dict[str, Any]) -> list[str]:
    reasons = [
        f"recorded {path}={_lookup(state, path)!r}, expected {want!r}"
        for path, want in check.state.items()
        if not _same(_lookup(state, path), want, 0.0)
    ]
    if check.parsed:
        reasons += _parsed_reasons(check.parsed, state)
    return reasons


def _parsed_reasons(check: ParsedCheck, state: dict[str, Any]) -> list[str]:
    text = _lookup(state, check.field)
    if not isinstance(text, str):
        return [f"nothing recorded at {check.field}"]
    try:
        data = tomllib.loads(text) if check.format == "toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        return [f"{check.field} is not valid {check.format}: {exc}"]
    return [
        f"{check.field}: {path}={_lookup(data, path)!r}, expected {want!r}"
        for path, want in check.expect.items()
        if not _same(_lookup(data, path), want, 0.0, strict=True)
    ]


class ScenarioServer:
    """Serves a scenario's site; POST /api/NAME records the body in `state`, GET reads it back."""

    def __init__(self, scenario: Scenario, port: int = 0) -> None:
        self.scenario = scenario
        self.state: dict[str, Any] = {}
        self.violations: list[str] = []
        self.lock = threading.Lock()
        handler = partial(_Handler, self, directory=str(scenario.site))
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread: threading.Thread | None = None

    def task(self) -> Task:
        return self.scenario.task(self.url)

    def record(self, name: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        rule = self.scenario.api.get(name, ApiRule())
        with self.lock:
            self.state.setdefault("log", []).append(name)
            if rule.violation:
                self.violations.append(f"{rule.violation} (POST /api/{name})")
            wanted = {k: fill_secrets(v, self.scenario.secrets) for k, v in rule.require.items()}
            hidden = {k for k, v in rule.require.items() if SECRET_PLACEHOLDER.search(v)}
            if any(str(body.get(k, "")) != v for k, v in wanted.items()):
                self.state.setdefault("rejected", []).append({name: _redact(body, hidden)})
                return 401, {"ok": False, "error": rule.error}
            self.state[name] = _redact(body, hidden)
        return 200, {"ok": True}

    def __enter__(self) -> ScenarioServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    async def __aenter__(self) -> ScenarioServer:
        return self.__enter__()

    async def __aexit__(self, *exc: object) -> None:
        self.__exit__()


def _redact(body: dict[str, Any], hidden: set[str]) -> dict[str, Any]:
    """Fields checked against secrets are not kept: the state never holds a password."""
    return {k: ("<checked>" if k in hidden else v) for k, v in body.items()}


class _Handler(SimpleHTTPRequestHandler):
    def __init__(self, server_state: ScenarioServer, *args: Any, **kwargs: Any) -> None:
        self.site = server_state
        super().__init__(*args, **kwargs)

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/api/"):
            name = self.path[5:].split("?")[0]
            with self.site.lock:
                return self._json(200, self.site.state.get(name))
        super().do_GET()

    def do_POST(self) -> None:
        if not self.path.startswith("/api/"):
            return self._json(404, {"ok": False, "error": "not found"})
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
        try:
            body = json.loads(raw) if "json" in (self.headers.get("Content-Type") or "") else dict(parse_qsl(raw))
        except ValueError:
            return self._json(400, {"ok": False, "error": "bad JSON"})
        if not isinstance(body, dict):
            body = {"value": body}
        self._json(*self.site.record(self.path[5:].split("?")[0], body))

    def _json(self, code: int, data: Any) -> None:
        payload = json.dumps(data).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(payload)


def list_names(root: Path | None = None) -> list[str]:
    """Scenario names: the folders under scenarios/ that hold a scenario.toml."""
    base = root or SCENARIOS_DIR
    return sorted(p.parent.name for p in base.glob("*/scenario.toml")) if base.is_dir() else []


def load(name: str, root: Path | None = None) -> Scenario:
    """The scenario called name; ScenarioError names the file and field when it is malformed."""
    base = root or SCENARIOS_DIR
    path = base / name / "scenario.toml"
    if name in ("", ".", "..") or "/" in name or "\\" in name:
        raise ScenarioError(f"{name!r} is not a scenario name but a path: a name is a folder under {base}")
    if not path.is_file():
        raise ScenarioError(f"no scenario {name!r} in {base}; available: {', '.join(list_names(base)) or 'none'}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: {exc}") from None
    try:
        scenario = Scenario.model_validate({"name": name, **data, "root": path.parent})
    except ValidationError as exc:
        problems = "; ".join(f"field {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ScenarioError(f"{path}: {problems}") from None
    if not (scenario.site / scenario.start.split("?")[0]).is_file():
        raise ScenarioError(f"{path}: field start: {scenario.start!r} is not a file under {scenario.site}")
    if scenario.success.answer and not scenario.output_schema:
        raise ScenarioError(f"{path}: field success.answer: judging the answer's fields needs an "
                            "output_schema (without one the agent answers in text)")
    return scenario
