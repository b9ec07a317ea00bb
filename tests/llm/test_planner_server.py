"""Greedy decoding under a grammar with the top token tried first: the same tokens as llama.cpp's
stock sampler chain, on the real SmolLM2 model."""

from __future__ import annotations

import json

import pytest
from llama_cpp import Llama, LlamaGrammar

from agentpair.llm import llamacpp_server as planner_server
from agentpair.training.datagen.plans import browser_tools
from agentpair.llm.llamacpp import default_gguf
from agentpair.planner.grounding.schema import grounded_plan_schema
from agentpair.planner.request import PlanRequest
from agentpair.planner.client import plan_messages
from agentpair.planner.page_view import compact_page, page_names

SNAPSHOT = ('- heading "Sign in" [ref=e1]\n- textbox "Member ID" [ref=e2]\n- textbox "Password" [ref=e3]\n'
            '- button "Let me in" [ref=e4]\n- link "Forgot it?" [ref=e5]')
REQUEST = PlanRequest(goal="Sign in as toli.lolalo with {{secret:password}}, then open Messages.",
                      page=compact_page(SNAPSHOT), names=page_names(SNAPSHOT), secret_names=["password"],
                      tools=browser_tools())


@pytest.fixture(scope="module")
def llm() -> Llama:
    return Llama(str(default_gguf()), n_ctx=1024, n_threads=2, verbose=False)  # the bare model: many misses


def decode(llm: Llama, **sampling: object) -> str:
    llm.reset()  # the prompt evaluated afresh each time, so both chains see the same logits
    grammar = LlamaGrammar.from_json_schema(json.dumps(grounded_plan_schema(REQUEST)), verbose=False)
    out = llm.create_chat_completion(plan_messages(REQUEST), grammar=grammar, max_tokens=96, **sampling)
    return out["choices"][0]["message"]["content"]


@pytest.mark.parametrize("repeat_penalty", [1.0, 1.1])
def test_the_same_tokens_as_the_stock_chain_on_either_path(
        llm: Llama, monkeypatch: pytest.MonkeyPatch, repeat_penalty: float) -> None:
    stock = decode(llm, temperature=0.0, repeat_penalty=repeat_penalty)
    tests: list[planner_server.TopTokenFirst] = []

    def recording(self: Llama, *args: object, **kwargs: object) -> object:
        chain = planner_server.init_sampler(self, *args, **kwargs)
        tests.append(chain.top_token_first)
        return chain

    monkeypatch.setattr(Llama, "_init_sampler", recording)
    assert decode(llm, temperature=0.0, repeat_penalty=repeat_penalty) == stock
    hits, misses = sum(t.hits for t in tests), sum(t.misses for t in tests)
    assert hits > 0 and misses > 0  # both paths ran: the grammar took the top token, and refused it


def test_sampling_at_a_temperature_or_without_a_grammar_keeps_the_stock_chain(llm: Llama) -> None:
    grammar = LlamaGrammar.from_string('root ::= "yes" | "no"', verbose=False)
    assert not hasattr(planner_server.init_sampler(llm, temp=0.7, grammar=grammar), "top_token_first")
    assert not hasattr(planner_server.init_sampler(llm, temp=0.0), "top_token_first")
    assert hasattr(planner_server.init_sampler(llm, temp=0.0, grammar=grammar), "top_token_first")
