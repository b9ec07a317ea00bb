"""The waterfall page in headless Chromium: a bar per span, widths proportional to durations,
details on click, no network. With AGENTPAIR_UPDATE_DOCS=1 it refreshes docs/waterfall.png."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from agentpair.tracing.reader import load_trace
from agentpair.tracing.waterfall import write_waterfall
from tests.trace_runs import record_run

DOCS_screenshot = Path(__file__).resolve().parents[2] / "docs" / "waterfall.png"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


async def test_waterfall_page_in_chromium(tmp_path: Path) -> None:
    screenshot = DOCS_screenshot if os.environ.get("AGENTPAIR_UPDATE_DOCS") else tmp_path / "waterfall.png"
    trace = tmp_path / "run.jsonl"
    await record_run(trace, planner_s=0.3, executor_s=0.04, tool_s=0.08, observe_s=0.03)
    tree = load_trace(trace)
    page_path = write_waterfall(tree, tmp_path / "run.html")

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1500, "height": 900})
            requests: list[str] = []
            page.on("request", lambda request: requests.append(request.url))
            await page.goto(page_path.as_uri())
            bars = await page.eval_on_selector_all(".bar", """bars => bars.map(b => ({
                ms: parseFloat(b.dataset.durationMs), planner: b.classList.contains('cat-planner'), width: parseFloat(b.style.width),
                px: b.getBoundingClientRect().width, track: b.parentElement.getBoundingClientRect().width}))""")
            timeline_ms = float(await page.get_attribute("#waterfall", "data-timeline-ms"))

            await page.locator(".row", has_text="chat scripted").first.click()
            details = await page.inner_text("#details")
            await page.screenshot(path=str(screenshot), full_page=True)
        finally:
            await browser.close()

    assert requests == [page_path.as_uri()]  # self-contained: nothing else is fetched
    assert len(bars) == len(tree.spans)
    for bar in bars:  # width in % of the timeline, proportional to the duration
        assert bar["width"] == pytest.approx(100 * bar["ms"] / timeline_ms, abs=1e-3)
        if bar["px"] > 2:
            assert bar["px"] == pytest.approx(bar["track"] * bar["width"] / 100, abs=1)
    planner_ms = [b["ms"] for b in bars if b["planner"]]
    assert len(planner_ms) == 3 and all(300 <= ms < 400 for ms in planner_ms)
    assert "agentpair.plan_request" in details and "click Go" in details and "gen_ai.usage.input_tokens" in details
    assert screenshot.stat().st_size > 10_000
