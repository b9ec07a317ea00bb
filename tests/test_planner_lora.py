"""The planner LoRA: what it learns from (labels), and that its GGUF adapter, loaded by llama.cpp,
changes the model's logits as the torch LoRA does (layouts and the q and k row orders right)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agentpair.embedded import SHIPPED_LORA, EmbeddedPlanner, default_gguf
from agentpair.planner_lora import add_lora, chat_prompt, encode, gguf_permute_rows, load_base, write_adapter

pytestmark = pytest.mark.slow
MESSAGES = [{"role": "system", "content": "Plan."}, {"role": "user", "content": "Goal: sign in as ada"}]


@pytest.fixture(scope="module")
def base():
    torch.set_num_threads(1)
    return load_base(default_gguf())


def test_labels_cover_only_the_plan_and_its_end(base) -> None:
    _, tok = base
    ids, labels = encode(tok, {"messages": MESSAGES, "target": '{"steps": []}'})
    prompt = tok.encode(chat_prompt(MESSAGES), add_special_tokens=False)
    assert ids[:len(prompt)] == prompt and labels[:len(prompt)] == [-100] * len(prompt)
    assert tok.decode(labels[len(prompt):]) == '{"steps": []}<|im_end|>'


def test_permute_rows_interleaves_each_heads_halves() -> None:
    w = torch.arange(8.0)[:, None]  # one head of 8 rows: halves [0..3] and [4..7]
    assert gguf_permute_rows(w, 1).flatten().tolist() == [0, 4, 1, 5, 2, 6, 3, 7]


def llama_cpp_logits(prompt: str, lora: Path | None) -> torch.Tensor:
    from llama_cpp import Llama

    kwargs = {"lora_path": str(lora)} if lora else {}
    model = Llama(model_path=str(default_gguf()), n_ctx=256, logits_all=True, verbose=False,
                  n_threads=1, **kwargs)
    tokens = model.tokenize(prompt.encode(), add_bos=False, special=True)
    model.eval(tokens)
    return torch.tensor(np.array(model.scores[len(tokens) - 1]))


def correlation(a: torch.Tensor, b: torch.Tensor) -> float:
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / (a.norm() * b.norm()))


@pytest.mark.parametrize("only", ["q_proj", "k_proj", None])
def test_gguf_adapter_moves_llama_cpp_logits_as_torch_does(base, tmp_path, only) -> None:
    """q alone, k alone (their rows are reordered for llama.cpp's rotary layout, and an error in one
    is lost among seven projections), then every projection at once."""
    model, tok = base
    prompt = chat_prompt(MESSAGES)
    ids = torch.tensor([tok.encode(prompt, add_special_tokens=False)])
    wrapped = add_lora(model, 4, 8.0)
    try:
        with torch.no_grad():
            before = model(ids).logits[0, -1]  # B is zero: the plain model
            gen = torch.Generator().manual_seed(0)
            # one projection: a large change, so llama.cpp's Q8 activations do not drown it; all: a small one
            scale = 0.1 if only is None else 0.5
            for key, lora in wrapped.items():
                if only is None or key.endswith(only):
                    lora.b.copy_(torch.randn(lora.b.shape, generator=gen) * scale)
            torch_delta = model(ids).logits[0, -1] - before
        write_adapter(wrapped, model.config.num_attention_heads, model.config.num_key_value_heads, 8.0,
                      tmp_path / "a.gguf")
    finally:
        for key, lora in wrapped.items():  # the shared model goes back to its plain projections
            layer, block, name = key.split(".")
            setattr(getattr(model.model.layers[int(layer)], block), name, lora.base)
    cpp_delta = llama_cpp_logits(prompt, tmp_path / "a.gguf") - llama_cpp_logits(prompt, None)
    # Q4_1 in llama.cpp vs its fp32 dequantisation here: close, not equal (0.98 measured for q or k
    # alone); with the rows in Hugging Face order, 0.14 for q and 0.55 for k
    assert correlation(torch_delta, cpp_delta) > 0.9
    assert torch_delta.norm() > 10


def test_embedded_planner_uses_the_shipped_adapter_by_default() -> None:
    assert SHIPPED_LORA.is_file()
    assert EmbeddedPlanner().server.lora == SHIPPED_LORA
    assert EmbeddedPlanner(lora=False).server.lora is None
    assert EmbeddedPlanner(model=default_gguf()).server.lora is None
