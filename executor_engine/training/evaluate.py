"""Held-out evaluation of the executor: accuracy (tool-call exact match, extraction per-field,
code-hole exact match) and speed for threshold decoding, one token per forward, and the AR
baseline, all unbatched with caches and measured side by side; plus 8 fills sharing a context."""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from executor_engine.ar import ARDecoder
from executor_engine.training.data import read_jsonl
from executor_engine.engine import Engine, FillInput, FillOutput
from executor_engine.sampler import ReferenceSampler, ThresholdSampler
from executor_engine.template import HOLE

Fill = Callable[[list[FillInput]], list[FillOutput]]


def fill_input(r: dict[str, Any]) -> FillInput:
    return FillInput(r["instruction"], r["context"], r.get("schema"), r.get("template"),
                     r.get("allowed", {}))


def code_holes(template: str, filled: str) -> dict[str, str] | None:
    """Hole values read back from filled code (None when the fixed text does not match)."""
    names, pattern, at = [], "", 0
    for m in HOLE.finditer(template):
        pattern += re.escape(template[at:m.start()]) + "(.*?)"
        names.append(m.group(1))
        at = m.end()
    match = re.fullmatch(pattern + re.escape(template[at:]), filled, re.DOTALL)
    return dict(zip(names, match.groups())) if match else None


def score(records: list[dict[str, Any]], outputs: list[FillOutput]) -> dict[str, float]:
    """tool_call_exact, extract_field and code_hole_exact as fractions."""
    hits: dict[str, list[bool]] = {"tool_call_exact": [], "extract_field": [], "code_hole_exact": []}
    for r, o in zip(records, outputs):
        target = r["target"]
        if r["kind"] == "tool_args":
            hits["tool_call_exact"].append(o.value == target)
        elif r["kind"] == "extract":
            got = o.value if isinstance(o.value, dict) else {}
            hits["extract_field"] += [k in got and got[k] == v and type(got[k]) is type(v)
                                      for k, v in target.items()]
        else:
            holes = code_holes(r["template"], o.value) if isinstance(o.value, str) else None
            hits["code_hole_exact"] += [bool(holes) and holes.get(k) == v for k, v in target.items()]
    return {k: round(sum(v) / max(len(v), 1), 4) for k, v in hits.items()}


def by_family(records: list[dict[str, Any]], outputs: list[FillOutput]) -> dict[str, dict[str, float]]:
    """score() per page family (the records' "family"; records without one are left out)."""
    families = sorted({r["family"] for r in records if "family" in r})
    return {f: score(*zip(*[(r, o) for r, o in zip(records, outputs) if r.get("family") == f])) for f in families}


def spread(records: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """n records spread evenly over a split (every kind of fill and page is represented)."""
    return records[:: max(1, len(records) // n)][:n]


def run(fill: Fill, records: list[dict[str, Any]]) -> list[FillOutput]:
    """Each record alone (unbatched), in dataset order so a page's fills share its context."""
    return [fill([fill_input(r)])[0] for r in records]


def _p50(xs: list[float]) -> float:
    return round(statistics.median(xs), 2) if xs else 0.0


def _batches(records: list[dict[str, Any]], size: int, limit: int) -> list[list[dict[str, Any]]]:
    by_context: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_context.setdefault(r["context"], []).append(r)
    groups = [g[:size] for g in by_context.values() if len(g) >= size]
    return groups[:limit]


def evaluate(diffusion: str | Path, ar: str | Path, data: str | Path, limit: int | None = None,
             threshold: float = 0.9, block_length: int = 64, batches: int = 20,
             device: str = "cpu") -> dict[str, Any]:
    """The executor report: accuracies for the three decoders and their speed, side by side,
    all three on one device (bf16 on a GPU, float32 on the CPU)."""
    torch.set_num_threads(1)
    records = every = read_jsonl(data)
    if limit:
        records = spread(records, limit)
    engine, decoder = Engine.load(diffusion, device=device), ARDecoder.load(ar, device=device)
    one_engine = Engine.load(diffusion, device=device)  # its own context cache, as the others have
    thresh = ThresholdSampler(block_length=block_length, threshold=threshold)
    one = ReferenceSampler(block_length=block_length)
    modes: dict[str, Fill] = {
        "threshold": lambda reqs: engine.fill(reqs, thresh),
        "one_token": lambda reqs: one_engine.fill(reqs, one),
        "ar": decoder.fill,
    }
    for fill in modes.values():  # warm-up
        run(fill, records[:3])
    outs: dict[str, list[FillOutput]] = {name: [] for name in modes}
    names = list(modes)
    for i, r in enumerate(records):  # record by record, so the machine's drift hits all alike,
        for name in names[i % 3:] + names[:i % 3]:  # and each goes first as often
            outs[name].append(modes[name]([fill_input(r)])[0])
    diff, ar_out = outs["threshold"], outs["ar"]
    report: dict[str, Any] = {
        "examples": len(records),
        "device": torch.cuda.get_device_name(engine.device) if engine.device.type == "cuda" else "cpu",
        "accuracy": score(records, diff),
        "accuracy_one_token": score(records, outs["one_token"]),
        "accuracy_ar": score(records, ar_out),
        "accuracy_by_family": by_family(records, diff),
        "accuracy_ar_by_family": by_family(records, ar_out),
        "fill_ms_p50": _p50([o.ms for o in diff]),
        "one_token_fill_ms_p50": _p50([o.ms for o in outs["one_token"]]),
        "ar_fill_ms_p50": _p50([o.ms for o in ar_out]),
        "tool_call_ms_p50": _p50([o.ms for r, o in zip(records, diff) if r["kind"] == "tool_args"]),
        "ar_tool_call_ms_p50": _p50([o.ms for r, o in zip(records, ar_out)
                                     if r["kind"] == "tool_args"]),
        "tokens_per_forward": round(sum(o.tokens for o in diff) / max(sum(o.nfe for o in diff), 1), 2),
        "nfe_mean": round(statistics.mean(o.nfe for o in diff), 2),
        "ar_nfe_mean": round(statistics.mean(o.nfe for o in ar_out), 2),
        "ar_decode_ms_per_token": round(sum(o.ms for o in ar_out) / max(sum(o.nfe for o in ar_out), 1), 3),
        "sampler": {"threshold": threshold, "block_length": block_length},
    }
    report["speedup_vs_ar"] = round(report["ar_fill_ms_p50"] / max(report["fill_ms_p50"], 1e-9), 2)
    # most fills are picks decided without a forward on either side; these are the ones a model ran for
    ran = [(d, a) for d, a in zip(diff, ar_out) if d.nfe or a.nfe]
    report["model_fills"] = len(ran)
    report["model_fill_ms_p50"] = _p50([d.ms for d, _ in ran])
    report["ar_model_fill_ms_p50"] = _p50([a.ms for _, a in ran])
    report["speedup_vs_ar_model_fills"] = round(report["ar_model_fill_ms_p50"]
                                                / max(report["model_fill_ms_p50"], 1e-9), 2)
    d8, a8 = [], []
    for group in _batches(every, 8, batches):  # from the whole split: pages with 8+ fills
        reqs = [fill_input(r) for r in group]
        t0 = time.perf_counter()
        engine.fill(reqs, thresh)
        d8.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        decoder.fill(reqs)
        a8.append((time.perf_counter() - t0) * 1000)
    report["batch8_ms_p50"], report["ar_batch8_ms_p50"] = _p50(d8), _p50(a8)
    report["speedup_vs_ar_batch8"] = round(_p50(a8) / max(_p50(d8), 1e-9), 2)
    return report
