"""Latency attribution: turn category intervals on a wall-clock timeline into time per category.

Each instant of a run belongs to exactly one category, so the categories add up to the wall
time: overlapping work is counted once, and `framework` is what no other category covers.
"""

from __future__ import annotations

from collections.abc import Iterable

# When intervals of different categories overlap, the instant goes to the first listed.
CATEGORY_PRIORITY = ("tools", "executor", "planner")


def union_length(intervals: Iterable[tuple[float, float]]) -> float:
    """Length of the union of [start, end) intervals."""
    total, cur_start, cur_end = 0.0, None, None
    for start, end in sorted(intervals):
        if cur_end is None or start > cur_end:
            if cur_end is not None:
                total += cur_end - cur_start
            cur_start, cur_end = start, end
        else:
            cur_end = max(cur_end, end)
    if cur_end is not None:
        total += cur_end - cur_start
    return total


def categorize(
    intervals: Iterable[tuple[str, float, float]], wall_start: float, wall_end: float
) -> dict[str, float]:
    """Seconds per category (planner, executor, tools, framework) inside [wall_start, wall_end).

    `intervals` are (category, start, end) in seconds; other categories are ignored.
    """
    clipped = [
        (cat, max(s, wall_start), min(e, wall_end))
        for cat, s, e in intervals
        if cat in CATEGORY_PRIORITY and min(e, wall_end) > max(s, wall_start)
    ]
    # sweep the edges in time order, keeping how many intervals of each category are open
    edges = sorted([(s, 1, cat) for cat, s, _ in clipped] + [(e, -1, cat) for cat, _, e in clipped])
    open_count = {cat: 0 for cat in CATEGORY_PRIORITY}
    totals = {cat: 0.0 for cat in CATEGORY_PRIORITY}
    covered, previous = 0.0, wall_start
    for time_s, delta, cat in edges:
        active = next((c for c in CATEGORY_PRIORITY if open_count[c]), None)
        if active is not None:
            totals[active] += time_s - previous
            covered += time_s - previous
        open_count[cat] += delta
        previous = time_s
    result = {"planner": totals["planner"], "executor": totals["executor"], "tools": totals["tools"]}
    result["framework"] = max(0.0, (wall_end - wall_start) - covered)
    return result
