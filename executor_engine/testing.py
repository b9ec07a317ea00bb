"""Tiny random-weight checkpoints in any layout, with a small BPE tokenizer trained on built-in text.

Used by tests and by the bench when no model is given. Deterministic for a given seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from executor_engine.checkpoint import save_checkpoint
from executor_engine.model import DiffusionLM, ModelConfig

TEXT = """\
{"ref": "e12", "text": "hello world", "count": 42, "price": -3.75, "ok": true, "tags": []}
def add(a, b):\n    return a + b\nfor i in range(10):\n    print(i * 2)\n
Click the "Sign in" button, then type the e-mail address into the field named email.
The page shows 3 results: Blue shirt $19.99, Red hat $7.50 and Green socks $4.
Élodie paid 12 € for naïve café crème; 東京 and München are cities. Quote: "it's \\ fine".
0 1 2 3 4 5 6 7 8 9 10 100 2024 3.14 -1 + - . , : ; ! ? ( ) [ ] { } < > = / * # @ % & _ ' "
café naïve € über café naïve € über café naïve € über café naïve € über déjà vu
The quick brown fox jumps over the lazy dog. Search for flights from Paris to Berlin.
"""
SPECIALS = {"llada": ["<|endoftext|>", "<|mdm_mask|>"], "dream": ["<|endoftext|>", "<|mask|>"],
            "agentpair": ["<|pad|>", "<|mask|>"]}
SHAPE = {"d_model": 64, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "mlp_hidden": 128}


def tiny_tokenizer(layout: str, vocab_size: int = 400) -> Tokenizer:
    """A byte-level BPE tokenizer trained on TEXT; the layout's pad and mask are special tokens."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS[layout],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator([TEXT] * 4, trainer=trainer)
    return tok


def config_json(cfg: ModelConfig) -> dict[str, Any]:
    """config.json for cfg in its layout's own key names."""
    if cfg.layout == "llada":
        return {"model_type": "llada", "d_model": cfg.d_model, "n_layers": cfg.n_layers,
                "n_heads": cfg.n_heads, "n_kv_heads": cfg.n_kv_heads,
                "mlp_hidden_size": cfg.mlp_hidden, "vocab_size": cfg.vocab_size,
                "embedding_size": cfg.vocab_size, "rope_theta": cfg.rope_theta,
                "rms_norm_eps": cfg.norm_eps, "include_qkv_bias": cfg.qkv_bias,
                "weight_tying": cfg.tie_embeddings, "mask_token_id": cfg.mask_token_id,
                "eos_token_id": cfg.pad_token_id, "pad_token_id": cfg.pad_token_id,
                "layer_norm_type": "rms", "block_type": "llama", "rope": True, "alibi": False}
    if cfg.layout == "dream":
        return {"model_type": "Dream", "hidden_size": cfg.d_model,
                "num_hidden_layers": cfg.n_layers, "num_attention_heads": cfg.n_heads,
                "num_key_value_heads": cfg.n_kv_heads, "intermediate_size": cfg.mlp_hidden,
                "vocab_size": cfg.vocab_size, "rope_theta": cfg.rope_theta,
                "rms_norm_eps": cfg.norm_eps, "tie_word_embeddings": cfg.tie_embeddings,
                "mask_token_id": cfg.mask_token_id, "pad_token_id": cfg.pad_token_id,
                "eos_token_id": cfg.pad_token_id}
    return {"model_type": "agentpair", "d_model": cfg.d_model, "n_layers": cfg.n_layers,
            "n_heads": cfg.n_heads, "n_kv_heads": cfg.n_kv_heads, "mlp_hidden": cfg.mlp_hidden,
            "vocab_size": cfg.vocab_size, "rope_theta": cfg.rope_theta, "norm_eps": cfg.norm_eps,
            "qkv_bias": cfg.qkv_bias, "tie_embeddings": cfg.tie_embeddings,
            "mask_token_id": cfg.mask_token_id, "pad_token_id": cfg.pad_token_id,
            "copy_head": cfg.copy_head, "match_window": cfg.match_window,
            **({"key_window": cfg.key_window} if cfg.key_window else {})}


def make_tiny_checkpoint(directory: str | Path, layout: str = "agentpair", seed: int = 0,
                         std: float = 0.5, copy_head: bool = False, match_window: int = 0
                         ) -> Path:
    """Write a tiny random-weight checkpoint (2 layers, d 64, ~400 tokens) in `layout`."""
    tok = tiny_tokenizer(layout)
    pad, mask = (tok.token_to_id(t) for t in SPECIALS[layout])
    cfg = ModelConfig(layout, **SHAPE, vocab_size=tok.get_vocab_size() + 16, mask_token_id=mask,
                      pad_token_id=pad, qkv_bias=layout == "dream", copy_head=copy_head,
                      match_window=match_window)
    model = DiffusionLM(cfg)
    model.init_weights(seed, std)
    save_checkpoint(model, tok, Path(directory), config_json(cfg))
    return Path(directory)
