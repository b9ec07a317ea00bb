"""`agentpair bench tracing` measures a traced span against an untraced one and writes real spans."""

from agentpair.bench.tracing import bench_tracing


def test_bench_tracing_reports_the_cost_of_a_traced_span() -> None:
    report = bench_tracing(spans=20, repeats=1)
    assert report["span_us_traced_p50"] > report["span_us_untraced_p50"] > 0
    assert report["tracing_us_per_span"] == round(report["span_us_traced_p50"] - report["span_us_untraced_p50"], 1)
