"""Guessed tokens for greedy decoding (prompt lookup): where a guess comes from, that the grammar has
the last word on it, and that on the shipped planner model a plan decoded with guesses is the plan
decoded without them, in fewer forwards (a plan with no near-tie: a batched forward rounds differently,
so a near-tie elsewhere may go the other way)."""

from __future__ import annotations

import json

import pytest
from llama_cpp import Llama, LlamaGrammar

from agentpair.llm import drafts, fast_forward
from agentpair.llm import llamacpp_server as planner_server
from agentpair.llm.llamacpp import default_gguf
from agentpair.llm.merge import merged_gguf
from agentpair.planner.client import plan_messages
from agentpair.planner.embedded import SHIPPED_LORA
from agentpair.planner.grounding.schema import grounded_plan_schema
from tests.llm.test_planner_server import REQUEST


def test_a_guess_is_what_followed_the_latest_earlier_occurrence() -> None:
    seen = drafts.Lookup([5, 2, 3, 9, 1, 2, 3, 4, 7, 1, 2, 3, 8])
    assert seen.next([5, 2, 3]) == 9
    assert seen.next([1, 2, 3]) == 8  # the latest of two occurrences
    assert seen.next([6, 2, 3]) is None  # the last three tokens, never seen together
    assert seen.next([2, 3]) is None
    seen.extend([4, 1, 2, 3])  # the context itself, at the end, is not an occurrence to guess from
    assert seen.next(seen.tokens) == 8


@pytest.fixture(scope="module")
def llm() -> Llama:
    return Llama(str(merged_gguf(default_gguf(), SHIPPED_LORA)), n_ctx=2048, n_threads=2, verbose=False)


@pytest.mark.slow
def test_the_grammar_stops_a_guess_and_the_matcher_is_left_as_it_was(llm: Llama) -> None:
    import llguidance

    schema = {"type": "object", "required": ["a"], "additionalProperties": False,
              "properties": {"a": {"enum": ["red fox", "red hen"]}}}
    matcher = llguidance.LLMatcher(fast_forward.tokenizer_of(llm), fast_forward.compiled(json.dumps(schema)))
    written = llm.tokenize(b'{"a": "red', add_bos=False)
    assert matcher.consume_tokens(written)
    fox = llm.tokenize(b" fox", add_bos=False)

    def guesses_after(seen_text: bytes) -> list[tuple[int, list[int]]]:
        return drafts.draft(drafts.Lookup(llm.tokenize(seen_text, add_bos=False) + written), matcher, room=16)

    guesses = guesses_after(b'{"a": "red fox"}')
    assert [g for g, _ in guesses] == fox[:1]
    assert llm.detokenize(guesses[0][1]) == llm.detokenize(fox[1:]) + b'"}'  # what the grammar forces after it
    assert guesses_after(b'{"a": "red cat"}') == []
    assert matcher.validate_tokens(fox[:1]) == 1  # nothing of the guesses stayed in the matcher


@pytest.mark.slow
def test_guesses_change_nothing_of_the_answer_and_save_forwards(llm: Llama, monkeypatch: pytest.MonkeyPatch) -> None:
    schema = json.dumps(grounded_plan_schema(REQUEST))
    monkeypatch.setattr(Llama, "generate", planner_server.guided_generate)

    def answer(max_drafted: int) -> tuple[str, dict[str, int]]:
        forwards: dict[str, int] = {}
        monkeypatch.setattr(drafts, "_recent", type(drafts._recent)(maxlen=drafts.RECENT_ANSWERS))  # the prompt's alone
        monkeypatch.setattr(drafts, "MAX_DRAFTED", max_drafted)
        monkeypatch.setattr(planner_server, "_count", lambda kind, n, started: forwards.update(
            {kind: forwards.get(kind, 0) + 1, f"{kind}_n": forwards.get(f"{kind}_n", 0) + n}))
        llm.reset()
        out = llm.create_chat_completion(plan_messages(REQUEST), grammar=planner_server.from_json_schema(
            LlamaGrammar, schema), max_tokens=160, temperature=0.0, repeat_penalty=1.1)
        return out["choices"][0]["message"]["content"], forwards

    most = drafts.MAX_DRAFTED
    plain, without = answer(0)
    guessed, with_guesses = answer(most)
    assert guessed == plain
    assert with_guesses["accepted_n"] > 0
    assert with_guesses["predicted"] < without["predicted"]  # forwards after the prompt's
