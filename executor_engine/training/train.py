"""Train the executor model (masked diffusion, or the causal AR baseline) from dataset JSONL:
`python -m executor_engine.training.train --data data/executor/train.jsonl --out runs/diff --arch diffusion`.

Logs to <out>/train.log, keeps <out>/state.pt (resumable, every --ckpt-every-s) and writes a
checkpoint directory (config.json, tokenizer.json, model.safetensors) at <out>/final.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import time
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from tokenizers import Tokenizer

from executor_engine.canvas import Vocab
from executor_engine.checkpoint import load_model, read_config, save_checkpoint
from executor_engine.ar import ARDecoder
from executor_engine.training.data import (Batch, Encoded, Renamer, encode_record, group_by_context,
                                  pack, read_jsonl, record_texts, train_tokenizer)
from executor_engine.engine import Engine
from executor_engine.training.evaluate import run, score, spread
from executor_engine.model import DiffusionLM, ModelConfig
from executor_engine.sampler import ThresholdSampler
from executor_engine.testing import config_json


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="training JSONL")
    ap.add_argument("--out", required=True)
    ap.add_argument("--arch", choices=["diffusion", "ar"], default="diffusion")
    ap.add_argument("--tokenizer", help="tokenizer.json to reuse (default: train one)")
    ap.add_argument("--init", help="checkpoint directory to start from (its weights, shape and "
                                   "tokenizer; a fresh optimizer); ignored when resuming. Either "
                                   "arch: both are one network, only the attention differs")
    ap.add_argument("--vocab-size", type=int, default=3072)
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=4)
    ap.add_argument("--mlp", type=int, default=704)
    ap.add_argument("--match-window", type=int, default=16,
                    help="context tokens each side of a pointer source checked against the "
                         "instruction (0: no instruction-match bias)")
    ap.add_argument("--key-window", type=int, default=0,
                    help="tokens before a pointer source and before its query whose match biases "
                         "the pointer (a form's value after the word for its field); with --init, "
                         "added to the checkpoint's model, starting inert")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--pages", type=int, default=4, help="contexts per batch")
    ap.add_argument("--per-page", type=int, default=12, help="examples packed per context")
    ap.add_argument("--rename", type=float, default=0.5,
                    help="share of sampled pages whose names are renamed (see data.Renamer)")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt-every-s", type=float, default=180.0)
    ap.add_argument("--eval-data", help="held-out JSONL: log accuracy on a fixed sample of it")
    ap.add_argument("--eval-every", type=int, default=200, help="steps between held-out evals")
    return ap.parse_args(argv)


def model_config(args: argparse.Namespace, tok: Tokenizer) -> ModelConfig:
    if args.init:
        cfg = read_config(Path(args.init))
        return dataclasses.replace(cfg, key_window=args.key_window or cfg.key_window)
    pad, mask = tok.token_to_id("<|pad|>"), tok.token_to_id("<|mask|>")
    vocab = -(-tok.get_vocab_size() // 64) * 64
    return ModelConfig("agentpair", args.d_model, args.layers, args.heads, args.kv_heads, args.mlp,
                       vocab, mask, pad, tie_embeddings=True, copy_head=True,
                       match_window=args.match_window, key_window=args.key_window)


def load_data(args: argparse.Namespace, out: Path
              ) -> tuple[Tokenizer, Vocab, list[list[Encoded]], int]:
    """Tokenizer (trained once, kept in <out>), its Vocab and examples grouped by context."""
    records = read_jsonl(args.data)
    tok_path = out / "tokenizer.json"
    if not tok_path.is_file():
        reuse = str(Path(args.init) / "tokenizer.json") if args.init else args.tokenizer
        tok = Tokenizer.from_file(reuse) if reuse else \
            train_tokenizer(record_texts(records), args.vocab_size)
        tok.save(str(tok_path))
    tok = Tokenizer.from_file(str(tok_path))
    cfg = model_config(args, tok)
    vocab = Vocab(tok, cfg.vocab_size, cfg.pad_token_id, cfg.mask_token_id)
    encoded, skipped = [], 0
    for r in records:
        try:
            encoded.append(encode_record(vocab, r))
        except ValueError:
            skipped += 1
    return tok, vocab, group_by_context(encoded), skipped


def lr_at(step: int, args: argparse.Namespace) -> float:
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    progress = (step - args.warmup) / max(1, args.steps - args.warmup)
    return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0))))


def loss_on(model: DiffusionLM, batch: Batch) -> torch.Tensor:
    """Cross-entropy averaged per example, then over examples; context K/V once per page."""
    ctx_kv = model(batch.context, mask=batch.context_mask, logits_at=batch.context[:, :1] * 0)[1]
    where = [(row != -100).nonzero().flatten() for row in batch.targets]
    K = max(len(w) for w in where)
    at = torch.stack([F.pad(w, (0, K - len(w))) for w in where])  # [B, K]
    tgt = torch.stack([F.pad(batch.targets[n, w], (0, K - len(w)), value=-100)
                       for n, w in enumerate(where)])  # [B, K]
    wts = torch.stack([F.pad(batch.weights[n, w], (0, K - len(w))) for n, w in enumerate(where)])
    logits = model(batch.ids, batch.positions, batch.mask, ctx_kv, logits_at=at,
                   segments=batch.segments)[0]  # [B, K, V]
    ce = F.cross_entropy(logits.flatten(0, 1).float(), tgt.flatten(), ignore_index=-100,
                         reduction="none")  # [B*K]
    return (ce * wts.flatten()).sum() / wts.sum()


def sample_batch(groups: list[list[Encoded]], args: argparse.Namespace, mask_id: int,
                 rename: Renamer, rng: random.Random) -> Batch:
    chosen = [rng.sample(g, min(len(g), args.per_page)) for g in rng.choices(groups, k=args.pages)]
    chosen = [rename(g, rng) if rng.random() < args.rename else g for g in chosen]
    return pack(chosen, args.arch, mask_id, rng)


EVAL_EXAMPLES = 120  # held-out fills checked every --eval-every steps


@torch.no_grad()
def heldout_accuracy(model: DiffusionLM, tok: Tokenizer, arch: str,
                     records: list[dict[str, Any]]) -> dict[str, float]:
    """Accuracy of the model as it stands, decoded the way it ships (threshold or AR)."""
    model.eval()
    if arch == "diffusion":
        engine, sampler = Engine(model, tok), ThresholdSampler(block_length=64, threshold=0.9)
        outputs = run(lambda reqs: engine.fill(reqs, sampler), records)
    else:
        cfg = model.cfg
        vocab = Vocab(tok, cfg.vocab_size, cfg.pad_token_id, cfg.mask_token_id)
        outputs = run(ARDecoder(model, vocab).fill, records)
    model.train()
    return score(records, outputs)


def save_final(model: DiffusionLM, tok: Tokenizer, out: Path, arch: str,
               summary: dict[str, Any]) -> Path:
    """bf16 weights + config (with arch and training summary) + tokenizer at <out>/final."""
    shipped = DiffusionLM(model.cfg)
    shipped.load_state_dict(model.state_dict())
    shipped = shipped.to(torch.bfloat16)
    cfg = {**config_json(model.cfg), "arch": arch, "training": summary}
    save_checkpoint(shipped, tok, out / "final", cfg)
    return out / "final"


def train(args: argparse.Namespace) -> Path:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)
    log = open(out / "train.log", "a")
    tok, vocab, groups, skipped = load_data(args, out)
    rename = Renamer(vocab, groups)
    cfg = model_config(args, tok)
    torch.manual_seed(args.seed)
    model = DiffusionLM(cfg)
    model.init_weights(args.seed)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01, betas=(0.9, 0.98))
    rng, step, elapsed = random.Random(args.seed), 0, 0.0
    state_path = out / "state.pt"
    if state_path.is_file():
        state = torch.load(state_path, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        step, elapsed = state["step"], state["elapsed"]
        print(f"resumed at step {step}", file=log, flush=True)
    elif args.init:
        start = load_model(Path(args.init), torch.device("cpu"), torch.float32).state_dict()
        added = model.load_state_dict(start, strict=False).missing_keys  # a key-match bias added
        assert all(name.startswith("copy.key_") for name in added), f"{args.init} lacks {added}"
        if added:
            model.copy.start_key_match()
        init_arch = json.loads((Path(args.init) / "config.json").read_text()).get("arch")
        print(f"initialised from {args.init} (arch {init_arch}), trained as {args.arch}",
              file=log, flush=True)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"arch={args.arch} params={n_params} contexts={len(groups)} "
          f"examples={sum(map(len, groups))} skipped={skipped} vocab={cfg.vocab_size} "
          f"rename={args.rename} names={len(rename.names)}",
          file=log, flush=True)

    def checkpoint() -> None:
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "rng": rng.getstate(),
                    "torch_rng": torch.get_rng_state(), "step": step, "elapsed": elapsed},
                   out / "state.tmp")
        (out / "state.tmp").replace(state_path)

    heldout = spread(read_jsonl(args.eval_data), EVAL_EXAMPLES) if args.eval_data else []
    model.train()
    last_ckpt, t0, smooth = time.perf_counter(), time.perf_counter() - elapsed, None
    while step < args.steps:
        for group in opt.param_groups:
            group["lr"] = lr_at(step, args)
        loss = loss_on(model, sample_batch(groups, args, cfg.mask_token_id, rename, rng))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        elapsed = time.perf_counter() - t0
        smooth = loss.item() if smooth is None else 0.95 * smooth + 0.05 * loss.item()
        if step % 20 == 0 or step == args.steps:
            print(f"step {step} loss {smooth:.4f} lr {lr_at(step, args):.2e} "
                  f"elapsed {elapsed:.0f}s", file=log, flush=True)
        if heldout and step % args.eval_every == 0:
            print(f"eval step {step} {heldout_accuracy(model, tok, args.arch, heldout)}",
                  file=log, flush=True)
        if time.perf_counter() - last_ckpt > args.ckpt_every_s:
            checkpoint()
            last_ckpt = time.perf_counter()
    checkpoint()
    summary = {"steps": step, "seconds": round(elapsed), "final_loss": round(smooth or 0.0, 4),
               "params": n_params, "contexts": len(groups), "examples": sum(map(len, groups)),
               "pages_per_batch": args.pages, "per_page": args.per_page, "rename": args.rename,
               "seed": args.seed, "init": args.init}
    final = save_final(model.eval(), tok, out, args.arch, summary)
    print(f"done: {summary} -> {final}", file=log, flush=True)
    return final


if __name__ == "__main__":
    train(parse_args())
