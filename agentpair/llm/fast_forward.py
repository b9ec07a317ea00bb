"""Greedy decoding under a JSON schema with llguidance, the tokens the schema forces evaluated in one
batch with the next sampled token instead of one forward each.

In a plan two tokens in three are forced by the schema (keys, punctuation, the rest of an enumerated
name once its first tokens are chosen). llama.cpp's grammar sampler still runs a full forward for each;
here llguidance's matcher says which tokens are forced (`compute_ff_tokens`), they are yielded at once,
and evaluated together with the next sampled token: on this 2-core CPU a forward of 8 tokens costs
about what 3 single-token forwards do. Sampling is what llama.cpp's chain does at temperature 0: the
repetition penalties over the last generated tokens, then the best token the grammar allows.
JSON is written with fixed separators (", " and ": ", no other whitespace), the format plans are
trained on. Tokens guessed from text already seen (agentpair.llm.drafts) ride in the same forward and
are kept where the model picks them itself: on 40 held-out plan calls 39% fewer forwards, decoding
16% faster. A forward of several tokens rounds differently from a forward of one, so a near-tie can
go the other way than token by token (as with the forced tokens batched); plans stay as often right.
"""

from __future__ import annotations

import collections
import functools
import warnings
from collections.abc import Callable, Generator, Sequence
from typing import Any, Protocol

import numpy as np

from agentpair.llm import drafts

JSON_FORMAT = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}
Counter = Callable[[str, int, float], None]  # (kind, tokens, started): where time went, from `started` on


@functools.lru_cache(maxsize=4)
def tokenizer(vocab: int) -> Any:
    """llguidance's view of a llama.cpp vocabulary (its address), built once (about 0.2 s)."""
    from llguidance.llamacpp import lltokenizer_from_vocab

    with warnings.catch_warnings():  # it reads each token's attributes by a name llama-cpp-python deprecates
        warnings.simplefilter("ignore", DeprecationWarning)
        return lltokenizer_from_vocab(vocab)


def tokenizer_of(llm: Any) -> Any:
    vocab = llm._model.vocab  # llama_vocab_p: an int or a c_void_p, by llama-cpp-python's version
    return tokenizer(vocab if isinstance(vocab, int) else vocab.value)


@functools.lru_cache(maxsize=64)
def compiled(json_schema: str) -> str:
    """The llguidance grammar of a JSON schema (ValueError where llguidance cannot express it)."""
    import llguidance

    grammar = llguidance.LLMatcher.grammar_from_json_schema(json_schema, defaults=JSON_FORMAT)
    error = llguidance.LLMatcher.validate_grammar(grammar)
    if error:
        raise ValueError(error)
    return grammar


class Penalties:
    """llama.cpp's repetition penalties: for each token among the last `last_n` generated, a positive
    logit divided by `repeat` (a negative one multiplied), less count * `frequency` and `presence`."""

    def __init__(self, last_n: int, repeat: float, frequency: float, presence: float) -> None:
        self.recent: collections.deque[int] = collections.deque(maxlen=last_n)
        self.repeat, self.frequency, self.presence = repeat, frequency, presence
        self.active = last_n > 0 and (repeat != 1.0 or frequency != 0.0 or presence != 0.0)

    def accept(self, tokens: Sequence[int]) -> None:
        self.recent.extend(tokens)

    def apply(self, logits: np.ndarray) -> None:  # logits: (n_vocab,), changed in place
        if not self.active or not self.recent:
            return
        ids, counts = np.unique(np.fromiter(self.recent, dtype=np.int64), return_counts=True)
        chosen = logits[ids]
        chosen = np.where(chosen <= 0, chosen * self.repeat, chosen / self.repeat)
        logits[ids] = chosen - counts * self.frequency - self.presence


def allowed(matcher: Any, vocab_size: int) -> np.ndarray:
    """The tokens the grammar allows next: (vocab_size,) bool."""
    from llguidance.numpy import allocate_token_bitmask, fill_next_token_bitmask

    mask = allocate_token_bitmask(1, vocab_size)  # (1, ceil(vocab_size / 32)) int32: bit t % 32 of word t // 32
    fill_next_token_bitmask(matcher, mask)
    bits = (mask[0].view(np.uint32)[:, None] >> np.arange(32, dtype=np.uint32)) & 1  # (words, 32)
    return bits.reshape(-1)[:vocab_size].astype(bool)


def pick(logits: np.ndarray, matcher: Any) -> int:
    """The best token the grammar allows: the top one if allowed (most are), else the best of the mask."""
    top = int(np.argmax(logits))
    if matcher.validate_tokens([top]) == 1:
        return top
    return int(np.argmax(np.where(allowed(matcher, logits.shape[0]), logits, -np.inf)))


def only_the_end(matcher: Any, vocab_size: int, end: int) -> bool:
    """Whether the grammar is complete and allows nothing but the end token (no forward needed)."""
    if not matcher.is_accepting():
        return False
    next_ones = allowed(matcher, vocab_size)
    return bool(next_ones[end]) and int(next_ones.sum()) == 1


def cached_prefix(held: Sequence[int], tokens: Sequence[int]) -> int:
    """How many of the prompt's tokens a cache holding `held` has already (one at least is evaluated
    again: its logits are needed)."""
    same = 0
    for a, b in zip(held, tokens):
        if a != b:
            break
        same += 1
    return min(same, len(tokens) - 1)


def logits_at(ctx: Any, index: int, n_vocab: int) -> np.ndarray:
    """A copy of the logits the last forward kept for batch index `index`: (n_vocab,)."""
    return np.ctypeslib.as_array(ctx.get_logits_ith(index), shape=(n_vocab,)).copy()


def eval_rows(llm: Any, batch: Sequence[int], rows: Sequence[int]) -> None:
    """`Llama.eval` of one batch (at most n_batch tokens) with the logits of `rows` (batch indices)
    kept, read after by `logits_at`."""
    llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)  # what was evaluated past n_tokens is dropped
    n_past = llm.n_tokens
    llm._batch.set_batch(batch=batch, n_past=n_past, logits_all=False)
    for row in rows:
        llm._batch.batch.logits[row] = True
    llm._ctx.decode(llm._batch)
    llm.input_ids[n_past:n_past + len(batch)] = batch
    llm.n_tokens += len(batch)


class Cache(Protocol):
    """One sequence in a model's cache: the tokens it holds, and forwards that extend it."""

    def held(self) -> Sequence[int]: ...

    def keep(self, n: int) -> None: ...  # what it holds past its first n tokens is dropped

    def forward(self, batch: Sequence[int], rows: Sequence[int]) -> list[np.ndarray]: ...
    # evaluates `batch` after what it holds; the logits (n_vocab,) at each of `rows` (batch indices)


class OwnCache:
    """The Llama object's own sequence, the one `Llama.eval` extends (llm.input_ids[:llm.n_tokens])."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    def held(self) -> Sequence[int]:
        return self.llm.input_ids[: self.llm.n_tokens]

    def keep(self, n: int) -> None:
        self.llm.n_tokens = n  # the next eval drops the cache past this point

    def forward(self, batch: Sequence[int], rows: Sequence[int]) -> list[np.ndarray]:
        llm, logits = self.llm, []
        for start in range(0, len(batch), llm.n_batch):  # a long prompt: n_batch tokens a forward
            chunk = batch[start:start + llm.n_batch]
            here = [row - start for row in rows if start <= row < start + len(chunk)]
            eval_rows(llm, chunk, here)
            logits += [logits_at(llm._ctx, row, llm.n_vocab()) for row in here]
        return logits


def generate(cache: Cache, words: Any, n_vocab: int, n_batch: int, tokens: Sequence[int], json_schema: str,
             penalties: Penalties, count: Counter, stop: Any = None) -> Generator[int, Any, None]:
    """Tokens of the greedy answer to `tokens` under `json_schema`, as `Llama.generate` yields them;
    the caller stops at the end-of-generation token. `cache`: the sequence the answer is decoded in
    (OwnCache, or a slot of agentpair.llm.slots); `words`: llguidance's tokenizer (tokenizer_of);
    `stop`: stopping criteria, asked after each sampled token as `Llama.generate` asks them.

    Each forward evaluates what is pending (the last sampled token, the tokens forced after it) and
    the guesses of agentpair.llm.drafts, each followed by what the grammar forces after it; the
    logits before each guess say whether greedy decoding would have picked it. The first guess
    refused ends the forward's answer: its own pick is the next pending token, and the cache is
    cut back to before the guess."""
    import time

    import llguidance

    matcher = llguidance.LLMatcher(words, compiled(json_schema))
    cache.keep(cached_prefix(cache.held(), tokens))
    pending = list(tokens[len(cache.held()):])
    seen = drafts.lookup(tokens)
    answer: list[int] = []
    kind = "prompt"

    def written(new: list[int]) -> list[int]:
        """Forced tokens taken into the answer: the matcher, the penalties, the guesses and the count see them."""
        matcher.consume_tokens(new)
        penalties.accept(new)
        seen.extend(new)
        answer.extend(new)
        count("forced", len(new), time.perf_counter())  # counted, no time of their own
        return new

    def complete() -> bool:
        """The answer is complete: its last tokens (the end) need no forward."""
        if only_the_end(matcher, n_vocab, words.eos_token):
            count("forced", 1, time.perf_counter())
            return True
        return False

    try:
        while True:
            if forced := matcher.compute_ff_tokens():
                pending += forced
                yield from written(forced)
            if complete():
                yield words.eos_token
                return
            started = time.perf_counter()
            room = min(drafts.MAX_BATCH, n_batch - len(pending))
            guesses = drafts.draft(seen, matcher, room) if room > 0 else []
            count("drafted", len(guesses), started)
            batch = pending + [t for guess, after in guesses for t in (guess, *after)]
            rows = [len(pending) - 1]  # batch indices whose logits are read: the one before each guess,
            for guess, after in guesses:  # then the batch's last token
                rows.append(rows[-1] + 1 + len(after))
            n_past = len(cache.held())
            started = time.perf_counter()
            logits_of = cache.forward(batch, rows)
            count(kind, len(batch), started)
            count("forwards", 1, time.perf_counter())
            kind = "predicted"
            for j, row in enumerate(rows):
                started = time.perf_counter()
                logits = logits_of[j]
                penalties.apply(logits)
                token = pick(logits, matcher)
                count("sample", 1, started)
                if stop is not None and stop(np.asarray(cache.held()[: n_past + row + 1]), logits):
                    return
                if not matcher.consume_token(token):
                    raise RuntimeError(f"the grammar refused the token it allowed: {matcher.get_error()}")
                penalties.accept([token])
                seen.add(token)
                answer.append(token)
                yield token
                if j == len(guesses) or token != guesses[j][0]:
                    cache.keep(n_past + row + 1)  # the guesses after this row are not kept
                    pending = [token]
                    break
                after = guesses[j][1]  # the guess was right: the grammar's forced tokens after it follow
                count("accepted", 1, time.perf_counter())
                if after:
                    yield from written(after)
                if complete():
                    cache.keep(n_past + row + 2 + len(after))
                    yield words.eos_token
                    return
    finally:
        drafts.remember(answer)
