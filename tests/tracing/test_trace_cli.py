"""`agentpair trace summary|html` and `agentpair replay`: outputs, exit codes, and no tracebacks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentpair.cli.main import main
from tests.trace_runs import edit_span, header, record_run, synthetic_spans, write_lines


@pytest.fixture
def synthetic(tmp_path: Path) -> Path:
    return write_lines(tmp_path / "t.jsonl", [header(), *synthetic_spans()])


def test_summary_json_and_table(synthetic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", "summary", str(synthetic), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["wall_s"] == pytest.approx(3.0) and data["startup_s"] == pytest.approx(0.5)
    assert data["categories_s"]["planner"] == pytest.approx(1.5)
    assert data["tools_detail_s"] == pytest.approx({"observe": 0.2, "click": 0.2, "type": 0.1})
    assert [it["number"] for it in data["iterations"]] == [1, 2]
    assert main(["trace", "summary", str(synthetic)]) == 0
    out = capsys.readouterr().out
    assert "planner" in out and "1.500" in out and "50.0%" in out and "critical path" in out


def test_html_writes_the_page(synthetic: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", "html", str(synthetic), "-o", str(tmp_path / "run.html")]) == 0
    page = (tmp_path / "run.html").read_text()
    assert page.count('class="row"') == len(synthetic_spans()) and "http" not in page.split("<body>")[1]


@pytest.mark.parametrize("content, message", [
    ("hello\n", "not JSON"),
    (json.dumps(header(version=9)) + "\n", "newer than this agentpair reads"),
])
@pytest.mark.parametrize("command", [["trace", "summary"], ["trace", "html", "-o", "x.html"], ["replay"]])
def test_unreadable_traces_exit_2_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str,
                                                 message: str, command: list[str]) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(content)
    assert main([*command[:2], str(path), *command[2:]]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cut_off_trace_shows_its_prefix_and_exits_2(synthetic: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = synthetic.read_text()
    synthetic.write_text(text[: text.rindex("invoke_agent")])
    assert main(["trace", "summary", str(synthetic), "--json"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["wall_s"] == pytest.approx(2.9)  # first span to the end of iteration 2
    assert "cut off mid-line" in captured.err and "valid prefix" in captured.err


async def test_replay_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "run.jsonl"
    await record_run(path)
    code = await _main_in_thread(["replay", str(path), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["matched"] and result["model_calls"] == 0

    assert await _main_in_thread(["replay", str(path), "--tools", "live"]) == 2
    assert "no start_url" in capsys.readouterr().err
    assert await _main_in_thread(["replay", str(path), "--executor", "nonsense"]) == 2

    edit_span(path, "chat scripted", 0, lambda s: {**s, "attributes": {
        **s["attributes"], "agentpair.plan_request": s["attributes"]["agentpair.plan_request"].replace("Page 1", "P")}})
    assert await _main_in_thread(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "diverged at iteration 1, step 1 (planner_request" in out and '"title": "P"' in out


async def _main_in_thread(argv: list[str]) -> int:
    """main() runs its own event loop, so a test's loop runs it in a thread."""
    return await asyncio.to_thread(main, argv)
