"""registration: a form with select, checkbox and radio inputs."""

from __future__ import annotations

import pytest

from tests.scenarios.conftest import play

pytestmark = pytest.mark.asyncio(loop_scope="module")

OPEN = ("click", {"ref": ("link", "Register now")})
NAME = ("type", {"ref": ("textbox", "Full name"), "text": "Grace Hopper"})
EMAIL = ("type", {"ref": ("textbox", "Email"), "text": "grace@navy.test"})
TICKET = ("select", {"ref": ("combobox", "Ticket type"), "option": "Student (€90)"})
PYTHON = ("check", {"ref": ("checkbox", "Python workshop")})
SIZE_L = ("check", {"ref": ("radio", "L", True)})
MEALS = ("select", {"ref": ("combobox", "Meals"), "option": "vegetarian"})
NO_NEWS = ("check", {"ref": ("checkbox", "newsletter"), "on": False})
CONDUCT = ("check", {"ref": ("checkbox", "code of conduct")})
SUBMIT = ("click", {"ref": ("button", "Submit registration")})
SOLUTION = [OPEN, NAME, EMAIL, TICKET, PYTHON, SIZE_L, MEALS, NO_NEWS, CONDUCT, SUBMIT]


def replace(step, by):
    return [by if s is step else s for s in SOLUTION]


async def test_scripted_solution_succeeds(browser) -> None:
    verdict, results = await play(browser, "registration", SOLUTION)
    assert all(r.ok for r in results), results
    assert verdict.success, verdict.reasons


@pytest.mark.parametrize(
    "steps",
    [
        replace(SIZE_L, ("check", {"ref": ("radio", "XL", True)})),
        replace(TICKET, ("select", {"ref": ("combobox", "Ticket type"), "option": "Standard (€250)"})),
        replace(PYTHON, ("check", {"ref": ("checkbox", "Rust workshop")})),
        [s for s in SOLUTION if s is not NO_NEWS],
        [s for s in SOLUTION if s is not CONDUCT],
        SOLUTION[:-1],
    ],
    ids=["wrong-size", "wrong-ticket", "wrong-workshop", "newsletter-left-on", "conduct-unchecked", "not-submitted"],
)
async def test_wrong_runs_fail(browser, steps) -> None:
    verdict, _ = await play(browser, "registration", steps)
    assert not verdict.success
