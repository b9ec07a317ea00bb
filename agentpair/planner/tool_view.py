"""A tool as a planner that is told tools whole reads it: its description, then each argument
with its type, its choices or bounds, its default and what it is (from the argument schema)."""

from __future__ import annotations

import json
from typing import Any

BOUNDS = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than",
          "exclusiveMaximum": "less than", "minLength": "at least {} characters",
          "maxLength": "at most {} characters", "minItems": "at least {} items", "maxItems": "at most {} items"}


def tool_line(name: str, description: str, args: str) -> str:
    """One tool on one line: `- name: description Args: ...`."""
    return f"- {name}: {description}" + (f" Args: {args}" if args else "")


def told_args(schema: dict[str, Any]) -> str:
    """A tool's arguments in words, `; ` apart: `estimate_hours (integer, at least 1, default 1):
    hours it takes`; an argument with no default that may be left out is `optional`."""
    required = set(schema.get("required", []))
    return "; ".join(_told(name, prop, name in required, schema) for name, prop in schema.get("properties", {}).items())


def _told(name: str, prop: dict[str, Any], required: bool, root: dict[str, Any]) -> str:
    said = [_kind(prop, root), *_limits(prop)]
    if "default" in prop and prop["default"] is not None:
        said.append(f"default {json.dumps(prop['default'], ensure_ascii=False)}")
    elif not required:
        said.append("optional")
    text = f"{name} ({', '.join(said)})"
    return f"{text}: {prop['description']}" if prop.get("description") else text


def _kind(prop: dict[str, Any], root: dict[str, Any]) -> str:
    """What a value is: `one of "km", "mi"`, `integer`, `array of string`, an object model's name."""
    if "enum" in prop:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"])
    if "const" in prop:
        return json.dumps(prop["const"], ensure_ascii=False)
    if "$ref" in prop:
        target = root.get("$defs", {}).get(prop["$ref"].rsplit("/", 1)[-1], {})
        return _kind(target, root) if "enum" in target else f"object {target.get('title', '')}".strip()
    branches = [b for b in prop.get("anyOf", []) if b.get("type") != "null"]
    if branches:
        return " or ".join(_kind(b, root) for b in branches)
    kind = prop.get("type", "any")
    if kind == "array" and isinstance(prop.get("items"), dict):
        return f"array of {_kind(prop['items'], root)}"
    return kind if isinstance(kind, str) else " or ".join(kind)


def _limits(prop: dict[str, Any]) -> list[str]:
    """Its bounds and format, in words (those of an optional value's one branch too)."""
    found = [prop, *[b for b in prop.get("anyOf", []) if b.get("type") != "null"]]
    said = []
    for part in found:
        for key, words in BOUNDS.items():
            if key == "minLength" and part.get(key) == 1:
                said.append("not empty")
            elif key in part:
                said.append(words.format(part[key]) if "{}" in words else f"{words} {part[key]}")
        if "pattern" in part:
            said.append(f"matching {part['pattern']}")
        if "format" in part:
            said.append(f"format {part['format']}")
    return said
