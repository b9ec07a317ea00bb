"""Structure guarantee: random schemas and templates filled by a random model are always valid,
constrained slots hold allowed values only, and awkward strings round-trip."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import jsonschema
import pytest

from executor_engine import Engine, FillInput, TemplateError, ThresholdSampler
from executor_engine.template import MAX_HOLE_ROOM, compile_schema, compile_template
from executor_engine.canvas import TextSlot

AWKWARD = ['say "hi"', "back\\slash", "two\nlines", "café naïve €", "it's \\ \"fine\"", ""]


def leaf(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(["string", "string", "enum", "integer", "int_range", "uint", "number",
                       "boolean", "null", "const", "optional"])
    if kind == "string":
        return {"type": "string", **({"maxLength": rng.randint(0, 12)} if rng.random() < 0.6 else {})}
    if kind == "enum":
        return {"enum": rng.sample(["red", "green", 7, None, True, 'q"t', "ü"], rng.randint(1, 4))}
    if kind == "int_range":
        lo = rng.randint(-5, 5)
        return {"type": "integer", "minimum": lo, "maximum": lo + rng.randint(0, 20)}
    if kind == "uint":
        return {"type": "integer", "minimum": 0}
    if kind == "const":
        return {"const": rng.choice(["fixed", 3, False])}
    if kind == "optional":
        return {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}]}
    return {"type": kind}


def schema(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    r = rng.random()
    if depth < 2 and r < 0.45:
        props = {f"k{i}{rng.choice(['', '/x', '~y', ' z'])}": schema(rng, depth + 1)
                 for i in range(rng.randint(0, 4))}
        return {"type": "object", "properties": props,
                "required": [k for k in props if rng.random() < 0.5]}
    if depth < 2 and r < 0.65:
        hi = rng.randint(0, 3)
        return {"type": "array", "items": schema(rng, depth + 1), "maxItems": hi,
                "minItems": rng.randint(0, hi)}
    return leaf(rng)


def string_pointers(s: dict[str, Any], where: str = "") -> list[str]:
    if s.get("type") == "object":
        return [p for k, sub in s["properties"].items()
                for p in string_pointers(sub, f"{where}/{k.replace('~', '~0').replace('/', '~1')}")]
    return [where] if s.get("type") == "string" and "maxLength" not in s else []


def resolve(value: Any, pointer: str) -> Any:
    for part in pointer.split("/")[1:]:
        value = value[part.replace("~1", "/").replace("~0", "~")]
    return value


def random_request(rng: random.Random) -> tuple[FillInput, Any]:
    if rng.random() < 0.7:
        s = schema(rng)
        allowed = {p: rng.sample(["e1", "e22", "e333", *AWKWARD], rng.randint(1, 4))
                   for p in string_pointers(s) if rng.random() < 0.5}
        return FillInput("fill it", context=f"page {rng.randint(0, 3)}", schema=s, allowed=allowed), s
    parts, holes, allowed = [], [], {}
    for i in range(rng.randint(1, 4)):
        parts.append(rng.choice(["x = ", "print(", "), ", "\n    return ", "if a > 0:\n    "]) + f"§{i}§")
        name = f"h{i}"
        holes.append(name)
        if rng.random() < 0.3:
            allowed["/" + name] = rng.sample(AWKWARD, 3)
        parts.append("{{" + name + (f":{rng.randint(1, 6)}" if rng.random() < 0.7 else "") + "}}")
    template = "".join(parts) + "§end§"
    return FillInput("code it", context="editor", template=template, allowed=allowed), (template, holes)


def check_template(value: str, template: str, holes: list[str], allowed: dict) -> None:
    pattern = re.escape(template)
    for name in holes:
        pattern = re.sub(re.escape(re.escape("{{" + name)) + r"(:\d+)?\\}\\}",
                         lambda _: f"(?P<{name}>.*)", pattern)
    m = re.fullmatch(pattern, value, re.S)
    assert m, (value, template)
    for name, values in allowed.items():
        assert m.group(name[1:]) in values


def test_thousand_random_fills_are_valid(engines: dict[str, Engine]) -> None:
    rng = random.Random(1234)
    cases = [random_request(rng) for _ in range(1000)]
    engine = engines["agentpair"]
    engine.max_batch = 64
    try:
        outs = engine.fill([c[0] for c in cases], ThresholdSampler(threshold=0.3, block_length=64))
    finally:
        engine.max_batch = 32
    n_schema = 0
    for (req, spec), out in zip(cases, outs):
        assert out.error is None, (req, out.error)
        if req.schema is not None:
            n_schema += 1
            jsonschema.validate(out.value, req.schema)
            for pointer, values in req.allowed.items():
                assert resolve(out.value, pointer) in values
        else:
            check_template(out.value, *spec, req.allowed)
    assert n_schema > 600


def test_awkward_strings_round_trip(engines: dict[str, Engine]) -> None:
    engine = engines["llada"]
    vocab = engine.vocab
    s = {"type": "object", "properties": {"a": {"type": "string", "maxLength": 40}}}
    for text in AWKWARD:
        compiled = compile_schema(vocab, s, {})
        slot = next(iter(compiled.canvas.owner.values()))[0]
        ids = vocab.encode(text)
        assert len(ids) <= slot.room and all(vocab.texts[t] for t in ids), text
        positions = sorted(compiled.canvas.owner)
        for pos, tok in zip(positions, ids + [vocab.pad_id] * (slot.room - len(ids))):
            assert compiled.canvas.allowed([pos])[0, tok]
            compiled.canvas.commit(pos, tok)
        value = compiled.decode()
        assert value == {"a": text} and json.loads(json.dumps(value)) == value
        jsonschema.validate(value, s)
    out = engine.fill([FillInput("pick", schema=s, allowed={"/a": AWKWARD})])[0]
    assert out.value["a"] in AWKWARD
    code = engine.fill([FillInput("pick", template="x = {{v}}", allowed={"/v": AWKWARD})])[0]
    assert code.value[4:] in AWKWARD


def test_max_length_counts_characters(engines: dict[str, Engine]) -> None:
    engine = engines["dream"]
    reqs = [FillInput("t", schema={"type": "string", "maxLength": n}) for n in range(0, 9)] * 5
    for req, out in zip(reqs, engine.fill(reqs, ThresholdSampler(threshold=0.0))):
        assert len(out.value) <= req.schema["maxLength"]


@pytest.mark.parametrize("spec,allowed,match", [
    ({"type": "string", "pattern": "a+"}, {}, "unsupported keywords"),
    ({"type": "object", "properties": {"a": {"type": "integer"}}}, {"/b": [1]}, "match no value"),
    ({"type": "object", "properties": {"a": {"type": "integer"}}}, {"/a": ["x"]}, "do not fit"),
    ({"type": "object", "properties": {"a": {"type": "string"}}}, {"/a": []}, "no allowed values"),
    ({"type": "integer", "minimum": 3, "exclusiveMaximum": 4, "maximum": 2}, {}, "no integer lies within"),
    ({"type": "number", "minimum": 3, "maximum": 2}, {}, "no number lies within"),
    ({"type": "string", "minLength": 5, "maxLength": 2}, {}, "minLength > maxLength"),
])
def test_schema_errors(engines: dict[str, Engine], spec: dict, allowed: dict, match: str) -> None:
    with pytest.raises(TemplateError, match=match):
        compile_schema(engines["agentpair"].vocab, spec, allowed)


def test_vendor_keywords_are_notes_not_constraints(engines: dict[str, Engine]) -> None:
    vocab = engines["agentpair"].vocab
    noted = {"type": "object", "properties": {"ref": {"type": "string", "x-roles": ["textbox"]}}}
    plain = {"type": "object", "properties": {"ref": {"type": "string"}}}
    assert compile_schema(vocab, noted, {}).canvas.ids == compile_schema(vocab, plain, {}).canvas.ids


def test_template_errors(engines: dict[str, Engine]) -> None:
    vocab = engines["agentpair"].vocab
    with pytest.raises(TemplateError, match="appears twice"):
        compile_template(vocab, "{{a}} {{a}}", {})
    with pytest.raises(TemplateError, match="unknown holes"):
        compile_template(vocab, "{{a}}", {"/b": ["x"]})
    compiled = compile_template(vocab, "pw = '{{secret:password}}'; n = {{n:2}}", {})
    assert len(compiled.canvas.owner) == 2  # secret placeholders stay literal text
    with pytest.raises(TemplateError, match="'n' has room for 0 tokens"):
        compile_template(vocab, "{{n:0}}", {})
    # a size meant as a value ({{port:8080}}) would make a canvas the fill never finishes
    huge = compile_template(vocab, '"port": {{port:8080}}', {})
    assert len(huge.canvas.owner) == MAX_HOLE_ROOM


def test_text_ends_at_its_first_pad(engines: dict[str, Engine]) -> None:
    from executor_engine.canvas import TextSlot

    vocab = engines["agentpair"].vocab
    word = next(i for i, t in enumerate(vocab.texts) if t and t.isalpha())
    slot = TextSlot(vocab, 6)
    assert slot.allowed(0)[vocab.pad_id] and slot.allowed(0)[word]  # empty text is fine
    slot.commit(3, word)  # text at 3: nothing before it may be a pad
    assert not slot.allowed(1)[vocab.pad_id] and slot.allowed(1)[word]
    slot.commit(4, vocab.pad_id)  # the text ends at 4: only pads after it
    assert slot.allowed(5).nonzero().flatten().tolist() == [vocab.pad_id]
    capped = TextSlot(vocab, 6, max_chars=40)
    capped.commit(2, word)
    assert not capped.allowed(0)[vocab.pad_id] and capped.allowed(4)[vocab.pad_id]


def test_a_holes_room_keeps_the_allowed_values_that_fit_it(engines: dict[str, Engine]) -> None:
    vocab = engines["agentpair"].vocab
    long = "a value far too long for a hole of two tokens, whatever the vocabulary"
    [slot] = {s for s, _ in compile_template(vocab, "n = {{n:2}}", {"/n": ["3", long]}).canvas.owner.values()}
    assert slot.values == ["3"] and slot.room == len(vocab.encode("3"))
    [slot] = {s for s, _ in compile_template(vocab, "n = {{n:2}}", {"/n": [long]}).canvas.owner.values()}
    assert slot.values == [long]  # none fits: still one of them, in a larger room


def test_bounds_and_lengths_pydantic_writes_are_kept(engines: dict[str, Engine]) -> None:
    engine = engines["dream"]  # an untrained model: whatever it decodes, the bounds hold
    specs = [{"type": "integer", "minimum": 1}, {"type": "integer", "exclusiveMinimum": 0, "maximum": 10**6},
             {"type": "integer", "maximum": -5}, {"type": "number", "minimum": 0.5, "maximum": 2.5},
             {"type": "number", "exclusiveMinimum": 0}, {"type": "string", "minLength": 1},
             {"type": "string", "minLength": 3, "maxLength": 8}]
    reqs = [FillInput("t", schema=s) for s in specs] * 4
    for req, out in zip(reqs, engine.fill(reqs, ThresholdSampler(threshold=0.0))):
        jsonschema.validate(out.value, req.schema)


def test_a_min_length_text_takes_no_pad_until_its_committed_text_is_long_enough(engines: dict[str, Engine]) -> None:
    vocab = engines["agentpair"].vocab
    slot = TextSlot(vocab, room=6, min_chars=3)
    assert not slot.allowed(0)[vocab.pad_id] and not slot.allowed(2)[vocab.pad_id]  # text before it is uncommitted
    (one,) = [t for t in vocab.encode("a") if vocab.texts[t] == "a"] or [None]
    assert one is not None
    slot.commit(0, one)
    slot.commit(1, one)
    assert not slot.allowed(2)[vocab.pad_id]  # "aa": two characters
    slot.commit(2, one)
    assert slot.allowed(3)[vocab.pad_id]
    assert TextSlot(vocab, room=6).allowed(0)[vocab.pad_id]  # no minimum: it may be empty


def test_an_optional_object_or_number_may_be_left_out(engines: dict[str, Engine]) -> None:
    contact = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8}}, "required": ["name"]}
    schema = {"type": "object", "$defs": {"Contact": contact}, "properties": {
        "contact": {"anyOf": [{"$ref": "#/$defs/Contact"}, {"type": "null"}], "default": None},
        "count": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
    vocab = engines["agentpair"].vocab
    compiled = compile_schema(vocab, schema, {})
    assert len(compiled.canvas.owner) == len(compile_schema(vocab, {**schema, "properties": {
        k: v["anyOf"][0] for k, v in schema["properties"].items()}}, {}).canvas.owner) + 2  # two presence slots
    values = [out.value for out in engines["dream"].fill([FillInput("t", schema=schema)] * 8, ThresholdSampler(threshold=0.0))]
    for value in values:
        jsonschema.validate(value, schema)
        assert isinstance(value["note"], str)
