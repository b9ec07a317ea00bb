"""Origin blocking, downloads, popups, file URLs, timeouts and secrets, against real Chromium."""

from __future__ import annotations

import asyncio

import pytest

from tests.browser.conftest import SECRETS
from agentpair.tools.browser import Browser
from agentpair.tools.snapshot import find_ref

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def call(browser: Browser, name: str, **args):
    return await browser.toolbox().get(name)(args)


async def click(browser: Browser, role: str, name: str):
    return await call(browser, "click", ref=find_ref((await browser.observe()).snapshot, role, name))


def kinds(browser: Browser) -> list[str]:
    return [e.kind for e in browser.violations()]


async def until(happened, timeout: float = 10.0) -> None:
    """Wait for an event the browser reports asynchronously; a fixed sleep races a loaded CI machine."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not happened():
        assert loop.time() < deadline, "timed out waiting for the browser event"
        await asyncio.sleep(0.05)


async def test_goto_outside_origin_is_refused(home: Browser, outside) -> None:
    result = await call(home, "goto", url=outside.url + "/steal")
    assert not result.ok and "not an allowed origin" in result.error
    assert kinds(home) == ["navigation"] and outside.hits == []


async def test_link_to_outside_origin_is_blocked_and_page_kept(home: Browser, site, outside) -> None:
    result = await click(home, "link", "Partner site")
    assert not result.ok and "blocked navigation" in result.error
    assert home.page.url == site.url + "/" and outside.hits == []
    assert (await click(home, "link", "Second page")).ok


async def test_server_redirect_out_is_blocked(home: Browser, site, outside) -> None:
    result = await click(home, "link", "Redirect out")
    assert not result.ok and "server redirect" in result.error
    assert kinds(home) == ["redirect"] and outside.hits == []
    assert home.page.url == site.url + "/"


async def test_redirect_within_origin_is_followed(home: Browser, site) -> None:
    result = await click(home, "link", "Redirect in")
    assert result.ok and home.page.url == site.url + "/page2.html"


async def test_script_navigation_is_blocked_and_reported_next(home: Browser, site, outside) -> None:
    result = await click(home, "button", "Script jump")
    await until(lambda: kinds(home))
    obs = await home.observe()
    # reported once: by the click when the jump is blocked before it returns, else next observation
    reports = [result.error or "", *obs.notices]
    assert sum("not an allowed origin" in n for n in reports) == 1
    assert obs.url == site.url + "/" and outside.hits == []
    assert kinds(home) == ["navigation"]
    assert (await home.observe()).notices == []


async def test_popup_to_outside_is_closed(home: Browser, outside) -> None:
    await click(home, "button", "Open partner")
    await until(lambda: kinds(home))
    await until(lambda: len(home.page.context.pages) == 1)
    assert kinds(home) == ["popup"] and outside.hits == []
    assert len(home.page.context.pages) == 1


async def test_popup_within_origin_becomes_active(home: Browser, site) -> None:
    await click(home, "button", "Open local tab")
    await until(lambda: home.page.url == site.url + "/page2.html")
    obs = await home.observe()
    assert obs.url == site.url + "/page2.html" and home.violations() == []
    await home.page.close()
    assert home.page.url == site.url + "/"


async def test_download_is_refused(home: Browser) -> None:
    await click(home, "link", "Get report")
    await until(lambda: kinds(home))
    assert "download" in kinds(home)


async def test_file_urls_are_refused(home: Browser) -> None:
    result = await call(home, "goto", url="file:///etc/passwd")
    assert not result.ok and "file://" in result.error and kinds(home) == ["file_url"]


async def test_policy_comes_only_from_start_task(browser: Browser, site, outside) -> None:
    await browser.start_task(start_url=site.url + "/", allowed_origins=[outside.url])
    assert (await call(browser, "goto", url=outside.url + "/landing")).ok
    await browser.start_task(start_url=site.url + "/")
    assert browser.events == [] and not (await call(browser, "goto", url=outside.url + "/landing")).ok


async def test_page_that_never_loads_times_out_then_recovers(home: Browser) -> None:
    result = await click(home, "link", "Slow page")
    assert not result.ok and "timed out" in result.error and "/hang" in result.error
    again = await call(home, "goto", url="/page2.html")
    assert again.ok and (await home.observe()).title == "Second"
    direct = await call(home, "goto", url="/hang")
    assert not direct.ok and "timed out" in direct.error
    assert (await call(home, "go_back")).ok


async def test_navigation_reported_late_is_still_waited_for(home: Browser) -> None:
    """A loaded machine can report a navigation's request after the click returns, and Playwright's
    own wait can miss it: the navigation is still waited for, and times out as it should."""
    link = find_ref((await home.observe()).snapshot, "link", "Slow page")
    loop, context = asyncio.get_running_loop(), home.page.context
    late = lambda request: loop.call_later(0.3, home._on_request, request)  # noqa: E731
    context.remove_listener("request", home._on_request)
    context.on("request", late)
    try:
        result = await home.run_action("click", lambda: home.page.locator(f"aria-ref={link}").click(no_wait_after=True))
    finally:
        context.remove_listener("request", late)
        context.on("request", home._on_request)
    assert not result.ok and "timed out" in result.error and "/hang" in result.error


async def test_navigation_a_page_takes_over_is_not_waited_for(home: Browser, site) -> None:
    """A router that intercepts a link's navigation keeps its document: no request to wait for."""
    from agentpair.tools.browser_guard import SINCE_NAVIGATE_JS

    assert (await call(home, "goto", url="/routed.html")).ok
    result = await click(home, "link", "Routed link")
    assert result.ok and home.page.url == site.url + "/page2.html"
    assert await home.page.inner_text("#view") == "routed /page2.html"
    assert await home.page.evaluate(SINCE_NAVIGATE_JS) == float("inf")


async def test_secrets_masked_in_observation_and_filled_when_typing(home: Browser) -> None:
    obs = await home.observe()
    assert SECRETS["api_key"] not in obs.text + obs.snapshot
    assert "{{secret:api_key}}" in obs.text
    pw = find_ref(obs.snapshot, "textbox", "Password")
    typed = await call(home, "type", ref=pw, text="{{secret:password}}")
    assert typed.ok and SECRETS["password"] not in typed.model_dump_json()
    assert await home.page.input_value("#pw") == SECRETS["password"]
    after = await home.observe()
    assert SECRETS["password"] not in after.snapshot and "{{secret:password}}" in after.snapshot
    read = await call(home, "read", ref=pw)
    assert read.output == "{{secret:password}}"


async def test_secret_into_plain_field_is_refused(home: Browser) -> None:
    name = find_ref((await home.observe()).snapshot, "textbox", "Full name")
    result = await call(home, "type", ref=name, text="{{secret:password}}")
    assert not result.ok and "password field" in result.error
    assert kinds(home) == ["secret"] and await home.page.input_value("#name") == ""
    unknown = await call(home, "type", ref=name, text="{{secret:nope}}")
    assert not unknown.ok and "unknown secret" in unknown.error


async def test_literal_password_never_appears_in_results(home: Browser) -> None:
    pw = find_ref((await home.observe()).snapshot, "textbox", "Password")
    typed = await call(home, "type", ref=pw, text="plain-Pa55word")
    assert typed.ok and "plain-Pa55word" not in typed.model_dump_json()
    obs = await home.observe()
    assert "plain-Pa55word" not in obs.model_dump_json() and "********" in obs.snapshot
    assert "plain-Pa55word" not in (await call(home, "read", ref=pw)).model_dump_json()


async def test_a_cross_origin_frame_is_not_loaded_and_the_run_goes_on(browser: Browser, site, outside) -> None:
    outside.hits.clear()
    start = await browser.start_task(start_url=site.url + "/framed.html")
    assert start is not None and start.ok, start  # the page itself loaded
    observation = await browser.observe()
    assert any("frame of the page was not loaded" in n for n in observation.notices)
    assert outside.hits == [] and browser.violations() == []  # the page's doing, not the run's
    assert (await click(browser, "link", "Home")).ok
