"""extract: read a spec table into the output schema; the answer is judged."""

from __future__ import annotations

import pytest

from tests.scenarios.conftest import play

pytestmark = pytest.mark.asyncio(loop_scope="module")

OPEN = ("click", {"ref": ("link", "Nimbus 14 Pro")})
RIGHT = {"name": "Nimbus 14 Pro", "price_usd": 1499.0, "ram_gb": 32, "weight_kg": 1.38}


SOLUTION = [OPEN, ("read", {})]
ANSWER = RIGHT


async def test_scripted_solution_succeeds(browser) -> None:
    verdict, results = await play(browser, "extract", SOLUTION, answer=ANSWER)
    assert all(r.ok for r in results), results
    page = results[-1].output
    assert "32 GB" in page and "1.38 kg" in page and "$1,499.00" in page
    assert verdict.success, verdict.reasons


async def test_answer_given_as_json_text_is_accepted(browser) -> None:
    verdict, _ = await play(browser, "extract", [OPEN], answer='{"name": "Nimbus 14 Pro", "price_usd": 1499, "ram_gb": 32, "weight_kg": 1.38}')
    assert verdict.success, verdict.reasons


@pytest.mark.parametrize(
    "answer",
    [
        {"name": "Nimbus 14", "price_usd": 1099, "ram_gb": 16, "weight_kg": 1.24},
        {**RIGHT, "price_usd": 1699},
        {**RIGHT, "weight_kg": 3.04},
        {k: v for k, v in RIGHT.items() if k != "ram_gb"},
        {**RIGHT, "ram_gb": "32 GB"},
        None,
    ],
    ids=["sibling-model", "list-price", "pounds", "missing-field", "wrong-type", "no-answer"],
)
async def test_wrong_answers_fail(browser, answer) -> None:
    verdict, _ = await play(browser, "extract", [OPEN], answer=answer)
    assert not verdict.success and verdict.reasons
