"""The embedded planner's server process: llama-cpp-python's OpenAI-compatible server, with greedy
decoding under a grammar that tries the model's top token before filtering the vocabulary.

llama.cpp's sampler chain runs the grammar over every token of the vocabulary at every step
(49,152 for SmolLM2), a third of a planned token's time on this CPU. Under greedy decoding only
one token matters: if the grammar accepts the top-scoring one, it is the token the full filter would
have picked too, so the rest need no check. Run as `python -m agentpair.planner_server ARGS`, with
the arguments of `python -m llama_cpp.server`.
"""

from __future__ import annotations

import ctypes
import inspect
import sys
from typing import Any

import numpy as np

import llama_cpp
from llama_cpp import Llama
from llama_cpp import _internals as internals

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
    chain.add_grammar(self._model, given["grammar"])
    chain.add_greedy()
    chain.top_token_first = test  # type: ignore[attr-defined]  # its counts, read by the tests
    return chain


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
    from llama_cpp.server.__main__ import main as serve

    installed = install()
    print(f"agentpair.planner_server: top token first under a grammar: {'on' if installed else 'off'}",
          file=sys.stderr, flush=True)
    serve()


if __name__ == "__main__":
    main()
