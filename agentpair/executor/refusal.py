"""A fill refused because the values a step gave do not fit the tool's schema, in plain words the
planner reads: "estimate_hours must be at least 1; the step gave 0"."""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator

from executor_engine.template import UnfitValues, pointer_parts

RULES = {"minimum": "must be at least {}", "maximum": "must be at most {}", "exclusiveMinimum": "must be more than {}",
         "exclusiveMaximum": "must be less than {}", "multipleOf": "must be a multiple of {}",
         "minLength": "must be at least {} characters long", "maxLength": "must be at most {} characters long",
         "pattern": "must match {}", "format": "must be a {}", "const": "must be {}"}
KINDS = {"integer": "a whole number", "number": "a number", "string": "text", "boolean": "true or false",
         "array": "a list", "object": "an object", "null": "empty"}


def refusal(unfit: UnfitValues) -> str:
    """What the schema asks of the argument and what the step gave instead, from the engine's error."""
    name = ".".join(pointer_parts(unfit.pointer)) or "the value"
    gave = " or ".join(_shown(v) for v in unfit.values)
    return f"{name} {_rule(unfit.schema, unfit.values[0])}; the step gave {gave}"


def _rule(schema: dict[str, Any], value: Any) -> str:
    """The first rule of the schema the value breaks, said as "must ..."."""
    broken = next(iter(Draft202012Validator(schema).iter_errors(value)), None)
    if broken is None:
        return "does not fit its schema"
    rule, limit = broken.validator, broken.validator_value
    if rule == "enum":
        return "must be one of " + ", ".join(_shown(v) for v in limit)
    if rule == "type":
        kinds = [limit] if isinstance(limit, str) else limit
        return "must be " + " or ".join(KINDS.get(k, k) for k in kinds)
    if rule in RULES:
        return RULES[rule].format(limit if rule in ("pattern", "format") else _shown(limit))
    return f"does not fit its schema ({broken.message})"


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
