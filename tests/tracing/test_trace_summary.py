"""Latency attribution from traces: exact on a synthetic trace with overlaps, and adding up on a real run."""

from __future__ import annotations

from pathlib import Path

from pytest import approx

from agentpair.tracing.reader import load_trace
from agentpair.tracing.summary import summarize
from tests.trace_runs import header, record_run, synthetic_spans, write_lines


def test_synthetic_trace_every_category_and_tool_exact(tmp_path: Path) -> None:
    summary = summarize(load_trace(write_lines(tmp_path / "t.jsonl", [header(), *synthetic_spans()])))
    assert summary.complete and summary.finished and summary.warnings == []
    assert summary.wall_s == approx(3.0) and summary.startup_s == approx(0.5)
    assert summary.categories_s == approx({"planner": 1.5, "executor": 0.2, "tools": 0.5, "framework": 0.8})
    assert summary.shares == approx({"planner": 0.5, "executor": 0.2 / 3, "tools": 0.5 / 3, "framework": 0.8 / 3})
    # click and type overlap by 0.1 s: the instant goes to click, which started first
    assert summary.tools_detail_s == approx({"observe": 0.2, "click": 0.2, "type": 0.1})
    assert sum(summary.tools_detail_s.values()) == approx(summary.categories_s["tools"])
    first, second = summary.iterations
    assert (first.number, first.start_s, first.wall_s) == (1, approx(0.1), approx(1.4))
    assert first.categories_s == approx({"planner": 0.6, "executor": 0.2, "tools": 0.4, "framework": 0.2})
    assert first.plan == ["act click: click Go"] and first.tool_calls == ["click", "type"]
    assert second.categories_s == approx({"planner": 0.9, "executor": 0.0, "tools": 0.0, "framework": 0.5})
    # the chain that sets the end: the overlapped tools and the fill are off it
    assert [(s.name, s.start_s) for s in summary.critical_path] == [
        ("observe", approx(0.0)), ("chat m", approx(0.1)), ("chat m", approx(0.7)), ("chat m", approx(1.5))]
    assert summary.critical_path_s == approx(2.1)
    assert (summary.planner_calls, summary.planner_input_tokens, summary.planner_output_tokens) == (3, 270, 60)
    assert (summary.executor_calls, summary.executor_forward_passes, summary.executor_tokens) == (1, 8, 32)
    assert summary.tokens_per_forward == 4.0 and summary.tool_calls == 2 and summary.executor == "x"


def test_start_up_under_the_root_is_left_out_of_the_runs_wall_time(tmp_path: Path) -> None:
    """Format 3: the root span opens before start-up, which is its child; the run's time is the same."""
    spans = synthetic_spans()
    spans[0] = {**spans[0], "parent_id": "r0"}
    spans[-1] = {**spans[-1], "start_ns": spans[0]["start_ns"]}
    summary = summarize(load_trace(write_lines(tmp_path / "t.jsonl", [header(version=3), *spans])))
    assert summary.wall_s == approx(3.0) and summary.startup_s == approx(0.5)
    assert summary.categories_s == approx({"planner": 1.5, "executor": 0.2, "tools": 0.5, "framework": 0.8})


def test_killed_run_wall_time_from_first_to_last_span(tmp_path: Path) -> None:
    spans = [s for s in synthetic_spans() if s["span_id"] not in ("r0", "i2", "c3")]
    summary = summarize(load_trace(write_lines(tmp_path / "t.jsonl", [header(), *spans])))
    assert not summary.complete and summary.finished is None
    assert summary.wall_s == approx(1.5)  # from the first observe (0.5 s) to the end of iteration 1 (2.0 s)
    assert summary.categories_s == approx({"planner": 0.6, "executor": 0.2, "tools": 0.5, "framework": 0.2})
    assert "no invoke_agent span" in summary.warnings[0]


async def test_real_run_categories_add_up_to_wall_time(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    result = await record_run(path, planner_s=0.03, executor_s=0.02, tool_s=0.02, observe_s=0.01)
    summary = summarize(load_trace(path))
    assert abs(sum(summary.categories_s.values()) - summary.wall_s) <= 0.01 * summary.wall_s
    assert summary.wall_s == approx(result.wall_s, abs=0.005)
    for name in ("planner", "executor", "tools"):
        assert summary.categories_s[name] == approx(result.time_s[name], abs=0.002)
    assert summary.categories_s["planner"] >= 3 * 0.03 and summary.categories_s["executor"] >= 3 * 0.02
    assert set(summary.tools_detail_s) == {"observe", "click", "type"}
    assert sum(summary.tools_detail_s.values()) == approx(summary.categories_s["tools"])
    assert [len(it.plan) for it in summary.iterations] == [2, 1, 1]
    assert sum(s.duration_s for s in summary.critical_path) <= summary.wall_s
    assert summary.planner_input_tokens == 30 and summary.executor_forward_passes == 8


def test_the_planner_cost_sums_what_the_calls_say_and_calls_the_rest_other() -> None:
    from agentpair.tracing.summary import planner_cost

    class Chat:
        def __init__(self, **said: float) -> None:
            self.said = {f"agentpair.planner.{k}": v for k, v in said.items()}

        def attr(self, key: str) -> float | None:
            return self.said.get(key)

    chats = [Chat(prompt_ms=100, predicted_ms=500, sample_ms=20, grammar_build_ms=3, sampler_init_ms=2, http_ms=7,
                  call_ms=640), Chat(prompt_ms=0, predicted_ms=300, sample_ms=10, http_ms=3, call_ms=320), Chat()]
    cost = planner_cost(chats)  # type: ignore[arg-type]
    assert cost == {"prompt": 100, "decode": 800, "sample": 30, "http": 10, "grammar": 5, "other": 25}
    assert planner_cost([Chat()]) == {}  # type: ignore[list-item]
