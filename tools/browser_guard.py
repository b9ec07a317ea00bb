"""The browser's guard: enforces a run's TaskPolicy at the Playwright context (routes, WebSockets,
popups, downloads, redirects) and answers its proxy (tools/browser_proxy.py, every request of an owned
context); keeps the SafetyEvent log that results and observations report.
"""

from __future__ import annotations

import asyncio
import re
import time
from contextlib import suppress
from typing import Any

from playwright.async_api import BrowserContext, Download, Page, Request, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from agentpair.tools.base import BrowserError, mask_secrets
from agentpair.tools.policy import SafetyEvent, TaskPolicy, origin_of, resolve_url

# Every top-level document notes when it last began leaving itself (the Navigation API's navigate
# event fires as a navigation starts, before any request): an action that set one off is waited
# for even when the request is reported late. One the page took over (a router's intercept), or
# that already shows, is not.
NAVIGATE_CLOCK_JS = """(() => {
  if (window.top !== window || !window.navigation || '__agentpairNavigate' in window) return;
  Object.defineProperty(window, '__agentpairNavigate', {value: {at: -Infinity, to: ''}, writable: true});
  navigation.addEventListener('navigate', e => {
    if (!e.destination.sameDocument && !e.downloadRequest)
      window.__agentpairNavigate = {at: performance.now(), to: e.destination.url};
  });
})()"""
SINCE_NAVIGATE_JS = """() => { const n = window.__agentpairNavigate;
  return !n || navigation.transition || location.href === n.to ? Infinity : performance.now() - n.at; }"""


class Guard:
    """Mixin for Browser: the state it relies on is set up in Browser.__init__."""

    policy: TaskPolicy
    events: list[SafetyEvent]
    action_timeout_ms: int
    navigation_timeout_ms: int
    _page: Page | None

    async def _hook_context(self, context: BrowserContext) -> None:
        if id(context) in self._routed:
            return
        self._routed.add(id(context))
        await context.add_init_script(NAVIGATE_CLOCK_JS)
        await context.route("**/*", self._route)
        await context.route_web_socket(re.compile(".*"), self._route_web_socket)
        context.on("page", self._on_popup)
        context.on("request", self._on_request)
        context.on("response", lambda response: self._on_request_done(response.request))
        context.on("requestfinished", self._on_request_done)
        context.on("requestfailed", self._on_request_done)

    def _hook_page(self, page: Page) -> None:
        page.set_default_timeout(self.action_timeout_ms)
        page.set_default_navigation_timeout(self.navigation_timeout_ms)
        page.on("download", self._on_download)
        page.on("framenavigated", lambda frame: self._on_commit(page, frame))

    async def _await_begun_navigation(self, navigations: int, since: float, limit_s: float = 1.0) -> None:
        """The page began a navigation after `since` (perf_counter) whose request is not reported yet
        (a loaded machine delivers events late): wait for the request, so it is waited for in turn."""
        if self._navigations != navigations or self._page is None:
            return
        try:  # a document with a navigation pending answers no evaluation until it ends
            since_ms = await asyncio.wait_for(self._page.evaluate(SINCE_NAVIGATE_JS), 0.5)
        except PlaywrightError:
            return  # the document is already gone: its request has been seen
        except TimeoutError:
            since_ms = 0.0
        if since_ms > (time.perf_counter() - since) * 1e3:
            return
        deadline = time.perf_counter() + limit_s
        while self._navigations == navigations and time.perf_counter() < deadline:
            await asyncio.sleep(0.01)

    async def _await_commit(self, commits: int, limit_s: float = 1.0) -> None:
        """Wait for the new document: while its server is still answering, up to the navigation
        timeout (then loading is stopped: a clear error); once answered, `limit_s` more (a response
        can come before its commit; a blocked navigation never commits, hence the short limit)."""
        deadline = time.perf_counter() + self.navigation_timeout_ms / 1000
        while self._commits == commits and self._navigation_request in self._inflight:
            if time.perf_counter() > deadline:
                await self.stop_loading()
                raise BrowserError(f"timed out after {self.navigation_timeout_ms / 1000:g} s waiting for "
                                   f"{self._navigation_url} to load; loading was stopped")
            await asyncio.sleep(0.01)
        deadline = time.perf_counter() + limit_s
        while self._commits == commits and time.perf_counter() < deadline:
            await asyncio.sleep(0.01)

    def _on_commit(self, page: Page, frame: Any) -> None:
        if frame == page.main_frame:
            self._commits += 1

    def record(self, kind: str, url: str, detail: str, violation: bool = True) -> None:
        detail = mask_secrets(detail, self.policy.secrets)
        self.events.append(SafetyEvent(kind=kind, url=url, detail=detail, violation=violation))

    async def _route(self, route: Route) -> None:
        request = route.request
        try:
            refusal = self.policy.refusal(request.url)
            if refusal:
                await self._block(route, request, "navigation" if request.is_navigation_request() else "request", refusal)
            elif request.is_navigation_request() and request.url.startswith(("http://", "https://")):
                await self._fetch_checking_redirect(route, request)
            else:
                await route.continue_()
        except PlaywrightError:
            pass  # the request went away (page closed or navigated) while we looked at it

    async def _route_web_socket(self, socket: WebSocketRoute) -> None:
        """A WebSocket to an allowed origin (ws:// read as http://, wss:// as https://) goes through to
        its server; one to another origin is closed at once, a warning on the next observation (the
        page goes on without it)."""
        refusal = self.policy.refusal(re.sub(r"^ws(s?)://", r"http\1://", socket.url, flags=re.I))
        if refusal is None:
            socket.connect_to_server()
            return
        self.record("websocket", socket.url, f"a WebSocket of the page was not opened: {refusal}", violation=False)
        with suppress(PlaywrightError):
            await socket.close(code=1008, reason="blocked by the run's policy")

    def _proxy_allows(self, urls: list[str]) -> bool:
        """The proxy's question, for what the routes do not see (workers, streams, WebSockets of workers,
        prefetches): a target none of whose URLs is allowed is refused, a warning on the next observation."""
        if any(self.policy.allows(url) for url in urls):
            return True
        refusal = self.policy.refusal(urls[0])
        self.record("request", urls[0], f"a request of the page or its workers was refused: {refusal}", violation=False)
        return False

    async def _block(self, route: Route, request: Request, kind: str, detail: str) -> None:
        """Refuse a request. A main-frame navigation or a popup is the run's own doing (a violation,
        reported as the action's error); a subresource or a frame the page loads by itself is only
        a warning on the next observation, and the page goes on without it."""
        navigation = request.is_navigation_request()
        if navigation and self._frameless(request):  # a popup's first navigation
            kind, detail = "popup", f"a popup window tried to open {request.url}: {detail}"
        elif navigation and not self._is_main_frame(request):
            kind, detail, navigation = "frame", f"a frame of the page was not loaded: {detail}", False
        self.record(kind, request.url, detail, violation=navigation)
        if not navigation:
            await route.abort("blockedbyclient")
            return
        await route.fulfill(status=204)  # the page stays where it was

    async def _fetch_checking_redirect(self, route: Route, request: Request) -> None:
        self._loading.add(route)
        try:
            # outlive the navigation's own timeout, so a slow page reports a timeout, not an abort
            response = await route.fetch(max_redirects=0, timeout=2 * self.navigation_timeout_ms + 1000)
        except PlaywrightError:
            with suppress(PlaywrightError):
                await route.abort("aborted")
            return
        finally:
            self._loading.discard(route)
        location = response.headers.get("location")
        if 300 <= response.status < 400 and location:
            target = resolve_url(location, request.url)
            refusal = self.policy.refusal(target)
            if refusal:
                self.record("redirect", target, f"server redirect from {request.url} to {refusal}")
                await route.fulfill(status=204)
                return
        await route.fulfill(response=response)

    async def stop_loading(self) -> None:
        """Abandon navigations still waiting for their server, so the next action starts clean."""
        routes, self._loading = self._loading, set()
        for route in routes:
            with suppress(PlaywrightError):
                await route.abort("aborted")

    def _on_request(self, request: Request) -> None:
        self._inflight.add(request)
        if request.is_navigation_request() and self._is_main_frame(request):
            self._navigations += 1
            self._navigation_url, self._navigation_request = request.url, request
        if request.redirected_from is not None and not self.policy.allows(request.url):
            self.record("redirect", request.url, f"a redirect chain reached {origin_of(request.url)}")

    def _on_request_done(self, request: Request) -> None:
        self._inflight.discard(request)

    @staticmethod
    def _frameless(request: Request) -> bool:
        try:
            request.frame
        except PlaywrightError:
            return True
        return False

    def _is_main_frame(self, request: Request) -> bool:
        try:
            return self._page is not None and request.frame == self._page.main_frame
        except PlaywrightError:
            return False

    async def _on_popup(self, popup: Page) -> None:
        if await popup.opener() is None:
            return  # a page opened by the caller or by start_task, not by a page
        self._deciding += 1
        try:
            await self._decide_popup(popup)
        finally:
            self._deciding -= 1

    async def _decide_popup(self, popup: Page) -> None:
        deadline = time.perf_counter() + self.action_timeout_ms / 1000
        while popup.url in ("", "about:blank") and time.perf_counter() < deadline:
            await asyncio.sleep(0.02)  # wait until it commits; a blocked one never does
        if popup.is_closed():
            return
        if popup.url not in ("", "about:blank") and self.policy.allows(popup.url):
            self._hook_page(popup)
            opener, self._page = self._page, popup
            popup.on("close", lambda _: self._restore(opener))
            self.record("popup", popup.url, f"a new tab opened at {popup.url}; acting on it now", violation=False)
            return
        self.record("popup", popup.url, f"closed a popup window ({popup.url or 'blank'})", violation=False)
        await popup.close()

    def _restore(self, opener: Page | None) -> None:
        if opener is not None and not opener.is_closed():
            self._page = opener

    async def _on_download(self, download: Download) -> None:
        if self.policy.allow_downloads:
            self.record("download", download.url, f"download of {download.suggested_filename}", violation=False)
            return
        self.record("download", download.url, f"download of {download.suggested_filename} refused")
        try:
            await download.cancel()
        except PlaywrightError:
            pass

    def take_events(self) -> list[SafetyEvent]:
        """Events not yet reported to the agent (each is reported once)."""
        fresh = self.events[self._reported :]
        self._reported = len(self.events)
        return fresh

    def violations(self) -> list[SafetyEvent]:
        return [e for e in self.events if e.violation]
