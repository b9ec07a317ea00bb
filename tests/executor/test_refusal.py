"""A constraint a step's value breaks, in the plain words the planner reads."""

from __future__ import annotations

import pytest

from agentpair.executor.refusal import refusal
from executor_engine.template import UnfitValues


@pytest.mark.parametrize("pointer, values, schema, said", [
    ("/hours", [50, 60], {"type": "integer", "maximum": 40}, "hours must be at most 40; the step gave 50 or 60"),
    ("/rate", [0.0], {"type": "number", "exclusiveMinimum": 0}, "rate must be more than 0; the step gave 0.0"),
    ("/code", ["ABCDEFG"], {"type": "string", "maxLength": 4},
     'code must be at most 4 characters long; the step gave "ABCDEFG"'),
    ("/count", [2.5], {"type": "integer"}, "count must be a whole number; the step gave 2.5"),
    ("/contact/email", ["ada"], {"type": "string", "pattern": "@"}, 'contact.email must match @; the step gave "ada"'),
])
def test_the_broken_rule_and_the_value_given_are_said(pointer, values, schema, said) -> None:
    assert refusal(UnfitValues(pointer, values, schema)) == said
