"""What a code step asks the executor to fill: the template (the one a page shows, a config with
<placeholders> in a preformatted block, read off the page's text with its lines, where it shows
one) and what each hole may hold (words of the instruction, values the page shows).

The planner reads a flattened page and copies such a template badly (lines run together, values
written in); like a click is grounded in the page's elements, a code step on a page that shows a
template fills that template; and like a typed value, a hole holds a value someone gave.
"""

from __future__ import annotations

import re

from urllib.parse import unquote_plus, urlsplit

from agentpair.executor.protocol import HOLE
from agentpair.planner.language.values import hole_values, word_runs
from agentpair.tools.base import Observation
from agentpair.tools.snapshot import page_texts

HOLE_WORDS = 6  # the longest run of the instruction's words a hole may hold
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
PLACEHOLDER = re.compile(r"<([A-Za-z_][\w-]*)>")
# a line of a config or of code: a section or a brace, or a key with "=" or ":" and a value
CODE_LINE = re.compile(r"""^\s*(?:[\[\]{}]|[\w.\-"']+\s*[=:]\s*\S)""")
PROSE = re.compile(r"^\s*[A-Z](?:[^=:{}\[\]\s]*\s+){3,}[^=:{}\[\]]*[.!?]\s*$")  # a sentence of 4+ words, no code marks


def shown_template(text: str) -> str | None:
    """The block of the page's text that holds every <placeholder> line, widened over the code lines
    around it ("[job]" above, 'retries = 3' below); None when no line has one. A
    sentence is not a template line ("Clone <url> to get started.")."""
    lines = text.splitlines()
    marked = [i for i, line in enumerate(lines) if PLACEHOLDER.search(line) and not PROSE.match(line)]
    if not marked:
        return None
    start, end = marked[0], marked[-1]
    while start > 0 and CODE_LINE.match(lines[start - 1]):
        start -= 1
    while end + 1 < len(lines) and CODE_LINE.match(lines[end + 1]):
        end += 1
    return "\n".join(lines[start:end + 1]) + "\n"


def with_holes(shown: str, planner_template: str | None = None) -> str:
    """The shown template with a hole for each placeholder: <name> -> {{name}}, at the size the
    planner's own template gave a hole of that name; a placeholder said again gets a hole of its own
    ({{name_2}}), since the executor fills each hole once."""
    sizes = {m.group(1): m.group(2) for m in HOLE.finditer(planner_template or "") if m.group(2)}
    seen: dict[str, int] = {}
    taken: set[str] = set()

    def hole(m: re.Match[str]) -> str:
        name = m.group(1).replace("-", "_")
        seen[name] = seen.get(name, 0) + 1
        unique = name if seen[name] == 1 else f"{name}_{seen[name]}"
        while unique in taken:  # said again, or a name another placeholder has ("<port_2>")
            seen[name] += 1
            unique = f"{name}_{seen[name]}"
        taken.add(unique)
        size = f":{sizes[name]}" if name in sizes else ""
        return "{{" + unique + size + "}}"

    return PLACEHOLDER.sub(hole, shown)


def code_values(observation: Observation, template: str, instruction: str, goal: str = "") -> dict[str, list[str]]:
    """What each hole of a template may hold, keyed as the executor's `allowed` ("/name"): where the
    instruction labels it, the words beside its name (labelled_holes); else where the goal does (the
    task gave the values, a planner wrote "copy the template"); else a run of up to HOLE_WORDS
    of the instruction's words, a number the page shows, or the page's URL, its path (and query),
    a part of its title or its host's name (a site's name). The engine keeps those that fit the hole's size."""
    runs = word_runs(instruction, HOLE_WORDS)
    url = urlsplit(observation.url)
    shown = [n.replace(",", "") for text in page_texts(observation.snapshot) for n in NUMBER.findall(text)]
    path = url.path + (f"?{unquote_plus(url.query)}" if url.query else "")
    title = [part for part in re.split(r"\s+[-|·]\s+", observation.title) if len(part.split()) <= HOLE_WORDS]
    site = [url.hostname.split(".")[0].capitalize()] if url.hostname else []  # "komu.test" -> Komu
    offered = [v for v in dict.fromkeys([*runs, *shown, observation.url, path, *title, *site]) if v]
    labelled, given = labelled_holes(template, instruction), labelled_holes(template, goal)
    return {key: labelled.get(key) or given.get(key) or offered for key in ("/" + m.group(1) for m in HOLE.finditer(template))}


def labelled_holes(template: str, instruction: str) -> dict[str, list[str]]:
    """What each of the template's holes may hold where the instruction labels a value with its name
    (language.values.hole_values), keyed as the executor's `allowed` ("/name")."""
    return hole_values([m.group(1) for m in HOLE.finditer(template)], instruction)
