"""A LoRA adapter merged into the base GGUF: the deltas' arithmetic, the cache, the errors, and that
the merged model moves llama.cpp's logits as the adapter applied at run time does."""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest

from agentpair.llm.llamacpp import EmbeddedModelError, LlamaServer, default_gguf
from agentpair.llm.merge import adapter_deltas, merged_gguf
from agentpair.planner.client import plan_messages
from agentpair.planner.embedded import SHIPPED_LORA
from agentpair.planner.request import PlanRequest
from agentpair.training.datagen.plans import browser_tools
from agentpair.training.planner_lora import chat_prompt


def write_adapter(path: Path, halves: dict[str, np.ndarray], alpha: float, kind: str = "lora") -> Path:
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", kind)
    writer.add_float32("adapter.lora.alpha", alpha)
    for name, array in halves.items():
        writer.add_tensor(name, array.astype(np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def q_adapter(path: Path, seed: int = 0) -> Path:
    """An adapter of rank 2 on the first block's query projection (576 x 576) alone."""
    rng = np.random.default_rng(seed)
    return write_adapter(path, {"blk.0.attn_q.weight.lora_a": rng.normal(size=(2, 576)),
                                "blk.0.attn_q.weight.lora_b": rng.normal(size=(576, 2)) * 0.01}, alpha=4.0)


def test_each_delta_is_alpha_over_rank_times_b_a(tmp_path) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)  # (rank, in)
    b = np.ones((4, 2), dtype=np.float32)  # (out, rank)
    adapter = write_adapter(tmp_path / "a.gguf", {"w.weight.lora_a": a, "w.weight.lora_b": b}, alpha=8.0)
    deltas = adapter_deltas(adapter)
    assert list(deltas) == ["w.weight"]
    np.testing.assert_allclose(deltas["w.weight"], 4.0 * (b @ a))  # alpha 8 over rank 2


def test_a_file_that_is_no_lora_adapter_is_refused(tmp_path) -> None:
    adapter = write_adapter(tmp_path / "a.gguf", {}, alpha=1.0, kind="control_vector")
    with pytest.raises(ValueError, match="not a LoRA adapter"):
        adapter_deltas(adapter)


@pytest.mark.slow
def test_merged_once_then_taken_from_the_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("AGENTPAIR_CACHE", str(tmp_path / "cache"))
    adapter = q_adapter(tmp_path / "q.gguf")
    first = merged_gguf(default_gguf(), adapter)
    assert first.parent == tmp_path / "cache" / "merged"
    built = first.stat().st_mtime_ns
    assert merged_gguf(default_gguf(), adapter) == first and first.stat().st_mtime_ns == built
    other = merged_gguf(default_gguf(), q_adapter(tmp_path / "q.gguf", seed=1))  # same name, new contents
    assert other != first
    assert sorted(p.name for p in first.parent.iterdir()) == sorted([first.name, other.name])  # no .part left
    reader = gguf.GGUFReader(str(first))
    assert reader.fields["general.file_type"].contents() == 7  # Q8_0
    assert reader.fields["tokenizer.chat_template"].contents() == \
        gguf.GGUFReader(str(default_gguf())).fields["tokenizer.chat_template"].contents()


def test_an_adapter_for_another_model_is_an_error_naming_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("AGENTPAIR_CACHE", str(tmp_path / "cache"))
    adapter = write_adapter(tmp_path / "wrong.gguf", {"blk.99.attn_q.weight.lora_a": np.ones((1, 576)),
                                                      "blk.99.attn_q.weight.lora_b": np.ones((576, 1))}, 1.0)
    with pytest.raises(EmbeddedModelError, match="wrong.gguf.*blk.99.attn_q"):
        LlamaServer(lora=adapter).start()
    assert not list((tmp_path / "cache" / "merged").iterdir())
    with pytest.raises(EmbeddedModelError, match="adapter not found"):
        LlamaServer(lora=tmp_path / "missing.gguf").start()


def last_logits(model: Path, lora: Path | None, prompt: list[dict[str, str]]) -> np.ndarray:
    from llama_cpp import Llama

    llm = Llama(str(model), lora_path=str(lora) if lora else None, n_ctx=1024, n_threads=2, verbose=False,
                logits_all=True)
    try:
        tokens = llm.tokenize(chat_prompt(prompt).encode(), add_bos=False, special=True)
        llm.eval(tokens)
        return np.array(llm.scores[len(tokens) - 1])
    finally:
        llm.close()


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


@pytest.mark.slow
def test_the_merged_model_moves_the_logits_as_the_adapter_does() -> None:
    """The shipped adapter on a planner prompt: merged (Q8_0) and applied at run time (on Q4_1) change
    the base model's next-token logits alike, and agree on the token."""
    prompt = plan_messages(PlanRequest(goal="Sign in as ada with {{secret:password}}", secret_names=["password"],
                                       page='textbox "Username"\ntextbox "Password"\nbutton "Sign in"',
                                       tools=browser_tools()))
    base = last_logits(default_gguf(), None, prompt)
    runtime = last_logits(default_gguf(), SHIPPED_LORA, prompt)
    merged = last_logits(merged_gguf(default_gguf(), SHIPPED_LORA), None, prompt)
    assert np.linalg.norm(runtime - base) > 10  # the adapter matters here
    assert correlation(merged - base, runtime - base) > 0.9
    assert merged.argmax() == runtime.argmax()
