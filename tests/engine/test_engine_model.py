"""Loading every layout, logits shapes and shift conventions, and clear errors on bad checkpoints."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from executor_engine import CheckpointError, Engine
from executor_engine.testing import tiny_tokenizer


@pytest.mark.parametrize("layout", ["agentpair", "llada", "dream"])
def test_load_and_logits_shape(engines: dict[str, Engine], layout: str) -> None:
    engine = engines[layout]
    assert engine.cfg.layout == layout
    x = torch.randint(0, 300, (2, 9))
    logits, kvs = engine.model(x)
    assert logits.shape == (2, 9, engine.cfg.vocab_size)
    assert len(kvs) == engine.cfg.n_layers
    assert kvs[0][0].shape == (2, engine.cfg.n_kv_heads, 9, engine.cfg.head_dim)


def test_shift_convention(engines: dict[str, Engine]) -> None:
    x = torch.randint(0, 300, (1, 7))
    for layout, shift in (("llada", 0), ("agentpair", 0), ("dream", 1)):
        engine = engines[layout]
        raw = engine.model(x)[0]
        aligned = engine._logits(x, None)  # aligned[:, i] predicts token i
        assert engine.cfg.shift == shift
        torch.testing.assert_close(aligned[:, shift:], raw[:, : 7 - shift])


def test_bf16_forward(checkpoints: dict[str, Path]) -> None:
    engine = Engine.load(checkpoints["llada"], device="cpu", dtype="bf16")
    assert engine.model.embed.weight.dtype == torch.bfloat16
    logits = engine.model(torch.randint(0, 300, (1, 5)))[0]
    assert logits.dtype == torch.bfloat16 and torch.isfinite(logits.float()).all()


def test_bf16_copy_head_keeps_token_ids_exact(checkpoints: dict[str, Path]) -> None:
    engine = Engine.load(checkpoints["agentpair+copy"], device="cpu", dtype="bf16")
    ids = torch.tensor([[257, 259, 299, 3]])  # 257 and 259 are not bf16 numbers
    cache = engine.model(ids)[1]
    assert torch.equal(cache[-1][1][0, 0, :, 0].long(), ids[0])
    assert engine.model.empty_cache()[-1][1].dtype == torch.float32


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "ck"
    shutil.copytree(src, dst)
    return dst


def test_missing_file(checkpoints: dict[str, Path], tmp_path: Path) -> None:
    d = _copy(checkpoints["llada"], tmp_path)
    (d / "model.safetensors").unlink()
    with pytest.raises(CheckpointError, match="model.safetensors: missing file"):
        Engine.load(d)
    (d / "config.json").unlink()
    with pytest.raises(CheckpointError, match="config.json: missing file"):
        Engine.load(d)


def test_missing_tokenizer(checkpoints: dict[str, Path], tmp_path: Path) -> None:
    d = _copy(checkpoints["dream"], tmp_path)
    (d / "tokenizer.json").unlink()
    with pytest.raises(CheckpointError, match="tokenizer.json: missing file"):
        Engine.load(d)


def test_wrong_shape(checkpoints: dict[str, Path], tmp_path: Path) -> None:
    d = _copy(checkpoints["llada"], tmp_path)
    tensors = load_file(d / "model.safetensors")
    name = "model.transformer.blocks.1.ff_proj.weight"
    tensors[name] = tensors[name][:-1]
    save_file(tensors, d / "model.safetensors")
    with pytest.raises(CheckpointError, match=r"model.safetensors: tensor .*blocks\.1\.ff_proj"):
        Engine.load(d)


def test_missing_tensor(checkpoints: dict[str, Path], tmp_path: Path) -> None:
    d = _copy(checkpoints["dream"], tmp_path)
    tensors = load_file(d / "model.safetensors")
    del tensors["model.layers.0.self_attn.q_proj.bias"]
    save_file(tensors, d / "model.safetensors")
    with pytest.raises(CheckpointError, match=r"missing tensor 'model\.layers\.0\.self_attn\.q_proj\.bias'"):
        Engine.load(d)


def test_unknown_model_type(checkpoints: dict[str, Path], tmp_path: Path) -> None:
    d = _copy(checkpoints["agentpair"], tmp_path)
    cfg = json.loads((d / "config.json").read_text())
    cfg["model_type"] = "gpt2"
    (d / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError, match="config.json: unknown model_type 'gpt2'"):
        Engine.load(d)


def test_tokenizer_mismatch(checkpoints: dict[str, Path], tmp_path: Path) -> None:
    d = _copy(checkpoints["agentpair"], tmp_path)
    tiny_tokenizer("agentpair", vocab_size=600).save(str(d / "tokenizer.json"))
    with pytest.raises(CheckpointError, match=r"tokenizer.json: tokenizer has \d+ tokens but config.json vocab_size"):
        Engine.load(d)


def test_copy_head_points_at_visible_tokens_only(engines: dict[str, Engine]) -> None:
    engine = engines["agentpair+copy"]
    model, mask_id = engine.model, engine.cfg.mask_token_id
    assert engine.cfg.copy_head
    ids = torch.tensor([[5, 9, 9, 12, 40, mask_id, 77]])  # [1, 7]; 77 is hidden from position 5
    visible = torch.ones(1, 7, 7, dtype=torch.bool)
    visible[:, :, 6] = False
    with torch.no_grad():
        gate_bias = model.copy.gate.bias.clone()
        model.copy.gate.bias.fill_(-30.0)  # all mass through the pointer
        try:
            logp = model(ids, mask=visible, logits_at=torch.tensor([[5]]))[0][0, 0]  # [V]
        finally:
            model.copy.gate.bias.copy_(gate_bias)
    p = logp.exp()
    assert torch.isclose(p.sum(), torch.tensor(1.0), atol=1e-4)
    assert set(p.gt(1e-6).nonzero().flatten().tolist()) <= {5, 9, 12, 40}
    assert torch.isclose(p[[5, 9, 12, 40]].sum(), torch.tensor(1.0), atol=1e-4)
    logits, kvs = model(ids)
    assert len(kvs) == engine.cfg.n_layers + 1  # the copy head's sources follow the layers
    assert torch.allclose(logits.exp().sum(-1), torch.ones(1, 7), atol=1e-4)


def test_previous_tokens_are_the_same_packed_cached_or_whole() -> None:
    from executor_engine.model import previous_ids

    none = 1
    context = torch.tensor([[10, 11, 12]])  # positions 0..2, encoded alone
    assert previous_ids(context, torch.arange(3)[None], None, none).tolist() == [[none, 10, 11]]
    # a packed training row: two examples, each right after the context (positions 3, 4, 5)
    row, positions = torch.tensor([[20, 21, 22, 30, 31]]), torch.tensor([[3, 4, 5, 3, 4]])
    assert previous_ids(row, positions, context, none).tolist() == [[12, 20, 21, 12, 30]]
    # a later engine pass: the canvas alone, after context + instruction in the cache
    canvas = torch.tensor([[22]])
    cached = previous_ids(canvas, torch.tensor([[5]]), torch.tensor([[10, 11, 12, 20, 21]]), none)
    whole = previous_ids(torch.tensor([[10, 11, 12, 20, 21, 22]]), torch.arange(6)[None], None, none)
    assert cached.tolist() == [[21]] == whole[:, 5:].tolist()


def test_instruction_match_bias_marks_context_sources_near_instruction_tokens() -> None:
    from executor_engine.model import CopyHead, ModelConfig

    cfg = ModelConfig("agentpair", 8, 1, 2, 2, 16, 16, 1, 0, copy_head=True, match_window=2)
    head = CopyHead(cfg)
    with torch.no_grad():
        head.match_offsets.copy_(torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0]))  # offsets -2..2
        head.match_gate.weight.zero_()
        head.match_gate.bias.fill_(1.0)
    # context 5 6 7 8 7 9, instruction 7 12, canvas 2: token 7 is matched twice in the context
    ids = torch.tensor([[5, 6, 7, 8, 7, 9, 7, 12, 2]])
    seg = torch.tensor([[0, 0, 0, 0, 0, 0, 1, 1, 2]])
    sees_all = torch.ones(1, 1, 9, dtype=torch.bool)
    bias = head.match_bias(torch.zeros(1, 1, 8), ids, seg, sees_all)[0, 0]
    # each matched 7 weighs 1/2 (it occurs twice); a source at i gets offsets[j - i + 2] from
    # each match j within 2 of it (offset -2: the match is 2 tokens before the source);
    # instruction and canvas sources get nothing
    expected = 0.5 * torch.tensor([5.0, 4, 3 + 5, 2 + 4, 1 + 3, 2, 0, 0, 0])
    assert torch.allclose(bias, expected)
    blind = sees_all.clone()
    blind[..., 6:8] = False  # a query of another example: it cannot see this instruction
    assert not head.match_bias(torch.zeros(1, 1, 8), ids, seg, blind).any()


def test_key_match_bias_marks_instruction_sources_after_a_word_of_the_querys_key() -> None:
    from executor_engine.model import CopyHead, ModelConfig

    cfg = ModelConfig("agentpair", 8, 1, 2, 2, 16, 32, 1, 0, copy_head=True, key_window=2)
    head = CopyHead(cfg)
    with torch.no_grad():
        head.key_offsets.copy_(torch.tensor([1.0, 2.0]))  # a match 1 / 2 tokens before the source
        head.key_gate.weight.zero_()
        head.key_gate.bias.fill_(1.0)
    # instruction: word 7 then value 20, word 9 then value 21; canvas: key word 9, then the query
    ids = torch.tensor([[7, 20, 9, 21, 9, 1]])
    seg = torch.tensor([[1, 1, 1, 1, 2, 2]])
    pos = torch.arange(6)[None]
    sees_all = torch.ones(1, 1, 6, dtype=torch.bool)
    bias = head.key_bias(torch.zeros(1, 1, 8), ids, seg, pos, torch.tensor([[5]]), sees_all)[0, 0]
    # the 9 in the instruction matches the query's key: the source after it gets offsets[0], the
    # one two after it would get offsets[1] but is the canvas's own token
    assert bias.tolist() == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    blind = sees_all.clone()
    blind[..., 4] = False  # a query that cannot see that key word
    assert not head.key_bias(torch.zeros(1, 1, 8), ids, seg, pos, torch.tensor([[5]]), blind).any()


def test_an_added_key_match_starts_inert() -> None:
    import dataclasses

    from executor_engine.model import DiffusionLM, ModelConfig

    cfg = ModelConfig("agentpair", 16, 1, 2, 2, 32, 32, 1, 0, copy_head=True, match_window=2)
    plain, keyed = DiffusionLM(cfg), DiffusionLM(dataclasses.replace(cfg, key_window=3))
    plain.init_weights(0)
    keyed.load_state_dict(plain.state_dict(), strict=False)
    with torch.no_grad():
        keyed.copy.key_offsets.zero_()
    ids, seg = torch.tensor([[5, 6, 7, 8, 9, 1, 1]]), torch.tensor([[0, 0, 1, 1, 2, 2, 2]])
    assert torch.allclose(plain(ids, segments=seg)[0], keyed(ids, segments=seg)[0], atol=1e-6)
    assert len(keyed(ids, segments=seg)[1][-1][1].shape) == 4 and keyed(ids)[1][-1][1].shape[-1] == 3
