"""login: sign in among sign-up and help distractors."""

from __future__ import annotations

import pytest

from tests.scenarios.conftest import play

pytestmark = pytest.mark.asyncio(loop_scope="module")

USER = ("type", {"ref": ("textbox", "Username"), "text": "ada.lovelace"})
PASSWORD = ("type", {"ref": ("textbox", "Password"), "text": "{{secret:password}}"})
SIGN_IN = ("click", {"ref": ("button", "Sign in")})
OPEN_LOGIN = ("click", {"ref": ("link", "Sign in to your account")})


SOLUTION = [OPEN_LOGIN, USER, PASSWORD, SIGN_IN]


async def test_scripted_solution_succeeds(browser) -> None:
    verdict, results = await play(browser, "login", SOLUTION)
    assert all(r.ok for r in results), results
    assert verdict.success, verdict.reasons
    assert "Analytical-Engine-1843" not in str([r.model_dump() for r in results])


@pytest.mark.parametrize(
    "steps",
    [
        [OPEN_LOGIN, USER, ("type", {"ref": ("textbox", "Password"), "text": "guess"}), SIGN_IN],
        [OPEN_LOGIN, USER, PASSWORD, ("click", {"ref": ("button", "Create account")})],
        [OPEN_LOGIN, USER, PASSWORD],
        [("goto", {"url": "/dashboard.html"})],
    ],
    ids=["wrong-password", "wrong-button", "half-done", "skips-login"],
)
async def test_wrong_runs_fail(browser, steps) -> None:
    verdict, _ = await play(browser, "login", steps)
    assert not verdict.success and verdict.reasons
