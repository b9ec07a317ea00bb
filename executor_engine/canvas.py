"""The canvas: fixed tokens plus masked slots, and what each slot position may hold.

A slot is `room` consecutive positions; unused room holds the pad token. `allowed(i)` gives the
tokens slot position i may take given what is already committed, so every completion is valid.
"""

from __future__ import annotations

import json
from typing import Any

import torch
from tokenizers import Tokenizer
from torch import Tensor


class Vocab:
    """Token texts and boolean token classes [V] shared by all slots, with a cache of masks.
    Masks live on the CPU whatever device the model runs on: a decoder brings each forward's
    logits there once, instead of paying a GPU launch and sync for every small mask operation."""

    def __init__(self, tokenizer: Tokenizer, vocab_size: int, pad_id: int, mask_id: int):
        self.tokenizer, self.pad_id, self.mask_id = tokenizer, pad_id, mask_id
        n = tokenizer.get_vocab_size(with_added_tokens=True)
        special = {i for i, t in tokenizer.get_added_tokens_decoder().items() if t.special}
        decoded = tokenizer.decode_batch([[i] for i in range(n)], skip_special_tokens=False)
        self.texts: list[str | None] = [
            None if i in special or not s or "\ufffd" in s else s for i, s in enumerate(decoded)
        ]
        self.texts += [None] * (vocab_size - n)
        self.char_len = torch.tensor([len(s) if s else -1 for s in self.texts])
        self.classes = {
            "text": self.char_len > 0,
            "D": self._where(lambda s: s.isascii() and s.isdigit()),
            "-": self._where(lambda s: s == "-"),
            ".": self._where(lambda s: s == "."),
            "pad": self.ids_mask([pad_id]),
        }
        self._class_of = {int(t): name for name in ("D", "-", ".", "pad")
                          for t in self.classes[name].nonzero().flatten().tolist()}
        self._cache: dict[Any, Tensor] = {}

    def _where(self, pred: Any) -> Tensor:
        return torch.tensor([bool(s) and pred(s) for s in self.texts])

    def ids_mask(self, ids: list[int]) -> Tensor:
        mask = torch.zeros(len(self.texts), dtype=torch.bool)
        mask[torch.tensor(ids, dtype=torch.long)] = True
        return mask

    def cached(self, key: Any, build: Any) -> Tensor:
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return [e.ids for e in self.tokenizer.encode_batch(texts, add_special_tokens=False)]

    def token_class(self, tok: int) -> str | None:
        """The number-syntax class of a token: "D" (digits), "-", ".", "pad" or None."""
        return self._class_of.get(tok)


class Slot:
    """`room` masked positions whose committed tokens decode to one value."""

    def __init__(self, vocab: Vocab, room: int):
        self.vocab, self.room = vocab, room
        self.tokens: list[int | None] = [None] * room

    def allowed(self, i: int) -> Tensor:  # bool [V]
        raise NotImplementedError

    def commit(self, i: int, tok: int) -> None:
        self.tokens[i] = tok

    def content(self) -> list[int]:
        """Committed tokens without pads (every position committed)."""
        return [t for t in self.tokens if t != self.vocab.pad_id]

    def text(self) -> str:
        return "".join(self.vocab.texts[t] for t in self.content())

    def value(self) -> Any:
        return self.text()


class TextSlot(Slot):
    """Free text (string values, code holes): text tokens, at most `max_chars` characters and, where
    the room allows, at least `min_chars`."""

    def __init__(self, vocab: Vocab, room: int, max_chars: int | None = None, min_chars: int = 0):
        super().__init__(vocab, room)
        self.max_chars, self.min_chars = max_chars, min_chars

    def allowed(self, i: int) -> Tensor:
        """Text ends at its first pad: pad only after a pad, no pad before committed text, and none
        until the text before it is committed and holds min_chars."""
        v = self.vocab
        if v.pad_id in self.tokens[:i]:
            return v.classes["pad"]
        pad_ok = all(t in (None, v.pad_id) for t in self.tokens[i + 1:]) and (not self.min_chars or (
            None not in self.tokens[:i] and sum(len(v.texts[t]) for t in self.tokens[:i]) >= self.min_chars))
        if self.max_chars is None:
            return v.cached(("text", pad_ok), lambda: v.classes["text"] | pad_ok & v.classes["pad"])
        left = self.max_chars - sum(len(v.texts[t]) for t in self.tokens if t not in (None, v.pad_id))
        return v.cached(("text<=", left, pad_ok), lambda: (v.classes["text"] & (v.char_len <= left))
                        | pad_ok & v.classes["pad"])


# Number syntax -?D+(.D+)? as a DFA over token classes; pads leave the state unchanged.
_NUMBER_DFA = {(0, "D"): 2, (0, "-"): 1, (1, "D"): 2, (2, "D"): 2, (2, "."): 3, (3, "D"): 4,
               (4, "D"): 4}
_ACCEPT = {2, 4}


class NumberSlot(Slot):
    """An integer or a decimal number: digit tokens, one leading minus, one dot for numbers."""

    def __init__(self, vocab: Vocab, room: int, integer: bool, signed: bool):
        super().__init__(vocab, room)
        self.integer = integer
        self.symbols = ("D",) + ("-",) * signed + (() if integer else (".",)) + ("pad",)

    def _step(self, states: set[int], sym: str) -> set[int]:
        if sym == "pad":
            return set(states)
        return {_NUMBER_DFA[(s, sym)] for s in states if (s, sym) in _NUMBER_DFA}

    def _options(self, i: int) -> tuple[str, ...]:
        t = self.tokens[i]
        return self.symbols if t is None else (self.vocab.token_class(t),)

    def allowed(self, i: int) -> Tensor:
        reach = [{0}]  # states reachable before position j
        for j in range(i):
            reach.append(set().union(*(self._step(reach[-1], s) for s in self._options(j))))
        live = set(_ACCEPT)  # states from which positions i+1.. can still end accepted
        for j in range(self.room - 1, i, -1):
            live = {s for s in range(5) for o in self._options(j) if self._step({s}, o) & live}
        ok = frozenset(o for o in self.symbols if self._step(reach[i], o) & live)
        v = self.vocab
        return v.cached(("num", ok), lambda: torch.stack([v.classes[o] for o in ok]).any(0))

    def value(self) -> int | float:
        text = self.text()
        return int(text) if self.integer else (float(text) if "." in text else int(text))


class ChoiceSlot(Slot):
    """Exactly one of given values, each written as its token sequence padded to the room."""

    def __init__(self, vocab: Vocab, values: list[Any], texts: list[str]):
        seqs = vocab.encode_batch(texts)
        room = max(len(s) for s in seqs)
        super().__init__(vocab, room)
        self.values = values
        self.seqs = [s + [vocab.pad_id] * (room - len(s)) for s in seqs]
        self.live = self.seqs  # the sequences that agree with every committed token
        self.tied: list[ChoiceSlot] = []  # choices taking their value from the same place as this one
        self.apart: list[ChoiceSlot] = []  # choices taking values other than this one's
        self.reads = {tuple(s): _reads(v) for s, v in zip(self.seqs, values)}  # sequence -> what it reads as

    def commit(self, i: int, tok: int) -> None:
        super().commit(i, tok)
        self.live = [s for s in self.live if s[i] == tok]
        places = self.places()
        for other in self.tied:  # they keep to the places still open here; where a distinct partner
            # took the value there, the place wins (a choice is never left with no value)
            at = [s for k, s in enumerate(other.seqs) if k in places and other.agrees(s)]
            other.live = [s for s in at if s in other.live] or at
        if len(self.live) == 1:  # settled: the value is no longer the others' to take, unless it is all they have
            mine = self.shown(self.live[0])
            for other in self.apart:
                rest = [s for s in other.live if other.shown(s) != mine]
                other.live = rest or other.live

    def agrees(self, seq: list[int]) -> bool:
        """The value's tokens are those committed so far."""
        return all(t is None or t == s for t, s in zip(self.tokens, seq))

    def shown(self, seq: list[int]) -> str:
        """What one of its values reads as, whatever its JSON type and its choice's room (a value's
        tokens are padded to it)."""
        return self.reads[tuple(seq)]

    def places(self) -> set[int]:
        """Where among its values the live ones are."""
        return {k for k, s in enumerate(self.seqs) if s in self.live}

    def allowed(self, i: int) -> Tensor:
        ids = sorted({s[i] for s in self.live})
        return self.vocab.cached(("ids", tuple(ids)), lambda: self.vocab.ids_mask(ids))

    def value(self) -> Any:
        return self.values[self.seqs.index(list(self.tokens))]


def _reads(value: Any) -> str:
    """A value as a page shows it: 16, 16.0 and "16" alike."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, str) else json.dumps(value)


def set_apart(slots: list[ChoiceSlot]) -> None:
    """These choices take different values: one that settles takes its value from the others."""
    for slot in slots:
        slot.apart = [other for other in slots if other is not slot]


def tie(slots: list[ChoiceSlot]) -> None:
    """These choices (as many values each) take their values from the same place in their lists."""
    for slot in slots:
        slot.tied = [other for other in slots if other is not slot]


class Canvas:
    """Canvas token ids (mask id at open slot positions) and the slot owning each position."""

    def __init__(self, vocab: Vocab):
        self.vocab = vocab
        self.ids: list[int] = []
        self.owner: dict[int, tuple[Slot, int]] = {}  # canvas position -> (slot, index in slot)
        self.records: list[tuple[int, int]] = []  # [start, end) of each array item and object property

    def add_text(self, text: str) -> None:
        self.ids += self.vocab.encode(text)

    def add_slot(self, slot: Slot) -> Slot:
        for i in range(slot.room):
            self.owner[len(self.ids)] = (slot, i)
            self.ids.append(self.vocab.mask_id)
        return slot

    def masked(self) -> list[int]:
        return [p for p, (slot, i) in self.owner.items() if slot.tokens[i] is None]

    def open(self) -> list[int]:
        """The masked positions a step may choose: all of a text or number slot's, but only the
        first of a choice's, so a value is picked from its start and never cut short by a pad
        committed at its end before its words are known."""
        out, seen = [], set()
        for p in self.masked():
            slot = self.owner[p][0]
            if isinstance(slot, ChoiceSlot):
                if id(slot) in seen:
                    continue
                seen.add(id(slot))
            out.append(p)
        return out

    def open_records(self) -> list[int] | None:
        """The positions of every record (array item or property, the innermost holding it) that still has a
        masked position; None where a masked position lies in no record (or none is masked)."""
        spans = []
        for p in self.masked():
            holding = [r for r in self.records if r[0] <= p < r[1]]
            if not holding:
                return None
            spans.append(min(holding, key=lambda r: r[1] - r[0]))
        return sorted({q for start, end in set(spans) for q in range(start, end)}) or None

    def allowed(self, positions: list[int]) -> Tensor:  # bool [len(positions), V]
        return torch.stack([self.owner[p][0].allowed(self.owner[p][1]) for p in positions])

    def commit(self, pos: int, tok: int) -> None:
        slot, i = self.owner[pos]
        slot.commit(i, tok)
        self.ids[pos] = tok

    def commit_forced(self) -> int:
        """Commit, left to right, each masked position that allows one token only (a text
        slot's pads after its first pad, a choice narrowed to one value); returns how many.
        No forward can choose otherwise, so a pass is never spent on them."""
        n = 0
        for pos in self.masked():
            slot, i = self.owner[pos]
            only = slot.allowed(i).nonzero()
            if len(only) == 1:
                self.commit(pos, int(only[0]))
                n += 1
        return n
