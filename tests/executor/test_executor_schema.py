"""The schema an OpenAI-compatible executor is sent: allowed values as enums, vendor notes gone."""

from __future__ import annotations

import json

from agentpair.executor.openai import constrained_schema
from agentpair.tools.browser_actions import TypeArgs


def test_allowed_refs_become_an_enum_and_vendor_notes_are_dropped() -> None:
    schema = TypeArgs.model_json_schema()
    sent = constrained_schema(schema, {"/ref": ["e3", "f1e5"]})
    assert sent["properties"]["ref"]["enum"] == ["e3", "f1e5"] and "x-roles" not in json.dumps(sent)
    assert "x-roles" in schema["properties"]["ref"] and "enum" not in schema["properties"]["ref"]  # untouched
    named = {"type": "object", "properties": {"x-id": {"type": "string", "x-note": 1}}}
    assert constrained_schema(named, {}) == {"type": "object", "properties": {"x-id": {"type": "string"}}}
