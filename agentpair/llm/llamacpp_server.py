"""The embedded planner's server process: llama-cpp-python's OpenAI-compatible server, with greedy
decoding under a JSON schema by llguidance, forced tokens evaluated in batches (agentpair.llm.fast_forward),
and under any other grammar a sampler that tries the model's top token before filtering the vocabulary.

llama.cpp's sampler chain runs the grammar over every token of the vocabulary at every step
(49,152 for SmolLM2), a third of a planned token's time on this CPU. Under greedy decoding only
one token matters: if the grammar accepts the top-scoring one, it is the token the full filter would
have picked too, so the rest need no check. Run as `python -m agentpair.llm.llamacpp_server ARGS`, with
the arguments of `python -m llama_cpp.server`.

With `--slots N` (its own option; default 1) it takes N schema calls at a time, each in a slot of
one shared cache, their tokens evaluated in the same forwards (agentpair.llm.slots); llama-cpp-python's
one-call-at-a-time lock is bypassed for chat calls, and a call outside the schema path (sampling, no
grammar) runs on the context alone.

It also keeps what each JSON schema compiles to (a grounded schema is asked again on a re-ask or a
page seen before) and says where a chat call's time went, in the response header TIMINGS_HEADER
(JSON: prompt tokens evaluated and their ms, tokens decoded and their ms, tokens sampled under the
grammar and their ms, tokens the schema forced, forwards and those shared with other calls, grammar build and
sampler set-up ms, the call's ms in the server), read by agentpair.llm.endpoint.
"""

from __future__ import annotations

import contextvars
import ctypes
import functools
import inspect
import json
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

import llama_cpp
from llama_cpp import Llama
from llama_cpp import _internals as internals
from llama_cpp import llama_grammar

from agentpair.llm import fast_forward
from agentpair.llm.slots import Slots

TIMINGS_HEADER = "x-agentpair-timings"  # agentpair.llm.endpoint reads it (not imported: the package would load)
STOCK_CHAT = Llama.create_chat_completion
STOCK_EVAL = Llama.eval
STOCK_SAMPLE = Llama.sample
STOCK_GENERATE = Llama.generate
GENERATE_SIGNATURE = inspect.signature(STOCK_GENERATE)
STOCK_FROM_JSON_SCHEMA = llama_grammar.LlamaGrammar.from_json_schema.__func__  # type: ignore[attr-defined]
_call = threading.local()  # the running call's grammar and sampler set-up times (each call has its thread)
_timings: contextvars.ContextVar[dict[str, float]] = contextvars.ContextVar("timings")  # a request's, for its header
SLOTS = 0  # calls decoded side by side (--slots; agentpair.llm.slots), 0 in-process: the Llama object's own cache
_slots_made = threading.Lock()

# llama_token_data as numpy sees it: {int32 id; float logit; float p}
TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])
STOCK_INIT_SAMPLER = Llama._init_sampler
STOCK_SIGNATURE = inspect.signature(STOCK_INIT_SAMPLER)


class TopTokenFirst:
    """A custom sampler placed just before the chain's grammar: it tests the top token alone and,
    if the grammar accepts it, leaves only that token for the grammar and greedy samplers after it.
    `hits` and `misses` count the tokens decided each way."""

    def __init__(self, chain: internals.LlamaSampler, grammar_index: int) -> None:
        self.chain = chain.sampler  # the C chain only: the Python one holds this object
        self.grammar_index = grammar_index
        self.one = (llama_cpp.llama_token_data * 1)()
        self.one_array = llama_cpp.llama_token_data_array(data=self.one, size=1, selected=-1, sorted=False)
        self.hits = 0
        self.misses = 0

    def __call__(self, cur_p: Any) -> None:
        candidates = cur_p.contents
        raw = (ctypes.c_char * (candidates.size * TOKEN_DATA.itemsize)).from_address(
            ctypes.addressof(candidates.data.contents))
        view = np.frombuffer(raw, dtype=TOKEN_DATA)  # (n_vocab,) after the penalties
        top = int(np.argmax(view["logit"]))  # the first of equal maxima, as the greedy sampler picks
        self.one[0].id, self.one[0].logit, self.one[0].p = int(view["id"][top]), float(view["logit"][top]), 0.0
        self.one_array.size, self.one_array.selected, self.one_array.sorted = 1, -1, False
        grammar = llama_cpp.llama_sampler_chain_get(self.chain, self.grammar_index)
        llama_cpp.llama_sampler_apply(grammar, ctypes.byref(self.one_array))  # rejected -> -inf
        if self.one[0].logit == -np.inf:
            self.misses += 1
            return  # the grammar filters every token, as in the stock chain
        self.hits += 1
        candidates.data[0] = self.one[0]
        candidates.size = 1


def init_sampler(self: Llama, *args: Any, **kwargs: Any) -> internals.LlamaSampler:
    """`Llama._init_sampler` with the top token tried first for greedy decoding under a grammar.

    At temperature 0 the stock chain is: a logits processor if any, the penalties, the grammar,
    greedy (top-k, top-p, mirostat and the rest are not used). This builds the same chain with the
    test between penalties and grammar; anything else gets the stock chain.
    """
    settings = STOCK_SIGNATURE.bind(self, *args, **kwargs)
    settings.apply_defaults()
    given = settings.arguments
    if given["grammar"] is None or given["temp"] != 0.0 or given["logits_processor"] is not None:
        return STOCK_INIT_SAMPLER(self, *args, **kwargs)
    chain = internals.LlamaSampler()
    chain.add_penalties(n_vocab=self._n_vocab, penalty_last_n=self.last_n_tokens_size,
                        penalty_repeat=given["repeat_penalty"], penalty_freq=given["frequency_penalty"],
                        penalty_present=given["presence_penalty"])
    test = TopTokenFirst(chain, grammar_index=2)  # penalties 0, this test 1, grammar 2, greedy 3
    chain.add_custom(test)
    started = time.perf_counter()
    chain.add_grammar(self._model, given["grammar"])  # llama.cpp parses the grammar here
    _call.sampler_ms = getattr(_call, "sampler_ms", 0.0) + (time.perf_counter() - started) * 1e3
    chain.add_greedy()
    chain.top_token_first = test  # type: ignore[attr-defined]  # its counts, read by the tests
    return chain


@functools.lru_cache(maxsize=64)
def _compiled(json_schema: str) -> llama_grammar.LlamaGrammar:
    return STOCK_FROM_JSON_SCHEMA(llama_grammar.LlamaGrammar, json_schema, verbose=False)


def from_json_schema(cls: type, json_schema: str, verbose: bool = True) -> llama_grammar.LlamaGrammar:
    """`LlamaGrammar.from_json_schema`, kept per schema text (the grammar holds only its text), timed;
    the grammar remembers its schema for `guided_generate` where llguidance takes it (None where not:
    tried, and said, once per schema)."""
    started = time.perf_counter()
    grammar = _compiled(json_schema)
    if not hasattr(grammar, "json_schema"):
        try:
            fast_forward.compiled(json_schema)  # llguidance's grammar too, timed with llama.cpp's
            grammar.json_schema = json_schema  # type: ignore[attr-defined]
        except ValueError as exc:
            grammar.json_schema = None  # type: ignore[attr-defined]
            print(f"agentpair.llm.llamacpp_server: llguidance cannot take this schema ({exc}); "
                  "llama.cpp's grammar decodes it", file=sys.stderr, flush=True)
    _call.grammar_ms = getattr(_call, "grammar_ms", 0.0) + (time.perf_counter() - started) * 1e3
    return grammar


def slots_of(llm: Llama) -> Slots | None:
    """The server's slots over this model's context, made at its first call (None in-process)."""
    if not SLOTS:
        return None
    with _slots_made:
        if getattr(llm, "slots", None) is None:
            llm.slots = Slots(llm, SLOTS)  # type: ignore[attr-defined]
            if llm.n_tokens == 0:  # Llama reads sequence 0's last token and logits after each call: a token
                llm.input_ids[0], llm.n_tokens = -1, 1  # no prompt has keeps them there (the stock path starts afresh)
    return llm.slots  # type: ignore[attr-defined,no-any-return]


def guided_generate(self: Llama, tokens: Any, *args: Any, **kwargs: Any) -> Any:
    """`Llama.generate`, by fast_forward where greedy decoding runs under a JSON schema that llguidance
    takes (in a slot where the server has them); anything else (sampling, logits processors, a draft
    model) by the stock generator, on the context alone."""
    settings = GENERATE_SIGNATURE.bind(self, tokens, *args, **kwargs)
    settings.apply_defaults()
    given = settings.arguments
    schema = getattr(given["grammar"], "json_schema", None)
    plain = (given["temp"] == 0.0 and given["reset"] and given["logits_processor"] is None
             and self.draft_model is None
             and not (self._is_recurrent or self._is_hybrid))
    slots = slots_of(self)
    if schema is None or not plain:
        stock = STOCK_GENERATE(self, tokens, *args, **kwargs)
        return stock if slots is None else _alone(slots, stock)
    penalties = fast_forward.Penalties(self.last_n_tokens_size, given["repeat_penalty"],
                                       given["frequency_penalty"], given["presence_penalty"])
    decode = functools.partial(fast_forward.generate, words=fast_forward.tokenizer_of(self), n_vocab=self.n_vocab(),
                               n_batch=self.n_batch, tokens=list(tokens), json_schema=schema, penalties=penalties,
                               count=_count, stop=given["stopping_criteria"])
    return decode(fast_forward.OwnCache(self)) if slots is None else _in_slot(slots, list(tokens), decode)


def _in_slot(slots: Slots, tokens: list[int], decode: Any) -> Iterator[int]:
    with slots.slot(tokens) as slot:
        try:
            yield from decode(slot)
        finally:
            _count("shared_forwards", slot.shared, time.perf_counter())


def _alone(slots: Slots, stock: Iterator[int]) -> Iterator[int]:
    """The stock generator on sequence 0 with no slot round meanwhile (it reads the context's logits)."""
    with slots.decoding:
        yield from stock


def timed_eval(self: Llama, tokens: Any) -> None:
    """`Llama.eval`, timed: several tokens are the prompt (what the cache lacks of it), one a decode."""
    started = time.perf_counter()
    STOCK_EVAL(self, tokens)
    kind = "prompt" if len(tokens) > 1 else "predicted"
    _count(kind, len(tokens), started)


def timed_sample(self: Llama, *args: Any, **kwargs: Any) -> int:
    """`Llama.sample`, timed: the sampler chain (grammar included) on one position's logits."""
    started = time.perf_counter()
    token = STOCK_SAMPLE(self, *args, **kwargs)
    _count("sample", 1, started)
    return token


def _count(kind: str, n: int, started: float) -> None:
    timings = getattr(_call, "timings", None)
    if timings is not None:
        timings[f"{kind}_n"] = timings.get(f"{kind}_n", 0) + n
        timings[f"{kind}_ms"] = timings.get(f"{kind}_ms", 0.0) + (time.perf_counter() - started) * 1e3


def timed_chat_completion(self: Llama, *args: Any, **kwargs: Any) -> Any:
    """`Llama.create_chat_completion`, with where its time went kept in the request's `_timings`
    (non-streamed calls; the middleware of add_timings_header made it)."""
    _call.grammar_ms = _call.sampler_ms = 0.0
    _call.timings = {}
    started = time.perf_counter()
    try:
        return STOCK_CHAT(self, *args, **kwargs)
    finally:
        _timings.get({}).update({
            "prompt_n": 0, "prompt_ms": 0.0, "predicted_n": 0, "predicted_ms": 0.0, "sample_n": 0, "sample_ms": 0.0,
            "forced_n": 0, **_call.timings, "grammar_build_ms": _call.grammar_ms, "sampler_init_ms": _call.sampler_ms,
            "call_ms": (time.perf_counter() - started) * 1e3})
        _call.timings = None


def add_timings_header(app: Any) -> Any:
    """The server app, its chat completions answered with the call's timings in TIMINGS_HEADER."""
    @app.middleware("http")
    async def timings(request: Any, call_next: Any) -> Any:
        kept: dict[str, float] = {}
        _timings.set(kept)  # the call's thread sees this dict (tasks and worker threads copy the context)
        response = await call_next(request)
        if request.url.path.endswith("/chat/completions") and kept:
            response.headers[TIMINGS_HEADER] = json.dumps(kept)
        return response
    return app


async def shared_proxy() -> Any:
    """The server's models for a chat call without its one-call-at-a-time lock: the slots take
    calls side by side (the stock generator still runs alone)."""
    import llama_cpp.server.app as server_app

    yield server_app._llama_proxy


def with_slots(params: Any) -> Any:
    """llama.cpp context parameters for SLOTS sequences besides the Llama object's own, in one
    cache all of them share."""
    params.n_seq_max = SLOTS + 1
    params.kv_unified = True
    return params


def install() -> bool:
    """Use `init_sampler` in this process; False (stock sampling kept) where this llama-cpp-python
    lacks what it builds on."""
    needed = ("temp", "grammar", "repeat_penalty", "frequency_penalty", "presence_penalty", "logits_processor")
    if not all(name in STOCK_SIGNATURE.parameters for name in needed) or not hasattr(
            llama_cpp, "llama_sampler_chain_get"):
        return False
    Llama._init_sampler = init_sampler  # type: ignore[method-assign]
    return True


def main() -> None:
    global SLOTS
    import llama_cpp.server.app as server_app

    SLOTS = _take_option("--slots", 1)
    low_level = llama_cpp.llama_cpp  # where Llama takes its context parameters from
    stock_params = low_level.llama_context_default_params
    low_level.llama_context_default_params = lambda: with_slots(stock_params())
    server_app.get_llama_proxy = shared_proxy  # the chat route looks it up at each call
    stock_create_app = server_app.create_app
    server_app.create_app = lambda *args, **kwargs: add_timings_header(stock_create_app(*args, **kwargs))
    llama_grammar.LlamaGrammar.from_json_schema = classmethod(from_json_schema)  # type: ignore[method-assign]
    Llama.create_chat_completion = timed_chat_completion  # type: ignore[method-assign]
    Llama.eval, Llama.sample = timed_eval, timed_sample  # type: ignore[method-assign]
    Llama.generate = guided_generate  # type: ignore[method-assign]
    from llama_cpp.server.__main__ import main as serve  # it takes create_app from the module now

    installed = install()
    print(f"agentpair.llm.llamacpp_server: top token first under a grammar: {'on' if installed else 'off'}",
          file=sys.stderr, flush=True)
    serve()


def _take_option(name: str, default: int) -> int:
    """An option of this server's own, taken out of sys.argv before llama_cpp.server reads it."""
    if name not in sys.argv:
        return default
    at = sys.argv.index(name)
    value = int(sys.argv[at + 1])
    del sys.argv[at:at + 2]
    return value


if __name__ == "__main__":
    main()
