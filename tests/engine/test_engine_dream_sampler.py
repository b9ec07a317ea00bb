"""Dream's sampler: token-for-token equal to Dream's official diffusion_generate, and how a caller picks it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from executor_engine import Engine
from executor_engine.testing import make_tiny_checkpoint

DATA = Path(__file__).parent.parent / "data" / "dream_reference.json"


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Engine]:
    record = json.loads(DATA.read_text())
    d = make_tiny_checkpoint(tmp_path_factory.mktemp("dream_ref"), record["layout"], record["seed"],
                             std=record["std"])
    assert json.loads((d / "config.json").read_text()) == record["config"]
    return record, Engine.load(d, device="cpu")


def test_generate_matches_dream_reference(reference: tuple[dict, Engine]) -> None:
    record, engine = reference
    assert {c["alg"] for c in record["cases"]} >= {"entropy", "maskgit_plus", "topk_margin", "origin"}
    for case in record["cases"]:
        torch.manual_seed(case["torch_seed"])
        am = case["attention_mask"]
        out = engine.generate(torch.tensor(case["prompt"]), None if am is None else torch.tensor(am),
                              steps=case["steps"], gen_length=case["gen_length"],
                              temperature=case["temperature"], remasking=case["alg"])
        assert out.tolist() == case["output"], case


def test_a_dream_checkpoint_decodes_with_dream_entropy_by_default(engines: dict[str, Engine]) -> None:
    prompt = torch.tensor([[5, 6, 7, 8]])
    dream, llada = engines["dream"], engines["llada"]
    assert torch.equal(dream.generate(prompt, steps=4, gen_length=12),
                       dream.generate(prompt, steps=4, gen_length=12, remasking="entropy"))
    assert torch.equal(llada.generate(prompt, steps=4, gen_length=12),
                       llada.generate(prompt, steps=4, gen_length=12, remasking="low_confidence"))


def test_dream_algorithms_take_no_blocks(engines: dict[str, Engine]) -> None:
    with pytest.raises(ValueError, match="one block"):
        engines["dream"].generate(torch.tensor([[5, 6]]), steps=4, gen_length=8, block_length=4,
                                  remasking="entropy")
