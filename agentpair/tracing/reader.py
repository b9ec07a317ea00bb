"""Trace reader: loads a JSON-lines trace file into a typed run tree (header, spans, children).

A last line cut off mid-write is tolerated (the valid prefix is read and a warning says so);
anything else malformed raises TraceError, whose message names the file and the line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentpair.tracing.spans import CATEGORY, TRACE_FORMAT, TRACE_VERSION


class TraceError(Exception):
    """The file is not a readable agentpair trace; the message says which file, line and why."""


class TraceHeader(BaseModel):
    """The first record: who ran what (agent, planner, executor, environment, task)."""

    model_config = ConfigDict(extra="allow")

    type: Literal["header"]
    format: str
    version: int
    agentpair_version: str = ""
    agent: str = ""
    planner: dict[str, Any] = Field(default_factory=dict)
    executor: dict[str, Any] = Field(default_factory=dict)
    environment: str = ""
    tools: list[dict[str, Any]] = Field(default_factory=list, description="name, description, args_schema")
    task: dict[str, Any] = Field(default_factory=dict)
    labels: dict[str, str] = Field(default_factory=dict, description="e.g. the scenario a run played")
    startup_s: float = 0.0


class SpanEvent(BaseModel):
    name: str
    time_ns: int
    attributes: dict[str, Any] = Field(default_factory=dict)


class SpanRecord(BaseModel):
    """One finished span; `children`, `depth` and `iteration` are filled in when the tree is built."""

    type: Literal["span"] = "span"
    name: str
    trace_id: str = ""
    span_id: str
    parent_id: str | None = None
    kind: str = "INTERNAL"
    start_ns: int
    end_ns: int
    status: str = "UNSET"
    status_message: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    events: list[SpanEvent] = Field(default_factory=list)
    children: list[SpanRecord] = Field(default_factory=list, exclude=True)
    depth: int = 0
    iteration: int | None = Field(None, description="the loop iteration the span belongs to, if any")

    @property
    def category(self) -> str | None:
        return self.attributes.get(CATEGORY)

    @property
    def duration_s(self) -> float:
        return (self.end_ns - self.start_ns) / 1e9

    def attr(self, key: str, default: Any = None) -> Any:
        """An attribute as recorded (structured values are JSON text)."""
        return self.attributes.get(key, default)

    def data(self, key: str, default: Any = None) -> Any:
        """A structured attribute (a plan, a request, an observation...) decoded from its JSON text."""
        value = self.attributes.get(key)
        if value is None:
            return default
        return decode(value)

    def walk(self) -> Iterator[SpanRecord]:
        yield self
        for child in self.children:
            yield from child.walk()


def decode(value: Any) -> Any:
    """An attribute value as data: JSON text decoded, anything else as it is."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


class RunTree(BaseModel):
    """A run as read back: the header, every span (in start order) nested under its parent."""

    path: str
    header: TraceHeader
    spans: list[SpanRecord]
    roots: list[SpanRecord]
    truncated: bool = Field(False, description="the file was cut off mid-line; only its valid prefix is here")
    warnings: list[str] = Field(default_factory=list)

    @property
    def root(self) -> SpanRecord | None:
        """The invoke_agent span; missing when the run did not finish (e.g. it was killed)."""
        return next((s for s in self.spans if s.name.startswith("invoke_agent ")), None)

    @property
    def complete(self) -> bool:
        return self.root is not None

    def by_category(self, category: str) -> list[SpanRecord]:
        return [s for s in self.spans if s.category == category]

    def named(self, prefix: str) -> list[SpanRecord]:
        return [s for s in self.spans if s.name == prefix or s.name.startswith(prefix + " ")]

    def iterations(self) -> list[SpanRecord]:
        return [s for s in self.named("iteration") if s.attr("agentpair.iteration") is not None]

    def planner_calls(self) -> list[SpanRecord]:
        return [s for s in self.named("chat") if s.category == "planner"]

    def fills(self) -> list[SpanRecord]:
        return [s for s in self.named("fill") if s.category == "executor"]

    def tool_calls(self) -> list[SpanRecord]:
        return self.named("execute_tool")

    def observations(self) -> list[SpanRecord]:
        return self.named("observe")


def load_trace(path: str | Path) -> RunTree:
    """Read a trace file; raises TraceError for anything but a readable trace or a cut-off tail."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TraceError(f"{path}: cannot read the trace: {exc.strerror or exc}") from exc
    records, truncated, warnings = _records(path, raw)
    header = _header(path, records)
    spans: list[SpanRecord] = []
    for number, record in records[1:]:
        if record.get("type") == "startup":  # what start-up settled (format 2): part of the header
            fields = {k: v for k, v in record.items() if k != "type"}
            try:
                header = TraceHeader.model_validate({**header.model_dump(), **fields})
            except ValidationError as exc:
                raise TraceError(f"{path}:{number}: not a valid startup record: {_first_error(exc)}") from exc
            continue
        if record.get("type") != "span":
            warnings.append(f"{path}:{number}: a record of type {record.get('type')!r} was skipped")
            continue
        try:
            spans.append(SpanRecord.model_validate(record))
        except ValidationError as exc:
            raise TraceError(f"{path}:{number}: not a valid span: {_first_error(exc)}") from exc
    roots = _build_tree(spans)
    return RunTree(path=str(path), header=header, spans=sorted(spans, key=_start_order), roots=roots,
                   truncated=truncated, warnings=warnings)


def _records(path: Path, raw: bytes) -> tuple[list[tuple[int, dict[str, Any]]], bool, list[str]]:
    """(line number, record) for each JSON line; a broken last line without newline is dropped."""
    lines = raw.split(b"\n")
    ends_cleanly = lines[-1] == b""
    if ends_cleanly:
        lines.pop()
    records: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            if number == len(lines) and not ends_cleanly and records:
                warning = (f"{path}:{number}: the file is cut off mid-line (the run was probably killed); "
                           f"read the {number - 1} complete lines before it")
                return records, True, [warning]
            raise TraceError(f"{path}:{number}: not JSON ({exc}): not an agentpair trace, or a corrupt one") from exc
        if not isinstance(record, dict):
            raise TraceError(f"{path}:{number}: a {type(record).__name__}, not a trace record")
        records.append((number, record))
    if not records:
        raise TraceError(f"{path}: empty (or cut off before its header): not an agentpair trace")
    return records, False, []


def _header(path: Path, records: list[tuple[int, dict[str, Any]]]) -> TraceHeader:
    number, first = records[0]
    if first.get("type") != "header" or first.get("format") != TRACE_FORMAT:
        raise TraceError(f"{path}:{number}: no agentpair-trace header: not an agentpair trace")
    version = first.get("version")
    if not isinstance(version, int) or version < 1:
        raise TraceError(f"{path}:{number}: the header has no valid format version ({version!r})")
    if version > TRACE_VERSION:
        raise TraceError(f"{path}:{number}: trace format version {version} is newer than this agentpair "
                         f"reads (version {TRACE_VERSION}): upgrade agentpair to read it")
    try:
        return TraceHeader.model_validate(first)
    except ValidationError as exc:
        raise TraceError(f"{path}:{number}: not a valid header: {_first_error(exc)}") from exc


def _build_tree(spans: list[SpanRecord]) -> list[SpanRecord]:
    """Attach each span to its parent; spans whose parent is not in the file become roots."""
    by_id = {s.span_id: s for s in spans}
    roots: list[SpanRecord] = []
    for span in sorted(spans, key=_start_order):
        parent = by_id.get(span.parent_id or "")
        (parent.children if parent is not None else roots).append(span)
    for root in roots:
        _set_depths(root, 0, None)
    return roots


def _set_depths(span: SpanRecord, depth: int, iteration: int | None) -> None:
    span.depth = depth
    if span.name.startswith("iteration ") and isinstance(span.attr("agentpair.iteration"), int):
        iteration = span.attr("agentpair.iteration")
    span.iteration = iteration
    for child in span.children:
        _set_depths(child, depth + 1, iteration)


def _start_order(span: SpanRecord) -> tuple[int, int]:
    return span.start_ns, -span.end_ns


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    return f"{'.'.join(map(str, error['loc'])) or 'record'}: {error['msg']}"
