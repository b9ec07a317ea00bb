"""Shaping what the browser shows: trim an aria snapshot to a budget (interactive elements
first), excerpt visible text, and hide secret and password values; and reading it back: the
element tree, the page's texts, each ref's role and link target, the refs of the roles a tool
acts on, the ref of a named element.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from agentpair.tools.base import mask_secrets

REF = re.compile(r"\[ref=([A-Za-z0-9]+)\]")
ROLE = re.compile(r"^\s*- '?([a-z]+)")  # YAML quotes lines whose names hold a colon
LINK_URL = re.compile(r"^\s*- /url: (.+?)\s*$", re.MULTILINE)
ELEMENT = re.compile(r'^(?P<role>[a-z/]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<attrs>(?: \[[^\]]*\])*)'
                     r'(?::(?: (?P<value>.*))?)?$')
INTERACTIVE = {
    "button", "checkbox", "combobox", "link", "listbox", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "radio", "searchbox", "slider", "spinbutton", "switch", "tab",
    "textbox", "treeitem",
}
CONTEXT = {"heading", "alert", "dialog", "status", "row", "cell", "columnheader", "rowheader"}
MAX_LINE = 240
MAX_OPTIONS = 12
PASSWORD_MASK = "********"


@dataclass
class _Line:
    index: int
    indent: int
    text: str
    parent: int | None
    tier: int


@dataclass
class Element:
    """One snapshot line read back: `textbox "Email" [ref=e4]: ada@x.org` is role `textbox`,
    name `Email`, attrs ` [ref=e4]`, value `ada@x.org`. A `/url:` or `/placeholder:` line is an
    element too (role `/url`, its text the value), a child of the link or field it belongs to."""

    indent: int
    role: str
    name: str
    attrs: str
    value: str
    children: list[Element] = field(default_factory=list)


def parse_elements(snapshot: str) -> list[Element]:
    """The snapshot's element tree (its top-level elements); lines that are not elements are skipped."""
    roots: list[Element] = []
    stack: list[Element] = []
    for raw in snapshot.splitlines():
        stripped = raw.lstrip(" ")
        if not stripped.startswith("- "):
            continue
        match = ELEMENT.match(_split_quoted_key(stripped[2:].rstrip()))
        if not match:
            continue
        name = (match.group("name") or "").replace('\\"', '"').replace("\\\\", "\\")
        node = Element(len(raw) - len(stripped), match.group("role"), name, match.group("attrs") or "",
                       _unquote((match.group("value") or "").strip()))
        while stack and stack[-1].indent >= node.indent:
            stack.pop()
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)
    return roots


def walk_elements(snapshot: str) -> Iterator[Element]:
    """Every element of the snapshot's tree, in document order."""
    return _walk(parse_elements(snapshot))


def _walk(nodes: list[Element]) -> Iterator[Element]:
    for node in nodes:
        yield node
        yield from _walk(node.children)


def page_texts(snapshot: str) -> list[str]:
    """What the page says, in document order: every element's name and value, not its link
    targets or placeholders."""
    return _said(parse_elements(snapshot))


def _said(nodes: list[Element], skip: tuple[str, ...] = ()) -> list[str]:
    """The names and values of these elements and all inside them, but for those of `skip`'s roles."""
    return [t for node in nodes if node.role not in skip for t in [
        *(own for own in (node.name, node.value) if own and not node.role.startswith("/")), *_said(node.children, skip)]]


CELLS = {"cell", "gridcell", "columnheader", "rowheader"}
HEADERS = {"columnheader", "rowheader"}


def _text_within(node: Element) -> str:
    """An element's name and value and those of everything inside it (not link targets), joined."""
    own = [t for t in (node.name, node.value) if t and not node.role.startswith("/")]
    return " ".join([*own, *(t for child in node.children if (t := _text_within(child)))])


def table_rows(snapshot: str) -> list[list[list[tuple[bool, str]]]]:
    """The snapshot's tables, each a list of rows, each row its cells as (is a header, text)."""
    def rows(node: Element) -> list[list[tuple[bool, str]]]:
        if node.role == "row":
            return [[(c.role in HEADERS, _text_within(c)) for c in node.children if c.role in CELLS]]
        if node.role == "table":
            return []  # a table inside a table is a table of its own
        return [r for child in node.children for r in rows(child)]
    return [[r for child in node.children for r in rows(child)]
            for node in walk_elements(snapshot) if node.role in ("table", "grid")]


def body_rows(rows: list[list[tuple[bool, str]]]) -> list[list[tuple[bool, str]]]:
    """A table's rows below its header: those with a cell that is not a header."""
    return [row for row in rows if row and not all(head for head, _ in row)]


def item_texts(snapshot: str, name: str) -> list[str]:
    """What the list item holding the first element of this name says (its names and values): a
    result among results, a product card among cards, a row among rows (see _item); [] where
    there is none."""
    def find(nodes: list[Element], around: list[Element]) -> list[str] | None:
        for node in nodes:
            if node.name == name:
                return _said(_item(around))
            if (found := find(node.children, [*around, node])) is not None:
                return found
        return None
    return find(parse_elements(snapshot), []) or []


PART_BREAK = re.compile(r"\s+[·|•–—]\s+")  # between the parts of a text ("Melville · Audiobook, 2004")
MAX_TELLING = 40  # the longest part that tells same-named elements apart


def told_apart(snapshot: str) -> dict[str, str]:
    """For elements sharing a role and a name (a "Moby Dick" link per edition, an
    "Add to wishlist" button per result): each one's ref -> the first part of what its list item
    says that no other such element's item says ("Audiobook, 2004"). Where the nearest items say
    the same (a row of actions under each post), the items around them are read, outward. Elements
    alike in every part, or in no list item, are not told apart."""
    return {ref: telling for ref, (telling, _) in told_apart_items(snapshot).items()}


def told_apart_items(snapshot: str) -> dict[str, tuple[str, str]]:
    """told_apart's telling part of each such element, with all that its item says (the item that
    tells it apart): "Nunc tortor." and "Clark @dis · Nunc tortor." for one of two posts by @dis."""
    items: dict[tuple[str, str], list[tuple[str, list[Element]]]] = {}

    def visit(nodes: list[Element], around: list[Element]) -> None:
        for node in nodes:
            ref = REF.search(node.attrs)
            if node.role in INTERACTIVE and node.name and ref:
                items.setdefault((node.role, node.name), []).append((ref.group(1), _items(around)))
            visit(node.children, [*around, node])

    said: dict[int, list[str]] = {}  # an item's parts, read once however many elements ask

    def parts(item: Element, name: str) -> list[str]:
        if id(item) not in said:
            said[id(item)] = [p for text in _said([item]) for p in PART_BREAK.split(text)]
        return [p for p in said[id(item)] if p != name]

    visit(parse_elements(snapshot), [])
    apart = {}
    for (_, name), alike in items.items():
        for ref, levels in alike if len(alike) > 1 else []:
            for depth, item in enumerate(levels):  # outward only as far as it takes
                others = {p for other, theirs in alike if other != ref and depth < len(theirs)
                          for p in parts(theirs[depth], name)}
                own = [p for p in parts(item, name) if p not in others]
                telling = [p for p in own if len(p) <= MAX_TELLING] or [  # else a long part's first words, if they tell
                    cut for p in own if (cut := _first_words(p)) and not any(o.startswith(cut) for o in others)]
                if telling:
                    apart[ref] = (telling[0], " · ".join(parts(item, name)))
                    break
    return apart


def _first_words(text: str) -> str:
    """As many of the text's first words as fit in MAX_TELLING characters."""
    words = text.split()
    fit = next((n for n in range(len(words), 0, -1) if len(" ".join(words[:n])) <= MAX_TELLING), 0)
    return " ".join(words[:fit])


def _item(around: list[Element]) -> list[Element]:
    """The list item among `around` (an element's ancestors, outermost first) holding it: the
    nearest that has a sibling of its own role and is not a table cell; [] where none is."""
    return _items(around)[:1]


def _items(around: list[Element]) -> list[Element]:
    """Every such list item among `around`, the nearest first."""
    return [around[depth] for depth in range(len(around) - 1, 0, -1)
            if around[depth].role not in CELLS and sum(peer.role == around[depth].role
                                                       for peer in around[depth - 1].children) > 1]


def first_items(snapshot: str) -> list[str]:
    """What the first item of each list says first (its first name or text: the top result's
    title), then the first cell of each table's first row below its header."""
    firsts = [said[0] for node in walk_elements(snapshot) if node.role == "list"
              for item in node.children[:1] if item.role == "listitem" and (said := _said([item]))]
    for rows in table_rows(snapshot):
        body = body_rows(rows)
        if body and body[0][0][1]:
            firsts.append(body[0][0][1])
    return firsts


def list_items(snapshot: str) -> list[list[list[str]]]:
    """The snapshot's lists, each a list of its items, each item what it says split into its parts
    ("Melville · Audiobook, 2004" -> two); its buttons' labels are what it does, not what it says."""
    return [[[part for text in _said([item], skip=("button",)) for part in PART_BREAK.split(text)]
             for item in node.children if item.role == "listitem"]
            for node in walk_elements(snapshot) if node.role == "list"]


def list_headings(snapshot: str) -> list[list[str]]:
    """The snapshot's lists as list_items orders them, each its items' headings (the name of the
    first heading inside an item, "" where it has none)."""
    return [[next((n.name for n in _walk([item]) if n.role == "heading" and n.name), "") for item in node.children
             if item.role == "listitem"] for node in walk_elements(snapshot) if node.role == "list"]


def main_heading(snapshot: str) -> str:
    """The page's first top-level heading (`heading "..." [level=1]`), "" when it has none."""
    return next((node.name for node in walk_elements(snapshot)
                 if node.role == "heading" and "[level=1]" in node.attrs and node.name), "")


BOXES = {"checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio"}


def box_states(snapshot: str) -> dict[str, bool]:
    """Each named checkbox, switch or radio button -> whether it is on (the first of a name)."""
    states: dict[str, bool] = {}
    for node in walk_elements(snapshot):
        if node.role in BOXES and node.name:
            states.setdefault(node.name, "[checked]" in node.attrs or "[checked=true]" in node.attrs)
    return states


def option_labels(snapshot: str) -> list[str]:
    """The labels of the options the snapshot shows (of its dropdowns and list boxes), in order."""
    return list(dict.fromkeys(node.name for node in walk_elements(snapshot)
                              if node.role == "option" and node.name))


def _unquote(text: str) -> str:
    """A YAML scalar as the snapshot writes it ('...' or "...") -> its text."""
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text[1:-1]
    return text


def _split_quoted_key(body: str) -> str:
    """`'link "A: b" [ref=e4]': rest` -> `link "A: b" [ref=e4]: rest` (YAML quotes keys with a colon)."""
    if not body.startswith("'"):
        return body
    i = 1
    while i < len(body):
        if body[i] == "'" and body[i + 1:i + 2] == "'":
            i += 2
            continue
        if body[i] == "'":
            return body[1:i].replace("''", "'") + body[i + 1:]
        i += 1
    return body


def refs_in(snapshot: str) -> list[str]:
    """The refs a snapshot carries, in order of appearance."""
    return list(dict.fromkeys(REF.findall(snapshot)))


def link_urls(snapshot: str) -> list[str]:
    """The targets of the snapshot's links (`/url:` lines), in order of appearance."""
    return list(dict.fromkeys(LINK_URL.findall(snapshot)))


def ref_roles(snapshot: str) -> dict[str, str]:
    """Each ref's element role (`textbox`, `link`, ...), as the snapshot line carrying it says."""
    roles = {}
    for line in snapshot.splitlines():
        ref, role = REF.search(line), ROLE.match(line)
        if ref and role:
            roles.setdefault(ref.group(1), role.group(1))
    return roles


def ref_names(snapshot: str) -> dict[str, str]:
    """Each named element's ref -> its name."""
    return {ref.group(1): node.name for node in walk_elements(snapshot) if node.name and (ref := REF.search(node.attrs))}


def refs_fitting(snapshot: str, refs: list[str], roles: list[str] | None) -> list[str]:
    """`refs` narrowed to elements of one of `roles` (a tool's `x-roles`); all of them when no
    roles are given or no element has one (the tool then says what it needs)."""
    if roles:
        by_role = ref_roles(snapshot)
        fitting = [ref for ref in refs if by_role.get(ref) in roles]
        if fitting:
            return fitting
    return list(refs)


def find_ref(snapshot: str, role: str, name: str = "", exact: bool = False) -> str:
    """The ref of the first element with this role whose name matches (case-insensitive
    substring, or whole name when exact); LookupError lists the candidates otherwise."""
    pattern = re.compile(rf"""^\s*- '?{re.escape(role)}(?![a-z])(?: "((?:[^"\\]|\\.)*)")?""")
    candidates = []
    for line in snapshot.splitlines():
        match = pattern.match(line)
        ref = REF.search(line)
        if not match or not ref:
            continue
        found = (match.group(1) or "").casefold()
        wanted = name.casefold()
        if (found == wanted) if exact else (wanted in found):
            return ref.group(1)
        candidates.append(line.strip())
    raise LookupError(f"no {role} named {name!r}; {role}s present: {candidates}")


def _tier(text: str, option_rank: int) -> int:
    role_match = ROLE.match(text)
    role = role_match.group(1) if role_match else ""
    if role == "option":
        return 0 if option_rank < MAX_OPTIONS or "[selected]" in text else 3
    if role in INTERACTIVE:
        return 0
    if role in CONTEXT:
        return 1
    return 2


def _parse(snapshot: str) -> list[_Line]:
    lines: list[_Line] = []
    stack: list[_Line] = []
    options_seen: dict[int | None, int] = {}
    for i, raw in enumerate(snapshot.splitlines()):
        indent = len(raw) - len(raw.lstrip(" "))
        while stack and stack[-1].indent >= indent:
            stack.pop()
        parent = stack[-1].index if stack else None
        rank = options_seen.get(parent, 0)
        if ROLE.match(raw) and ROLE.match(raw).group(1) == "option":
            options_seen[parent] = rank + 1
        text = raw if len(raw) <= MAX_LINE else raw[: MAX_LINE - 1] + "…"
        line = _Line(i, indent, text, parent, _tier(raw, rank))
        lines.append(line)
        stack.append(line)
    return lines


def trim_snapshot(snapshot: str, budget: int) -> str:
    """Keep the snapshot within budget chars: interactive lines (with their ancestors) first,
    then headings, table cells and alerts, then the rest, all shown in document order."""
    if len(snapshot) <= budget:
        return snapshot
    lines = _parse(snapshot)
    kept: set[int] = set()
    used = 0
    note_room = 70
    for line in sorted(lines, key=lambda ln: (ln.tier, ln.index)):
        chain = []
        node: _Line | None = line
        while node is not None and node.index not in kept:
            chain.append(node)
            node = lines[node.parent] if node.parent is not None else None
        cost = sum(len(n.text) + 1 for n in chain)
        if used + cost > budget - note_room:
            continue
        kept.update(n.index for n in chain)
        used += cost
    out = [ln.text for ln in lines if ln.index in kept]
    omitted = len(lines) - len(kept)
    if omitted:
        out.append(f"- note: {omitted} less important lines omitted to fit the budget")
    return "\n".join(out)


def excerpt(text: str, budget: int) -> str:
    """Visible text with blank runs collapsed, cut to budget chars."""
    lines = [re.sub(r"[ \t\u00a0]+", " ", ln).strip() for ln in text.splitlines()]
    joined = "\n".join(ln for ln in lines if ln)
    return joined if len(joined) <= budget else joined[: budget - 1] + "…"


def hide_values(text: str, secrets: dict[str, str], passwords: list[str]) -> str:
    """Secrets become their placeholders; other password-field values become ********."""
    text = mask_secrets(text, secrets)
    for value in sorted(set(passwords), key=len, reverse=True):
        if not value:
            continue
        masked = mask_secrets(value, secrets)
        if masked != value:
            continue
        text = text.replace(f": {value}\n", f": {PASSWORD_MASK}\n")
        if text.endswith(f": {value}"):
            text = text[: -len(value)] + PASSWORD_MASK
        if len(value) >= 4:
            text = text.replace(value, PASSWORD_MASK)
    return text
