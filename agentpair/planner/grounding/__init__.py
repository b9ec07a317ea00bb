"""Grounding: the plan schema narrowed to one page and one task (schema.py lists its rules), and how it
reads a page's clicks, forms and fields and a goal's words."""
