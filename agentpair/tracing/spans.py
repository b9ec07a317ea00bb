"""Tracing: an OpenTelemetry span around every call, and the JSON-lines trace file of a run.

The file holds a header record, then each span as it finishes (one object a line, flushed), so
a killed process leaves a readable prefix. Secrets are redacted before anything is written.
"""

from __future__ import annotations

import contextvars
import json
import os
import threading
import time
import uuid
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from opentelemetry import trace
from pydantic import BaseModel
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from agentpair.version import __version__
from agentpair.tracing.redaction import Redactor

TRACE_FORMAT = "agentpair-trace"
TRACE_VERSION = 3  # 2: the header is written before start-up, a "startup" record follows it; 3: the startup
# span is a child of the run's root span (one trace per run), no root of its own
CATEGORY = "agentpair.category"
RUN_ID = "agentpair.run_id"

_current_run: contextvars.ContextVar[str | None] = contextvars.ContextVar("agentpair_run", default=None)


def span_record(span: ReadableSpan) -> dict[str, Any]:
    """One finished span as a JSON-ready dict."""
    ctx = span.get_span_context()
    parent = span.parent
    return {
        "type": "span",
        "name": span.name,
        "trace_id": f"{ctx.trace_id:032x}",
        "span_id": f"{ctx.span_id:016x}",
        "parent_id": f"{parent.span_id:016x}" if parent else None,
        "kind": span.kind.name,
        "start_ns": span.start_time,
        "end_ns": span.end_time,
        "status": span.status.status_code.name,
        "status_message": span.status.description,
        "attributes": dict(span.attributes or {}),
        "events": [
            {"name": e.name, "time_ns": e.timestamp, "attributes": dict(e.attributes or {})}
            for e in span.events
        ],
    }


class TraceFileWriter:
    """Appends JSON lines to a trace file: header first, then spans, each flushed at once.

    Spans that end before the header is known (start-up) wait in memory until it is written.
    """

    def __init__(self, path: Path, redactor: Redactor) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._redactor = redactor
        self._lock = threading.Lock()
        self._file = open(path, "w", encoding="utf-8")
        self._waiting: list[dict[str, Any]] | None = []

    def write_header(self, header: dict[str, Any]) -> None:
        waiting, self._waiting = self._waiting or [], None
        self._write({"type": "header", "format": TRACE_FORMAT, "version": TRACE_VERSION,
                     "agentpair_version": __version__, **header})
        for record in waiting:
            self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        line = json.dumps(self._redactor.value(record), ensure_ascii=False, default=str)
        with self._lock:
            if not self._file.closed:
                self._file.write(line + "\n")
                self._file.flush()

    def write_record(self, record: dict[str, Any]) -> None:
        if self._waiting is not None:
            self._waiting.append(record)
        else:
            self._write(record)

    def write_span(self, span: ReadableSpan) -> None:
        if self._waiting is not None:
            self._waiting.append(span_record(span))
        else:
            self._write(span_record(span))

    def close(self) -> None:
        if self._waiting is not None:  # the run ended before start-up finished
            self.write_header({"note": "the run ended during start-up"})
        with self._lock:
            self._file.close()


class _RunRouter(SpanProcessor):
    """Stamps each span with the run it starts in, and sends it to that run's file when it ends."""

    def __init__(self) -> None:
        self.writers: dict[str, TraceFileWriter] = {}

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        run_id = _current_run.get()
        if run_id is not None:
            span.set_attribute(RUN_ID, run_id)

    def on_end(self, span: ReadableSpan) -> None:
        writer = self.writers.get((span.attributes or {}).get(RUN_ID, ""))
        if writer is not None:
            writer.write_span(span)


_routers: weakref.WeakKeyDictionary[TracerProvider, _RunRouter] = weakref.WeakKeyDictionary()


OPENINFERENCE_KIND = "openinference.span.kind"  # AGENT, LLM or TOOL: how Phoenix and other viewers show a span
_own_provider: TracerProvider | None = None


def _provider() -> TracerProvider:
    """The application's SDK tracer provider if it set one, else our own, made once per process
    (exporting over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set)."""
    global _own_provider
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        return current
    if _own_provider is None:
        # the service (a viewer's project) is OTEL_SERVICE_NAME when set; Phoenix reads its own key
        service = os.environ.get("OTEL_SERVICE_NAME") or "agentpair"
        _own_provider = TracerProvider(resource=Resource.create({"service.name": service,
                                                                 "openinference.project.name": service}))
        if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
            try:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            except ImportError as exc:
                raise RuntimeError(
                    "OTEL_EXPORTER_OTLP_ENDPOINT is set but the OTLP exporter is not installed: "
                    "pip install 'agentpair[otlp]'"
                ) from exc
            _own_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return _own_provider


def default_trace_path(name: str, directory: str | Path = "runs") -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in name)[:60] or "run"
    return Path(directory) / f"{stamp}-{safe}.jsonl"


def plain(value: Any) -> Any:
    """Pydantic models (also inside lists and dicts) as JSON-ready data."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def attr_value(value: Any) -> Any:
    if isinstance(value, (str, bool, int, float)):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def io_attributes(given: Any, made: Any = None) -> dict[str, Any]:
    """What a call took and gave as OpenInference viewers (Phoenix) show them: input.value and
    output.value, each with its MIME type (text as it is, anything else as JSON); no output where
    `made` is None."""
    said = {"input": given} if made is None else {"input": given, "output": made}
    attributes: dict[str, Any] = {}
    for side, value in said.items():
        attributes[f"{side}.value"] = value
        attributes[f"{side}.mime_type"] = "text/plain" if isinstance(value, str) else "application/json"
    return attributes


def chat_attributes(messages: list[dict[str, str]], answer: str) -> dict[str, Any]:
    """A chat call's messages sent and answer, under the OpenTelemetry GenAI conventions
    (gen_ai.input.messages, gen_ai.output.messages: role and text parts, as JSON) and as
    OpenInference viewers read them (io_attributes; llm.input_messages.N.message.role and
    .content, llm.output_messages.0 likewise)."""
    reply = {"role": "assistant", "content": answer}
    attributes = {"gen_ai.input.messages": [_parts(m) for m in messages],
                  "gen_ai.output.messages": [{**_parts(reply), "finish_reason": "stop"}],
                  **io_attributes({"messages": messages}, answer)}
    for side, said in (("input", messages), ("output", [reply])):
        for index, message in enumerate(said):
            attributes[f"llm.{side}_messages.{index}.message.role"] = message["role"]
            attributes[f"llm.{side}_messages.{index}.message.content"] = message["content"]
    return attributes


def reply_attributes(reply: Any, model: str, request: Any) -> dict[str, Any]:
    """A planner call's span attributes from its reply (a PlanReply): the model that answered, the
    tokens, where the call's time went (an embedded server says), the plan, the raw answer, and the
    messages as viewers show them (chat_attributes; else the request and the plan)."""
    return {"gen_ai.response.model": reply.model or model, "gen_ai.usage.input_tokens": reply.input_tokens,
            "gen_ai.usage.output_tokens": reply.output_tokens,
            **{f"agentpair.planner.{key}": value for key, value in reply.timings.items()},
            "agentpair.plan": reply.plan, "agentpair.response": reply.raw,
            **(chat_attributes(reply.messages, reply.raw) if reply.messages else io_attributes(request, reply.plan))}


def _parts(message: dict[str, str]) -> dict[str, Any]:
    return {"role": message["role"], "parts": [{"type": "text", "content": message["content"]}]}


class SpanHandle:
    """What code inside a span sets: attributes and events, kept raw until the span ends."""

    def __init__(self, recording: bool) -> None:
        self.recording = recording
        self.attributes: dict[str, Any] = {}
        self.events: list[tuple[str, dict[str, Any], int]] = []
        self.failure: str | None = None

    def fail(self, reason: str) -> None:
        """The call the span times failed without raising (a refused tool call, a fill's error): its
        status is ERROR with this reason."""
        self.failure = reason

    def set(self, key: str, value: Any) -> None:
        if self.recording:
            self.attributes[key] = value

    def update(self, attributes: dict[str, Any]) -> None:
        for key, value in attributes.items():
            self.set(key, value)

    def event(self, name: str, attributes: dict[str, Any], at_ns: int | None = None) -> None:
        if self.recording:
            self.events.append((name, attributes, at_ns or time.time_ns()))



class RunRecorder:
    """One run's tracing: spans (when enabled) plus the category intervals attribution needs."""

    def __init__(self, path: Path | None, redactor: Redactor, provider: TracerProvider | None = None) -> None:
        self.path = path
        self.redactor = redactor
        self.intervals: list[tuple[str, float, float]] = []
        self.iteration: int | None = None  # stamped on every span opened while it is set
        self.run_id = uuid.uuid4().hex
        self._writer: TraceFileWriter | None = None
        self._tracer: trace.Tracer | None = None
        if path is not None:
            provider = provider or _provider()
            router = _routers.get(provider)
            if router is None:
                router = _routers[provider] = _RunRouter()
                provider.add_span_processor(router)
            self._router = router
            self._writer = router.writers[self.run_id] = TraceFileWriter(path, redactor)
            self._tracer = provider.get_tracer("agentpair", __version__)
        self._token = _current_run.set(self.run_id)

    @contextmanager
    def span(
        self,
        name: str,
        category: str | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: dict[str, Any] | None = None,
    ) -> Iterator[SpanHandle]:
        """A span timed into `category`; an exception marks it as an error and propagates.

        Attributes are serialised and redacted after the span's end time is taken, so that
        cost counts as framework time, not as the category's.
        """
        start = time.time_ns()
        span: Span = trace.INVALID_SPAN
        if self._tracer is not None:
            span = self._tracer.start_span(name, kind=kind, start_time=start)
        handle = SpanHandle(span.is_recording())
        if handle.recording:
            if self.iteration is not None:
                handle.attributes["agentpair.iteration"] = self.iteration
            handle.attributes.update(attributes or {})
            if category:
                handle.attributes[CATEGORY] = category
        error: BaseException | None = None
        try:
            with trace.use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
                yield handle
        except BaseException as exc:
            error = exc
            raise
        finally:
            end = time.time_ns()
            if category:
                self.intervals.append((category, start / 1e9, end / 1e9))
            if handle.recording:
                self._finish(span, handle, error)
            span.end(end_time=end)

    def _finish(self, span: Span, handle: SpanHandle, error: BaseException | None) -> None:
        span.set_attributes({k: attr_value(self.redactor.value(plain(v))) for k, v in handle.attributes.items()})
        for name, attrs, at in handle.events:
            span.add_event(name, {k: attr_value(self.redactor.value(plain(v))) for k, v in attrs.items()
                                  if v is not None}, timestamp=at)
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, self.redactor.text(f"{type(error).__name__}: {error}")))
        elif handle.failure is not None:
            span.set_status(Status(StatusCode.ERROR, self.redactor.text(handle.failure)))
        else:
            span.set_status(Status(StatusCode.OK))

    def write_header(self, header: dict[str, Any]) -> None:
        if self._writer is not None:
            self._writer.write_header(self.redactor.value(plain(header)))

    def write_record(self, kind: str, fields: dict[str, Any]) -> None:
        """A record of its own kind after the header (e.g. "startup": what start-up settled, which
        tracing.reader folds into the header)."""
        if self._writer is not None:
            self._writer.write_record({"type": kind, **self.redactor.value(plain(fields))})

    def close(self) -> None:
        try:
            _current_run.reset(self._token)
        except ValueError:  # closed in another context than it was opened in
            _current_run.set(None)
        if self._writer is not None:
            self._router.writers.pop(self.run_id, None)
            self._writer.close()
