"""LocalDiffusionExecutor: agentpair's FillRequest/FillResult over the engine, errors per request."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import jsonschema
import pytest

from agentpair.executor.local import LocalDiffusionExecutor
from agentpair.models import FillRequest
from executor_engine import CheckpointError, FillInput, FillOutput, ReferenceSampler
from executor_engine.ar import ARDecoder


def test_missing_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="missing file"):
        LocalDiffusionExecutor(tmp_path / "missing", device="cpu")


async def test_fill_requests(checkpoints: dict[str, Path]) -> None:
    executor = LocalDiffusionExecutor(checkpoints["agentpair"], device="cpu")
    assert executor.name == "local-diffusion"
    schema = {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}
    results = await executor.fill([
        FillRequest(kind="tool_args", instruction="click Home", context="link Home [ref=e7]",
                    schema=schema, allowed={"/ref": ["e7", "e9"]}),
        FillRequest(kind="code", instruction="sum", template="total = {{expr:6}}"),
        FillRequest(kind="extract", instruction="x", schema={"type": "string", "pattern": "a"}),
    ])
    assert results[0].error is None and results[0].value["ref"] in ("e7", "e9")
    jsonschema.validate(results[0].value, schema)
    assert results[0].stats.forward_passes >= 1 and results[0].stats.tokens >= 1
    assert results[1].value.startswith("total = ")
    assert results[2].error and "pattern" in results[2].error


def test_a_set_cancel_event_ends_a_fill_before_its_next_forward(engines) -> None:
    engine = engines["agentpair"]
    ar = ARDecoder(engine.model, engine.vocab)
    for fill, owner in ((lambda reqs, c: engine.fill(reqs, ReferenceSampler(), cancel=c), engine),
                        (lambda reqs, c: ar.fill(reqs, cancel=c), ar)):
        cancel, steps, step = threading.Event(), [], owner._step

        def counting(*args, step=step, steps=steps, cancel=cancel):
            steps.append(1)
            if len(steps) == 3:
                cancel.set()  # as a run's timeout does, from another thread
            return step(*args)

        owner._step = counting
        try:
            out = fill([FillInput("go", "ctx", template="x = {{a:32}}")], cancel)[0]
        finally:
            del owner._step
        assert out.error == "cancelled" and len(steps) == 3 and out.nfe == 3


async def test_cancelling_a_fill_frees_the_executor(checkpoints: dict[str, Path]) -> None:
    executor = LocalDiffusionExecutor(checkpoints["agentpair"], device="cpu")
    seen: list[threading.Event] = []

    def blocking(inputs, sampler, use_cache, cancel):
        seen.append(cancel)
        cancel.wait(30)  # a long fill that stops when told to
        return [FillOutput(error="cancelled") for _ in inputs]

    executor.engine.fill = blocking
    task = asyncio.create_task(executor.fill([FillRequest(kind="code", instruction="x",
                                                          template="{{a:4}}")]))
    while not seen:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen[0].is_set()
    assert await asyncio.to_thread(executor._lock.acquire, timeout=10)


def code_request(name: str) -> FillRequest:
    return FillRequest(kind="code", instruction=name, template=name + " = {{v:4}}")


async def test_fills_of_concurrent_runs_share_one_engine_call(checkpoints: dict[str, Path]) -> None:
    """Asked for at once (two runs), the fills go into one engine call; each run gets its own results."""
    executor = LocalDiffusionExecutor(checkpoints["agentpair"], device="cpu")
    alone = [(await executor.fill([code_request(n)]))[0].value for n in ("a", "b", "c")]
    calls: list[int] = []
    engine_fill = executor.engine.fill

    def counted(inputs, *args):
        calls.append(len(inputs))
        return engine_fill(inputs, *args)

    executor.engine.fill = counted
    first, second = await asyncio.gather(executor.fill([code_request("a"), code_request("b")]),
                                         executor.fill([code_request("c")]))
    assert calls == [3]
    assert [r.value for r in first + second] == alone  # each run's own, in its order, as when filled alone
    assert {r.stats.engine_batch for r in first + second} == {3}
    assert (await executor.fill([code_request("a")]))[0].stats.engine_batch == 1


async def test_a_run_that_stops_waiting_leaves_the_others_fills_coming(checkpoints: dict[str, Path]) -> None:
    executor = LocalDiffusionExecutor(checkpoints["agentpair"], device="cpu")
    seen: list[threading.Event] = []
    release = threading.Event()

    def blocking(inputs, sampler, use_cache, cancel):
        seen.append(cancel)
        release.wait(30)
        return [FillOutput(value="x") for _ in inputs]

    executor.engine.fill = blocking
    stopped = asyncio.create_task(executor.fill([code_request("a")]))
    waiting = asyncio.create_task(executor.fill([code_request("b")]))
    while not seen:
        await asyncio.sleep(0.01)
    stopped.cancel()
    await asyncio.sleep(0.05)
    assert not seen[0].is_set()  # the other run still waits for this call
    release.set()
    assert [r.value for r in await waiting] == ["x"]
    with pytest.raises(asyncio.CancelledError):
        await stopped


async def test_values_a_step_gave_that_the_schema_refuses_read_in_plain_words(checkpoints: dict[str, Path]) -> None:
    from agentpair.agent.step_work import fill_requests
    from agentpair.models import Step
    from agentpair.tools.base import Observation, Toolbox
    from tests.doubles import add_todo

    executor = LocalDiffusionExecutor(checkpoints["agentpair"], device="cpu")
    step = Step(kind="act", tool="add_todo", instruction="add the to-do Pay rent, estimated at 0 hours")
    asked = fill_requests(step, "Results:\nno tool has run yet", Observation(kind="results"), Toolbox([add_todo]))
    assert asked[0].allowed["/estimate_hours"] == [0]  # the number the step names, which the schema refuses
    schema = add_todo.args_schema()
    urgent = FillRequest(kind="tool_args", instruction="add it as urgent", schema=schema, allowed={"/priority": ["urgent"]})
    refused = await executor.fill([asked[0], urgent])
    assert refused[0].error == "estimate_hours must be at least 1; the step gave 0" and refused[0].value is None
    assert refused[1].error == 'priority must be one of "low", "normal", "high"; the step gave "urgent"'
