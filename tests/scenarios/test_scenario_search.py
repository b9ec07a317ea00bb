"""search: find the right edition among look-alike results."""

from __future__ import annotations

import pytest

from tests.scenarios.conftest import play

pytestmark = pytest.mark.asyncio(loop_scope="module")

SEARCH = ("type", {"ref": ("searchbox", "Search books"), "text": "left hand of darkness", "submit": True})


SOLUTION = [SEARCH, ("wait_for", {"text": "3 results"}), ("click", {"ref": ("link", "The Left Hand of Darkness")})]


async def test_scripted_solution_succeeds(browser) -> None:
    verdict, results = await play(browser, "search", SOLUTION)
    assert all(r.ok for r in results), results
    assert verdict.success, verdict.reasons


async def test_search_results_list_the_editions(browser) -> None:
    verdict, results = await play(browser, "search", [SEARCH, ("read", {})])
    assert "Paperback, 2000" in results[-1].output and "Study Guide" in results[-1].output
    assert not verdict.success


@pytest.mark.parametrize(
    "steps",
    [
        [SEARCH, ("goto", {"url": "book.html?id=lhd-2000-pb"})],
        [SEARCH, ("click", {"ref": ("link", "Study Guide")})],
        [("click", {"ref": ("link", "The Dispossessed")})],
    ],
    ids=["paperback", "study-guide", "wrong-book"],
)
async def test_wrong_runs_fail(browser, steps) -> None:
    verdict, _ = await play(browser, "search", steps)
    assert not verdict.success
