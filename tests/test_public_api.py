"""The public surface: every exported name resolves, and the heavy parts load only when used."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

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


def test_the_built_wheel_installs_only_agentpair_and_its_engine_at_the_top(tmp_path) -> None:
    root, source = Path(__file__).resolve().parents[1], tmp_path / "source"  # built from a copy: no build/ left here
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(root / name, source / name)
    for name in ("agentpair", "executor_engine", "tools", "scenarios"):
        shutil.copytree(root / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                            str(tmp_path), str(source)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    (wheel,) = tmp_path.glob("agentpair-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"agentpair", "executor_engine"}
    assert "agentpair/tools/browser.py" in names and "agentpair/scenarios/bundled/login/scenario.toml" in names
    assert "agentpair/weights/planner-lora.gguf" in names and "agentpair/py.typed" in names
