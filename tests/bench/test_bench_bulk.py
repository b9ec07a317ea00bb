"""The bulk workload: held-out pages of 10-16 records read whole, and held-out forms of 20-26
fields filled from one instruction, by both local executors side by side (real Chromium, the
shipped models), scored slot by slot."""

from __future__ import annotations

from pathlib import Path

from agentpair.bench.bulk import _ratio, bench_bulk, bulk_cases, form_cases, slot_hits, slots
from agentpair.training.datagen.pages_bulk import target_records


def test_slots_are_the_targets_leaves_and_a_hit_needs_the_same_value_and_type() -> None:
    target = {"orders": [{"id": "A1", "qty": 2}, {"id": "B2", "qty": 3}]}
    assert [path for path, _ in slots(target)] == [("orders", 0, "id"), ("orders", 0, "qty"),
                                                   ("orders", 1, "id"), ("orders", 1, "qty")]
    got = {"orders": [{"id": "A1", "qty": 2.0}, {"id": "B2", "qty": 3}]}
    assert slot_hits(got, target) == [True, False, True, True]  # 2.0 is not the integer 2
    assert slot_hits({"orders": [{"id": "A1", "qty": 2}]}, target) == [True, True, False, False]
    assert slot_hits(None, target) == [False] * 4


def test_a_request_neither_executor_needs_a_forward_for_counts_as_even() -> None:
    assert _ratio(0, 0) == 1.0 and _ratio(1, 4) == 0.25 and _ratio(2, 0) == 2.0


def test_the_workload_asks_for_every_record_in_one_request(tmp_path: Path) -> None:
    [(request, target)] = bulk_cases(1, tmp_path / "pages.jsonl")
    at, records = target_records(target)
    assert request.kind == "extract" and 10 <= len(records) <= 16
    assert all(value in request.allowed[f"{at}/{i}/{key}"] for i, row in enumerate(records) for key, value in row.items())


def test_a_long_form_is_one_request_with_a_key_per_field_each_offered_its_value(tmp_path: Path) -> None:
    [(request, target)] = form_cases(1, tmp_path / "forms.jsonl")
    assert request.kind == "extract" and 20 <= len(target) <= 26
    assert list(request.schema_["properties"]) == list(target)
    assert all(value in request.allowed["/" + key] for key, value in target.items())
    offers = [len(values) for values in request.allowed.values()]
    assert all(n in (1, len(target)) for n in offers)  # every value, or its own where said after its label
    assert offers.count(len(target)) >= 2  # fields said in other words: a real choice


def test_the_report_puts_both_executors_side_by_side_over_all_and_per_kind(tmp_path: Path) -> None:
    report = bench_bulk(2, tmp_path / "pages.jsonl")
    assert report["requests"] == 4 and report["slots_per_request"]["min"] >= 20
    assert {kind: part["requests"] for kind, part in report["by_kind"].items()} == {"records": 2, "form": 2}
    for part in (report, *report["by_kind"].values()):
        for side in ("diffusion", "ar"):
            assert part[side]["errors"] == 0 and 0 <= part[side]["accuracy_slot"] <= 1
        assert part["speedup_vs_ar"] > 0
    for side in ("diffusion", "ar"):  # a form's fields are never decided by their offers alone
        assert report["by_kind"]["form"][side]["forwards_p50"] >= 1


def test_the_command_prints_a_table_or_json(capsys) -> None:
    from agentpair.cli.main import main

    assert main(["bench", "executor", "--workload", "bulk", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "executor bench: shipped" in out and "forwards_ratio_vs_ar" in out
