"""Browsers in one Chromium: siblings run tasks side by side in contexts of their own, and closing one
leaves the Chromium and the other running."""

from __future__ import annotations

import asyncio

import pytest

from agentpair.tools.browser import Browser
from tests.browser.conftest import Recorder

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_siblings_share_the_chromium_not_their_pages(browser: Browser, site: Recorder) -> None:
    first, second = browser.sibling(), browser.sibling()
    try:
        results = await asyncio.gather(first.start_task(start_url=site.url + "/"),
                                       second.start_task(start_url=site.url + "/page2.html"))
        assert all(r is not None and r.ok for r in results), results
        assert first._browser is browser._browser is second._browser  # one Chromium process
        assert first.page.context is not second.page.context  # cookies, storage and guards apart
        assert first.page.url.endswith("/") and second.page.url.endswith("/page2.html")
        await first.close()
        assert browser._browser is not None and browser._browser.is_connected()
        again = await second.start_task(start_url=site.url + "/")  # the other goes on
        assert again is not None and again.ok
    finally:
        await first.close()
        await second.close()
