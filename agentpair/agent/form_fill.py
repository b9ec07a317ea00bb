"""A whole form filled from one instruction: one fill with a key per text field of the page,
each offered every value the instruction quotes (only its own where the instruction names the
field by its label right before it), no two fields the same one; which quoted value is whose is
the executor's decision, all of them in the same fill."""

from __future__ import annotations

from typing import Any

from agentpair.models import FillRequest
from agentpair.planner.language.values import quoted_values, said_before, words_of
from agentpair.tools.base import Observation
from agentpair.tools.snapshot import ref_names, ref_roles

TEXT_FIELDS = ["textbox"]


def field_key(label: str) -> str:
    """A field's key in the fill: its label's words in lower case, joined by "_"."""
    return "_".join(words_of(label)) or "field"


def form_request_parts(labels: list[str], instruction: str) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The fill's schema (a string per field, keyed by its label, a second field of the same
    key numbered) and what each key may be: every value the instruction quotes, or, for a field
    whose label is the very words said right before one value (and no other's), that value."""
    keys: list[str] = []
    for label in labels:
        base = key = field_key(label)
        n = 2
        while key in keys:
            key, n = f"{base}_{n}", n + 1
        keys.append(key)
    schema = {"type": "object", "properties": {k: {"type": "string"} for k in keys}, "required": keys}
    values = quoted_values(instruction)
    if not values:
        return schema, {}
    words = [words_of(label) for label in labels]
    told = said_before(instruction)
    named = {}
    for said, value in told:
        fields = [k for k, w in zip(keys, words) if w == said]
        if len(fields) == 1 and sum(w == said for w, _ in told) == 1:
            named[fields[0]] = value
    return schema, {"/" + k: [named[k]] if k in named else values for k in keys}


def form_fill(instruction: str, context: str, observation: Observation) -> tuple[FillRequest, dict[str, str]]:
    """The fill for every text field the page shows, and each key's ref (what to type it into)."""
    names, roles = ref_names(observation.snapshot), ref_roles(observation.snapshot)
    refs = [r for r in observation.refs if roles.get(r) in TEXT_FIELDS and names.get(r)]
    schema, allowed = form_request_parts([names[r] for r in refs], instruction)
    request = FillRequest(kind="extract", instruction=instruction, context=context, schema=schema, allowed=allowed,
                          distinct=[list(allowed)] if len(allowed) > 1 else [])  # each quoted value is one field's
    return request, dict(zip(schema["properties"], refs))
