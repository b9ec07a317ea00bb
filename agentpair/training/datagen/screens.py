"""A generated episode's screens opened in Chromium, each address answered with the page being opened."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from playwright.async_api import Route

from agentpair.training.datagen.sites import Episode, Screen
from agentpair.tools.browser import Browser


async def open_pages(browser: Browser, episode: Episode) -> Callable[[Screen], Awaitable[None]]:
    """A fresh task context for the episode, every address answered with the page being opened;
    returns the function that opens a screen."""
    current: list[str] = [""]

    async def handler(route: Route) -> None:
        await route.fulfill(body=current[0], content_type="text/html")
    await browser.start_task("about:blank", allowed_origins=["*"], secrets=episode.secrets)
    await browser.page.route("**/*", handler)

    async def open_screen(screen: Screen) -> None:
        current[0] = screen.html
        await browser.page.goto(screen.url)
    return open_screen
