"""Planner calls decoded side by side: one llama.cpp context whose cache holds a sequence per slot,
and a round loop that puts the tokens every running call waits on (a prompt, the pending and
guessed tokens of agentpair.llm.fast_forward) into one forward.

On a CPU a forward of a small model reads all its weights whatever it evaluates, so the tokens of
four calls cost far less in one forward than in four (35th sitting: 2.0x a decoded token at four
sequences). A call takes the free slot whose cache shares the longest prefix with its prompt (a
run's next call finds its last one), and gives it back when its answer ends. Sequence 0 stays the
Llama object's own (`Llama.eval`, the stock generator), so slots are sequences 1..n.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import llama_cpp
import numpy as np

from agentpair.llm.fast_forward import cached_prefix, logits_at

GATHER_S = 0.003  # how long a round waits for running calls that have not asked yet (they sample in ~1 ms)


@dataclasses.dataclass(eq=False)
class Ask:
    """A slot's request for one forward: `batch` after the `start` tokens it holds, logits at `rows`."""

    slot: Slot
    batch: list[int]
    rows: list[int]
    start: int
    done: int = 0  # tokens evaluated so far (a long prompt takes several rounds)
    logits: list[np.ndarray] = dataclasses.field(default_factory=list)
    error: BaseException | None = None
    ready: threading.Event = dataclasses.field(default_factory=threading.Event)


class Slot:
    """One sequence of the shared cache, as agentpair.llm.fast_forward.Cache: what it holds, and
    forwards through the rounds of its Slots."""

    def __init__(self, slots: Slots, seq: int) -> None:
        self.slots, self.seq = slots, seq
        self.tokens: list[int] = []
        self.shared = 0  # forwards of the running call that evaluated other calls' tokens too

    def held(self) -> Sequence[int]:
        return self.tokens

    def keep(self, n: int) -> None:
        del self.tokens[n:]  # the cells past n are dropped before the slot's next forward

    def forward(self, batch: Sequence[int], rows: Sequence[int]) -> list[np.ndarray]:
        ask = Ask(self, list(batch), list(rows), start=len(self.tokens))
        self.slots.submit(ask)
        ask.ready.wait()
        if ask.error is not None:
            raise ask.error
        self.tokens.extend(batch)
        return ask.logits


class Slots:
    """`n` slots over `llm`'s context (made with n_seq_max > n) and the thread that runs the rounds.
    `decoding`: held around each forward, so that a stock call on sequence 0 can keep the context
    to itself while it runs."""

    def __init__(self, llm: Any, n: int) -> None:
        self.llm = llm
        self.free = [Slot(self, seq) for seq in range(1, n + 1)]
        self.running = 0  # calls holding a slot
        self.asks: list[Ask] = []
        self.changed = threading.Condition()
        self.decoding = threading.Lock()
        self.batch = llama_cpp.llama_batch_init(llm.n_batch, 0, 1)  # (n_batch tokens, one sequence id each)
        threading.Thread(target=self._serve, name="planner-slots", daemon=True).start()

    @contextlib.contextmanager
    def slot(self, prompt: Sequence[int]) -> Iterator[Slot]:
        """A free slot for a call with this prompt (the one whose cache shares most of it), until
        the call ends."""
        with self.changed:
            self.changed.wait_for(lambda: bool(self.free))
            slot = max(self.free, key=lambda s: cached_prefix(s.tokens, prompt) if s.tokens else -1)
            self.free.remove(slot)
            self.running += 1
            slot.shared = 0
        try:
            yield slot
        finally:
            with self.changed:
                self.free.append(slot)
                self.running -= 1
                self.changed.notify_all()

    def submit(self, ask: Ask) -> None:
        with self.changed:
            self.asks.append(ask)
            self.changed.notify_all()

    def _serve(self) -> None:
        while True:
            with self.changed:
                self.changed.wait_for(lambda: bool(self.asks))
                self.changed.wait_for(lambda: len(self.asks) >= self.running, timeout=GATHER_S)
                taken = self._take()
            try:
                with self.decoding:
                    self._decode(taken)
            except Exception as exc:  # the calls of this round fail, the server goes on
                for ask, _, _ in taken:
                    ask.error = exc
            with self.changed:
                for ask, _, end in taken:
                    ask.slot.shared += len(taken) > 1
                    ask.done = end
                    if end == len(ask.batch) or ask.error is not None:
                        self.asks.remove(ask)
                        ask.ready.set()

    def _take(self) -> list[tuple[Ask, int, int]]:
        """This round's share of each ask: (ask, first, past last batch index), n_batch tokens in all,
        the asks in the order they came (a long prompt goes on in the next round)."""
        room, taken = self.llm.n_batch, []
        for ask in self.asks:
            n = min(room, len(ask.batch) - ask.done)
            if n == 0:
                break
            taken.append((ask, ask.done, ask.done + n))
            room -= n
        return taken

    def _decode(self, taken: list[tuple[Ask, int, int]]) -> None:
        ctx, batch, n = self.llm._ctx, self.batch, 0
        memory = ctx.memory
        wanted: list[tuple[Ask, int]] = []  # (ask, batch index) of each row whose logits are read
        for ask, first, last in taken:
            if first == 0:  # what the slot held past its start was dropped (a refused guess, another prompt)
                llama_cpp.llama_memory_seq_rm(memory, ask.slot.seq, ask.start, -1)
            rows = set(ask.rows)
            for i in range(first, last):
                batch.token[n], batch.pos[n], batch.n_seq_id[n] = ask.batch[i], ask.start + i, 1
                batch.seq_id[n][0] = ask.slot.seq
                batch.logits[n] = i in rows
                if i in rows:
                    wanted.append((ask, n))
                n += 1
        batch.n_tokens = n
        if llama_cpp.llama_decode(ctx.ctx, batch) == 1:  # no room in the cache: free the idle slots' cells
            with self.changed:
                for slot in self.free:
                    llama_cpp.llama_memory_seq_rm(memory, slot.seq, -1, -1)
                    slot.tokens.clear()
            if (code := llama_cpp.llama_decode(ctx.ctx, batch)) != 0:
                raise RuntimeError(f"llama_decode returned {code}: the planner's cache is full ({self.llm.n_ctx()} "
                                   "tokens for all slots)")
        for ask, index in wanted:
            ask.logits.append(logits_at(ctx, index, self.llm.n_vocab()))
