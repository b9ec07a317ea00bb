"""Bad option values are usage errors where they are parsed: the real CLI, in a process of its own,
exits 2 naming the option (or the environment variable), with no traceback and nothing started."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentpair.cli.options import allowed_origin, http_url, writable_file

BAD = [
    (["run", "login", "--max-steps", "-1"], "--max-steps"),
    (["run", "login", "--max-steps", "0"], "--max-steps"),
    (["run", "login", "--trace", "{tmp}"], "--trace"),  # a folder
    (["run", "login", "--trace", "/proc/x.jsonl"], "--trace"),  # a place no file can be made
    (["run", "login", "--trace", "{tmp}/file.txt/x.jsonl"], "--trace"),  # under a file
    (["run", "login", "--planner-base-url", "not a url"], "--planner-base-url"),
    (["run", "login", "--planner-base-url", "ftp://127.0.0.1/v1"], "--planner-base-url"),
    (["run", "login", "--planner-base-url", "http://127.0.0.1:port/v1"], "--planner-base-url"),
    (["run", "login", "--run-timeout", "nan"], "--run-timeout"),
    (["run", "login", "--planner-timeout", "-3"], "--planner-timeout"),
    (["run", "--goal", "g", "--start-url", "example.com"], "--start-url"),
    (["run", "--goal", "g", "--start-url", "http://127.0.0.1/", "--allow", "example.com"], "--allow"),
    (["plan", "g", "--start-url", "http://"], "--start-url"),
    (["bench", "soak", "--runs", "0"], "--runs"),
    (["bench", "scenarios", "--concurrency", "0"], "--concurrency"),
    (["bench", "miniwob", "--max-steps", "-2"], "--max-steps"),
    (["bench", "tracing", "--spans", "x"], "--spans"),
    (["trace", "html", "t.jsonl", "-o", "{tmp}"], "--output"),
    (["replay", "t.jsonl", "--write-trace", "/proc/x.jsonl"], "--write-trace"),
]


def cli(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agentpair.cli.main", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=60)


@pytest.mark.parametrize(("args", "option"), BAD, ids=[" ".join(args) for args, _ in BAD])
def test_a_bad_value_is_a_usage_error_naming_its_option(args: list[str], option: str, tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("")
    proc = cli([a.format(tmp=tmp_path) for a in args])
    assert proc.returncode == 2, proc.stderr
    assert f"argument {option}" in proc.stderr.replace("-o/--output", "--output")
    assert "Traceback" not in proc.stderr + proc.stdout


@pytest.mark.parametrize("variable", ["OPENAI_BASE_URL", "AGENTPAIR_EXECUTOR_BASE_URL"])
def test_an_endpoint_url_from_the_environment_is_checked_before_start_up(variable: str) -> None:
    proc = cli(["run", "login", "--json"], **{variable: "localhost:8080"})
    assert proc.returncode == 2 and variable in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""  # no run: it stopped before starting anything


def test_good_values_pass_and_checking_a_file_makes_nothing(tmp_path: Path) -> None:
    for url in ("http://127.0.0.1:8080/v1", "https://api.openai.com/v1", "http://[::1]:8080/v1"):
        assert http_url(url) == url
    assert [allowed_origin(o) for o in ("*", "https://*.example.com")] == ["*", "https://*.example.com"]
    deep = tmp_path / "runs" / "new" / "t.jsonl"
    assert writable_file(str(deep)) == deep and list(tmp_path.iterdir()) == []
    existing = tmp_path / "t.jsonl"
    existing.write_text("kept")
    assert writable_file(str(existing)) == existing and existing.read_text() == "kept"
