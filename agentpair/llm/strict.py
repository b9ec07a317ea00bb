"""A JSON schema in the subset OpenAI-style strict structured outputs enforce: every object closed
(additionalProperties false) with all its properties required (the optional ones nullable), `const`
as a one-value enum, a pattern that only spells out a finite set of texts as that enum, and no
length or count bounds (the reply is still validated against them: see planner.client). An open map
(an object of any keys whose values share a schema, as an extraction schema's properties) has no
strict form and is left open.
"""

from __future__ import annotations

import itertools
from typing import Any

MAX_ENUM = 500  # a pattern spelling out more texts than this stays a pattern
DROPPED = {"minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum",
           "exclusiveMaximum", "default", "title", "examples", "$schema"}


SCHEMA_MAPS = {"properties", "$defs", "definitions"}  # keywords whose values map names to schemas
SCHEMA_LISTS = {"anyOf", "oneOf", "allOf", "prefixItems"}  # ... hold lists of schemas
SCHEMA_ONE = {"items", "additionalProperties", "not"}  # ... hold one schema


def strict_schema(schema: Any) -> Any:
    """`schema` in the strict subset (a new object; the input is left as it is)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in DROPPED or key.startswith("x-"):
            continue
        if key in SCHEMA_MAPS and isinstance(value, dict):
            value = {name: strict_schema(sub) for name, sub in value.items()}
        elif key in SCHEMA_LISTS and isinstance(value, list):
            value = [strict_schema(sub) for sub in value]
        elif key in SCHEMA_ONE:
            value = strict_schema(value)
        out[key] = value
    if "const" in out:
        out["enum"] = [out.pop("const")]
    if isinstance(out.get("pattern"), str) and (texts := pattern_texts(out["pattern"])) is not None:
        del out["pattern"]
        out["enum"] = texts
    if "properties" in out or out.get("type") == "object" and not isinstance(out.get("additionalProperties"), dict):
        props = out.get("properties", {})
        required = set(schema.get("required", []))
        out["properties"] = {k: v if k in required else nullable(v) for k, v in props.items()}
        out["required"] = list(props)
        out["additionalProperties"] = False
    return out


def nullable(schema: Any) -> Any:
    """The schema, or null."""
    if not isinstance(schema, dict):
        return schema  # true: anything, null included
    if "enum" in schema:
        return {**schema, "enum": [*schema["enum"], None]} if None not in schema["enum"] else schema
    return {"anyOf": [schema, {"type": "null"}]}


def pattern_texts(pattern: str) -> list[str] | None:
    """Every text a pattern matches, where it is anchored (^...$) and spells out a finite set of at
    most MAX_ENUM texts with literal characters, escapes, one-character classes ([.]), groups of
    alternatives and optional groups; None for anything else (a class, a repeat)."""
    if not (pattern.startswith("^") and pattern.endswith("$")):
        return None
    try:
        texts, at = _sequence(pattern, 1)
    except ValueError:
        return None
    return sorted(texts) if at == len(pattern) - 1 and texts is not None else None


def _sequence(p: str, i: int) -> tuple[set[str] | None, int]:
    """The texts of the items from p[i] to the next "|", ")" or the closing "$"."""
    texts: set[str] = {""}
    while i < len(p) and p[i] not in "|)" and not (p[i] == "$" and i == len(p) - 1):
        part, i = _item(p, i)
        if i < len(p) and p[i] == "?":
            part, i = part | {""}, i + 1
        if i < len(p) and p[i] in "*+{":
            raise ValueError("a repeat")
        texts = {a + b for a, b in itertools.product(texts, part)}
        if len(texts) > MAX_ENUM:
            raise ValueError("too many")
    return texts, i


def _item(p: str, i: int) -> tuple[set[str], int]:
    c = p[i]
    if c == "\\":
        if i + 1 >= len(p) or p[i + 1].isalnum():
            raise ValueError("a class escape")  # \d, \w, \s ...
        return {p[i + 1]}, i + 2
    if c == "[":
        end = p.index("]", i + 1)
        body = p[i + 1:end]
        if len(body) != 1 or body in "^\\":
            raise ValueError("a character class")
        return {body}, end + 1
    if c == "(":
        found: set[str] = set()
        i += 1
        while True:
            alt, i = _sequence(p, i)
            found |= alt or set()
            if len(found) > MAX_ENUM:
                raise ValueError("too many")
            if p[i] == ")":
                return found, i + 1
            i += 1  # past "|"
    if c in ".^$*+?{}":
        raise ValueError("a special character")
    return {c}, i + 1
