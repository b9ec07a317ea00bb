"""`agentpair bench reliability` on the real CLI: the hostile pages and two planner faults (the full
list runs in the benchmark itself), nothing leaking, nothing left behind."""

from __future__ import annotations

import pytest

from agentpair.bench import reliability


def test_the_cli_survives_planner_faults_and_hostile_pages_with_nothing_leaking(monkeypatch: pytest.MonkeyPatch) -> None:
    faults = {k: reliability.FAULTS[k] for k in ("connection reset", "HTML body")}
    monkeypatch.setattr(reliability, "FAULTS", faults)
    seen: list[reliability.RunOutcome] = []
    report = reliability.bench_reliability(seen.append)
    assert [r.case for r in report.runs] == ["hostile pages", *faults] and seen == report.runs
    hostile = report.runs[0]
    assert hostile.stop_reason == "finished" and hostile.trace_readable  # it walked every way out, refused
    assert report.faults_total == report.faults_survived == 2
    assert all(r.exit_code == 1 and r.stop_reason.startswith("planner error") for r in report.runs[1:])
    assert (report.tracebacks, report.secret_occurrences, report.off_origin_requests, report.stray_processes) == (0, 0, 0, 0)

