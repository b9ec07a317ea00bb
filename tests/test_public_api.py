"""The public surface: every exported name resolves, and the heavy parts load only when used."""

from __future__ import annotations

import subprocess
import sys

import agentpair


def test_every_exported_name_resolves() -> None:
    missing = [name for name in agentpair.__all__ if getattr(agentpair, name, None) is None]
    assert missing == []


def test_importing_agentpair_loads_neither_torch_nor_llama_cpp() -> None:
    code = ("import sys, agentpair; print(sorted(m for m in ('torch', 'llama_cpp') if m in sys.modules)); "
            "agentpair.LocalDiffusionExecutor; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "True"]
