"""`agentpair bench reliability` on the real CLI: the hostile pages, two planner faults (one echoing the
key) and two bad options (the full lists run in the benchmark itself), nothing leaking, nothing left behind."""

from __future__ import annotations

import pytest

from agentpair.bench import page_spellings, reliability


def test_the_cli_survives_planner_faults_bad_options_and_hostile_pages_with_nothing_leaking(
        monkeypatch: pytest.MonkeyPatch) -> None:
    faults = {k: reliability.FAULTS[k] for k in ("connection reset", "401 echoing the API key")}
    options = {k: reliability.BAD_OPTIONS[k] for k in ("--max-steps -1", "--trace where no file can be made")}
    monkeypatch.setattr(reliability, "FAULTS", faults)
    monkeypatch.setattr(reliability, "BAD_OPTIONS", options)
    seen: list = []
    report = reliability.bench_reliability(seen.append)
    assert seen == [*report.bad_options, *report.runs, *report.spellings] and all(case.line() for case in seen)
    assert [r.case for r in report.runs] == ["hostile pages", *faults] and [o.case for o in report.bad_options] == [*options]
    hostile = report.runs[0]
    assert hostile.stop_reason == "finished" and hostile.trace_readable  # it walked every way out, refused
    assert all(r.exit_code == 1 and r.stop_reason.startswith("planner error") for r in report.runs[1:])
    assert "[REDACTED]" in report.runs[2].stop_reason  # the echoed key, in --json's stop_reason too
    assert all(o.exit_code == 2 and o.named for o in report.bad_options)
    assert [s.case for s in report.spellings] == [*page_spellings.SPELLINGS] and len(report.spellings) >= 10
    assert report.faults_total == report.faults_survived == 4 + len(page_spellings.SPELLINGS) and report.clean
    assert (report.tracebacks, report.secret_occurrences, report.key_occurrences, report.off_origin_requests,
            report.stray_processes) == (0, 0, 0, 0, 0)
