"""Samplers: which masked positions to commit after each forward, and to what.

`generate` is plain generation with LLaDA's reference semantics. For canvases, ReferenceSampler
(fixed tokens per step, LLaDA's split) and ThresholdSampler (Fast-dLLM's confidence threshold)
decode block by block, masking disallowed tokens of each slot before choosing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor

from executor_engine.canvas import Canvas, ChoiceSlot

Remasking = Literal["low_confidence", "random"]


def num_transfer_tokens(masked: int, steps: int) -> list[int]:
    """Tokens to commit at each of `steps` steps: masked // steps each, the remainder first."""
    base, rem = divmod(masked, steps)
    return [base + (i < rem) for i in range(steps)]


def gumbel_noise(logits: Tensor, temperature: float, generator: torch.Generator | None) -> Tensor:
    """Gumbel-max sampling in float64: argmax(exp(l) / (-log u)^T) samples softmax(l / T)."""
    if temperature == 0:
        return logits
    logits = logits.to(torch.float64)
    u = torch.rand(logits.shape, dtype=torch.float64, device=logits.device, generator=generator)
    return logits.exp() / (-torch.log(u)) ** temperature


@torch.no_grad()
def generate(
    logits_fn: Callable[[Tensor, Tensor | None], Tensor],  # (x [B, T], attn mask) -> [B, T, V]
    prompt: Tensor,  # [B, L]
    mask_id: int,
    attention_mask: Tensor | None = None,  # [B, L], 0 = padding
    steps: int = 128,
    gen_length: int = 128,
    block_length: int = 128,
    temperature: float = 0.0,
    remasking: Remasking = "low_confidence",
) -> Tensor:
    """Plain generation with LLaDA's reference semantics; returns [B, L + gen_length]."""
    B, L = prompt.shape
    x = torch.full((B, L + gen_length), mask_id, dtype=torch.long, device=prompt.device)
    x[:, :L] = prompt
    if attention_mask is not None:
        attention_mask = F.pad(attention_mask, (0, gen_length), value=1)
    if gen_length % block_length or steps % (gen_length // block_length):
        raise ValueError("gen_length must divide into blocks and steps into the blocks")
    n_blocks = gen_length // block_length
    steps //= n_blocks
    for b in range(n_blocks):
        lo, hi = L + b * block_length, L + (b + 1) * block_length
        counts = [num_transfer_tokens(int(m), steps) for m in (x[:, lo:hi] == mask_id).sum(1)]
        for s in range(steps):
            masked = x == mask_id  # [B, T]
            logits = logits_fn(x, attention_mask)  # [B, T, V]
            x0 = gumbel_noise(logits, temperature, None).argmax(-1)  # [B, T]
            x0 = torch.where(masked, x0, x)
            if remasking == "low_confidence":
                conf = F.softmax(logits, dim=-1).gather(-1, x0[..., None]).squeeze(-1)
            else:
                conf = torch.rand(x0.shape, device=x0.device)
            conf[:, hi:] = -torch.inf
            conf = torch.where(masked, conf, -torch.inf)
            for j in range(B):
                idx = torch.topk(conf[j], k=counts[j][s]).indices
                x[j, idx] = x0[j, idx]
    return x


class Scored(NamedTuple):
    """A choice's open values as one forward scores them whole."""

    positions: list[int]  # its masked canvas positions [m]
    seqs: Tensor  # its live values' tokens there [C, m]
    total: Tensor  # each value's log-probability, summed over the positions [C]
    first: Tensor  # each value's first token's [C]
    places: set[int]  # where in its values the live ones are


@dataclass
class Progress:
    """One canvas's decoding state: its current block and what it has cost so far."""

    canvas: Canvas
    block: int = -1
    schedule: list[int] = field(default_factory=list)  # reference: tokens per remaining step
    generator: torch.Generator | None = None
    done: bool = False
    nfe: int = 0
    tokens: int = 0  # chosen by a forward
    forced: int = 0  # committed without one: the only token allowed there


@dataclass(frozen=True)
class _BlockSampler:
    block_length: int = 32
    temperature: float = 0.0
    seed: int = 0
    whole_choices: bool = False  # score a choice's values over all their positions at once
    choice_threshold: float = 0.99  # a value scored whole is surer: its tokens' marginals are multiplied
    apart_threshold: float = 0.5  # a distinct group's pair (choice, value) is committed this likely

    def start(self, canvas: Canvas) -> Progress:
        p = Progress(canvas, forced=canvas.commit_forced())
        self._advance(p)
        return p

    def positions(self, p: Progress) -> list[int]:
        """The canvas positions the next step chooses among: the current block's open ones."""
        lo = p.block * self.block_length
        return [q for q in p.canvas.open() if lo <= q < lo + self.block_length]

    def _advance(self, p: Progress) -> None:
        """Move to the next block with masked positions, or finish."""
        while p.block < 0 or (not p.done and not self.positions(p)):
            p.block += 1
            if p.block * self.block_length >= max(len(p.canvas.ids), 1):
                p.done = True
                return
            lo = p.block * self.block_length
            self._enter(p, sum(lo <= q < lo + self.block_length for q in p.canvas.masked()))

    def _enter(self, p: Progress, masked: int) -> None:
        pass

    def read(self, p: Progress) -> list[int]:
        """The canvas positions whose logits the next step reads: positions(p), then (scoring
        choices whole) the other open positions of the choices among them."""
        positions = self.positions(p)
        return self._read(positions, self._choices(p, positions))

    @staticmethod
    def _read(positions: list[int], choices: list[tuple[ChoiceSlot, list[int]]]) -> list[int]:
        return positions + [q for _, qs in choices for q in qs if q not in positions]

    def _choices(self, p: Progress, positions: list[int]) -> list[tuple[ChoiceSlot, list[int]]]:
        """The choice slots still open to two values or more, anywhere on the canvas (a choice is
        constrained whole, so it need not wait for its block: every record of a bulk extraction is
        scored in each forward), each with its masked positions; none unless the sampler scores
        choices whole, greedily (under a temperature a choice is sampled token by token)."""
        if not self.whole_choices or self.temperature > 0:
            return []
        masked = p.canvas.masked()
        slots = {id(s): s for q in masked if isinstance(s := p.canvas.owner[q][0], ChoiceSlot) and len(s.live) > 1}
        return [(s, [q for q in masked if p.canvas.owner[q][0] is s]) for s in slots.values()]

    def step(self, p: Progress, logits: Tensor) -> int:
        """Commit tokens of the current block from logits [n, V] at read(p), in order; returns
        how many."""
        positions = self.positions(p)
        choices = self._choices(p, positions)
        whole = self._commit_whole(p, self._read(positions, choices), logits, choices)  # read: positions first
        still = set(p.canvas.masked())
        keep = [k for k, q in enumerate(positions) if q in still]  # not a choice just committed whole
        positions = [positions[k] for k in keep]
        chosen: list[int] = []
        if positions:
            chosen = self._commit_positions(p, positions, logits[keep])
        p.nfe += 1
        p.tokens += len(chosen) + whole
        p.forced += p.canvas.commit_forced()
        self._advance(p)
        return len(chosen) + whole

    def _commit_whole(self, p: Progress, read: list[int], logits: Tensor,
                      choices: list[tuple[ChoiceSlot, list[int]]]) -> int:
        """Each choice whose likeliest value, scored over all its open positions from this one
        forward (the sum of its tokens' log-probabilities, normalised over the values still
        possible), reaches choice_threshold and starts as a token-by-token pick would (a short
        value's pads can outscore a long one's words): committed whole. Returns the tokens."""
        row = {q: k for k, q in enumerate(read)}
        logp = F.log_softmax(logits.float(), dim=-1)  # [n, V]
        scored = {}
        for slot, qs in choices:
            at = torch.tensor([row[q] for q in qs])  # [m]
            seqs = torch.tensor([[seq[p.canvas.owner[q][1]] for q in qs] for seq in slot.live])  # [C, m]
            scored[id(slot)] = Scored(qs, seqs, logp[at[None, :], seqs].sum(-1), logp[at[0], seqs[:, 0]],
                                      slot.places())
        n, done = self._settle_apart(p, scored, choices)
        for slot, _ in choices:
            if id(slot) in done:
                continue
            group = _aligned(slot, scored)  # tied: every record's evidence summed
            done |= {id(s) for s in group}
            scores = sum(scored[id(s)].total for s in group)
            probs = F.softmax(scores, dim=-1)
            best = int(probs.argmax())
            first = int(sum(scored[id(s)].first for s in group).argmax())  # the value a token-by-token pick would start
            if float(probs[best]) >= self.choice_threshold and \
                    all(scored[id(s)].seqs[best, 0] == scored[id(s)].seqs[first, 0] for s in group):
                for s in group:
                    qs, seqs = scored[id(s)].positions, scored[id(s)].seqs
                    for q, tok in zip(qs, seqs[best].tolist()):
                        p.canvas.commit(q, tok)
                    n += len(qs)
        return n

    def _settle_apart(self, p: Progress, scored: dict[int, Scored], choices: list[tuple[ChoiceSlot, list[int]]]
                      ) -> tuple[int, set[int]]:
        """The open choices of each distinct group, from this one forward (a tied one scored with its
        ties' evidence summed, as alone): the likeliest pair (choice, value) first, then the likeliest
        of the rest whose choice and value are both still free, and so on (a greedy assignment); each
        pair whose value has at least apart_threshold of its choice's probability is committed whole.
        Returns the tokens, and the choices settled or left for the next forward (not scored alone
        this step)."""
        live = {id(s): list(s.live) for s, _ in choices}  # as scored: nothing is committed yet this step
        n, done = 0, set()
        for slot, _ in choices:
            group = [s for s in (slot, *slot.apart) if id(s) in scored and id(s) not in done]
            if not slot.apart or len(group) < 2:
                continue
            ties = [_aligned(s, scored) for s in group]  # a tied one: all its records' evidence
            done |= {id(t) for s in group for t in (s, *s.tied)}  # its ties follow it when it commits
            probs = [F.softmax(sum(scored[id(t)].total for t in tied), -1).tolist() for tied in ties]
            pairs = sorted(((prob, k, tuple(live[id(s)][i])) for k, s in enumerate(group)
                            for i, prob in enumerate(probs[k])), reverse=True)
            settled: dict[int, tuple[float, tuple[int, ...]]] = {}  # place in group -> (probability, value)
            taken: set[str] = set()  # values as they read (a value's tokens are padded to its own choice's room)
            for prob, k, value in pairs:
                if k not in settled and (shown := group[k].shown(list(value))) not in taken:
                    settled[k] = (prob, value)
                    taken.add(shown)
            for k, (prob, value) in settled.items():
                s = group[k]
                if prob >= self.apart_threshold and list(value) in s.live:  # a tie's commit may have narrowed it
                    qs = scored[id(s)].positions
                    for q in qs:
                        p.canvas.commit(q, value[p.canvas.owner[q][1]])
                    n += len(qs)
        return n, done

    def _commit_positions(self, p: Progress, positions: list[int], logits: Tensor) -> list[int]:
        """Commit tokens at these positions from their logits [n, V]; returns the chosen rows."""
        allowed = p.canvas.allowed(positions)  # [n, V]
        rows = logits.float().masked_fill(~allowed, -torch.inf)  # [n, V]
        if self.temperature > 0 and p.generator is None:
            p.generator = torch.Generator(device=logits.device).manual_seed(self.seed)
        noisy = gumbel_noise(rows, self.temperature, p.generator)
        noisy = noisy.masked_fill(~allowed, -torch.inf)
        x0 = noisy.argmax(-1)  # [n]
        conf = F.softmax(rows, dim=-1).gather(-1, x0[:, None]).squeeze(-1)  # [n]
        chosen = self._select(p, conf)
        touched: set[int] = set()
        for i in chosen:
            slot, j = p.canvas.owner[positions[i]]
            tok = int(x0[i])
            if id(slot) in touched:  # an earlier commit this step may have narrowed the slot, or its tie
                ok = slot.allowed(j)  # widened it back to a place a partner took: drawn again from its own row
                if not ok[tok]:
                    row = logits[i].float().masked_fill(~ok, -torch.inf)
                    tok = int(gumbel_noise(row, self.temperature, p.generator).masked_fill(~ok, -torch.inf).argmax())
            p.canvas.commit(positions[i], tok)
            touched |= {id(s) for s in (slot, *getattr(slot, "tied", ()), *getattr(slot, "apart", ()))}
        return chosen

    def _select(self, p: Progress, conf: Tensor) -> list[int]:
        raise NotImplementedError


def _aligned(slot: ChoiceSlot, scored: dict[int, Scored]) -> list[ChoiceSlot]:
    """The choice and those of its ties scored this step over the same places (a distinct
    partner's settling can narrow one record's choice ahead of its ties')."""
    places = scored[id(slot)].places
    return [slot, *(t for t in slot.tied if id(t) in scored and scored[id(t)].places == places)]


@dataclass(frozen=True)
class ReferenceSampler(_BlockSampler):
    """LLaDA's low-confidence (or random) remasking: a fixed number of tokens per step.

    Each block's masked positions are split over `steps_per_block` steps (None: one token per
    step) as LLaDA splits them; steps that would commit nothing are skipped.
    """

    steps_per_block: int | None = None
    remasking: Remasking = "low_confidence"

    def _enter(self, p: Progress, masked: int) -> None:
        counts = num_transfer_tokens(masked, self.steps_per_block or max(masked, 1))
        p.schedule = [c for c in counts if c > 0]

    def _select(self, p: Progress, conf: Tensor) -> list[int]:
        if self.remasking == "random":
            if p.generator is None:
                p.generator = torch.Generator(device=conf.device).manual_seed(self.seed)
            conf = torch.rand(conf.shape, device=conf.device, generator=p.generator)
        # forced commits and choices (open from their start only) can leave fewer positions than
        # the schedule planned for this step, and so outlast it
        planned = p.schedule.pop(0) if p.schedule else 1
        return torch.topk(conf, k=min(planned, len(conf))).indices.tolist()


@dataclass(frozen=True)
class ThresholdSampler(_BlockSampler):
    """Fast-dLLM parallel decoding: commit every position whose confidence exceeds the
    threshold, and always at least the most confident one; a choice of values (an offered ref,
    a word run) whole when one of its values is that likely (whole_choices)."""

    threshold: float = 0.9
    whole_choices: bool = True

    def _select(self, p: Progress, conf: Tensor) -> list[int]:
        order = torch.argsort(conf, descending=True)
        n = max(1, int((conf > self.threshold).sum()))
        return order[:n].tolist()


Sampler = ReferenceSampler | ThresholdSampler
