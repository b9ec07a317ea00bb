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
from executor_engine.dream_sampler import DREAM_ALGS, DreamAlg, generate_dream
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
    tied: list[list[str]] = field(default_factory=list)  # pointers taking the same place in their allowed lists
    distinct: list[list[str]] = field(default_factory=list)  # pointers taking different values


@dataclass
class FillOutput:
    value: Any = None
    nfe: int = 0  # forwards this request took part in
    tokens: int = 0  # slot tokens chosen by a forward
    forced: int = 0  # slot tokens committed without one (the only token allowed there)
    tokens_per_forward: float = 0.0
    ms: float = 0.0  # from the fill call until this request finished
    error: str | None = None
    cause: Exception | None = None  # the exception `error` reports, where one was raised (template.UnfitValues)


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
    canvas_kv: list[KV] | None = None  # exact layout: each canvas position's K/V from the last pass computing it

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
                 gen_length: int = 128, block_length: int | None = None, temperature: float = 0.0,
                 remasking: Remasking | DreamAlg | None = None) -> Tensor:
        """Reference generation, no cache: [B, L] prompt -> [B, L + gen_length] tokens. remasking
        picks LLaDA's (low_confidence, random: blocks of block_length, None = one block) or
        Dream's (entropy, maskgit_plus, topk_margin, origin: one block, its own schedule); None =
        the checkpoint's own: entropy for Dream, low_confidence otherwise."""
        remasking = remasking or ("entropy" if self.cfg.layout == "dream" else "low_confidence")
        prompt = prompt_ids.to(self.device)
        mask = None if attention_mask is None else attention_mask.to(self.device)
        if remasking in DREAM_ALGS:
            if block_length not in (None, gen_length):
                raise ValueError("Dream's algorithms decode in one block: leave block_length out")
            return generate_dream(self._logits, prompt, self.cfg.mask_token_id, mask, steps,
                                  gen_length, temperature, remasking)
        return generate(self._logits, prompt, self.cfg.mask_token_id, mask, steps, gen_length,
                        block_length or gen_length, temperature, remasking)

    def _logits(self, x: Tensor, attention_mask: Tensor | None) -> Tensor:
        """Logits [B, T, V] of x [B, T], position i's predicting token i. Positions count from 0
        in every row (Dream's count from a left-padded row's first real token: the same logits up
        to rounding, as padding is masked and RoPE's attention sees only position differences)."""
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
             use_cache: bool = True, cancel: threading.Event | None = None,
             record_passes: bool = True) -> list[FillOutput]:
        """Fill every request; per-request problems come back as FillOutput.error. Once `cancel`
        is set (from another thread), requests not yet finished end with the error "cancelled"
        before the next forward. record_passes (with the cache, agentpair layout): once every open
        position lies in a record (an array item or an object's property), a pass computes only the open records
        (_forward_records; inexact, so off where a fill must equal the uncached one)."""
        sampler = sampler or ThresholdSampler()
        t0 = time.perf_counter()
        outputs = [FillOutput() for _ in requests]
        queue: deque[_Job] = deque()
        for i, req in enumerate(requests):
            try:
                queue.append(self._job(i, req, sampler))
            except Exception as e:  # a schema or template we cannot compile
                outputs[i].error, outputs[i].cause = f"{type(e).__name__}: {e}", e
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
                self._step(stepping, sampler, use_cache, record_passes)
            for job in [j for j in active if j.progress.done]:
                outputs[job.index] = self._output(job, t0)
                active.remove(job)
        return outputs

    def _job(self, index: int, req: FillInput, sampler: Sampler) -> _Job:
        if (req.schema is None) == (req.template is None):
            raise ValueError("a fill request carries either a schema or a template")
        if req.schema is not None:
            compiled = compile_schema(self.vocab, req.schema, req.allowed, req.tied, req.distinct)
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

    def _step(self, jobs: list[_Job], sampler: Sampler, use_cache: bool, record_passes: bool) -> None:
        if not use_cache:
            full, part = jobs, []
        elif self.cfg.segment_causal:
            full, part = [], jobs
        else:  # approximate prefix cache: refresh when a request enters a new block
            full = [j for j in jobs if j.refreshed_block != j.progress.block]
            part = [j for j in jobs if j.refreshed_block == j.progress.block]
        records = {id(j): rows for j in part if record_passes and (rows := self._open_records(j)) is not None}
        part, local = [j for j in part if id(j) not in records], [j for j in part if id(j) in records]
        for group, forward in ((full, self._forward_full), (part, self._forward_canvas),
                               (local, lambda g, w, _: self._forward_records(g, w, [records[id(j)] for j in g]))):
            if group:
                # logits only where this step chooses: no lm/copy head on fixed or committed tokens
                wanted = [sampler.read(j.progress) for j in group]
                logits = forward(group, wanted, use_cache).float().cpu()  # [B, Nmax, V], as the masks
                for b, job in enumerate(group):
                    sampler.step(job.progress, logits[b, : len(wanted[b])])

    @staticmethod
    def _open_records(job: _Job) -> list[int] | None:
        """The canvas positions a record-local pass recomputes (the records still open), or None
        for a whole pass: before the canvas's K/V are cached, or while an open position lies in no
        record, or when every position would be recomputed anyway."""
        if job.canvas_kv is None or job.instruction_pending:
            return None
        rows = job.compiled.canvas.open_records()
        return rows if rows is not None and len(rows) < len(job.compiled.canvas.ids) else None

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
        for j in jobs:
            self._join_instruction(j)
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
            n, c = len(head), len(job.compiled.canvas.ids)
            if job.instruction_pending:
                job.instruction_kv = [(k[b : b + 1, :, :n], v[b : b + 1, :, :n]) for k, v in kvs]
                job.instruction_pending = False
            if self.cfg.segment_causal:  # what a record-local pass reads of the records it leaves alone
                job.canvas_kv = [(k[b : b + 1, :, n : n + c].clone(), v[b : b + 1, :, n : n + c].clone())
                                 for k, v in kvs]
        return logits

    @staticmethod
    def _join_instruction(job: _Job) -> None:
        """A second pass: the instruction's K/V join the prefix (a one-pass fill never copies them)."""
        if job.instruction_kv is not None:
            job.prefix = [(torch.cat([pk, ik], 2), torch.cat([pv, iv], 2))
                          for (pk, pv), (ik, iv) in zip(job.prefix, job.instruction_kv)]
            job.instruction_kv = None

    def _forward_records(self, jobs: list[_Job], wanted: list[list[int]], rows: list[list[int]]) -> Tensor:
        """A record-local pass (exact layout, instruction in the prefix): only the positions of the
        records still open (`rows`, canvas positions) are computed, attending to the prefix and to
        the other positions' K/V as the last pass computing them left them (the fixed text, the
        records already filled); logits at the wanted positions, which all lie in those records.
        As Fast-dLLM's cache, inexact: a finished record is not recomputed for its neighbours."""
        dev = self.device
        prefixes, seqs, before = [], [], []
        for j, act in zip(jobs, rows):
            self._join_instruction(j)
            ids = j.compiled.canvas.ids
            keep = torch.tensor(sorted(set(range(len(ids))) - set(act)), dtype=torch.long, device=dev)
            prefixes.append([(torch.cat([pk, ck[:, :, keep]], 2), torch.cat([pv, cv[:, :, keep]], 2))
                             for (pk, pv), (ck, cv) in zip(j.prefix, j.canvas_kv)])
            seqs.append([ids[q] for q in act])
            before.append([ids[q - 1] if q else j.prompt[-1] for q in act])  # the token before each, as a whole pass reads it
        T, B = max(map(len, seqs)), len(jobs)
        P = max(p[0][0].shape[2] for p in prefixes)
        ids = torch.tensor([q + [0] * (T - len(q)) for q in seqs], device=dev)  # [B, T]
        previous = torch.tensor([q + [0] * (T - len(q)) for q in before], device=dev)  # [B, T]
        start = torch.tensor([j.prefix[0][0].shape[2] for j in jobs], device=dev)  # canvas position 0 sits here
        positions = torch.tensor([act + [0] * (T - len(act)) for act in rows], device=dev) + start[:, None]
        n_prefix = torch.tensor([p[0][0].shape[2] for p in prefixes], device=dev)
        valid = torch.arange(T, device=dev)[None] < torch.tensor([len(q) for q in seqs], device=dev)[:, None]  # [B, T]
        own = (valid[:, None, :] & valid[:, :, None]) | torch.eye(T, dtype=torch.bool, device=dev)  # [B, T, T]
        prefix_ok = torch.arange(P, device=dev)[None] < n_prefix[:, None]  # [B, P]
        mask = torch.cat([prefix_ok[:, None, :].expand(-1, T, -1), own], 2)  # [B, T, P + T]
        index = [{q: i for i, q in enumerate(act)} for act in rows]  # canvas position -> place in the call
        at = torch.tensor([[ix[q] for q in w] + [ix[w[0]]] * (max(map(len, wanted)) - len(w))
                           for ix, w in zip(index, wanted)], device=dev)  # [B, Nmax]
        prefix = [self._stack([p[i] for p in prefixes], P) for i in range(len(prefixes[0]))]
        logits, kvs = self.model(ids, positions, mask, prefix, logits_at=at,
                                 segments=torch.full((B, T), 2, device=dev), previous=previous)
        for b, (job, act) in enumerate(zip(jobs, rows)):  # the recomputed records' K/V replace theirs
            where = torch.tensor(act, dtype=torch.long, device=dev)
            for (ck, cv), (k, v) in zip(job.canvas_kv, kvs):
                ck[:, :, where], cv[:, :, where] = k[b : b + 1, :, : len(act)], v[b : b + 1, :, : len(act)]
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
