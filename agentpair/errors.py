"""Errors shared across modules: a UsageError is the user's to fix, printed without a traceback."""

from __future__ import annotations


class UsageError(Exception):
    """A usage or configuration error: the CLI prints it and exits with code 2."""
