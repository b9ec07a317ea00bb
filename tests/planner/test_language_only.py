"""Only agentpair/planner/language reads English: no other module applies a regex, a word list or
a string test to the goal's or a step's text (nor to a name that holds it), and agent/ never asks
the planner what kind it is to decide what the grounding does. Read from the source (ast), so
that a new rule written the old way fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "agentpair"
LANGUAGE = ROOT / "planner" / "language"
TEXT_ATTRIBUTES = {"goal", "instruction", "words", "bare"}  # Task.goal, Step.instruction, Said.words ...
TEXT_NAMES = {"goal", "instruction"}  # parameters that hold such a text
REGEX_CALLS = {"match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split"}
STRING_TESTS = {"startswith", "endswith", "removeprefix", "removesuffix", "split", "rsplit", "partition",
                "rpartition", "find", "index", "count"}


def _tainted(node: ast.AST, names: set[str]) -> bool:
    """The expression's value is a goal's or a step's text or is made from it (a part, a word of it,
    what a call makes of it), directly or through a name that holds it; a test on it is not."""
    if isinstance(node, ast.Attribute):
        return node.attr in TEXT_ATTRIBUTES and isinstance(node.ctx, ast.Load) or _tainted(node.value, names)
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Call):
        return any(_tainted(a, names) for a in [*node.args, *(k.value for k in node.keywords)]) or (
            isinstance(node.func, ast.Attribute) and _tainted(node.func.value, names))
    if isinstance(node, (ast.Subscript, ast.Starred)):
        return _tainted(node.value, names)
    if isinstance(node, ast.BinOp):
        return _tainted(node.left, names) or _tainted(node.right, names)
    if isinstance(node, ast.JoinedStr):
        return any(_tainted(v.value, names) for v in node.values if isinstance(v, ast.FormattedValue))
    if isinstance(node, ast.IfExp):
        return _tainted(node.body, names) or _tainted(node.orelse, names)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return any(_tainted(e, names) for e in node.elts)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        inner = names | {n for g in node.generators if _tainted(g.iter, names) for n in _targets(g.target)}
        return _tainted(node.elt, inner)
    return False


def _targets(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _holders(function: ast.AST) -> set[str]:
    """The names in a function that hold the text: its parameters so named, and what is assigned
    (or iterated) from an expression that reads it, to a fixed point."""
    names = {a.arg for a in ast.walk(function) if isinstance(a, ast.arg) and a.arg in TEXT_NAMES}
    while True:
        before = len(names)
        for node in ast.walk(function):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None \
                    and _tainted(node.value, names):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    names.update(_targets(target))
            elif isinstance(node, ast.NamedExpr) and _tainted(node.value, names):
                names.update(_targets(node.target))
            elif isinstance(node, (ast.For, ast.comprehension)) and _tainted(node.iter, names):
                names.update(_targets(node.target))
        if len(names) == before:
            return names


def _word_list(node: ast.AST) -> bool:
    """A constant's name in capitals, or a literal set, list or tuple of strings."""
    if isinstance(node, ast.Name):
        return node.id.isupper()
    return isinstance(node, (ast.Set, ast.List, ast.Tuple)) and any(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)


def readings(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for each place that applies a regex, a word list or a string test to the text."""
    found = []
    for function in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]:
        names = _holders(function)
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                method, receiver = node.func.attr, node.func.value
                on_re = isinstance(receiver, ast.Name) and receiver.id == "re"
                if method in REGEX_CALLS and (on_re or not _tainted(receiver, names)) and any(
                        _tainted(a, names) for a in node.args):
                    found.append((node.lineno, f"a regex's {method} on the text"))
                elif method in STRING_TESTS and _tainted(receiver, names) and not on_re:
                    found.append((node.lineno, f"{method} on the text"))
            elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                left, right = node.left, node.comparators[0]
                if _tainted(left, names) and _word_list(right):
                    found.append((node.lineno, "a word list over the text"))
                if isinstance(left, ast.Constant) and isinstance(left.value, str) and _tainted(right, names):
                    found.append((node.lineno, "a word looked for in the text"))
    return sorted(set(found))


def modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if LANGUAGE not in p.parents)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_no_module_but_the_language_package_reads_the_goals_or_a_steps_text(path: Path) -> None:
    found = readings(ast.parse(path.read_text()))
    assert found == [], "\n".join(f"{path.relative_to(ROOT.parent)}:{line}: {what}" for line, what in found)


def test_the_check_finds_the_ways_a_rule_reads_text() -> None:
    caught = readings(ast.parse('''
import re
def rule(request, step):
    a = re.search(r"\\\\bonly\\\\b", request.goal)
    b = step.instruction.endswith(" and press Enter")
    said = step.instruction.casefold()
    c = said.split()[0] in OFF_VERBS
    d = "cart" in request.goal
    e = TYPED.match(step.instruction)
    return [w for w in request.goal.split()]
'''))
    assert [what for _, what in caught] == ["a regex's search on the text", "endswith on the text",
                                            "a word list over the text", "split on the text",
                                            "a word looked for in the text", "a regex's match on the text",
                                            "split on the text"]


def test_the_agent_never_asks_the_planner_what_kind_it_is() -> None:
    for path in (ROOT / "agent").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
                subject, asked = ast.unparse(node.args[0]), ast.unparse(node.args[1])
                assert "planner" not in subject or "ground" not in asked, f"{path.name}:{node.lineno}: {ast.unparse(node)}"
            if isinstance(node, ast.Attribute) and node.attr in ("grounded", "mode"):
                assert "planner" not in ast.unparse(node.value), f"{path.name}:{node.lineno}: {ast.unparse(node)}"
