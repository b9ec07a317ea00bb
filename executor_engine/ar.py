"""The autoregressive baseline: a causal model of the same shape decoded token by token with a
KV cache. Fixed template tokens are fed in (never generated), slot tokens are generated under
the same per-slot constraints as diffusion, and a slot's remaining tokens are fed without a
forward once they are forced (one choice left, or pads after a text slot's first pad)."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor

from executor_engine.canvas import Vocab
from executor_engine.checkpoint import CheckpointError, load_model, load_tokenizer, read_config
from executor_engine.engine import DTYPES, FillInput, FillOutput, pick_device
from executor_engine.model import KV, DiffusionLM
from executor_engine.template import Compiled, compile_schema, compile_template


@dataclass(eq=False)
class _Decode:
    """One request's decoding state: canvas, next canvas position, tokens not yet fed, cache.
    At its first forward the cache gets room for the whole fill (context, instruction, canvas),
    so each step writes its new K/V in place instead of copying the context's every time; a fill
    that needs no forward never computes the context's K/V, let alone copies them."""

    compiled: Compiled
    context_text: str
    pending: list[int]
    room: int  # positions the fill can add: its instruction and canvas
    instruction: int  # its instruction's tokens (segment 1, as in training; the canvas is 2)
    context: list[KV] | None = None  # per cache entry [1, H, S, hd], shared; set before the first forward
    buffers: list[KV] | None = None  # per cache entry [1, H, S + room, hd], from the first forward
    length: int = 0  # positions of the buffers filled
    pos: int = 0  # next canvas position to decide
    nfe: int = 0
    generated: int = 0
    error: str | None = None

    @property
    def cache(self) -> list[KV]:
        if self.buffers is None:
            assert self.context is not None, "the context's K/V are set before the first forward"
            return self.context
        return [(k[:, :, :self.length], v[:, :, :self.length]) for k, v in self.buffers]

    def extend(self, kvs: list[KV], row: int, n: int) -> None:
        """Write the first n new positions of batch row `row` of a forward's K/V."""
        if self.buffers is None:
            context = self.cache
            S = self.length = context[0][0].shape[2]
            self.buffers = []
            for k, v in context:
                bk, bv = (t.new_empty(*t.shape[:2], S + self.room, t.shape[3]) for t in (k, v))
                bk[:, :, :S], bv[:, :, :S] = k, v
                self.buffers.append((bk, bv))
        for (bk, bv), (k, v) in zip(self.buffers, kvs):
            bk[:, :, self.length:self.length + n] = k[row:row + 1, :, :n]
            bv[:, :, self.length:self.length + n] = v[row:row + 1, :, :n]
        self.length += n

    @property
    def done(self) -> bool:
        return self.pos >= len(self.compiled.canvas.ids)


class ARDecoder:
    """Causal checkpoint (config "arch": "ar") decoding fills one token per forward."""

    def __init__(self, model: DiffusionLM, vocab: Vocab, context_cache_size: int = 8):
        self.model, self.vocab, self.cfg = model, vocab, model.cfg
        self.device = model.embed.weight.device
        self.context_cache_size = context_cache_size
        self._contexts: OrderedDict[str, list[KV]] = OrderedDict()

    @classmethod
    def load(cls, path: str | Path, device: str = "auto", dtype: str | torch.dtype | None = None
             ) -> ARDecoder:
        """dtype None = bf16 on CUDA, fp32 on CPU, as Engine.load."""
        directory, dev = Path(path), pick_device(device)
        if json.loads((directory / "config.json").read_text()).get("arch") != "ar":
            raise CheckpointError(f"{directory}: not an AR checkpoint (config arch != 'ar')")
        cfg = read_config(directory)
        if dtype is None:
            dtype = torch.bfloat16 if dev.type == "cuda" else torch.float32
        model = load_model(directory, dev, DTYPES[dtype] if isinstance(dtype, str) else dtype)
        vocab = Vocab(load_tokenizer(directory, cfg), cfg.vocab_size, cfg.pad_token_id,
                      cfg.mask_token_id)
        return cls(model, vocab)

    def _context(self, text: str) -> list[KV]:
        """Causal K/V of the context (cached by text, like the engine's)."""
        if text not in self._contexts:
            ids = torch.tensor([self.vocab.encode(text + "\n")], device=self.device)  # [1, P]
            P = ids.shape[1]
            mask = torch.ones(P, P, dtype=torch.bool, device=self.device).tril()[None]
            self._contexts[text] = self.model(ids, mask=mask, logits_at=ids[:, -1:] * 0)[1]
        self._contexts.move_to_end(text)
        while len(self._contexts) > self.context_cache_size:
            self._contexts.popitem(last=False)
        return self._contexts[text]

    def _start(self, req: FillInput) -> _Decode:
        if req.schema is not None:
            compiled = compile_schema(self.vocab, req.schema, req.allowed, req.tied, req.distinct)
        else:
            compiled = compile_template(self.vocab, req.template or "", req.allowed)
        pending = self.vocab.encode(req.instruction + "\n")
        return _Decode(compiled, req.context, pending, len(pending) + len(compiled.canvas.ids), len(pending))

    def _advance(self, d: _Decode) -> Tensor | None:
        """Queue fixed and forced tokens; the allowed mask [V] of the next generated token."""
        canvas = d.compiled.canvas
        while not d.done:
            owner = canvas.owner.get(d.pos)
            if owner is None:
                d.pending.append(canvas.ids[d.pos])
                d.pos += 1
                continue
            slot, i = owner
            allowed = slot.allowed(i)
            ids = allowed.nonzero().flatten()
            if len(ids) != 1:
                return allowed
            forced = int(ids[0])
            canvas.commit(d.pos, forced)
            d.pending.append(forced)
            d.pos += 1
        return None

    @torch.no_grad()
    def _step(self, jobs: list[_Decode], allowed: list[Tensor]) -> None:
        """One forward over every job's pending tokens (padded), then one token each."""
        for j in jobs:
            if j.context is None:
                j.context = self._context(j.context_text)
        n = [len(j.pending) for j in jobs]
        caches = [j.cache for j in jobs]
        S = [c[0][0].shape[2] for c in caches]
        N, P, dev = max(n), max(S), self.device
        ids = torch.tensor([j.pending + [0] * (N - len(j.pending)) for j in jobs], device=dev)  # [B, N]
        starts = torch.tensor(S, device=dev)[:, None]  # [B, 1]
        positions = starts + torch.arange(N, device=dev)[None]  # [B, N]
        canvas_from = torch.tensor([j.context[0][0].shape[2] + j.instruction for j in jobs], device=dev)
        segments = 1 + (positions >= canvas_from[:, None]).long()  # [B, N] 1 instruction, 2 canvas
        prefix_ok = torch.arange(P, device=dev)[None] < starts  # [B, P]
        causal = torch.ones(N, N, dtype=torch.bool, device=dev).tril()[None].expand(len(jobs), -1, -1)
        mask = torch.cat([prefix_ok[:, None, :].expand(-1, N, -1), causal], 2)  # [B, N, P + N]
        if len(jobs) == 1:  # the cache as it is, no copy
            prefix = caches[0]
        else:  # padded to the longest
            pad = lambda t: F.pad(t, (0, 0, 0, P - t.shape[2]))  # noqa: E731
            prefix = [(torch.cat([pad(c[l][0]) for c in caches]), torch.cat([pad(c[l][1]) for c in caches]))
                      for l in range(len(caches[0]))]
        last = torch.tensor(n, device=dev)[:, None] - 1  # [B, 1]
        logits, kvs = self.model(ids, positions, mask, prefix, logits_at=last, segments=segments)  # [B, 1, V]
        logits = logits.float().cpu()  # where the allowed masks are
        for b, j in enumerate(jobs):
            j.extend(kvs, b, n[b])
            tok = int(logits[b, 0].masked_fill(~allowed[b], -torch.inf).argmax())
            j.compiled.canvas.commit(j.pos, tok)
            j.pending, j.pos = [tok], j.pos + 1
            j.nfe += 1
            j.generated += 1

    def fill(self, requests: list[FillInput], cancel: threading.Event | None = None
             ) -> list[FillOutput]:
        """Decode the requests as one batch (lock-step); stats as the engine reports them.
        `cancel` as in Engine.fill."""
        t0 = time.perf_counter()
        jobs: list[_Decode | None] = []
        outputs = [FillOutput() for _ in requests]
        for i, req in enumerate(requests):
            try:
                jobs.append(self._start(req))
            except Exception as e:  # a schema or template we cannot compile
                outputs[i].error, outputs[i].cause = f"{type(e).__name__}: {e}", e
                jobs.append(None)
        active = [j for j in jobs if j is not None]
        while active:
            if cancel is not None and cancel.is_set():
                for j in active:
                    j.error = "cancelled"
                break
            masks = [self._advance(j) for j in active]
            stepping = [(j, m) for j, m in zip(active, masks) if m is not None]
            if stepping:
                self._step([j for j, _ in stepping], [m for _, m in stepping])
            active = [j for j in active if not j.done]
        ms = (time.perf_counter() - t0) * 1000
        for out, job in zip(outputs, jobs):
            if job is None:
                continue
            out.nfe, out.ms, out.error = job.nfe, ms, job.error
            if job.error:
                continue
            tokens = len(job.compiled.canvas.owner)
            out.tokens = tokens
            out.tokens_per_forward = tokens / max(job.nfe, 1)
            try:
                out.value = job.compiled.decode()
            except Exception as e:  # should not happen: slots only hold allowed tokens
                out.error = f"decode failed: {type(e).__name__}: {e}"
        return outputs
