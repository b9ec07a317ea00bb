"""Greedy decoding under a JSON schema by llguidance with forced tokens batched: llama.cpp's penalties,
the same plan as llama.cpp's own grammar decoding on the shipped planner model, and the stock path for
what llguidance cannot take."""

from __future__ import annotations

import json

import numpy as np
import pytest
from llama_cpp import Llama, LlamaGrammar

from agentpair.llm import fast_forward
from agentpair.llm import llamacpp_server as planner_server
from agentpair.llm.llamacpp import default_gguf
from agentpair.llm.merge import merged_gguf
from agentpair.planner.client import plan_messages
from agentpair.planner.embedded import SHIPPED_LORA
from agentpair.planner.grounding.schema import grounded_plan_schema
from tests.llm.test_planner_server import REQUEST


def test_penalties_are_llama_cpps() -> None:
    """A positive logit of a recent token is divided by the repeat penalty, a negative one multiplied;
    frequency takes off per occurrence, presence once; tokens older than last_n count no more."""
    penalties = fast_forward.Penalties(last_n=3, repeat=2.0, frequency=0.5, presence=0.25)
    penalties.accept([9, 1, 2, 2])  # 9 has left the window of 3
    logits = np.array([1.0, 4.0, -3.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 8.0], dtype=np.float32)
    penalties.apply(logits)
    np.testing.assert_allclose(logits, [1.0, 4.0 / 2 - 0.5 - 0.25, -3.0 * 2 - 1.0 - 0.25, 5.0, 0, 0, 0, 0, 0, 8.0])
    neutral = fast_forward.Penalties(last_n=64, repeat=1.0, frequency=0.0, presence=0.0)
    neutral.accept([1])
    untouched = np.array([1.0, 2.0], dtype=np.float32)
    neutral.apply(untouched)
    assert untouched.tolist() == [1.0, 2.0]


def test_a_schema_llguidance_cannot_take_is_said_so() -> None:
    with pytest.raises(ValueError, match="bogus-format"):
        fast_forward.compiled(json.dumps({"type": "string", "format": "bogus-format"}))


@pytest.fixture(scope="module")
def llm() -> Llama:
    return Llama(str(merged_gguf(default_gguf(), SHIPPED_LORA)), n_ctx=2048, n_threads=2, verbose=False)


def answer(llm: Llama, schema: dict, **sampling: object) -> str:
    llm.reset()
    grammar = planner_server.from_json_schema(LlamaGrammar, json.dumps(schema))
    out = llm.create_chat_completion(plan_messages(REQUEST), grammar=grammar, max_tokens=160, **sampling)
    return out["choices"][0]["message"]["content"]


@pytest.mark.slow
@pytest.mark.parametrize("repeat_penalty", [1.0, 1.1])
def test_the_same_plan_as_llama_cpps_grammar_with_most_tokens_forced(
        llm: Llama, monkeypatch: pytest.MonkeyPatch, repeat_penalty: float) -> None:
    schema = grounded_plan_schema(REQUEST)
    stock = answer(llm, schema, temperature=0.0, repeat_penalty=repeat_penalty)
    counted: dict[str, int] = {}
    monkeypatch.setattr(planner_server, "_count", lambda kind, n, started: counted.update({kind: counted.get(kind, 0) + n}))
    monkeypatch.setattr(Llama, "generate", planner_server.guided_generate)
    assert answer(llm, schema, temperature=0.0, repeat_penalty=repeat_penalty) == stock
    assert json.loads(stock)["steps"][0]["kind"] == "act"
    assert counted["forced"] > counted["sample"] > 0  # most tokens came from the schema, not a forward each
    # the next call finds the prompt in the cache: only what differs is evaluated again
    counted.clear()
    llm_tokens = llm.n_tokens
    out = llm.create_chat_completion(plan_messages(REQUEST), grammar=planner_server.from_json_schema(
        LlamaGrammar, json.dumps(schema)), max_tokens=160, temperature=0.0, repeat_penalty=repeat_penalty)
    assert out["choices"][0]["message"]["content"] == stock
    assert counted["prompt"] < llm_tokens // 4


@pytest.mark.slow
def test_a_complete_answer_ends_without_a_forward(llm: Llama) -> None:
    import llguidance

    words = fast_forward.tokenizer_of(llm)
    matcher = llguidance.LLMatcher(words, fast_forward.compiled(json.dumps(
        {"type": "object", "required": ["a"], "additionalProperties": False, "properties": {"a": {"enum": ["x", "yz"]}}})))
    assert not fast_forward.only_the_end(matcher, llm.n_vocab(), words.eos_token)  # nothing written yet
    assert matcher.consume_tokens(llm.tokenize(b'{"a": "x"', add_bos=False))
    assert not fast_forward.only_the_end(matcher, llm.n_vocab(), words.eos_token)  # the object is still open
    assert matcher.consume_tokens(llm.tokenize(b"}", add_bos=False))
    assert fast_forward.only_the_end(matcher, llm.n_vocab(), words.eos_token)


@pytest.mark.slow
def test_the_top_token_the_grammar_refuses_gives_way_to_the_best_it_allows(llm: Llama) -> None:
    import llguidance

    matcher = llguidance.LLMatcher(fast_forward.tokenizer_of(llm), fast_forward.compiled(json.dumps(
        {"type": "object", "required": ["a"], "additionalProperties": False, "properties": {"a": {"enum": ["x", "yz"]}}})))
    assert matcher.consume_tokens(llm.tokenize(b'{"a": "', add_bos=False))
    x, y = llm.tokenize(b"x", add_bos=False)[0], llm.tokenize(b"y", add_bos=False)[0]
    assert fast_forward.allowed(matcher, llm.n_vocab())[[x, y]].all()
    logits = np.zeros(llm.n_vocab(), dtype=np.float32)
    logits[llm.tokenize(b"q", add_bos=False)[0]], logits[y], logits[x] = 9.0, 5.0, 4.0  # "q" is top, and refused
    assert fast_forward.pick(logits, matcher) == y
    logits[x] = 6.0
    assert fast_forward.pick(logits, matcher) == x


@pytest.mark.slow
def test_what_llguidance_cannot_take_is_decoded_by_the_stock_chain(llm: Llama, monkeypatch) -> None:
    schema = {"type": "object", "required": ["day"], "additionalProperties": False,
              "properties": {"day": {"type": "string", "format": "bogus-format", "maxLength": 12}}}
    monkeypatch.setattr(Llama, "generate", planner_server.guided_generate)
    stock_calls = []
    stock = planner_server.STOCK_GENERATE
    monkeypatch.setattr(planner_server, "STOCK_GENERATE", lambda *a, **k: stock_calls.append(1) or stock(*a, **k))
    assert set(json.loads(answer(llm, schema, temperature=0.0))) == {"day"}
    assert stock_calls
