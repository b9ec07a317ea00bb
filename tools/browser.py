"""The browser environment: a Playwright Chromium page behind the Environment protocol, with the
per-run safety policy (allowed origins, downloads, popups, secrets) enforced at the context.

Usage:
    async with Browser() as browser:                    # or Browser(page=caller_page)
        await browser.start_task(start_url=url, allowed_origins=[...], secrets={...})
        obs = await browser.observe()
        result = await browser.toolbox().get("click")({"ref": "e7"})
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from playwright.async_api import BrowserContext, Page, Playwright, Request, Route
from playwright.async_api import Browser as PwBrowser
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from playwright.async_api import async_playwright

from agentpair.tools.base import BrowserError, Observation, Tool, Toolbox, ToolResult
from agentpair.tools.browser_guard import Guard
from agentpair.tools.browser_proxy import GuardProxy
from agentpair.tools.policy import SafetyEvent, SecretField, TaskPolicy
from agentpair.tools.snapshot import INTERACTIVE, excerpt, hide_values, ref_roles, refs_in, trim_snapshot
from agentpair.tools.unnamed import MARK_CLICKABLE_JS, name_unnamed

SYSTEM_CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
LAUNCH_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    # LocalNetworkAccessChecks: the guard fulfils navigations itself, so Chromium no longer knows a
    # page came from a local address and would refuse its WebSockets to that very address; the guard
    # checks origins instead. The omnibox popups: Chromium 156 builds both (WebUI pages) for every new
    # context, headless too, about 0.5 s of one core a run, spent beside the planner's first call.
    # AutofillServerCommunication: Chromium's own query about every form (content-autofill.googleapis.com),
    # which the guard's proxy would refuse and report as the page's
    "--disable-features=LocalNetworkAccessChecks,WebUIOmniboxPopup,WebUIOmniboxAimPopup,AutofillServerCommunication",
    # a class given: three minutes in, Chromium would start a process that rates this machine for
    # on-device AI models and stays (1: Chromium's "error" class, no on-device model is tried)
    "--optimization-guide-performance-class=1",
]
SHOWN_VALUE = re.compile(r'^\s*- (?:textbox|searchbox) "[^\n]*?\[ref=(e\d+)\][^:\n]*: (.+)$', re.M)  # a field showing a value
NON_SUBMIT_JS = """el => !!el.form && ['button', 'reset'].includes(el.type) && [...el.form.elements].some(
  e => e.type === 'submit' && e.getClientRects().length > 0)"""  # a form's button that does not send it
PASSWORD_VALUES_JS = "() => Array.from(document.querySelectorAll('input[type=password]'), e => e.value)"


def find_chromium(explicit: str | None, bundled: str) -> str | None:
    """Playwright's own Chromium when installed, else a system Chromium; None lets Playwright pick."""
    if explicit:
        return explicit
    if bundled and os.path.exists(bundled):
        return None
    for path in SYSTEM_CHROMIUM:
        if os.path.exists(path):
            return path
    return shutil.which("chromium")


class Browser(Guard):
    """Chromium (owned, headless by default) or a caller's Page, as an Environment."""

    def __init__(
        self,
        page: Page | None = None,
        *,
        headless: bool = True,
        executable_path: str | None = None,
        snapshot_chars: int = 4000,
        text_chars: int = 1500,
        action_timeout_ms: int = 5000,
        navigation_timeout_ms: int = 15000,
    ) -> None:
        self._page = page
        self._owned = page is None
        self.headless = headless
        self.executable_path = executable_path
        self.snapshot_chars = snapshot_chars
        self.text_chars = text_chars
        self.action_timeout_ms = action_timeout_ms
        self.navigation_timeout_ms = navigation_timeout_ms
        self.policy = TaskPolicy()
        self.events: list[SafetyEvent] = []
        self._reported = 0
        self._unobserved: list[SafetyEvent] = []  # warnings an action took in, not yet observed
        self._typed_passwords: list[str] = []
        self._inflight: set[Request] = set()
        self._navigations = 0  # main-frame navigation requests seen
        self._commits = 0  # main-frame documents committed
        self._navigation_url = ""
        self._navigation_request: Request | None = None  # the latest main-frame navigation's
        self._pw: Playwright | None = None
        self._browser: PwBrowser | None = None
        self._context: BrowserContext | None = None
        self._routed: set[int] = set()
        self._loading: set[Route] = set()
        self._deciding = 0
        self._host: Browser | None = None  # the Browser whose Chromium this one opens its contexts in
        self._proxy: GuardProxy | None = None  # what its contexts must send every request through

    def sibling(self) -> Browser:
        """Another Browser in this one's Chromium: the same settings, contexts of its own (so runs can go on
        side by side), closed with it; the Chromium stays this one's to close."""
        other = Browser(headless=self.headless, executable_path=self.executable_path,
                        snapshot_chars=self.snapshot_chars, text_chars=self.text_chars,
                        action_timeout_ms=self.action_timeout_ms, navigation_timeout_ms=self.navigation_timeout_ms)
        other._host = self
        return other

    # ---- lifecycle -------------------------------------------------------------------------
    async def __aenter__(self) -> Browser:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Launch Chromium (owned mode) or hook the caller's page; idempotent."""
        if self._owned and self._proxy is None:
            self._proxy = GuardProxy(self._proxy_allows)
            await self._proxy.start()
        if self._owned and self._browser is None and self._host is not None:
            await self._host.start()
            self._browser = self._host._browser
        elif self._owned and self._browser is None:
            self._pw = await async_playwright().start()
            path = find_chromium(self.executable_path, self._pw.chromium.executable_path)
            self._browser = await self._pw.chromium.launch(
                executable_path=path, headless=self.headless, args=LAUNCH_ARGS
            )
        elif not self._owned:
            await self._hook_context(self._page.context)
            self._hook_page(self._page)

    async def close(self) -> None:
        """Close what this Browser started; a caller's page is left open."""
        if self._owned and self._host is not None:
            if self._context is not None:
                await self._context.close()
            self._browser = self._context = self._page = None
        elif self._owned:
            if self._browser is not None:
                await self._browser.close()
            if self._pw is not None:
                await self._pw.stop()
            self._browser = self._pw = self._context = self._page = None
        if self._proxy is not None:
            await self._proxy.close()
            self._proxy = None

    @property
    def page(self) -> Page:
        if self._page is None:
            raise BrowserError("no page yet: call start_task() first")
        return self._page

    async def start_task(
        self,
        start_url: str | None = None,
        allowed_origins: Iterable[str] = (),
        secrets: dict[str, str] | None = None,
        *,
        secret_fields: dict[str, SecretField] | None = None,
        allow_downloads: bool = False,
        allow_file_urls: bool = False,
    ) -> ToolResult | None:
        """Begin a run: set its policy, give it a fresh context (owned mode), go to start_url.

        The start URL's origin is always allowed; '*' allows any http(s) origin and
        'https://*.example.com' a domain's subdomains. Secrets may be typed into password
        fields only, unless secret_fields marks a name "any". With no start_url the task goes on
        from the current page (an owned browser opens a fresh context only when it has no page
        yet; "about:blank" gives a blank one). Returns the goto result, if any.
        """
        await self.start()
        self.policy = TaskPolicy(
            start_url=start_url, allowed_origins=list(allowed_origins), secrets=secrets or {},
            secret_fields=secret_fields or {}, allow_downloads=allow_downloads,
            allow_file_urls=allow_file_urls,
        )
        self.events, self._reported, self._typed_passwords, self._unobserved = [], 0, [], []
        self._inflight.clear()
        if self._owned and (start_url or self._page is None):
            await self._new_context()
        if start_url:
            from agentpair.tools.browser_actions import goto

            return await goto(self, start_url)
        return None

    async def _new_context(self) -> None:
        if self._context is not None:
            await self._context.close()
        self._context = await self._browser.new_context(
            accept_downloads=False, service_workers="block", proxy={"server": self._proxy.url}
        )
        await self._hook_context(self._context)
        self._page = await self._context.new_page()
        self._hook_page(self._page)

    # ---- observing -------------------------------------------------------------------------
    def hide(self, text: str, passwords: list[str] = ()) -> str:
        return hide_values(text, self.policy.secrets, [*passwords, *self._typed_passwords])

    def remember_password(self, value: str) -> None:
        """Text typed into a password field is hidden wherever it shows up later."""
        if value and value not in self.policy.secrets.values():
            self._typed_passwords.append(value)

    async def password_values(self) -> list[str]:
        values: list[str] = []
        for frame in self.page.frames:
            try:
                values += await frame.evaluate(PASSWORD_VALUES_JS)
            except PlaywrightError:
                continue
        return values

    async def observe(self) -> Observation:
        """URL, title, trimmed aria snapshot (refs valid for acting; unnamed elements named, see
        agentpair.tools.unnamed), visible text, notices."""
        page = self.page
        notices = [e.message() for e in [*self._unobserved, *self.take_events()]]
        self._unobserved = []
        passwords = await self.password_values()
        try:
            await page.evaluate(MARK_CLICKABLE_JS)
        except PlaywrightError:
            pass  # a page between documents: its snapshot says what there is
        try:
            raw = await page.aria_snapshot(mode="ai", timeout=self.action_timeout_ms)
        except PlaywrightError as exc:
            raw = ""
            notices.append(f"no snapshot: {describe_error(exc)}")
        snapshot = trim_snapshot(self.hide(name_unnamed(raw, INTERACTIVE), passwords), self.snapshot_chars)
        try:
            text = await page.locator("body").inner_text(timeout=self.action_timeout_ms)
            title = await page.title()
        except PlaywrightError:
            text, title = "", ""
        return Observation(
            url=self.hide(page.url), title=self.hide(title), snapshot=snapshot,
            text=excerpt(self.hide(text, passwords), self.text_chars),
            refs=refs_in(snapshot), notices=[self.hide(n) for n in notices],
            field_values=await self._exact_values(snapshot, passwords),
            non_submit_buttons=await self._non_submit_buttons(snapshot),
        )

    async def _non_submit_buttons(self, snapshot: str) -> list[str]:
        """The snapshot's buttons that sit in a form with a visible submit button and do not send it:
        one look at the page, then one per button only where it has such a form."""
        try:
            if not await self.page.evaluate(f"() => [...document.querySelectorAll('button, input')].some({NON_SUBMIT_JS})"):
                return []
        except PlaywrightError:
            return []
        found = []
        for ref, role in ref_roles(snapshot).items():
            try:
                if role == "button" and await self.page.locator(f"aria-ref={ref}").evaluate(NON_SUBMIT_JS, timeout=1000):
                    found.append(ref)
            except PlaywrightError:
                continue
        return found

    async def _exact_values(self, snapshot: str, passwords: list[str]) -> dict[str, str]:
        """The fields whose value the snapshot shows trimmed or with its lines joined -> the value as
        the field holds it (a text copied from one is typed exactly)."""
        exact = {}
        for ref, shown in SHOWN_VALUE.findall(snapshot):
            try:
                value = self.hide(await self.page.locator(f"aria-ref={ref}").input_value(timeout=1000), passwords)
            except PlaywrightError:
                continue
            if value != shown and " ".join(value.split()) == " ".join(shown.split()):
                exact[ref] = value
        return exact

    # ---- acting ----------------------------------------------------------------------------
    def tools(self) -> list[Tool]:
        from agentpair.tools.browser_actions import build_tools

        return build_tools(self)

    def toolbox(self) -> Toolbox:
        return Toolbox(self.tools())

    async def run_action(
        self, name: str, action: Callable[[], Awaitable[Any]], mutates: bool = True
    ) -> ToolResult:
        """Run one action: never raises on page failures; reports blocks and page changes."""
        started = time.perf_counter()
        url_before, navigations, commits = self._page.url if self._page else "", self._navigations, self._commits
        try:
            output = await action()
            await self._await_begun_navigation(navigations, started)
            await self._settle_requests()  # a fetch the action started may itself navigate
            if self._navigations != navigations:
                await self._await_commit(commits)
                await self._settle_navigation()
                await self._settle_requests()
        except PlaywrightTimeout as exc:
            navigated = self._navigations != navigations
            await self.stop_loading()
            error = f"timed out waiting for {self._navigation_url} to load" if navigated else describe_error(exc)
            return self._result(name, started, url_before, error=error)
        except (BrowserError, PlaywrightError) as exc:
            return self._result(name, started, url_before, error=describe_error(exc),
                                disabled=getattr(exc, "disabled", False))
        return self._result(name, started, url_before, output=output, mutates=mutates)

    def _result(
        self, name: str, started: float, url_before: str, *, output: Any = None,
        error: str | None = None, mutates: bool = False, disabled: bool = False,
    ) -> ToolResult:
        events = self.take_events()
        self._unobserved += [e for e in events if not e.violation]  # warnings: the next observation's
        fresh = [e for e in events if e.violation and e.detail not in (error or "")]
        if fresh:
            blocked = "; ".join(e.message() for e in fresh)
            aborted = error is None or "ERR_ABORTED" in error
            error = blocked if aborted else f"{error}; {blocked}"
        changed = (self._page is not None and self._page.url != url_before) or (mutates and error is None)
        if isinstance(output, str):
            output = self.hide(output)
        return ToolResult(
            tool=name, ok=error is None, output=output, error=self.hide(error) if error else None,
            elapsed_ms=(time.perf_counter() - started) * 1e3, changed_page=changed, disabled=disabled,
        )

    async def _settle_navigation(self) -> None:
        try:
            await self.page.wait_for_load_state("load", timeout=self.navigation_timeout_ms)
        except PlaywrightTimeout:
            await self.stop_loading()
            raise BrowserError(
                f"timed out after {self.navigation_timeout_ms / 1000:g} s waiting for "
                f"{self.page.url} to finish loading; loading was stopped"
            ) from None

    async def _settle_requests(self, limit_s: float = 2.0, quiet_s: float = 0.05) -> None:
        """Wait until no request has been in flight for `quiet_s` (at most `limit_s`): the fetches
        an action started, the navigation their handlers start, popups."""
        deadline = time.perf_counter() + limit_s
        quiet_since = time.perf_counter()
        while time.perf_counter() < deadline:
            await asyncio.sleep(0.01)
            if self._inflight or self._deciding:
                quiet_since = time.perf_counter()
            elif time.perf_counter() - quiet_since >= quiet_s:
                return

    async def locate(self, ref: str):
        """The element a ref names in the latest observation, or a clear error."""
        ref = ref.strip().removeprefix("ref=")
        if not ref.isalnum():
            raise BrowserError(f"{ref!r} is not a ref; use one like e7 from the latest observation")
        locator = self.page.locator(f"aria-ref={ref}")
        try:
            found = await locator.count()
        except PlaywrightError:
            found = 0
        if not found:
            raise BrowserError(f"no element with ref {ref} on this page; refs change as pages change: observe again")
        return locator


def describe_error(exc: BaseException) -> str:
    """The first line of a Playwright error, without its call log."""
    if isinstance(exc, BrowserError):
        return str(exc)
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, PlaywrightTimeout):
        return f"timed out: {first}"
    return first
