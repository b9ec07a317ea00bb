"""jobs: fill a job config template of 12 holes into a textarea."""

from __future__ import annotations

import pytest

from tests.scenarios.conftest import play

pytestmark = pytest.mark.asyncio(loop_scope="module")

OPEN = ("click", {"ref": ("link", "New job")})
CREATE = ("click", {"ref": ("button", "Create job")})


def config(retries: str = "2", channel: str = "#exports", on_failure: str = "true") -> str:
    return ('[job]\nname = "nightly-export"\nowner = "data-team"\nschedule = "02:00"\n'
            'image = "registry.example/nightly-export:1.8.0"\ntimeout_s = 900\n'
            f'retries = {retries}\n\n[job.resources]\ncpu = 2\nmemory = "4Gi"\n\n'
            f'[job.notify]\nemail = "alerts@corp.example"\nchannel = "{channel}"\non_failure = {on_failure}\n')


def fill(text: str, box: str = "Job config") -> tuple:
    return ("type", {"ref": ("textbox", box), "text": text})


SOLUTION = [OPEN, ("read", {}), fill(config()), CREATE]


async def test_scripted_solution_succeeds(browser) -> None:
    verdict, results = await play(browser, "jobs", SOLUTION)
    assert all(r.ok for r in results), results
    assert "&lt;on_failure&gt;" not in results[1].output and "<on_failure>" in results[1].output
    assert verdict.success, verdict.reasons


@pytest.mark.parametrize("steps", [
    [OPEN, fill(config(retries='"2"')), CREATE],
    [OPEN, fill(config(channel="#export")), CREATE],
    [OPEN, fill(config(on_failure="false")), CREATE],
    [OPEN, fill(config(), box="Notes"), CREATE],
    [OPEN, fill(config())],
], ids=["retries-as-string", "wrong-channel", "wrong-flag", "wrong-box", "not-created"])
async def test_wrong_runs_fail(browser, steps) -> None:
    verdict, _ = await play(browser, "jobs", steps)
    assert not verdict.success and verdict.reasons
