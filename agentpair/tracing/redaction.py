"""Redaction: secret values become their placeholders and API keys become [REDACTED], in any JSON value."""

from __future__ import annotations

from typing import Any

from agentpair.tools.base import secret_placeholder
from agentpair.tools.spellings import Replacer

REDACTED = "[REDACTED]"


class Redactor:
    """Replaces secret values by their placeholders and keys by [REDACTED], in any JSON value."""

    def __init__(self, secrets: dict[str, str] | None = None, keys: list[str] | None = None) -> None:
        pairs = [(v, secret_placeholder(k)) for k, v in (secrets or {}).items() if v]
        pairs += [(k, REDACTED) for k in keys or [] if k and k != "not-needed"]
        self._replace = Replacer(tuple(pairs))

    def text(self, text: str) -> str:
        """Secrets and keys replaced in any spelling agentpair.tools.spellings finds, short ones only as
        whole tokens (a 1-character key is no reason to rewrite every word holding that letter)."""
        return self._replace(text)

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value
