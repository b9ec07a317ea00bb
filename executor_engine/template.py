"""Compile a JSON schema or a code template with holes into a canvas, and decode it back.

Fixed text (keys, braces, code around holes) becomes fixed tokens; values become slots. The
decoded value is built by us from slot contents, so it is valid by construction.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from executor_engine.canvas import Canvas, ChoiceSlot, NumberSlot, Slot, TextSlot, Vocab, set_apart, tie

HOLE = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)(?::(\d+))?\}\}")
HOLE_ROOM = 16  # tokens of a hole written without a size
MAX_HOLE_ROOM = 64  # a larger size (a planner once wrote {{port:8080}}) is clamped, as maxLength is
STRING_ROOM = 16  # tokens of a string without maxLength (and at most, with one)
MAX_STRING_ROOM = 48
ARRAY_ROOM = 3  # items of an array without maxItems
NUMBER_ROOM = 6
CHOICE_RANGE = 256  # integers with minimum and maximum this close become a choice
ANNOTATIONS = {"title", "description", "default", "examples", "format", "$schema", "$id",
               "$defs", "definitions", "additionalProperties", "$comment", "readOnly"}
KEYWORDS = {
    "object": {"type", "properties", "required"},
    "array": {"type", "items", "maxItems", "minItems"},
    "string": {"type", "maxLength", "minLength"},
    "integer": {"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"},
    "number": {"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"},
    "boolean": {"type"},
    "null": {"type"},
}

Decoder = Callable[[], Any]


def pointer_child(where: str, key: str) -> str:
    """The JSON pointer of `key` under `where` (RFC 6901 escaping)."""
    return where + "/" + key.replace("~", "~0").replace("/", "~1")


def pointer_parts(pointer: str) -> list[str]:
    """The unescaped keys of a JSON pointer ("" -> [])."""
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]


class TemplateError(ValueError):
    """A schema or template the engine cannot turn into a canvas; names the place."""


class UnfitValues(TemplateError):
    """Allowed values the schema at `pointer` does not take: `values` those, `schema` the schema
    there (references and optional branches resolved)."""

    def __init__(self, pointer: str, values: list[Any], schema: dict[str, Any]) -> None:
        super().__init__(f"{pointer or '/'}: allowed values {values!r} do not fit the schema")
        self.pointer, self.values, self.schema = pointer, values, schema


@dataclass
class Compiled:
    canvas: Canvas
    decode: Decoder  # call once every slot is committed


def compile_template(vocab: Vocab, template: str, allowed: dict[str, list[Any]]) -> Compiled:
    """Code with holes `{{name:24}}` (at most 24 tokens, never more than MAX_HOLE_ROOM) or
    `{{name}}` (HOLE_ROOM tokens); a hole with allowed values holds one of them, of those that fit
    its room where some do."""
    canvas, pieces, seen, at = Canvas(vocab), [], set(), 0
    for m in HOLE.finditer(template):
        name, size = m.group(1), m.group(2)
        if name in seen:
            raise TemplateError(f"hole {name!r} appears twice in the template")
        seen.add(name)
        canvas.add_text(template[at:m.start()])
        pieces.append(template[at:m.start()])
        if size is not None and int(size) == 0:
            raise TemplateError(f"hole {name!r} has room for 0 tokens")
        room = min(int(size), MAX_HOLE_ROOM) if size else HOLE_ROOM
        if "/" + name in allowed:  # those that fit its room, where some do (the room bounds the canvas)
            values = _fitting(vocab, allowed["/" + name], room) or allowed["/" + name]
            slot: Slot = _choice(vocab, values, [str(v) for v in values], "/" + name)
        else:
            slot = TextSlot(vocab, room)
        pieces.append(canvas.add_slot(slot))
        at = m.end()
    canvas.add_text(template[at:])
    pieces.append(template[at:])
    unknown = set(allowed) - {"/" + n for n in seen}
    if unknown:
        raise TemplateError(f"allowed names unknown holes: {sorted(unknown)}")
    return Compiled(canvas, lambda: "".join(p if isinstance(p, str) else p.value() for p in pieces))


def compile_schema(vocab: Vocab, schema: dict[str, Any], allowed: dict[str, list[Any]],
                   tied: list[list[str]] = (), distinct: list[list[str]] = ()) -> Compiled:
    """A JSON schema (objects, arrays, strings, numbers, booleans, enums) as a canvas; each group
    of `tied` pointers (choices with as many values) takes values from one place in their lists,
    each group of `distinct` pointers (choices) takes different values."""
    c = _SchemaCompiler(vocab, schema, allowed)
    decode = c.node(schema, "")
    unknown = set(allowed) - c.used
    if unknown:
        raise TemplateError(f"allowed pointers match no value in the schema: {sorted(unknown)}")
    for group in tied:
        slots = [c.choices.get(p) for p in group]
        if None in slots or len({len(s.values) for s in slots}) != 1 or \
                any(len(s.values) != len(allowed[p]) for s, p in zip(slots, group)):
            raise TemplateError(f"tied pointers are not choices with as many distinct values: {group}")
        tie(slots)
    for group in distinct:
        apart = [c.choices.get(p) for p in group]
        if None in apart:
            raise TemplateError(f"distinct pointers are not all choices: {group}")
        set_apart(apart)
    return Compiled(c.canvas, decode)


def _fitting(vocab: Vocab, values: list[Any], room: int) -> list[Any]:
    """The values whose tokens fit in `room`."""
    lengths = [len(ids) for ids in vocab.encode_batch([str(v) for v in values])] if values else []
    return [v for v, n in zip(values, lengths) if n <= room]


def _bounds(schema: dict[str, Any], integer: bool) -> tuple[float | None, float | None]:
    """The least and greatest value a number schema allows (exclusive bounds: the next integer, or
    the next float, inside)."""
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if (above := schema.get("exclusiveMinimum")) is not None:
        inside = math.floor(above) + 1 if integer else math.nextafter(above, math.inf)
        lo = inside if lo is None else max(lo, inside)
    if (below := schema.get("exclusiveMaximum")) is not None:
        inside = math.ceil(below) - 1 if integer else math.nextafter(below, -math.inf)
        hi = inside if hi is None else min(hi, inside)
    if integer:
        lo, hi = (None if lo is None else math.ceil(lo)), (None if hi is None else math.floor(hi))
    return lo, hi


def _choice(vocab: Vocab, values: list[Any], texts: list[str], where: str) -> ChoiceSlot:
    if not values:
        raise TemplateError(f"{where}: no allowed values")
    unique = dict(zip(texts, values))  # text -> value, duplicates dropped
    return ChoiceSlot(vocab, list(unique.values()), list(unique))


class _SchemaCompiler:
    def __init__(self, vocab: Vocab, root: dict[str, Any], allowed: dict[str, list[Any]]):
        self.vocab, self.root, self.allowed = vocab, root, allowed
        self.canvas = Canvas(vocab)
        self.used: set[str] = set()
        self.choices: dict[str, ChoiceSlot] = {}  # pointer -> its choice, where `allowed` gives one

    def resolve(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        """Follow local $ref; take the first non-null branch of anyOf or of a type list."""
        for _ in range(32):
            if "$ref" in schema:
                ref = schema["$ref"]
                if not ref.startswith("#/"):
                    raise TemplateError(f"{where or '/'}: only local $ref is supported ({ref})")
                target: Any = self.root
                for part in pointer_parts(ref[1:]):
                    target = target[part]
                schema = {**{k: v for k, v in schema.items() if k != "$ref"}, **target}
            elif "anyOf" in schema:
                branches = [b for b in schema["anyOf"] if b.get("type") != "null"] or schema["anyOf"]
                schema = {**{k: v for k, v in schema.items() if k != "anyOf"}, **branches[0]}
            elif isinstance(schema.get("type"), list):
                types = [t for t in schema["type"] if t != "null"] or ["null"]
                schema = {**schema, "type": types[0]}
            else:
                return schema
        raise TemplateError(f"{where or '/'}: $ref nesting too deep")

    def node(self, schema: dict[str, Any], where: str) -> Decoder:
        if where not in self.allowed and (optional := self.optional(schema, where)):
            return optional
        schema = self.resolve(schema, where)
        if where in self.allowed:
            self.used.add(where)
            decode = self.choice(schema, self.allowed[where], where)
            self.choices[where] = self.canvas.owner[len(self.canvas.ids) - 1][0]
            return decode
        if "const" in schema:
            return self.choice(schema, [schema["const"]], where)
        if "enum" in schema:
            return self.choice(schema, schema["enum"], where)
        kind = schema.get("type")
        if kind not in KEYWORDS:
            raise TemplateError(f"{where or '/'}: unsupported or missing type {kind!r}")
        extra = {k for k in set(schema) - KEYWORDS[kind] - ANNOTATIONS if not k.startswith("x-")}  # x-*: vendor notes
        if extra:
            raise TemplateError(f"{where or '/'}: unsupported keywords {sorted(extra)} for {kind}")
        return getattr(self, "node_" + kind)(schema, where)

    def optional(self, schema: dict[str, Any], where: str) -> Decoder | None:
        """A value or null (anyOf with a null branch, as pydantic writes Optional[...]) that is no
        string: a slot saying whether it is there ("+"), then the value; None where absent. An
        optional string stays a string, empty where absent."""
        branches = schema.get("anyOf", [])
        if not any(b.get("type") == "null" for b in branches) or len(branches) != 2:
            return None
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        value = self.resolve({**rest, **next(b for b in branches if b.get("type") != "null")}, where)
        if value.get("type") == "string" and "enum" not in value and "const" not in value:
            return None
        present = self.canvas.add_slot(ChoiceSlot(self.vocab, [True, False], ["+", ""]))
        decode = self.node(value, where)
        return lambda: decode() if present.value() else None

    def choice(self, schema: dict[str, Any], values: list[Any], where: str) -> Decoder:
        check = Draft202012Validator(schema)
        bad = [v for v in values if not check.is_valid(v)]
        if bad:
            raise UnfitValues(where, bad, schema)
        texts = [json.dumps(v, ensure_ascii=False) for v in values]
        return self.canvas.add_slot(_choice(self.vocab, values, texts, where or "/")).value

    def node_object(self, schema: dict[str, Any], where: str) -> Decoder:
        props = schema.get("properties", {})
        missing = set(schema.get("required", [])) - set(props)
        if missing:
            raise TemplateError(f"{where or '/'}: required {sorted(missing)} not in properties")
        self.canvas.add_text("{")
        fields = []
        for n, (key, sub) in enumerate(props.items()):
            start = len(self.canvas.ids)
            self.canvas.add_text((", " if n else "") + json.dumps(key, ensure_ascii=False) + ": ")
            fields.append((key, self.node(sub, pointer_child(where, key))))
            self.canvas.records.append((start, len(self.canvas.ids)))  # a property, its key with it
        self.canvas.add_text("}")
        return lambda: {key: decode() for key, decode in fields}

    def node_array(self, schema: dict[str, Any], where: str) -> Decoder:
        lo, hi = schema.get("minItems", 0), schema.get("maxItems", max(ARRAY_ROOM, schema.get("minItems", 0)))
        if lo > hi:
            raise TemplateError(f"{where or '/'}: minItems > maxItems")
        self.canvas.add_text("[")
        items = []
        for i in range(hi):
            present, start = None, len(self.canvas.ids)
            if i >= lo:  # "+" marks a present item; pad alone means absent
                present = self.canvas.add_slot(ChoiceSlot(self.vocab, [True, False], ["+", ""]))
            items.append((present, self.node(schema.get("items", {"type": "string"}), f"{where}/{i}")))
            self.canvas.records.append((start, len(self.canvas.ids)))
            self.canvas.add_text(", " if i < hi - 1 else "")
        self.canvas.add_text("]")
        return lambda: [decode() for present, decode in items if present is None or present.value()]

    def node_string(self, schema: dict[str, Any], where: str) -> Decoder:
        max_chars, min_chars = schema.get("maxLength"), schema.get("minLength", 0)
        if max_chars is not None and min_chars > max_chars:
            raise TemplateError(f"{where or '/'}: minLength > maxLength")
        room = STRING_ROOM if max_chars is None else min(max_chars, MAX_STRING_ROOM)
        self.canvas.add_text('"')
        slot = self.canvas.add_slot(TextSlot(self.vocab, max(room, min(min_chars, MAX_STRING_ROOM)), max_chars, min_chars))
        self.canvas.add_text('"')
        return slot.value

    def node_integer(self, schema: dict[str, Any], where: str) -> Decoder:
        lo, hi = _bounds(schema, integer=True)
        if lo is not None and hi is not None and hi - lo < CHOICE_RANGE:
            if lo > hi:
                raise TemplateError(f"{where or '/'}: no integer lies within the bounds")
            return self.choice(schema, list(range(int(lo), int(hi) + 1)), where)
        return self.number(where, integer=True, lo=lo, hi=hi)

    def node_number(self, schema: dict[str, Any], where: str) -> Decoder:
        lo, hi = _bounds(schema, integer=False)
        return self.number(where, integer=False, lo=lo, hi=hi)

    def number(self, where: str, integer: bool, lo: float | None = None, hi: float | None = None) -> Decoder:
        """A number slot (signed unless the bounds rule out a minus); a value decoded outside the
        bounds is brought to the nearest one."""
        if not self.vocab.classes["D"].any():
            raise TemplateError(f"{where or '/'}: the tokenizer has no digit tokens")
        if lo is not None and hi is not None and lo > hi:
            raise TemplateError(f"{where or '/'}: no number lies within the bounds")
        slot = self.canvas.add_slot(NumberSlot(self.vocab, NUMBER_ROOM, integer, signed=lo is None or lo < 0))
        return lambda: min(max(slot.value(), lo if lo is not None else -math.inf), hi if hi is not None else math.inf)

    def node_boolean(self, schema: dict[str, Any], where: str) -> Decoder:
        return self.choice(schema, [True, False], where)

    def node_null(self, schema: dict[str, Any], where: str) -> Decoder:
        self.canvas.add_text("null")
        return lambda: None
