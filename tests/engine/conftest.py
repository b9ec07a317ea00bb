"""Tiny random-weight checkpoints in every layout, built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from executor_engine import Engine
from executor_engine.testing import make_tiny_checkpoint

LAYOUTS = ["agentpair", "llada", "dream"]
torch.set_num_threads(1)  # tiny models: threads only contend with the machine's other work


@pytest.fixture(scope="session")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("ckpt")
    tiny = {layout: make_tiny_checkpoint(root / layout, layout, seed=1) for layout in LAYOUTS}
    tiny["agentpair+copy"] = make_tiny_checkpoint(root / "copy", "agentpair", seed=1,
                                                copy_head=True, match_window=4)
    return tiny


@pytest.fixture(scope="session")
def engines(checkpoints: dict[str, Path]) -> dict[str, Engine]:
    return {layout: Engine.load(path, device="cpu") for layout, path in checkpoints.items()}
