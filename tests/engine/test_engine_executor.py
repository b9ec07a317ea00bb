"""LocalDiffusionExecutor: agentpair's FillRequest/FillResult over the engine, errors per request."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from agentpair.executor_local import LocalDiffusionExecutor
from agentpair.models import FillRequest
from executor_engine import CheckpointError


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
