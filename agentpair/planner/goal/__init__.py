"""The goal, parsed once: `parse_goal(text)` gives an immutable `Goal` (its quoted texts, labelled
values, dates, numbers, addresses, what it rules out, its closing clause, what it asks to open,
click or find) that every grounding rule reads. This package holds the project's English: nothing
outside it applies a regex or a word list to the goal's text (tests/planner/test_goal_only.py)."""

from agentpair.planner.goal.parse import Goal, GoalText, parse_goal

__all__ = ["Goal", "GoalText", "parse_goal"]
