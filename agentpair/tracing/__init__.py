"""Tracing: OpenTelemetry spans and the JSON-lines trace file (spans), secret redaction, reading a trace
back (reader), latency attribution (attribution, summary) and the waterfall page (waterfall)."""
