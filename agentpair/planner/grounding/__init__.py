"""Grounding: the constraint layer behind a planner (layer.py: what a page and a goal allow a plan,
structural or heuristic), the plan schema it narrows to one page and task (schema.py lists its
rules), and how it reads a page's clicks, forms and fields against the goal's typed values."""
