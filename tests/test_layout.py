"""The layout's import rules, read from the source (an AST walk, nothing imported): nothing outside
the command line imports it, and no file grows past what can be read at once."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agentpair", "executor_engine", "tools", "scenarios")
CLI = {"agentpair.cli", "agentpair.cli_run", "agentpair.cli_bench", "agentpair.cli_trace", "agentpair.cli_options"}


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imported(path: Path, name: str) -> set[str]:
    """The modules a file imports, anywhere in it (function-level imports count)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]) if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            out |= {module, *(f"{module}.{alias.name}" for alias in node.names)}
    return out


def test_nothing_outside_the_command_line_imports_it() -> None:
    offenders = {name: sorted(imported(path, name) & CLI) for name, path in modules().items()
                 if name not in CLI and imported(path, name) & CLI}
    assert offenders == {}


def test_the_new_modules_stay_small_enough_to_read_at_once() -> None:
    # the files of this layout's newest parts; older files over the limit are the layout issue's
    for name in ("agentpair.bench_miniwob", "agentpair.cli_options", "tools.unnamed", "tools.field_formats"):
        assert len(modules()[name].read_text().splitlines()) <= 400, name
