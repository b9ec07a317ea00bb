"""The planner LoRA: what it learns from (labels), and that its GGUF adapter, loaded by llama.cpp,
changes the model's logits as the torch LoRA does (layouts and the q and k row orders right)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agentpair.llm.llamacpp import default_gguf
from agentpair.planner.embedded import SHIPPED_LORA, EmbeddedPlanner
from agentpair.training.planner_lora import (TARGETS, LoRALinear, add_lora, chat_prompt, encode, gguf_permute_rows,
                                    gguf_unpermute_rows, load_base, read_adapter, write_adapter)

pytestmark = pytest.mark.slow
MESSAGES = [{"role": "system", "content": "Plan."}, {"role": "user", "content": "Goal: sign in as ada"}]


@pytest.fixture(scope="module")
def base():
    torch.set_num_threads(1)
    return load_base(default_gguf())


def unwrap(model, wrapped: dict[str, LoRALinear]) -> None:
    """The shared base model goes back to its plain projections."""
    for key, lora in wrapped.items():
        layer, block, name = key.split(".")
        setattr(getattr(model.model.layers[int(layer)], block), name, lora.base)


def test_labels_cover_only_the_plan_and_its_end(base) -> None:
    _, tok = base
    ids, labels = encode(tok, {"messages": MESSAGES, "target": '{"steps": []}'})
    prompt = tok.encode(chat_prompt(MESSAGES), add_special_tokens=False)
    assert ids[:len(prompt)] == prompt and labels[:len(prompt)] == [-100] * len(prompt)
    assert tok.decode(labels[len(prompt):]) == '{"steps": []}<|im_end|>'


def test_permute_rows_interleaves_each_heads_halves() -> None:
    w = torch.arange(8.0)[:, None]  # one head of 8 rows: halves [0..3] and [4..7]
    assert gguf_permute_rows(w, 1).flatten().tolist() == [0, 4, 1, 5, 2, 6, 3, 7]


def test_unpermute_undoes_permute() -> None:
    w = torch.randn(24, 3)
    assert torch.equal(gguf_unpermute_rows(gguf_permute_rows(w, 3), 3), w)


def _tiny_lora(rank: int, seed: int) -> dict[str, LoRALinear]:
    """One layer's worth of every targeted projection, small, with random A and B."""
    gen = torch.Generator().manual_seed(seed)
    wrapped = {f"0.{block}.{name}": LoRALinear(torch.nn.Linear(8, 16 if name != "down_proj" else 8), rank, 8.0)
               for block, name in TARGETS}
    with torch.no_grad():
        for lora in wrapped.values():
            lora.a.copy_(torch.randn(lora.a.shape, generator=gen))
            lora.b.copy_(torch.randn(lora.b.shape, generator=gen))
    return wrapped


def test_an_adapter_reads_back_as_it_was_written(tmp_path) -> None:
    """--init starts a run from a GGUF adapter: the round trip keeps every tensor (to f16) and the
    q and k rows in Hugging Face order; a rank that does not match is refused by name."""
    written = _tiny_lora(4, 0)
    write_adapter(written, 4, 2, 8.0, tmp_path / "a.gguf")
    read = _tiny_lora(4, 1)
    read_adapter(tmp_path / "a.gguf", read, 4, 2)
    for key, lora in written.items():
        for part in ("a", "b"):
            torch.testing.assert_close(getattr(read[key], part), getattr(lora, part).half().float())
    with pytest.raises(SystemExit, match=r"blk\.0\.attn_q\.weight\.lora_a is \(4, 8\).*--rank 2"):
        read_adapter(tmp_path / "a.gguf", _tiny_lora(2, 1), 4, 2)


def test_the_shipped_adapter_reads_into_the_base_model(base) -> None:
    model, _ = base
    wrapped = add_lora(model, 16, 32.0)
    try:
        read_adapter(SHIPPED_LORA, wrapped, model.config.num_attention_heads, model.config.num_key_value_heads)
        assert all(lora.b.norm() > 0 for lora in wrapped.values())
    finally:
        unwrap(model, wrapped)


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
        unwrap(model, wrapped)
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
