"""Checkpoint directories: config parsing, tensor-name layouts (LLaDA, Dream, agentpair), tokenizer.

A directory holds config.json, tokenizer.json and model.safetensors (or shards listed in
model.safetensors.index.json). Anything wrong raises CheckpointError naming the file or tensor.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open
from safetensors.torch import save_file
from tokenizers import Tokenizer

from executor_engine.model import DiffusionLM, ModelConfig

class CheckpointError(Exception):
    """A checkpoint directory cannot be used as it is; the message names the file or tensor."""


def _block_names(layout: str, i: int) -> dict[str, str]:
    """Internal name -> checkpoint name for block i's tensors."""
    if layout == "llada":
        p = f"model.transformer.blocks.{i}."
        parts = {"attn.q": "q_proj", "attn.k": "k_proj", "attn.v": "v_proj", "attn.o": "attn_out",
                 "mlp.gate": "ff_proj", "mlp.up": "up_proj", "mlp.down": "ff_out",
                 "attn_norm": "attn_norm", "mlp_norm": "ff_norm"}
    elif layout == "dream":
        p = f"model.layers.{i}."
        parts = {"attn.q": "self_attn.q_proj", "attn.k": "self_attn.k_proj",
                 "attn.v": "self_attn.v_proj", "attn.o": "self_attn.o_proj",
                 "mlp.gate": "mlp.gate_proj", "mlp.up": "mlp.up_proj", "mlp.down": "mlp.down_proj",
                 "attn_norm": "input_layernorm", "mlp_norm": "post_attention_layernorm"}
    else:
        p = f"blocks.{i}."
        parts = {k: k for k in ("attn.q", "attn.k", "attn.v", "attn.o", "mlp.gate", "mlp.up",
                                "mlp.down", "attn_norm", "mlp_norm")}
    return {f"blocks.{i}.{k}.": p + v + "." for k, v in parts.items()}


def tensor_names(cfg: ModelConfig) -> dict[str, str]:
    """Internal parameter name -> name in the checkpoint file, for every stored tensor."""
    tops = {
        "llada": {"embed.": "model.transformer.wte.", "norm.": "model.transformer.ln_f.",
                  "lm_head.": "model.transformer.ff_out."},
        "dream": {"embed.": "model.embed_tokens.", "norm.": "model.norm.", "lm_head.": "lm_head."},
        "agentpair": {"embed.": "embed.", "norm.": "norm.", "lm_head.": "lm_head.", "copy.": "copy."},
    }[cfg.layout]
    prefixes = dict(tops)
    for i in range(cfg.n_layers):
        prefixes.update(_block_names(cfg.layout, i))
    names = {}
    for name, _ in DiffusionLM(cfg).to("meta").named_parameters():
        prefix = max((p for p in prefixes if name.startswith(p)), key=len)
        names[name] = prefixes[prefix] + name[len(prefix):]
    return names


def _get(raw: dict[str, Any], path: Path, *keys: str, default: Any = ...) -> Any:
    for key in keys:
        if key in raw:
            return raw[key]
    if default is ...:
        raise CheckpointError(f"{path}: missing config key {keys[0]!r}")
    return default


def parse_config(raw: dict[str, Any], path: Path) -> ModelConfig:
    """A ModelConfig from a config.json dict of any supported layout."""
    model_type = raw.get("model_type")
    layout = {"llada": "llada", "Dream": "dream", "agentpair": "agentpair"}.get(model_type)
    if layout is None:
        raise CheckpointError(
            f"{path}: unknown model_type {model_type!r} (expected 'llada', 'Dream' or 'agentpair')"
        )
    g = lambda *keys, default=...: _get(raw, path, *keys, default=default)  # noqa: E731
    if layout == "llada":
        for key, ok in (("alibi", False), ("rope", True), ("layer_norm_type", "rms"),
                        ("block_type", "llama")):
            if raw.get(key, ok) != ok:
                raise CheckpointError(f"{path}: unsupported LLaDA setting {key}={raw[key]!r}")
        n_heads = g("n_heads")
        return ModelConfig(
            layout, g("d_model"), g("n_layers"), n_heads, g("n_kv_heads", default=None) or n_heads,
            g("mlp_hidden_size"), g("embedding_size", "vocab_size"), g("mask_token_id", default=126336),
            g("pad_token_id", "eos_token_id", default=126081), g("rope_theta", default=10000.0),
            g("rms_norm_eps", "layer_norm_eps", default=1e-5),
            bool(g("include_qkv_bias", "include_bias", default=False)),
            bool(g("weight_tying", default=False)), g("bos_token_id", default=None),
        )
    if layout == "dream":
        n_heads = g("num_attention_heads")
        return ModelConfig(
            layout, g("hidden_size"), g("num_hidden_layers"), n_heads,
            g("num_key_value_heads", default=n_heads), g("intermediate_size"), g("vocab_size"),
            g("mask_token_id", default=151666), g("pad_token_id", "eos_token_id", default=151643),
            g("rope_theta", default=10000.0), g("rms_norm_eps", default=1e-6), True,
            bool(g("tie_word_embeddings", default=False)), g("bos_token_id", default=None),
        )
    return ModelConfig(
        layout, g("d_model"), g("n_layers"), g("n_heads"), g("n_kv_heads"), g("mlp_hidden"),
        g("vocab_size"), g("mask_token_id"), g("pad_token_id"), g("rope_theta", default=10000.0),
        g("norm_eps", default=1e-5), bool(g("qkv_bias", default=False)),
        bool(g("tie_embeddings", default=False)), g("bos_token_id", default=None),
        bool(g("copy_head", default=False)), int(g("match_window", default=0)),
        int(g("key_window", default=0)),
    )


def read_config(directory: Path) -> ModelConfig:
    path = directory / "config.json"
    if not path.is_file():
        raise CheckpointError(f"{path}: missing file")
    try:
        raw = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise CheckpointError(f"{path}: not valid JSON ({e})") from e
    return parse_config(raw, path)


def _weight_files(directory: Path) -> list[Path]:
    index = directory / "model.safetensors.index.json"
    if index.is_file():
        names = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        files = [directory / n for n in names]
    else:
        files = [directory / "model.safetensors"]
    for f in files:
        if not f.is_file():
            raise CheckpointError(f"{f}: missing file")
    return files


def load_model(directory: Path, device: torch.device, dtype: torch.dtype) -> DiffusionLM:
    """Build the model on `device` in `dtype` from a checkpoint directory, checking every tensor."""
    cfg = read_config(directory)
    names = tensor_names(cfg)
    if cfg.tie_embeddings:
        names.pop("lm_head.weight", None)
    wanted = {ext: internal for internal, ext in names.items()}
    with torch.device("meta"):
        model = DiffusionLM(cfg)
    shapes = {n: p.shape for n, p in model.named_parameters()}
    state: dict[str, torch.Tensor] = {}
    for file in _weight_files(directory):
        with safe_open(str(file), framework="pt", device="cpu") as f:
            for ext in f.keys():
                if ext.endswith("rotary_emb.inv_freq"):
                    continue
                if ext not in wanted:
                    raise CheckpointError(f"{file}: unexpected tensor {ext!r} for {cfg.layout}")
                t = f.get_tensor(ext)
                internal = wanted[ext]
                if t.shape != shapes[internal]:
                    raise CheckpointError(f"{file}: tensor {ext!r} has shape {tuple(t.shape)}, "
                                          f"config says {tuple(shapes[internal])}")
                state[internal] = t.to(device=device, dtype=dtype)
    for ext, internal in wanted.items():
        if internal not in state:
            raise CheckpointError(f"{directory}: missing tensor {ext!r}")
    if cfg.tie_embeddings:
        state["lm_head.weight"] = state["embed.weight"]
    model.load_state_dict(state, assign=True)
    if cfg.tie_embeddings:
        model.lm_head.weight = model.embed.weight
    return model.eval()


def load_tokenizer(directory: Path, cfg: ModelConfig) -> Tokenizer:
    path = directory / "tokenizer.json"
    if not path.is_file():
        raise CheckpointError(f"{path}: missing file")
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as e:  # tokenizers raises plain Exceptions on bad files
        raise CheckpointError(f"{path}: cannot be read ({e})") from e
    size = tok.get_vocab_size(with_added_tokens=True)
    if size > cfg.vocab_size:
        raise CheckpointError(f"{path}: tokenizer has {size} tokens but config.json vocab_size "
                              f"is {cfg.vocab_size}")
    for name in ("mask_token_id", "pad_token_id"):
        tid = getattr(cfg, name)
        if not 0 <= tid < size:
            raise CheckpointError(f"{path}: config {name}={tid} is not a token of the tokenizer")
    return tok


def save_checkpoint(model: DiffusionLM, tokenizer: Tokenizer, directory: Path,
                    config_json: dict[str, Any]) -> None:
    """Write config.json, tokenizer.json and model.safetensors in the config's layout."""
    directory.mkdir(parents=True, exist_ok=True)
    names = tensor_names(model.cfg)
    params = dict(model.named_parameters())
    tensors = {ext: params[internal].detach().contiguous().cpu() for internal, ext in names.items()
               if not (model.cfg.tie_embeddings and internal == "lm_head.weight")}
    save_file(tensors, str(directory / "model.safetensors"))
    (directory / "config.json").write_text(json.dumps(config_json, indent=1))
    tokenizer.save(str(directory / "tokenizer.json"))
