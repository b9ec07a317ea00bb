"""shipments: read a table of 16 shipments into an array of objects; every record is judged."""

from __future__ import annotations

import pytest

from tests.scenarios.conftest import play

pytestmark = pytest.mark.asyncio(loop_scope="module")

OPEN = ("click", {"ref": ("link", "Shipments")})
ROWS = [{'id': 'SH-40211', 'destination': 'Rotterdam', 'weight_kg': 12.4},
        {'id': 'SH-40212', 'destination': 'Lagos', 'weight_kg': 3.8},
        {'id': 'SH-40215', 'destination': 'Montreal', 'weight_kg': 27.0},
        {'id': 'SH-40219', 'destination': 'Osaka', 'weight_kg': 0.9},
        {'id': 'SH-40220', 'destination': 'Valparaiso', 'weight_kg': 15.5},
        {'id': 'SH-40224', 'destination': 'Tallinn', 'weight_kg': 8.2},
        {'id': 'SH-40226', 'destination': 'Durban', 'weight_kg': 41.3},
        {'id': 'SH-40230', 'destination': 'Reykjavik', 'weight_kg': 2.6},
        {'id': 'SH-40231', 'destination': 'Cebu', 'weight_kg': 19.9},
        {'id': 'SH-40233', 'destination': 'Marseille', 'weight_kg': 6.4},
        {'id': 'SH-40238', 'destination': 'Halifax', 'weight_kg': 33.1},
        {'id': 'SH-40240', 'destination': 'Mombasa', 'weight_kg': 11.7},
        {'id': 'SH-40241', 'destination': 'Gdansk', 'weight_kg': 4.5},
        {'id': 'SH-40245', 'destination': 'Auckland', 'weight_kg': 22.8},
        {'id': 'SH-40247', 'destination': 'Antwerp', 'weight_kg': 9.3},
        {'id': 'SH-40250', 'destination': 'Santos', 'weight_kg': 17.6}]

SOLUTION = [OPEN, ("read", {})]
ANSWER = {"shipments": ROWS}


async def test_scripted_solution_succeeds(browser) -> None:
    verdict, results = await play(browser, "shipments", SOLUTION, answer=ANSWER)
    assert all(r.ok for r in results), results
    assert "SH-40250" in results[-1].output and "17.6 kg" in results[-1].output
    assert verdict.success, verdict.reasons


@pytest.mark.parametrize("answer", [
    {"shipments": ROWS[:15]},  # a record short
    {"shipments": ROWS[:7] + [{**ROWS[7], "destination": "Reykjavik harbour"}] + ROWS[8:]},
    {"shipments": ROWS[:3] + [{**ROWS[3], "weight_kg": 9.0}] + ROWS[4:]},
    {"shipments": ROWS[1:] + ROWS[:1]},  # out of the table's order
], ids=["missing-record", "wrong-destination", "wrong-weight", "reordered"])
async def test_wrong_answers_fail(browser, answer) -> None:
    verdict, _ = await play(browser, "shipments", [OPEN], answer=answer)
    assert not verdict.success and verdict.reasons
