"""The bidirectional transformer behind every layout: RMSNorm, RoPE, SwiGLU, grouped-query attention.

One module tree serves LLaDA, Dream and agentpair checkpoints; `checkpoint.py` maps their
tensor names onto it. Forward passes can take cached prefix keys/values and return their own.
agentpair checkpoints may add a copy head: a pointer over the tokens a position can see, mixed
with the vocabulary distribution by a learned gate, so copying a name, a value or a ref digit
from the context or instruction need not be learned token by token. With `match_window`, the
pointer also sees which context tokens near a source occur in the instruction, so "Click Blog"
finds the ref written beside "Blog" in the page; with `key_window`, which instruction tokens just
before a source occur just before the query in the canvas, so a value quoted after "zip code"
goes to the field written "zip_code".
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

KV = tuple[Tensor, Tensor]  # (k, v), each [B, n_kv_heads, S, head_dim]


@dataclass(frozen=True)
class ModelConfig:
    layout: str  # "llada" | "dream" | "agentpair"
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    mlp_hidden: int
    vocab_size: int
    mask_token_id: int
    pad_token_id: int  # fills unused room inside a slot
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5
    qkv_bias: bool = False
    tie_embeddings: bool = False
    bos_token_id: int | None = None
    copy_head: bool = False  # outputs are then log-probabilities of the gated mixture
    match_window: int = 0  # copy head: instruction-match bias over +-this many context tokens
    key_window: int = 0  # copy head: key-match bias, this many tokens before a source and a query

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    @property
    def shift(self) -> int:
        """1 when the logit at i-1 predicts token i (Dream), 0 when position i predicts i."""
        return 1 if self.layout == "dream" else 0

    @property
    def segment_causal(self) -> bool:
        """agentpair: a segment (context < instruction < canvas) never attends to later ones."""
        return self.layout == "agentpair"


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: Tensor) -> Tensor:
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return xf.to(x.dtype) * self.weight


def rope_angles(positions: Tensor, head_dim: int, theta: float) -> tuple[Tensor, Tensor]:
    """cos, sin [B, 1, T, hd/2] of positions [B, T] * inv_freq (LLaMA style), once per forward."""
    inv_freq = 1.0 / theta ** (torch.arange(0, head_dim, 2, device=positions.device,
                                            dtype=torch.float32) / head_dim)
    angles = positions.float()[:, None, :, None] * inv_freq  # [B, 1, T, hd/2]
    return angles.cos(), angles.sin()


def rope(x: Tensor, rot: tuple[Tensor, Tensor]) -> Tensor:
    """Rotate halves of x [B, H, T, hd] by the angles of rope_angles."""
    cos, sin = rot
    x1, x2 = x.float().chunk(2, dim=-1)
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)


class Attention(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        hd = cfg.head_dim
        self.q = nn.Linear(cfg.d_model, cfg.n_heads * hd, bias=cfg.qkv_bias)
        self.k = nn.Linear(cfg.d_model, cfg.n_kv_heads * hd, bias=cfg.qkv_bias)
        self.v = nn.Linear(cfg.d_model, cfg.n_kv_heads * hd, bias=cfg.qkv_bias)
        self.o = nn.Linear(cfg.n_heads * hd, cfg.d_model, bias=False)

    def forward(
        self, x: Tensor, rot: tuple[Tensor, Tensor], mask: Tensor | None, prefix: KV | None
    ) -> tuple[Tensor, KV]:
        B, T, _ = x.shape
        hd, cfg = self.cfg.head_dim, self.cfg
        q = self.q(x).view(B, T, cfg.n_heads, hd).transpose(1, 2)  # [B, H, T, hd]
        k = self.k(x).view(B, T, cfg.n_kv_heads, hd).transpose(1, 2)  # [B, Hkv, T, hd]
        v = self.v(x).view(B, T, cfg.n_kv_heads, hd).transpose(1, 2)
        q, k = rope(q, rot), rope(k, rot)
        kv = (k, v)
        if prefix is not None:
            k, v = torch.cat([prefix[0], k], dim=2), torch.cat([prefix[1], v], dim=2)
        attn_mask = None if mask is None else mask[:, None]  # [B, 1, T, S]
        y = F.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask, enable_gqa=cfg.n_kv_heads != cfg.n_heads
        )
        return self.o(y.transpose(1, 2).reshape(B, T, -1)), kv


class MLP(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.gate = nn.Linear(cfg.d_model, cfg.mlp_hidden, bias=False)
        self.up = nn.Linear(cfg.d_model, cfg.mlp_hidden, bias=False)
        self.down = nn.Linear(cfg.mlp_hidden, cfg.d_model, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = Attention(cfg)
        self.mlp_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = MLP(cfg)

    def forward(
        self, x: Tensor, rot: tuple[Tensor, Tensor], mask: Tensor | None, prefix: KV | None
    ) -> tuple[Tensor, KV]:
        h, kv = self.attn(self.attn_norm(x), rot, mask, prefix)
        x = x + h
        return x + self.mlp(self.mlp_norm(x)), kv


class CopyHead(nn.Module):
    """Pointer over visible tokens. A position's query matches a source's key on content and,
    through the embeddings of both previous tokens, on what came before: once `Neko` is written,
    the next slot position points at what follows `Neko` in the instruction (an induction head
    built in, so a multi-token value is copied as a run). Its cache entry (after the layers'
    K/V) holds the sources' keys [B, 1, S, 2 hd] and (token id, segment) [B, 1, S, 2] (float32,
    exact for any id, whatever the model's dtype: bf16 would round ids above 256; it pads and
    stacks like K/V), and with `key_window` their positions too [B, 1, S, 3]. Segments: 0
    context, 1 instruction, 2 canvas."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.q = nn.Linear(cfg.d_model, cfg.head_dim, bias=False)
        self.k = nn.Linear(cfg.d_model, cfg.head_dim, bias=False)
        self.gate = nn.Linear(cfg.d_model, 1)
        self.q_prev = nn.Linear(cfg.d_model, cfg.head_dim, bias=False)
        self.k_prev = nn.Linear(cfg.d_model, cfg.head_dim, bias=False)
        if cfg.match_window:
            self.match_offsets = nn.Parameter(torch.zeros(2 * cfg.match_window + 1))
            self.match_token = nn.Parameter(torch.ones(cfg.vocab_size))
            self.match_gate = nn.Linear(cfg.d_model, 1)
        if cfg.key_window:
            self.key_offsets = nn.Parameter(torch.empty(cfg.key_window))
            self.key_reach = nn.Parameter(torch.empty(cfg.key_window))
            self.key_token = nn.Parameter(torch.empty(cfg.vocab_size))
            self.key_gate = nn.Linear(cfg.d_model, 1)
            self.start_key_match()

    @torch.no_grad()
    def start_key_match(self) -> None:
        """The key-match bias as it starts: 0 everywhere (no place weighs yet), every other weight
        1, so training moves it from there."""
        self.key_offsets.zero_()
        for p in (self.key_reach, self.key_token, self.key_gate.bias):
            p.fill_(1.0)
        self.key_gate.weight.zero_()

    def sources(self, h: Tensor, prev: Tensor, ids: Tensor, segments: Tensor, positions: Tensor) -> KV:
        """Cache entry of this call's positions: h [B, T, d] final states, prev [B, T, d] the
        embeddings of their previous tokens, ids, segments and positions [B, T]."""
        keys = torch.cat([self.k(h), self.k_prev(prev)], -1)  # [B, T, 2 hd]
        fields = [ids, segments, positions] if self.cfg.key_window else [ids, segments]
        return keys[:, None], torch.stack(fields, -1)[:, None].float()

    def match_bias(self, h: Tensor, ids: Tensor, seg: Tensor, visible: Tensor) -> Tensor:
        """Score bias [B, K, S] of each context source, from the context tokens within
        +-match_window of it that occur in the query's instruction (each weighted by a learned
        per-token weight over its count in the context, then by a learned weight per offset).
        Reading comprehension's exact-match feature, cut to what a pointer needs."""
        B, K, S = visible.shape
        context = seg == 0  # [B, S]
        ids_q = ids[:, None, :].expand(B, K, S)
        instruction = visible & (seg == 1)[:, None, :]  # [B, K, S]
        in_instruction = h.new_zeros(B, K, self.cfg.vocab_size, dtype=torch.float32)
        in_instruction.scatter_add_(2, ids_q, instruction.float())  # [B, K, V]
        hit = in_instruction.gather(2, ids_q) > 0  # [B, K, S]
        count = torch.zeros(B, self.cfg.vocab_size, device=ids.device)
        count.scatter_add_(1, ids, context.float())  # [B, V] occurrences in the context
        weight = self.match_token.float()[ids] / count.gather(1, ids).clamp_min(1)  # [B, S]
        x = hit.float() * (weight * context)[:, None, :]  # [B, K, S]
        w = self.cfg.match_window
        near = F.conv1d(x.reshape(B * K, 1, S), self.match_offsets.float().view(1, 1, -1),
                        padding=w).view(B, K, S)
        return self.match_gate(h).float() * near * context[:, None, :]

    def key_bias(self, h: Tensor, ids: Tensor, seg: Tensor, pos: Tensor, q_pos: Tensor,
                 visible: Tensor) -> Tensor:
        """Score bias [B, K, S] of each instruction source, from the instruction tokens 1..W before
        it that are among the canvas tokens 1..W before the query (its field's key, as a form's
        value follows the word for its field): a learned weight per token, per place before the
        query and per place before the source. ids, seg, pos [B, S]; q_pos [B, K]."""
        B, K, S = visible.shape
        W = self.cfg.key_window
        instruction = visible & (seg == 1)[:, None, :]  # [B, K, S]
        canvas = visible & (seg == 2)[:, None, :]
        near = h.new_zeros(B, K, S, dtype=torch.float32)  # instruction tokens in the query's key
        for c in range(1, W + 1):
            at = canvas & (pos[:, None, :] == (q_pos - c)[:, :, None])  # [B, K, S] the token c before
            word = torch.where(at.any(-1), (at * ids[:, None, :]).sum(-1), -1)  # [B, K]
            near += self.key_reach[c - 1].float() * (instruction & (ids[:, None, :] == word[:, :, None]))
        near = near * self.key_token.float()[ids][:, None, :]
        # a source at s gets offsets[o - 1] from a match at s - o (o = 1..W)
        kernel = self.key_offsets.float().flip(0).view(1, 1, -1)
        before = F.conv1d(F.pad(near.reshape(B * K, 1, S), (W, 0)), kernel)[..., :S].view(B, K, S)
        return self.key_gate(h).float() * before * instruction

    def forward(self, h: Tensor, prev: Tensor, logits: Tensor, src: KV, mask: Tensor | None,
                q_pos: Tensor | None = None) -> Tensor:
        """log(g p_vocab + (1 - g) p_copy) [B, K, V] for states h [B, K, d], their previous
        tokens' embeddings prev [B, K, d], logits [B, K, V], sources over S positions, mask
        [B, K, S] (True = visible; None = all) and, with `key_window`, the queries' positions [B, K]."""
        keys, ids, seg = src[0][:, 0], src[1][:, 0, :, 0].long(), src[1][:, 0, :, 1].long()
        query = torch.cat([self.q(h), self.q_prev(prev)], -1)  # [B, K, 2 hd]
        scores = (query @ keys.transpose(1, 2)).float() / self.cfg.head_dim ** 0.5  # [B, K, S]
        visible = torch.ones_like(scores, dtype=torch.bool) if mask is None else mask
        if self.cfg.match_window:
            scores = scores + self.match_bias(h, ids, seg, visible)
        if self.cfg.key_window:
            scores = scores + self.key_bias(h, ids, seg, src[1][:, 0, :, 2].long(), q_pos, visible)
        hide = (ids == self.cfg.mask_token_id)[:, None, :] | ~visible
        attn = scores.masked_fill(hide, -torch.inf).softmax(-1).nan_to_num(0.0)  # [B, K, S]
        p_copy = torch.zeros_like(logits, dtype=torch.float32)
        p_copy.scatter_add_(2, ids[:, None, :].expand(-1, h.shape[1], -1), attn)
        g = torch.sigmoid(self.gate(h).float())  # [B, K, 1]
        p = g * logits.float().softmax(-1) + (1 - g) * p_copy
        return p.clamp_min(1e-9).log().to(logits.dtype)


def previous_ids(ids: Tensor, positions: Tensor, prefix_ids: Tensor | None, none_id: int) -> Tensor:
    """The token at position p - 1 for each position p [B, T]: the element before it in this
    call when that is position p - 1, else the cached prefix's (agentpair prefixes hold positions
    0..P-1 in order: prefix_ids [B, P]), else none_id. So a packed training row, a cached pass and
    an uncached one all see the same previous tokens."""
    prev = torch.full_like(ids, none_id)
    if prefix_ids is not None and prefix_ids.shape[1]:
        at = (positions - 1).clamp(0, prefix_ids.shape[1] - 1)
        cached = (positions >= 1) & (positions <= prefix_ids.shape[1])
        prev = torch.where(cached, prefix_ids.gather(1, at), prev)
    follows = positions[:, 1:] == positions[:, :-1] + 1
    prev[:, 1:] = torch.where(follows, ids[:, :-1], prev[:, 1:])
    return prev


class DiffusionLM(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        if cfg.tie_embeddings:
            self.lm_head.weight = self.embed.weight
        self.copy = CopyHead(cfg) if cfg.copy_head else None

    def empty_cache(self) -> list[KV]:
        """A cache of no positions for one sequence, in forward's layout (copy entry included)."""
        p = self.embed.weight
        empty = p.new_zeros(1, self.cfg.n_kv_heads, 0, self.cfg.head_dim)
        cache = [(empty, empty)] * self.cfg.n_layers
        if self.copy is not None:
            cache.append((p.new_zeros(1, 1, 0, 2 * self.cfg.head_dim),
                          torch.zeros(1, 1, 0, 3 if self.cfg.key_window else 2, device=p.device)))
        return cache

    def forward(
        self,
        ids: Tensor,  # [B, T]
        positions: Tensor | None = None,  # [B, T]; default 0..T-1
        mask: Tensor | None = None,  # bool [B, T, P+T], True = may attend; None = all
        prefix: list[KV] | None = None,  # per layer (then the copy head's), P cached positions
        logits_at: Tensor | None = None,  # [B, K] positions to compute logits for; None = all
        segments: Tensor | None = None,  # [B, T] 0 context, 1 instruction, 2 canvas; None = 0
        previous: Tensor | None = None,  # [B, T] the token before each position; None = from ids and prefix
    ) -> tuple[Tensor, list[KV]]:
        """Logits [B, K or T, V] and this call's cache entries (keys/values per layer, then the
        copy head's sources). With a copy head the logits are log-probabilities."""
        if positions is None:
            positions = torch.arange(ids.shape[1], device=ids.device).expand_as(ids)
        x = self.embed(ids)
        rot = rope_angles(positions, self.cfg.head_dim, self.cfg.rope_theta)
        kvs = []
        for i, block in enumerate(self.blocks):
            x, kv = block(x, rot, mask, None if prefix is None else prefix[i])
            kvs.append(kv)
        if self.copy is None:
            if logits_at is not None:
                x = x.gather(1, logits_at[:, :, None].expand(-1, -1, x.shape[-1]))  # [B, K, d]
            return self.lm_head(self.norm(x)), kvs
        h = self.norm(x)  # [B, T, d]
        prefix_ids = None if prefix is None else prefix[-1][1][:, 0, :, 0].long()  # [B, P]
        if previous is None:
            previous = previous_ids(ids, positions, prefix_ids, self.cfg.mask_token_id)
        prev = self.embed(previous)
        seg = torch.zeros_like(ids) if segments is None else segments
        src = self.copy.sources(h, prev, ids, seg, positions)
        kvs.append(src)
        if prefix is not None:
            src = (torch.cat([prefix[-1][0], src[0]], 2), torch.cat([prefix[-1][1], src[1]], 2))
        q_pos = positions
        if logits_at is not None:
            h, prev = (t.gather(1, logits_at[:, :, None].expand(-1, -1, t.shape[-1]))
                       for t in (h, prev))  # [B, K, d]
            q_pos = positions.gather(1, logits_at)
            if mask is not None:
                mask = mask.gather(1, logits_at[:, :, None].expand(-1, -1, mask.shape[-1]))
        return self.copy(h, prev, self.lm_head(h), src, mask, q_pos), kvs

    def init_weights(self, seed: int, std: float = 0.02) -> None:
        """Random weights (tests, benchmarks): normal(0, std) matrices, unit norms, zero biases."""
        device = self.embed.weight.device
        gen = torch.Generator(device=device).manual_seed(seed)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith("norm.weight"):
                    p.fill_(1.0)
                elif name.endswith(".bias"):
                    p.zero_()
                else:
                    p.normal_(0.0, std, generator=gen)
