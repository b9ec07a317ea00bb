"""settings: a setting buried three pages deep behind an advanced section."""

from __future__ import annotations

import pytest

from tests.scenarios.conftest import play

pytestmark = pytest.mark.asyncio(loop_scope="module")

TO_SECURITY = [("click", {"ref": ("link", "Settings")}), ("click", {"ref": ("link", "Security")})]
ADVANCED = ("click", {"ref": ("button", "Show advanced options")})
TIMEOUT_15 = ("select", {"ref": ("combobox", "Session timeout"), "option": "15 minutes"})
SAVE = ("click", {"ref": ("button", "Save security settings")})


SOLUTION = [*TO_SECURITY, ADVANCED, TIMEOUT_15, SAVE]


async def test_scripted_solution_succeeds(browser) -> None:
    verdict, results = await play(browser, "settings", SOLUTION)
    assert all(r.ok for r in results), results
    assert verdict.success, verdict.reasons


async def test_hidden_setting_is_not_offered_before_expanding(browser) -> None:
    verdict, results = await play(browser, "settings", [*TO_SECURITY, ("read", {})])
    assert "Session timeout" not in results[-1].output and not verdict.success


@pytest.mark.parametrize(
    "steps",
    [
        [("click", {"ref": ("link", "Settings")}), ("click", {"ref": ("link", "Notifications")}),
         ("select", {"ref": ("combobox", "Idle reminder"), "option": "15 minutes"}),
         ("click", {"ref": ("button", "Save notification settings")})],
        [*TO_SECURITY, ADVANCED, TIMEOUT_15],
        [*TO_SECURITY, ADVANCED, ("select", {"ref": ("combobox", "Session timeout"), "option": "5 minutes"}), SAVE],
        [*TO_SECURITY, ADVANCED, TIMEOUT_15, ("check", {"ref": ("checkbox", "IP allowlist")}), SAVE],
    ],
    ids=["look-alike-setting", "not-saved", "wrong-value", "changed-another-setting"],
)
async def test_wrong_runs_fail(browser, steps) -> None:
    verdict, _ = await play(browser, "settings", steps)
    assert not verdict.success
