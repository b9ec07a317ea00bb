"""Reading traces back: the run tree of a real run, and cut-off, corrupt and future-version files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentpair.tracing.reader import TraceError, load_trace
from tests.trace_runs import GOAL, header, record_run, synthetic_spans, write_lines


async def test_a_real_run_reads_back_as_a_nested_tree(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    result = await record_run(path)
    tree = load_trace(path)
    assert tree.complete and not tree.truncated and tree.warnings == []
    assert result.finished and tree.header.task["goal"] == GOAL
    assert tree.header.task["secrets"] == {"pw": "{{secret:pw}}"}
    assert "hunter2" not in path.read_text()
    root = tree.root
    assert root is not None and [r.name for r in tree.roots] == [root.name]  # one trace: start-up under the root
    assert root.children[0].name == "startup" and root.children[0].trace_id == root.trace_id
    assert [s.name for s in root.children if s.name.startswith("iteration")] == ["iteration 1", "iteration 2",
                                                                                  "iteration 3"]
    assert len(tree.planner_calls()) == 3 and len(tree.fills()) == 3 and len(tree.tool_calls()) == 2
    assert [s.iteration for s in tree.tool_calls()] == [1, 1]
    assert all(s.depth == 2 for s in tree.planner_calls())
    plan = tree.planner_calls()[0].data("agentpair.plan")
    assert plan["steps"][0]["tool"] == "click"
    assert tree.by_category("executor") == tree.fills()


def test_a_file_cut_mid_line_reads_its_valid_prefix(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [header(), *synthetic_spans()])
    text = path.read_text()
    path.write_text(text[: text.rindex("invoke_agent")])  # the root span's line is cut off
    tree = load_trace(path)
    assert tree.truncated and not tree.complete
    assert len(tree.spans) == len(synthetic_spans()) - 1
    assert "cut off mid-line" in tree.warnings[0] and f"{path}:13" in tree.warnings[0]


@pytest.mark.parametrize("content, message", [
    ("", "empty"),
    ("hello, world\n", ":1: not JSON"),
    ('{"type": "span", "name": "x"}\n', ":1: no agentpair-trace header"),
    ('[1, 2]\n', ":1: a list"),
    (json.dumps(header()) + "\n{not json\n" + json.dumps(synthetic_spans()[0]) + "\n", ":2: not JSON"),
    (json.dumps(header()) + '\n{"type": "span", "name": "x"}\n', ":2: not a valid span"),
    (json.dumps(header(version=4)) + "\n", "format version 4 is newer"),
    (json.dumps(header()), None),  # a header alone, without newline, is a (short) trace
])
def test_corrupt_and_future_files_raise_a_clear_error(tmp_path: Path, content: str, message: str | None) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(content)
    if message is None:
        assert load_trace(path).spans == []
        return
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert str(path) in str(info.value) and message in str(info.value)


def test_a_cut_header_and_a_missing_file_are_errors(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(header())[:30])
    with pytest.raises(TraceError, match="not JSON"):
        load_trace(path)
    with pytest.raises(TraceError, match="cannot read"):
        load_trace(tmp_path / "missing.jsonl")
