"""The project's English, in one place: the goal parsed once into typed values (`parse_goal` ->
`Goal`), a step's words read into a record (`read_step` -> `Said`, the grounded wording's grammar),
and the word lists both are read by. Nothing outside this package applies a regex or a word list to
the goal's or a step's text (tests/planner/test_language_only.py)."""

from agentpair.planner.language.goal import Goal, GoalText, parse_goal

__all__ = ["Goal", "GoalText", "parse_goal"]
