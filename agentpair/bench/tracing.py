"""Tracing overhead, measured directly: the cost of one span (create, attributes, export to the
JSON-lines file) against the same code path with tracing off."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agentpair.models import FillRequest
from agentpair.tracing.redaction import Redactor
from agentpair.tracing.spans import RunRecorder
from agentpair.tools.base import Observation

SNAPSHOT = "\n".join(f'- button "Action number {i}" [ref=e{i}]' for i in range(120))  # about 4,000 chars


def _payload() -> dict[str, Any]:
    """Attributes of the size a real span carries: an observation and a fill request."""
    observation = Observation(url="http://127.0.0.1:8000/page", title="Page", snapshot=SNAPSHOT,
                              text="Visible text. " * 60, refs=[f"e{i}" for i in range(120)])
    request = FillRequest(kind="tool_args", instruction="click the Save button", context=SNAPSHOT,
                          schema={"type": "object", "properties": {"ref": {"type": "string"}}},
                          allowed={"/ref": observation.refs})
    return {"agentpair.observation": observation, "agentpair.fill_requests": [request]}


def _per_span_us(recorder: RunRecorder, spans: int) -> float:
    payload = _payload()
    started = time.perf_counter()
    for _ in range(spans):
        with recorder.span("observe", "tools") as span:
            for key, value in payload.items():
                span.set(key, value)
    return (time.perf_counter() - started) / spans * 1e6


def bench_tracing(spans: int = 200, repeats: int = 7) -> dict[str, Any]:
    """Median microseconds per span with tracing on and off, interleaved, and their difference."""
    redactor = Redactor({"password": "hunter2"}, ["sk-key"])
    on, off = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(repeats):
            traced = RunRecorder(Path(tmp) / f"bench-{repeat}.jsonl", redactor)
            traced.write_header({"bench": "tracing"})
            on.append(_per_span_us(traced, spans))
            traced.close()
            untraced = RunRecorder(None, redactor)
            off.append(_per_span_us(untraced, spans))
            untraced.close()
    traced_us, untraced_us = round(statistics.median(on), 1), round(statistics.median(off), 1)
    return {"spans": spans, "repeats": repeats, "span_us_traced_p50": traced_us,
            "span_us_untraced_p50": untraced_us,  # the cost below is their difference as shown
            "tracing_us_per_span": round(traced_us - untraced_us, 1)}
