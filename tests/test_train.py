"""Training: a tiny run checkpoints, resumes and loads; the AR baseline decodes; shipped weights."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor_engine import Engine, FillInput, ThresholdSampler
from executor_engine.ar import ARDecoder
from executor_engine.train import parse_args, train
from tests.datagen_helpers import offline_records

TINY = ["--d-model", "32", "--layers", "2", "--heads", "2", "--kv-heads", "2", "--mlp", "64",
        "--vocab-size", "500", "--pages", "2", "--per-page", "3", "--warmup", "1", "--threads", "1"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("data") / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in offline_records("train", 6)))
    return path


def _request(record: dict) -> FillInput:
    return FillInput(record["instruction"], record["context"], record.get("schema"),
                     record.get("template"), record["allowed"])


def test_tiny_run_checkpoints_resumes_and_loads(dataset: Path, tmp_path: Path):
    out = tmp_path / "run"
    train(parse_args(["--data", str(dataset), "--out", str(out), "--steps", "2", *TINY]))
    assert (out / "state.pt").is_file() and (out / "final" / "model.safetensors").is_file()
    train(parse_args(["--data", str(dataset), "--out", str(out), "--steps", "4", *TINY]))
    log = (out / "train.log").read_text()
    assert "resumed at step 2" in log and "'steps': 4" in log
    record = next(r for r in offline_records("heldout", 2) if r.get("tool") == "click")
    out_fill = Engine.load(out / "final", device="cpu").fill([_request(record)])[0]
    assert out_fill.error is None and out_fill.value["ref"] in record["allowed"]["/ref"]


def test_ar_baseline_decodes_valid_values(dataset: Path, tmp_path: Path):
    final = train(parse_args(["--data", str(dataset), "--out", str(tmp_path), "--arch", "ar",
                              "--steps", "2", *TINY]))
    records = offline_records("heldout", 2)[:6]
    outputs = ARDecoder.load(final).fill([_request(r) for r in records])
    for r, o in zip(records, outputs):
        assert o.error is None and o.nfe >= 1
        if "ref" in r["target"]:
            assert o.value["ref"] in r["allowed"]["/ref"]
    with pytest.raises(Exception, match="not an AR checkpoint"):
        ARDecoder.load(train(parse_args(["--data", str(dataset), "--out", str(tmp_path / "d"),
                                         "--steps", "1", *TINY])))


def test_shipped_model_fills_a_tool_call():
    from agentpair.executor_local import LocalDiffusionExecutor
    from agentpair.models import FillRequest

    executor = LocalDiffusionExecutor()
    record = next(r for r in offline_records("heldout", 3) if r.get("tool") == "click")
    request = FillRequest(kind="tool_args", instruction=record["instruction"],
                          context=record["context"], schema=record["schema"],
                          allowed=record["allowed"])
    result = executor._fill([request])[0]
    assert result.error is None and result.value["ref"] in record["allowed"]["/ref"]
    assert isinstance(executor.engine.fill([_request(record)], ThresholdSampler())[0].value, dict)


def test_shipped_ar_baseline_fills_a_tool_call():
    from agentpair.executor_ar import ARBaselineExecutor
    from agentpair.models import FillRequest

    record = next(r for r in offline_records("heldout", 3) if r.get("tool") == "click")
    request = FillRequest(kind="tool_args", instruction=record["instruction"],
                          context=record["context"], schema=record["schema"],
                          allowed=record["allowed"])
    result = ARBaselineExecutor()._fill([request])[0]
    assert result.error is None and result.value["ref"] in record["allowed"]["/ref"]
