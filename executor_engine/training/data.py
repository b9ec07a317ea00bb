"""Training data for the executor: tokenizer training, target canvases built with the engine's
own template compiler (so fixed tokens match inference), and page-packed training batches."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from torch import Tensor

from executor_engine.canvas import ChoiceSlot, Slot, Vocab
from executor_engine.template import ARRAY_ROOM, HOLE, Compiled, TemplateError, _SchemaCompiler, \
    compile_schema, compile_template, pointer_child

SPECIALS = ["<|pad|>", "<|mask|>"]
# Words and digit runs stay whole and never carry the space before them, so a name is the same
# tokens in context, instruction and slot (`Click Pricing` and `link "Pricing"` share `Pricing`);
# runs of punctuation and whitespace merge freely (snapshot structure costs few tokens).
PRE_SPLIT = r"\[ref=e|\[cursor=pointer\]|\[active\]|\p{L}+|\p{N}+|[^\p{L}\p{N}\[]+|\["


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def train_tokenizer(texts: Iterable[str], vocab_size: int) -> Tokenizer:
    """Byte-level BPE with <|pad|> (id 0) and <|mask|> (id 1) as special tokens."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(PRE_SPLIT), "isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    return tok


def record_texts(records: list[dict[str, Any]]) -> Iterable[str]:
    """Every text a tokenizer should learn from: contexts once each, instructions, targets."""
    seen: set[str] = set()
    for r in records:
        if r["context"] not in seen:
            seen.add(r["context"])
            yield r["context"]
        yield r["instruction"]
        yield json.dumps(r["target"], ensure_ascii=False)
        yield r.get("template") or json.dumps(r["schema"])


def compile_record(vocab: Vocab, r: dict[str, Any]) -> Compiled:
    if r.get("template") is not None:
        return compile_template(vocab, r["template"], r.get("allowed", {}))
    return compile_schema(vocab, r["schema"], r.get("allowed", {}))


def slot_targets(vocab: Vocab, r: dict[str, Any]) -> list[Any]:
    """The target value of every slot, in canvas order (str for text/number slots)."""
    allowed, target = r.get("allowed", {}), r["target"]
    if r.get("template") is not None:
        return [target[m.group(1)] for m in HOLE.finditer(r["template"])]
    resolver, out = _SchemaCompiler(vocab, r["schema"], allowed), []

    def walk(schema: dict[str, Any], value: Any, where: str) -> None:
        schema = resolver.resolve(schema, where)
        kind = schema.get("type")
        ranged = kind == "integer" and "minimum" in schema and "maximum" in schema
        if where in allowed or "const" in schema or "enum" in schema or kind == "boolean" or ranged:
            out.append(("choice", value))
        elif kind == "object":
            for key, sub in schema.get("properties", {}).items():
                walk(sub, value[key], pointer_child(where, key))
        elif kind == "array":  # every item filled: an absent item's slots would have no target
            lo = schema.get("minItems", 0)
            if len(value) != schema.get("maxItems", max(ARRAY_ROOM, lo)):
                raise TemplateError(f"{where}: an array target fills every item the canvas has")
            for i, item in enumerate(value):
                if i >= lo:
                    out.append(("choice", True))  # the item's "present" mark
                walk(schema.get("items", {"type": "string"}), item, f"{where}/{i}")
        elif kind in ("string", "integer", "number"):
            out.append(value if kind == "string" else json.dumps(value))
        elif kind != "null":
            raise TemplateError(f"{where}: {kind} targets are not supported in training data")

    walk(r["schema"], target, "")
    return out


def _slot_tokens(vocab: Vocab, slot: Slot, target: Any) -> list[int]:
    if isinstance(slot, ChoiceSlot):
        value = target[1] if isinstance(target, tuple) else target
        for v, seq in zip(slot.values, slot.seqs):
            if v == value and type(v) is type(value):
                return seq
        raise ValueError(f"{value!r} is not an allowed value")
    text = target[1] if isinstance(target, tuple) else str(target)
    ids = vocab.encode(text)
    if len(ids) > slot.room:
        raise ValueError(f"{text!r} needs {len(ids)} tokens, the slot has {slot.room}")
    return ids + [vocab.pad_id] * (slot.room - len(ids))


@dataclass
class Encoded:
    """One example: token ids of its parts and which canvas positions are slots."""

    context: list[int]
    instruction: list[int]
    canvas: list[int]
    slots: list[int]  # canvas positions owned by a slot
    slot_of: list[int]  # for each of those, which slot (0, 1, ... in canvas order)
    record: dict[str, Any]  # the dataset record it encodes


def encode_record(vocab: Vocab, r: dict[str, Any]) -> Encoded:
    """The record's target canvas; ValueError when the target does not fit its canvas."""
    canvas = compile_record(vocab, r).canvas
    slots: list[Slot] = []
    owner, slot_of = sorted(canvas.owner), []
    for pos in owner:
        if not slots or canvas.owner[pos][0] is not slots[-1]:
            slots.append(canvas.owner[pos][0])
        slot_of.append(len(slots) - 1)
    targets = slot_targets(vocab, r)
    if len(targets) != len(slots):
        raise ValueError(f"{len(targets)} targets for {len(slots)} slots")
    ids = list(canvas.ids)
    for slot, target in zip(slots, targets):
        positions = [p for p in sorted(canvas.owner) if canvas.owner[p][0] is slot]
        for p, t in zip(positions, _slot_tokens(vocab, slot, target)):
            ids[p] = t
    return Encoded(vocab.encode(r["context"] + "\n"), vocab.encode(r["instruction"] + "\n"),
                   ids, owner, slot_of, r)


def group_by_context(encoded: list[Encoded]) -> list[list[Encoded]]:
    groups: dict[tuple[int, ...], list[Encoded]] = {}
    for e in encoded:
        groups.setdefault(tuple(e.context), []).append(e)
    return list(groups.values())


NAME_SHARE = 0.05  # a word on fewer than this share of training pages counts as a name
WORD = re.compile(r"\b[A-Za-z]+\b")
RENAMED_FIELDS = ("context", "instruction", "template", "schema", "target", "allowed")


def json_strings(value: Any) -> Iterable[str]:
    """Every string in a JSON value, dict keys excepted."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from json_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from json_strings(v)


def _keys(value: Any) -> Iterable[str]:
    if isinstance(value, dict):
        yield from value
        for v in value.values():
            yield from _keys(v)
    elif isinstance(value, list):
        for v in value:
            yield from _keys(v)


def _map_strings(value: Any, f: Any) -> Any:
    if isinstance(value, str):
        return f(value)
    if isinstance(value, dict):
        return {k: _map_strings(v, f) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(v, f) for v in value]
    return value


def page_words(group: list[Encoded]) -> set[str]:
    """Lower-cased words of a page's records (the shared context read once)."""
    words = {w.lower() for w in WORD.findall(group[0].record["context"])}
    for e in group:
        for field in RENAMED_FIELDS[1:]:
            words.update(w.lower() for text in json_strings(e.record.get(field))
                         for w in WORD.findall(text))
    return words


def made_up_word(rng: random.Random, length: int) -> str:
    """Lower-case consonant-vowel syllables, about `length` letters."""
    return "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou")
                   for _ in range(max(1, round(length / 2))))


def cased_like(word: str, like: str) -> str:
    return word.upper() if like.isupper() and len(like) > 1 else \
        word.capitalize() if like[0].isupper() else word


class Renamer:
    """Name anonymisation, as in reading-comprehension training: on a renamed page every name
    (a word on fewer than NAME_SHARE of training pages) becomes a made-up word, the same one in
    the context, the instructions, the templates and the targets. The answer must then be
    copied from what the model reads, not recalled; and a made-up word splits into several
    tokens, as the held-out split's unseen names do (training names are single tokens)."""

    def __init__(self, vocab: Vocab, groups: list[list[Encoded]]):
        self.vocab = vocab
        pages: Counter[str] = Counter()
        for group in groups:
            pages.update(page_words(group))
        self.names = {w for w, n in pages.items() if n < NAME_SHARE * len(groups)}

    def __call__(self, group: list[Encoded], rng: random.Random) -> list[Encoded]:
        """The group (one context and its examples) renamed and encoded again; the group as it
        was if a renamed target outgrows its slot."""
        keys = {k.lower() for e in group for f in RENAMED_FIELDS for k in _keys(e.record.get(f))}
        names = sorted(page_words(group) & self.names - keys)
        new = {w: made_up_word(rng, len(w)) for w in names}

        def rename(text: str) -> str:
            return WORD.sub(lambda m: cased_like(new[m[0].lower()], m[0])
                            if m[0].lower() in new else m[0], text)

        try:
            return [encode_record(self.vocab, {**e.record, **{
                f: _map_strings(e.record[f], rename) for f in RENAMED_FIELDS if f in e.record}})
                for e in group]
        except ValueError:
            return group


@dataclass
class Batch:
    """Contexts (one row per page) and, per page, one row packing the examples that read it."""

    context: Tensor  # [B, P] context ids, right-padded
    context_mask: Tensor  # bool [B, P, P], True = may attend
    ids: Tensor  # [B, L] [ins 1][canvas 1][ins 2]... (masked slot tokens for diffusion)
    positions: Tensor  # [B, L] each example's positions start right after its context
    segments: Tensor  # [B, L] 1 instruction, 2 canvas, 3 padding
    mask: Tensor  # bool [B, L, P + L]
    targets: Tensor  # [B, L] token to predict at each position, -100 = no loss
    weights: Tensor  # [B, L] 1 / (the example's target count) where there is a target, else 0


def _pad(rows: list[list[int]], fill: int) -> Tensor:
    T = max(map(len, rows))
    return torch.tensor([r + [fill] * (T - len(r)) for r in rows])


def _example(e: Encoded, arch: str, mask_id: int, rng: random.Random) -> tuple[list[int], list[int]]:
    """Inputs and targets of one example's instruction + canvas."""
    inp, out = list(e.instruction + e.canvas), [-100] * (len(e.instruction) + len(e.canvas))
    slots = [len(e.instruction) + s for s in e.slots]
    if arch == "diffusion":
        t = rng.random()
        for s in [s for s in slots if rng.random() < t] or [rng.choice(slots)]:
            out[s], inp[s] = inp[s], mask_id
    else:
        for s in slots:
            out[s - 1] = inp[s]
    return inp, out


def _weights(e: Encoded, out: list[int], shift: int) -> list[float]:
    """Loss weight of each target (predicting position i + shift): 1 / (slots with a target x
    that slot's targets)."""
    slot_at = dict(zip((len(e.instruction) + s for s in e.slots), e.slot_of))
    at = [slot_at[i + shift] if t != -100 else None for i, t in enumerate(out)]
    counts = {k: at.count(k) for k in set(at) - {None}}
    return [0.0 if k is None else 1.0 / (len(counts) * counts[k]) for k in at]


def pack(groups: list[list[Encoded]], arch: str, mask_id: int, rng: random.Random) -> Batch:
    """Each context is encoded once and every example of its group attends to it and to itself
    only, exactly as at inference (the context never attends to instruction or canvas).

    diffusion: slot positions masked with a per-example ratio t ~ U(0, 1), loss where masked.
    ar: causal; the logit before each slot position predicts it (targets shifted left by one).
    Every example weighs the same in the loss, and within it every slot with a target, however
    many tokens it has: the one token of a `submit` flag counts as much as the twenty (mostly
    pad) of the text typed before it.
    """
    ctx_len = torch.tensor([len(g[0].context) for g in groups])
    context = _pad([g[0].context for g in groups], 0)  # [B, P]
    P = context.shape[1]
    valid = torch.arange(P)[None] < ctx_len[:, None]  # [B, P]
    ctx_mask = valid[:, None, :].expand(-1, P, -1)
    if arch == "ar":
        ctx_mask = ctx_mask & torch.ones(P, P, dtype=torch.bool).tril()
    ctx_mask = ctx_mask | torch.eye(P, dtype=torch.bool)  # padding rows attend to themselves
    ids, tgt, pos, grp, part, wts = [], [], [], [], [], []
    for b, group in enumerate(groups):
        row: list[list] = [[], [], [], [], [], []]
        for k, e in enumerate(group):
            inp, out = _example(e, arch, mask_id, rng)
            n, weight = len(inp), _weights(e, out, 1 if arch == "ar" else 0)
            for acc, new in zip(row, (inp, out, list(range(n)), [k] * n,
                                      [1] * len(e.instruction) + [2] * len(e.canvas), weight)):
                acc += new
        for acc, r in zip((ids, tgt, pos, grp, part, wts), row):
            acc.append(r)
    ids_t, tgt_t, grp_t, part_t = _pad(ids, 0), _pad(tgt, -100), _pad(grp, -1), _pad(part, 3)
    pos_t = _pad(pos, 0)  # [B, L] offsets inside each example
    L = ids_t.shape[1]
    same = (grp_t[:, None, :] == grp_t[:, :, None]) & (grp_t[:, None, :] >= 0)  # [B, L, L]
    if arch == "diffusion":
        own = same & (part_t[:, None, :] <= part_t[:, :, None])
    else:
        own = same & (pos_t[:, None, :] <= pos_t[:, :, None])
    own = own | torch.eye(L, dtype=torch.bool)
    prefix = valid[:, None, :].expand(-1, L, -1)  # [B, L, P]
    return Batch(context, ctx_mask, ids_t, ctx_len[:, None] + pos_t, part_t,
                 torch.cat([prefix, own], 2), tgt_t, _pad(wts, 0.0))
