"""On a CUDA GPU (skipped elsewhere): the engine runs every layout there, and the shipped decoders
fill there what they fill on the CPU."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from executor_engine import Engine
from executor_engine.ar import ARDecoder
from executor_engine.bench import workload

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
WEIGHTS = Path(__file__).resolve().parents[2] / "agentpair" / "weights"


@pytest.mark.parametrize("layout", ["agentpair", "llada", "dream"])
def test_every_layout_fills_and_generates_on_the_gpu(checkpoints: dict[str, Path], layout: str) -> None:
    engine = Engine.load(checkpoints[layout], device="cuda")  # bf16
    outputs = engine.fill(workload())
    assert [o.error for o in outputs] == [None] * len(outputs)
    assert all(o.value is not None and o.nfe >= 1 for o in outputs)
    out = engine.generate(torch.tensor([[5, 6, 7]]), steps=4, gen_length=8, block_length=8)
    assert out.shape == (1, 11) and out.device.type == "cuda"


def test_shipped_decoders_fill_the_same_on_the_gpu() -> None:
    reqs = workload()
    for load, path in ((Engine.load, "executor"), (ARDecoder.load, "executor-ar")):
        cpu = load(WEIGHTS / path, device="cpu").fill(reqs)
        gpu = load(WEIGHTS / path, device="cuda", dtype="fp32").fill(reqs)
        assert [o.error for o in gpu] == [None] * len(reqs), path
        assert [o.value for o in gpu] == [o.value for o in cpu], path
        assert [o.nfe for o in gpu] == [o.nfe for o in cpu], path
