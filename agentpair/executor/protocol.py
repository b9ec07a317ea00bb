"""The executor interface: fill a batch of requests (FillRequest -> FillResult), and the template hole
syntax ({{name}} or {{name:size}}) every executor reads."""

from __future__ import annotations

import re
from typing import Any, Protocol, runtime_checkable

from agentpair.models import FillRequest, FillResult

HOLE = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)(?::(\d+))?\}\}")


@runtime_checkable
class Executor(Protocol):
    name: str

    def identity(self) -> dict[str, Any]: ...

    async def fill(self, requests: list[FillRequest]) -> list[FillResult]: ...

