"""Dream's own plain generation: its transfer schedule and its remasking algorithms.

As Dream's `diffusion_generate`: one block, timesteps linspace(1, eps, steps + 1); at step i
(t, s its timesteps) a share 1 - s/t of the masks left is decided, all of them at the last step,
by confidence (max probability, negative entropy or top-2 margin) or at random ("origin").
Randomness comes from torch's global generator, drawn in the official order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, get_args

import torch
import torch.nn.functional as F
from torch import Tensor

DreamAlg = Literal["entropy", "maskgit_plus", "topk_margin", "origin"]
DREAM_ALGS: tuple[str, ...] = get_args(DreamAlg)
EPS = 1e-3  # Dream's last timestep


def sample(logits: Tensor, temperature: float) -> tuple[Tensor, Tensor]:
    """Probabilities [N, V] (tempered) and tokens [N] from logits [N, V]: the likeliest at
    temperature 0, else one draw each, as a Categorical over the normalised probabilities."""
    if temperature > 0:
        logits = logits / temperature
    probs = F.softmax(logits, dim=-1)
    if temperature == 0:
        return probs, probs.max(dim=-1).indices
    x0 = torch.multinomial(probs / probs.sum(-1, keepdim=True), 1, replacement=True)[:, 0]
    return probs, x0


def confidence(probs: Tensor, x0: Tensor, alg: DreamAlg) -> Tensor:
    """How sure each position [N] is of its token x0 [N], from its probabilities [N, V]."""
    if alg == "entropy":
        return (probs * torch.log(probs + 1e-10)).sum(-1)  # negative entropy
    if alg == "topk_margin":
        top = probs.topk(2, dim=-1).values  # [N, 2]
        return top[:, 0] - top[:, 1]
    return probs.gather(-1, x0[:, None])[:, 0]  # maskgit_plus


def transfer_count(masked: int, t: Tensor, s: Tensor, last: bool) -> int:
    """Masks to decide at a step from t to s: the share 1 - s/t (float32, rounded down), or
    all of them at the last step."""
    return masked if last else int(masked * (1 - s / t))


def _step_confident(x: Tensor, logits: Tensor, mask_id: int, temperature: float, alg: DreamAlg,
                    t: Tensor, s: Tensor, last: bool) -> None:
    """Commit in x [B, T], per row, its most confident masked positions' tokens."""
    masked = x == mask_id  # [B, T]
    probs, x0 = sample(logits[masked], temperature)  # [N, V], [N] over the batch's masks
    conf = torch.full(x.shape, -torch.inf, dtype=logits.dtype, device=x.device)  # [B, T]
    conf[masked] = confidence(probs, x0, alg)
    tokens = torch.full_like(x, mask_id)
    tokens[masked] = x0
    for j in range(x.shape[0]):
        k = transfer_count(int(masked[j].sum()), t, s, last)
        if k > 0:
            idx = torch.topk(conf[j], k).indices
            x[j, idx] = tokens[j, idx]


def _step_origin(x: Tensor, logits: Tensor, mask_id: int, temperature: float, t: Tensor,
                 s: Tensor, last: bool) -> None:
    """Commit in x [B, T] each masked position with probability 1 - s/t (all at the last step)."""
    masked = x == mask_id  # [B, T]
    p = 1 if last else 1 - s / t
    decide = torch.rand(int(masked.sum()), device=x.device) < p  # [N] over the batch's masks
    x0 = torch.full_like(decide, mask_id, dtype=torch.long)  # [N]
    if decide.any():
        x0[decide] = sample(logits[masked][decide], temperature)[1]
    x[masked] = x0


@torch.no_grad()
def generate_dream(
    logits_fn: Callable[[Tensor, Tensor | None], Tensor],  # (x [B, T], attn mask) -> [B, T, V]
    prompt: Tensor,  # [B, L]
    mask_id: int,
    attention_mask: Tensor | None = None,  # [B, L], 0 = padding
    steps: int = 128,
    gen_length: int = 128,
    temperature: float = 0.0,
    alg: DreamAlg = "entropy",
    eps: float = EPS,
) -> Tensor:
    """Plain generation with Dream's reference semantics; returns [B, L + gen_length]. The
    logits at position i must predict token i (a Dream model's, shifted right by one)."""
    if alg not in DREAM_ALGS:
        raise ValueError(f"unknown Dream algorithm {alg!r} (expected one of {DREAM_ALGS})")
    x = F.pad(prompt, (0, gen_length), value=mask_id)  # [B, L + gen_length]
    if attention_mask is not None:
        attention_mask = F.pad(attention_mask, (0, gen_length), value=1)
    timesteps = torch.linspace(1, eps, steps + 1, device=x.device)  # [steps + 1]
    for i in range(steps):
        logits = logits_fn(x, attention_mask)  # [B, T, V]
        t, s, last = timesteps[i], timesteps[i + 1], i == steps - 1
        if alg == "origin":
            _step_origin(x, logits, mask_id, temperature, t, s, last)
        else:
            _step_confident(x, logits, mask_id, temperature, alg, t, s, last)
    return x
