"""The layout's import rules, read from the source (an AST walk, nothing imported): no import cycle
among the project's modules, imports point one way between the folders (cli -> bench -> agent ->
planner/executor -> llm/tracing -> tools, executor_engine), nothing outside the command line imports
it, and no file grows past what can be read at once."""

from __future__ import annotations

import ast
import functools
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"agentpair": "agentpair", "executor_engine": "executor_engine", "tools": "agentpair.tools",
            "scenarios": "agentpair.scenarios.bundled"}  # folder -> the package it installs as (pyproject.toml)
# each folder's layer: a module imports from its own layer or those below, never from one above
LAYERS = [["agentpair.version", "agentpair.errors", "agentpair.models", "agentpair.tools", "executor_engine",
           "agentpair.scenarios.bundled"],
          ["agentpair.tracing", "agentpair.llm", "executor_engine.training"],  # training apart from inference
          ["agentpair.executor", "agentpair.planner"],
          ["agentpair.agent", "agentpair.progress"],
          ["agentpair.replay", "agentpair.scenarios", "agentpair.cluster"],
          ["agentpair.bench", "agentpair.training"],
          ["agentpair.cli"],
          ["agentpair"]]  # the package's own __init__: the public names


@functools.lru_cache(maxsize=1)
def modules() -> dict[str, Path]:
    found = {}
    for folder, package in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            name = ".".join((package, *path.relative_to(ROOT / folder).with_suffix("").parts))
            found[name.removesuffix(".__init__")] = path
    return found


def imported(path: Path, name: str) -> set[str]:
    """The modules a file imports at run time, anywhere in it (function-level imports count; those
    under `if TYPE_CHECKING:` do not). `from package import submodule` names the submodule only."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and getattr(node.test, "id", None) == "TYPE_CHECKING" for sub in node.body for n in ast.walk(sub)}
    known, out = modules(), set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]) if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            subs = {f"{module}.{alias.name}" for alias in node.names}
            out |= subs if subs <= set(known) else {module, *subs}
    return out


def project_imports() -> dict[str, set[str]]:
    """Each project module -> the project modules it imports (a name resolved to its module)."""
    known = modules()

    def resolve(target: str) -> str | None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        return target or None

    return {name: {m for t in imported(path, name) if (m := resolve(t)) and m != name} for name, path in known.items()}


def test_no_import_cycle_among_the_projects_modules() -> None:
    graph, state, stack = project_imports(), {}, []

    def visit(node: str) -> list[str] | None:  # a cycle through node, if any (depth first)
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = "done"
        stack.pop()
        return None

    for module in sorted(graph):
        if module not in state:
            assert (cycle := visit(module)) is None, " -> ".join(cycle)


def layer(module: str) -> tuple[int, str]:
    """The layer of the longest LAYERS prefix the module falls under, and that prefix."""
    return max(((i, name) for i, names in enumerate(LAYERS) for name in names
                if module == name or module.startswith(name + ".")), key=lambda found: len(found[1]))


def test_imports_point_down_the_layers() -> None:
    upward = [f"{name} -> {dep}" for name, deps in project_imports().items() for dep in sorted(deps)
              if layer(dep)[0] > layer(name)[0]]
    assert upward == []


def test_nothing_outside_the_command_line_imports_it() -> None:
    def is_cli(name: str) -> bool:
        return name == "agentpair.cli" or name.startswith("agentpair.cli.")

    offenders = {name: sorted(filter(is_cli, imported(path, name))) for name, path in modules().items()
                 if not is_cli(name) and any(map(is_cli, imported(path, name)))}
    assert offenders == {}


def test_every_file_stays_small_enough_to_read_at_once() -> None:
    assert [name for name, path in modules().items() if len(path.read_text().splitlines()) > 420] == []


def test_every_package_folder_installs_and_nothing_generic_lands_at_the_top() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {".".join((package, *init.parent.relative_to(ROOT / folder).parts)) for folder, package in PACKAGES.items()
             for init in (ROOT / folder).rglob("__init__.py")}
    assert sorted(setuptools["packages"]) == sorted(found)
    assert {p.split(".")[0] for p in setuptools["packages"]} == {"agentpair", "executor_engine"}
    assert setuptools["package-dir"] == {v: k for k, v in PACKAGES.items() if k != v}
