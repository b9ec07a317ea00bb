"""The fill workload helper and the GPU forward benchmark's CPU smoke mode."""

from __future__ import annotations

import json

import pytest
import torch

from executor_engine import Engine, bench_gpu
from executor_engine.bench import run_bench, workload


def test_run_bench(engines: dict[str, Engine]) -> None:
    assert len(workload()) == 8
    result = run_bench(engines["agentpair"])
    assert set(result) == {"model", "fills", "nfe_per_fill", "slot_tokens_per_forward",
                           "fill_ms_p50", "fills_per_s_batch", "cached_vs_uncached_speedup"}
    assert set(result["fills_per_s_batch"]) == {1, 8, 32}
    assert result["nfe_per_fill"] >= 1 and result["slot_tokens_per_forward"] >= 1


def test_bench_gpu_tiny(capsys: pytest.CaptureFixture[str]) -> None:
    bench_gpu.main(["--tiny", "--repeats", "1"])
    result = json.loads(capsys.readouterr().out)
    assert [r["batch"] for r in result["results"]] == [1, 8]
    assert all(r["cached_ms"] > 0 and r["uncached_ms"] > 0 for r in result["results"])


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_bench_gpu_needs_cuda() -> None:
    with pytest.raises(SystemExit, match="needs a CUDA device"):
        bench_gpu.main([])
