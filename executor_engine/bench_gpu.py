"""Forward-pass timing for an 8B-shaped LLaDA-layout model with random bf16 weights on a GPU.

`python -m executor_engine.bench_gpu` prints JSON: a 256-token canvas after a 1,024-token
context, with the context's K/V cached and without, at batch 1 and 8. `--tiny` runs a tiny
shape on whatever device there is (a smoke test).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable

import torch

from executor_engine.model import DiffusionLM, ModelConfig

LLADA_8B = dict(d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32, mlp_hidden=12288,
                vocab_size=126464, rope_theta=500000.0)
TINY = dict(d_model=64, n_layers=2, n_heads=4, n_kv_heads=4, mlp_hidden=128, vocab_size=512)


def timed_ms(fn: Callable[[], object], device: torch.device, repeats: int) -> float:
    """Median wall milliseconds of fn() over `repeats` runs after two warm-up runs."""
    times = []
    for i in range(repeats + 2):
        if device.type == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        if i >= 2:
            times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


@torch.no_grad()
def bench(shape: dict, device: torch.device, dtype: torch.dtype, context: int, canvas: int,
          batches: list[int], repeats: int) -> dict:
    cfg = ModelConfig("llada", **shape, mask_token_id=shape["vocab_size"] - 1, pad_token_id=0)
    torch.set_default_dtype(dtype)
    with torch.device(device):
        model = DiffusionLM(cfg).eval()
    torch.set_default_dtype(torch.float32)
    model.init_weights(seed=0)
    rows = []
    for b in batches:
        ctx = torch.randint(0, cfg.vocab_size, (b, context), device=device)
        cnv = torch.full((b, canvas), cfg.mask_token_id, device=device)
        full = torch.cat([ctx, cnv], 1)  # [b, context + canvas]
        at = torch.arange(context, context + canvas, device=device).expand(b, -1)  # [b, canvas]
        prefix = model(ctx)[1]
        pos = at.clone()
        uncached = timed_ms(lambda x=full, a=at: model(x, logits_at=a), device, repeats)
        cached = timed_ms(lambda x=cnv, p=pos, kv=prefix: model(x, p, prefix=kv), device, repeats)
        rows.append({"batch": b, "uncached_ms": round(uncached, 3), "cached_ms": round(cached, 3),
                     "speedup": round(uncached / cached, 2),
                     "canvas_forwards_per_s_cached": round(1000 * b / cached, 1)})
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    return {"device": name, "dtype": str(dtype).replace("torch.", ""), "shape": shape,
            "context_tokens": context, "canvas_tokens": canvas, "results": rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tiny", action="store_true", help="tiny shape, any device (smoke test)")
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args(argv)
    if args.tiny:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        result = bench(TINY, device, torch.float32, 64, 16, [1, 8], min(args.repeats, 3))
    else:
        if not torch.cuda.is_available():
            sys.exit("bench_gpu needs a CUDA device and none is present (use --tiny for a CPU smoke test)")
        result = bench(LLADA_8B, torch.device("cuda"), torch.bfloat16, 1024, 256, [1, 8],
                       args.repeats)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
