"""fill_with: Playwright's frame-prefixed refs (`[ref=f1e3]`, the main frame after a navigation)
reach the model as the `eN` refs it was trained on and come back prefixed; mixed prefixes and
contexts without refs reach it unchanged."""

from __future__ import annotations

from typing import Any

from agentpair.executor.local import LocalDiffusionExecutor, fill_with
from agentpair.models import FillRequest
from executor_engine import FillInput, FillOutput

SCHEMA = {"type": "object", "properties": {"ref": {"type": "string"}, "text": {"type": "string"}},
          "required": ["ref", "text"]}


def fake(reply: dict[str, Any]) -> tuple[list[FillInput], Any]:
    """A run callable that records its inputs and answers each with a copy of `reply`."""
    seen: list[FillInput] = []

    def run(inputs: list[FillInput]) -> list[FillOutput]:
        seen.extend(inputs)
        return [FillOutput(value=dict(reply), nfe=1, tokens=1) for _ in inputs]
    return seen, run


def request(context: str, refs: list[str]) -> FillRequest:
    return FillRequest(kind="tool_args", instruction="type hello into Search", context=context,
                       schema=SCHEMA, allowed={"/ref": refs})


def test_one_frame_prefix_is_stripped_for_the_model_and_restored_in_the_result() -> None:
    seen, run = fake({"ref": "e3", "text": "e2"})
    context = '- link "Home" [ref=f1e2]\n- textbox "Search" [ref=f1e3]'
    [result] = fill_with(run, [request(context, ["f1e2", "f1e3"])])
    assert seen[0].context == '- link "Home" [ref=e2]\n- textbox "Search" [ref=e3]'
    assert seen[0].allowed == {"/ref": ["e2", "e3"]}
    assert result.error is None and result.value == {"ref": "f1e3", "text": "e2"}  # text is no ref slot


def test_mixed_prefixes_reach_the_model_unchanged() -> None:
    seen, run = fake({"ref": "f1e3", "text": "x"})
    context = '- link "Home" [ref=e2]\n- iframe [ref=e4]:\n  - textbox "Search" [ref=f1e3]'
    [result] = fill_with(run, [request(context, ["e2", "e4", "f1e3"])])
    assert seen[0].context == context and seen[0].allowed == {"/ref": ["e2", "e4", "f1e3"]}
    assert result.value == {"ref": "f1e3", "text": "x"}


def test_plain_refs_and_no_refs_reach_the_model_unchanged() -> None:
    seen, run = fake({"ref": "e2", "text": "x"})
    results = fill_with(run, [request('- link "Home" [ref=e2]', ["e2"]),
                              request("no snapshot here", ["f1e2"])])
    assert [i.context for i in seen] == ['- link "Home" [ref=e2]', "no snapshot here"]
    assert [i.allowed for i in seen] == [{"/ref": ["e2"]}, {"/ref": ["f1e2"]}]
    assert [r.value["ref"] for r in results] == ["e2", "e2"]


async def test_shipped_model_returns_a_prefixed_ref() -> None:
    executor = LocalDiffusionExecutor()
    context = ('- heading "Shop" [level=1] [ref=f1e1]\n- link "Home" [ref=f1e2]\n'
               '- button "Add to cart" [ref=f1e3]\n- link "Checkout" [ref=f1e4]')
    refs = ["f1e1", "f1e2", "f1e3", "f1e4"]
    schema = {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}
    [result] = await executor.fill([FillRequest(kind="tool_args", instruction="click Add to cart",
                                                context=context, schema=schema, allowed={"/ref": refs})])
    assert result.error is None and result.value["ref"] in refs
