"""Executor training data: synthetic pages rendered by the browser tool, and the tool-call,
extraction and code-template examples built from them (see build.py)."""
