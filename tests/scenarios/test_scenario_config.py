"""config: fill a TOML template from the page into a textarea."""

from __future__ import annotations

import pytest

from tests.scenarios.conftest import play

pytestmark = pytest.mark.asyncio(loop_scope="module")

OPEN = ("click", {"ref": ("link", "New service")})
CREATE = ("click", {"ref": ("button", "Create service")})


def config(version: str = "2.4.1", replicas: str = "3", port: str = "8080") -> str:
    return (
        '[service]\nname = "billing-api"\n'
        f'image = "registry.example/billing-api:{version}"\nreplicas = {replicas}\n\n'
        f'[service.http]\nport = {port}\nhealth_check = "/healthz"\n'
    )


def fill(text: str, box: str = "Service config") -> tuple:
    return ("type", {"ref": ("textbox", box), "text": text})


SOLUTION = [OPEN, ("read", {}), fill(config()), CREATE]


async def test_scripted_solution_succeeds(browser) -> None:
    verdict, results = await play(browser, "config", SOLUTION)
    assert all(r.ok for r in results), results
    assert 'health_check = "/healthz"' in results[1].output
    assert verdict.success, verdict.reasons


@pytest.mark.parametrize(
    "steps",
    [
        [OPEN, fill(config(replicas='"3"')), CREATE],
        [OPEN, fill(config(version="2.4")), CREATE],
        [OPEN, fill("service:\n  name: billing-api\n"), CREATE],
        [OPEN, fill(config(), box="Environment variables"), CREATE],
        [OPEN, fill(config())],
    ],
    ids=["replicas-as-string", "wrong-version", "yaml-not-toml", "wrong-box", "not-created"],
)
async def test_wrong_runs_fail(browser, steps) -> None:
    verdict, _ = await play(browser, "config", steps)
    assert not verdict.success and verdict.reasons
