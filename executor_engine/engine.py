"""The engine: loads a checkpoint, batches fill requests per denoising step, caches contexts.

A request's sequence is [context][instruction][canvas]. Each step runs one forward over every
unfinished request (padded, masked); requests leave as they finish and queued ones join.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from tokenizers import Tokenizer
from torch import Tensor

from executor_engine.canvas import Vocab
from executor_engine.checkpoint import load_model, load_tokenizer, read_config
from executor_engine.model import KV, DiffusionLM
from executor_engine.sampler import Progress, Remasking, Sampler, ThresholdSampler, generate
from executor_engine.template import Compiled, compile_schema, compile_template

DTYPES = {"fp32": torch.float32, "float32": torch.float32, "bf16": torch.bfloat16,
          "bfloat16": torch.bfloat16}


@dataclass
class FillInput:
    """What to fill: a schema or a code template, given context and instruction text."""

    instruction: str
    context: str = ""
    schema: dict[str, Any] | None = None
    template: str | None = None
    allowed: dict[str, list[Any]] = field(default_factory=dict)  # JSON pointer -> values


@dataclass
class FillOutput:
    value: Any = None
    nfe: int = 0  # forwards this request took part in
    tokens: int = 0  # slot tokens chosen by a forward
    forced: int = 0  # slot tokens committed without one (the only token allowed there)
    tokens_per_forward: float = 0.0
    ms: float = 0.0  # from the fill call until this request finished
    error: str | None = None


@dataclass(eq=False)
class _Job:
    index: int
    context: str
    compiled: Compiled
    progress: Progress
    instruction_ids: list[int]
    context_ids: list[int] = field(default_factory=list)  # read when the fill needs a forward
    prefix: list[KV] | None = None  # cached K/V of the prompt (less `shift` last tokens)
    instruction_pending: bool = False  # exact layout: the instruction rides in pass 1
    instruction_kv: list[KV] | None = None  # its K/V from pass 1, joined to the prefix by pass 2
    refreshed_block: int | None = None  # block at which an approximate prefix was computed

    @property
    def prompt(self) -> list[int]:
        return self.context_ids + self.instruction_ids


def pick_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


class Engine:
    def __init__(self, model: DiffusionLM, tokenizer: Tokenizer, max_batch: int = 32,
                 context_cache_size: int = 8):
        self.model, self.tokenizer, self.cfg = model, tokenizer, model.cfg
        self.device = model.embed.weight.device
        self.vocab = Vocab(tokenizer, self.cfg.vocab_size, self.cfg.pad_token_id,
                           self.cfg.mask_token_id)
        self.max_batch, self.context_cache_size = max_batch, context_cache_size
        self._contexts: OrderedDict[str, tuple[list[int], list[KV] | None]] = OrderedDict()

    @classmethod
    def load(cls, path: str | Path, device: str = "auto", dtype: str | torch.dtype | None = None,
             **kwargs: Any) -> Engine:
        """Engine over a checkpoint directory; dtype None = bf16 on CUDA, fp32 on CPU."""
        directory, dev = Path(path), pick_device(device)
        if dtype is None:
            dtype = torch.bfloat16 if dev.type == "cuda" else torch.float32
        dtype = DTYPES[dtype] if isinstance(dtype, str) else dtype
        tokenizer = load_tokenizer(directory, read_config(directory))
        return cls(load_model(directory, dev, dtype), tokenizer, **kwargs)

    # -- plain generation -------------------------------------------------------------------

    @torch.no_grad()
    def generate(self, prompt_ids: Tensor, attention_mask: Tensor | None = None, steps: int = 128,
                 gen_length: int = 128, block_length: int = 128, temperature: float = 0.0,
                 remasking: Remasking = "low_confidence") -> Tensor:
        """LLaDA-reference generation, no cache: [B, L] prompt -> [B, L + gen_length] tokens."""
        return generate(self._logits, prompt_ids.to(self.device), self.cfg.mask_token_id,
                        None if attention_mask is None else attention_mask.to(self.device),
                        steps, gen_length, block_length, temperature, remasking)

    def _logits(self, x: Tensor, attention_mask: Tensor | None) -> Tensor:
        mask = None
        if attention_mask is not None:
            mask = attention_mask.bool()[:, None, :].expand(-1, x.shape[1], -1)
        logits = self.model(x, mask=mask)[0]
        if self.cfg.shift:
            logits = torch.cat([logits[:, :1], logits[:, :-1]], dim=1)
        return logits

    # -- fills ------------------------------------------------------------------------------

    @torch.no_grad()
    def fill(self, requests: list[FillInput], sampler: Sampler | None = None,
             use_cache: bool = True, cancel: threading.Event | None = None) -> list[FillOutput]:
        """Fill every request; per-request problems come back as FillOutput.error. Once `cancel`
        is set (from another thread), requests not yet finished end with the error "cancelled"
        before the next forward."""
        sampler = sampler or ThresholdSampler()
        t0 = time.perf_counter()
        outputs = [FillOutput() for _ in requests]
        queue: deque[_Job] = deque()
        for i, req in enumerate(requests):
            try:
                queue.append(self._job(i, req, sampler))
            except Exception as e:  # a schema or template we cannot compile
                outputs[i].error = f"{type(e).__name__}: {e}"
        active: list[_Job] = []
        while queue or active:
            if cancel is not None and cancel.is_set():
                for job in [*active, *queue]:
                    outputs[job.index] = self._output(job, t0, error="cancelled")
                break
            while queue and len(active) < self.max_batch:
                job = queue.popleft()
                if not job.progress.done:  # one its forced tokens complete never reads its page
                    self._read_context(job, exact_kv=use_cache and self.cfg.segment_causal)
                active.append(job)
            stepping = [j for j in active if not j.progress.done]
            if stepping:
                self._step(stepping, sampler, use_cache)
            for job in [j for j in active if j.progress.done]:
                outputs[job.index] = self._output(job, t0)
                active.remove(job)
        return outputs

    def _job(self, index: int, req: FillInput, sampler: Sampler) -> _Job:
        if (req.schema is None) == (req.template is None):
            raise ValueError("a fill request carries either a schema or a template")
        if req.schema is not None:
            compiled = compile_schema(self.vocab, req.schema, req.allowed)
        else:
            compiled = compile_template(self.vocab, req.template or "", req.allowed)
        return _Job(index, req.context, compiled, sampler.start(compiled.canvas),
                    self.vocab.encode(req.instruction + "\n"))

    def _output(self, job: _Job, t0: float, error: str | None = None) -> FillOutput:
        """A job's stats, and its value unless it ended with `error`."""
        p = job.progress
        out = FillOutput(nfe=p.nfe, tokens=p.tokens, forced=p.forced,
                         tokens_per_forward=p.tokens / max(p.nfe, 1),
                         ms=(time.perf_counter() - t0) * 1000, error=error)
        if error:
            return out
        try:
            out.value = job.compiled.decode()
        except Exception as e:  # should not happen: slots only hold allowed tokens
            out.error = f"decode failed: {type(e).__name__}: {e}"
        return out

    def _context(self, text: str, exact_kv: bool) -> tuple[list[int], list[KV] | None]:
        """Token ids of a context (with BOS) and, for exact layouts, its K/V; cached by text."""
        hit = self._contexts.get(text)
        if hit is None or (exact_kv and hit[1] is None and hit[0]):
            ids = [self.cfg.bos_token_id] if self.cfg.bos_token_id is not None else []
            ids += self.vocab.encode(text + "\n") if text else []
            kv = None
            if exact_kv and ids:
                x = torch.tensor([ids], device=self.device)
                kv = self.model(x, logits_at=x[:, :1] * 0)[1]  # K/V only: no logits per position
            hit = (ids, kv)
        self._contexts[text] = hit
        self._contexts.move_to_end(text)
        while len(self._contexts) > self.context_cache_size:
            self._contexts.popitem(last=False)
        return hit

    def _read_context(self, job: _Job, exact_kv: bool) -> None:
        """Give a job its context's token ids and, for the agentpair layout's cache, the context's
        exact K/V as its prefix (shared; empty when there is no context). The instruction's K/V
        are computed in the first canvas pass (see _forward_canvas)."""
        job.context_ids, kv = self._context(job.context, exact_kv)
        if exact_kv:
            job.prefix = self.model.empty_cache() if kv is None else kv
            job.instruction_pending = True

    # -- one denoising step -----------------------------------------------------------------

    def _step(self, jobs: list[_Job], sampler: Sampler, use_cache: bool) -> None:
        if not use_cache:
            full, part = jobs, []
        elif self.cfg.segment_causal:
            full, part = [], jobs
        else:  # approximate prefix cache: refresh when a request enters a new block
            full = [j for j in jobs if j.refreshed_block != j.progress.block]
            part = [j for j in jobs if j.refreshed_block == j.progress.block]
        for group, forward in ((full, self._forward_full), (part, self._forward_canvas)):
            if group:
                # logits only where this step chooses: no lm/copy head on fixed or committed tokens
                wanted = [sampler.read(j.progress) for j in group]
                logits = forward(group, wanted, use_cache).float().cpu()  # [B, Nmax, V], as the masks
                for b, job in enumerate(group):
                    sampler.step(job.progress, logits[b, : len(wanted[b])])

    def _forward_full(self, jobs: list[_Job], wanted: list[list[int]], store_prefix: bool
                      ) -> Tensor:
        """Prompt + canvas for each job, right-padded; logits at the wanted canvas positions."""
        seqs = [j.prompt + j.compiled.canvas.ids for j in jobs]
        T, s = max(map(len, seqs)), self.cfg.shift
        ids = torch.tensor([q + [0] * (T - len(q)) for q in seqs], device=self.device)  # [B, T]
        ar = torch.arange(T, device=self.device)
        lengths = torch.tensor([len(q) for q in seqs], device=self.device)
        mask = (ar[None, :] < lengths[:, None])[:, None, :].expand(-1, T, -1)  # [B, T, T]
        seg = None
        if self.cfg.segment_causal:
            seg = torch.tensor([[0] * len(j.context_ids) + [1] * len(j.instruction_ids)
                                + [2] * (T - len(j.prompt)) for j in jobs], device=self.device)
            mask = mask & (seg[:, None, :] <= seg[:, :, None])
        at = self._logits_at([len(j.prompt) - s for j in jobs], wanted)
        logits, kvs = self.model(ids, ar.expand(len(jobs), -1), mask, logits_at=at,
                                 segments=seg)
        if store_prefix and not self.cfg.segment_causal:
            for b, job in enumerate(jobs):
                n = len(job.prompt) - s
                job.prefix = [(k[b : b + 1, :, :n], v[b : b + 1, :, :n]) for k, v in kvs]
                job.refreshed_block = job.progress.block
        return logits

    def _forward_canvas(self, jobs: list[_Job], wanted: list[list[int]], _: bool = True
                        ) -> Tensor:
        """Canvas (after the instruction on a job's first exact pass, else after `shift` prompt
        tokens), attending to each job's cached prefix; logits at the wanted canvas positions.
        The instruction never attends to the canvas, so its K/V then join the prefix exactly."""
        s, dev = self.cfg.shift, self.device
        for j in jobs:  # a second pass: the instruction joins the prefix (a one-pass fill never copies it)
            if j.instruction_kv is not None:
                j.prefix = [(torch.cat([pk, ik], 2), torch.cat([pv, iv], 2))
                            for (pk, pv), (ik, iv) in zip(j.prefix, j.instruction_kv)]
                j.instruction_kv = None
        heads = [j.instruction_ids if j.instruction_pending else j.prompt[len(j.prompt) - s :]
                 for j in jobs]
        seqs = [h + j.compiled.canvas.ids for h, j in zip(heads, jobs)]
        T = max(map(len, seqs))
        P = max(j.prefix[0][0].shape[2] for j in jobs)
        ids = torch.tensor([q + [0] * (T - len(q)) for q in seqs], device=dev)  # [B, T]
        n_prefix = torch.tensor([j.prefix[0][0].shape[2] for j in jobs], device=dev)
        positions = n_prefix[:, None] + torch.arange(T, device=dev)  # [B, T]
        seg = torch.tensor([[1 if j.instruction_pending else 2] * len(h) + [2] * (len(q) - len(h))
                            + [3] * (T - len(q)) for h, q, j in zip(heads, seqs, jobs)], device=dev)
        own = (seg[:, None, :] <= seg[:, :, None]) & (seg[:, None, :] < 3)  # [B, T, T]
        own = own | torch.eye(T, dtype=torch.bool, device=dev)
        prefix_ok = torch.arange(P, device=dev)[None] < n_prefix[:, None]  # [B, P]
        mask = torch.cat([prefix_ok[:, None, :].expand(-1, T, -1), own], 2)  # [B, T, P + T]
        at = self._logits_at([len(h) - s for h in heads], wanted)
        prefix = [self._stack([j.prefix[i] for j in jobs], P) for i in range(len(jobs[0].prefix))]
        logits, kvs = self.model(ids, positions, mask, prefix, logits_at=at,
                                 segments=seg.clamp(max=2))
        for b, (job, head) in enumerate(zip(jobs, heads)):
            if job.instruction_pending:
                n = len(head)
                job.instruction_kv = [(k[b : b + 1, :, :n], v[b : b + 1, :, :n]) for k, v in kvs]
                job.instruction_pending = False
        return logits

    def _logits_at(self, starts: list[int], wanted: list[list[int]]) -> Tensor:
        """Sequence index [B, Nmax] of each job's wanted canvas positions (canvas position c sits
        at starts[b] + c), right-padded by repeating the first."""
        n = max(map(len, wanted))
        rows = [[start + c for c in w] + [start + w[0]] * (n - len(w)) for start, w in zip(starts, wanted)]
        return torch.tensor(rows, device=self.device)

    @staticmethod
    def _stack(kvs: list[KV], length: int) -> KV:
        """Per-job K/V [1, H, n, hd] right-padded to `length` and stacked: [B, H, length, hd]."""
        if len(kvs) == 1 and kvs[0][0].shape[2] == length:
            return kvs[0]
        pad = lambda t: F.pad(t, (0, 0, 0, length - t.shape[2]))  # noqa: E731
        return torch.cat([pad(k) for k, _ in kvs]), torch.cat([pad(v) for _, v in kvs])
