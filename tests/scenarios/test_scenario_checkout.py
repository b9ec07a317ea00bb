"""checkout: add the right product to the cart and check out through a form."""

from __future__ import annotations

import pytest

from tests.scenarios.conftest import play

pytestmark = pytest.mark.asyncio(loop_scope="module")

ADD_2M = ("click", {"ref": ("button", "Add Braided USB-C cable, 2 m to cart")})
ADD_1M = ("click", {"ref": ("button", "Add Braided USB-C cable, 1 m to cart")})
TO_CHECKOUT = [("click", {"ref": ("link", "Cart (1)")}), ("click", {"ref": ("button", "Proceed to checkout")})]


def fill(city: str = "London", shipping: str = "Express (next day, $7)") -> list:
    return [
        ("type", {"ref": ("textbox", "Full name"), "text": "Ada Lovelace"}),
        ("type", {"ref": ("textbox", "Street address"), "text": "12 St James's Square"}),
        ("type", {"ref": ("textbox", "City"), "text": city}),
        ("type", {"ref": ("textbox", "Postcode"), "text": "SW1Y 4JH"}),
        ("select", {"ref": ("combobox", "Shipping method"), "option": shipping}),
    ]


PLACE = ("click", {"ref": ("button", "Place order")})


SOLUTION = [ADD_2M, *TO_CHECKOUT, *fill(), PLACE]


async def test_scripted_solution_succeeds(browser) -> None:
    verdict, results = await play(browser, "checkout", SOLUTION)
    assert all(r.ok for r in results), results
    assert verdict.success, verdict.reasons


@pytest.mark.parametrize(
    "steps",
    [
        [ADD_1M, *TO_CHECKOUT, *fill(), PLACE],
        [ADD_2M, *TO_CHECKOUT, *fill(city="Londno"), PLACE],
        [ADD_2M, *TO_CHECKOUT, *fill(shipping="Standard (3-5 days, free)"), PLACE],
        [ADD_2M, *TO_CHECKOUT, *fill()],
        [ADD_2M, ADD_2M, ("goto", {"url": "checkout.html"}), *fill(), PLACE],
    ],
    ids=["wrong-item", "wrong-city", "wrong-shipping", "not-placed", "two-cables"],
)
async def test_wrong_runs_fail(browser, steps) -> None:
    verdict, _ = await play(browser, "checkout", steps)
    assert not verdict.success
