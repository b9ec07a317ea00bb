"""The planner's short view of a page: one line per meaningful element of an aria snapshot
(`button "Sign in"`, `textbox "Username": ada`), short text lines, no refs or URLs; and the
names on the page a plan step may use (page_names)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from agentpair.tools.browser_actions import CheckArgs
from agentpair.tools.snapshot import INTERACTIVE as SNAPSHOT_INTERACTIVE
from agentpair.tools.snapshot import REF, Element, box_states, parse_elements, ref_names, told_apart_items, walk_elements

PAGE_CHARS_FOR_PLANNER = 700
TEXT_CHARS = 160  # a flattened code block (a config template) must fit on its line
MAX_OPTIONS = 6
INTERACTIVE = SNAPSHOT_INTERACTIVE - {"option"}  # an option is shown on its select's line
TITLED = {"heading", "dialog"}
ANNOUNCED = {"alert", "status"}
SKIP = {"/url", "/placeholder", "note", "img", "option"}
CELLS = {"cell", "columnheader", "rowheader"}
STATES = ("checked", "pressed", "expanded", "disabled")
def _short(text: str, limit: int = TEXT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _texts(node: Element) -> list[str]:
    """All names and text values under a node (a table row's or an alert's one line)."""
    out = [t for t in (node.name, node.value) if t]
    for child in node.children:
        if child.role not in INTERACTIVE and child.role not in SKIP:
            out += _texts(child)
    return out


def _interactive(nodes: list[Element]) -> list[Element]:
    """The interactive elements under these nodes (a row's links and buttons)."""
    found: list[Element] = []
    for node in nodes:
        found += [node] if node.role in INTERACTIVE else _interactive(node.children)
    return found


def _element(node: Element) -> str:
    line = f'{node.role} "{_short(node.name, 80)}"' if node.name else node.role
    line += "".join(f" [{s}]" for s in STATES if f"[{s}]" in node.attrs or f"[{s}=true]" in node.attrs)
    options = [o.name for o in node.children if o.role == "option"]
    if options:  # a select box: its choice, then what it offers
        chosen = next((o.name for o in node.children if o.role == "option" and "[selected]" in o.attrs), options[0])
        more = ", …" if len(options) > MAX_OPTIONS else ""
        line += f" = {_short(chosen, 40)}; options: " + ", ".join(_short(o, 40) for o in options[:MAX_OPTIONS]) + more
    elif node.value:
        line += f": {_short(node.value, 80)}"
    return line


def _inline(node: Element) -> bool:
    runs = node.children
    return len(runs) > 1 and all(not c.children and c.value and c.role not in INTERACTIVE | SKIP
                                 for c in runs)


def _lines(nodes: list[Element], out: list[tuple[int, str]], names: set[str]) -> None:
    """Depth first, in document order: (tier, line); tier 0 elements, 1 rows, 2 text."""
    for node in nodes:
        if node.role in INTERACTIVE:
            out.append((0, _element(node)))
            names.add(node.name)
            _lines(node.children, out, names)
            continue
        if node.role == "row":
            cells = [_short(t, 40) for t in _texts(node)]
            if cells:
                out.append((1, "row: " + " | ".join(cells)))
            _lines(_interactive(node.children), out, names)
            continue
        if node.role in ANNOUNCED:  # its text may sit in its name, its value or its children
            said = " ".join(_texts(node))
            if said:
                out.append((0, f"{node.role}: {_short(said)}"))
            _lines(_interactive(node.children), out, names)
            continue
        if node.role in TITLED and node.name:
            out.append((0, f'{node.role} "{_short(node.name, 100)}"'))
            names.add(node.name)
        elif node.role in CELLS:
            pass  # shown on the row's line
        elif node.value and node.role not in SKIP:
            out.append((2, _short(node.value)))
        elif _inline(node):  # a paragraph of text runs (text, strong, emphasis) as one line
            out.append((2, _short(" ".join(c.value for c in node.children))))
            continue
        _lines(node.children, out, names)


def compact_page(snapshot: str, limit: int = PAGE_CHARS_FOR_PLANNER) -> str:
    """The page as the planner reads it, at most `limit` characters: elements, headings and
    alerts first, then table rows, then text; kept lines stay in document order."""
    found: list[tuple[int, str]] = []
    names: set[str] = set()
    _lines(parse_elements(snapshot), found, names)
    lines = [(tier, text) for tier, text in found if tier < 2 or text not in names]  # a label's own text
    total = sum(len(text) + 1 for _, text in lines)
    if total <= limit:
        return "\n".join(text for _, text in lines)
    note_room = 24
    keep, used = set(), 0
    for index, (tier, text) in sorted(enumerate(lines), key=lambda item: (item[1][0], item[0])):
        if used + len(text) + 1 <= limit - note_room:
            keep.add(index)
            used += len(text) + 1
    kept = [text for index, (_, text) in enumerate(lines) if index in keep]
    return "\n".join([*kept, f"… {len(lines) - len(keep)} more lines"])


class PageNames(BaseModel):
    """What a plan step may name on a page, by what a step does with it (see grounding.schema)."""

    clickable: dict[str, list[str]] = Field(default_factory=dict, description="name -> the roles it has")
    fields: list[str] = Field(default_factory=list, description="what text is typed into")
    dropdowns: dict[str, list[str]] = Field(default_factory=dict, description="a select's name -> its options")
    boxes: list[str] = Field(default_factory=list, description="checkboxes, radio buttons, switches")
    checked: list[str] = Field(default_factory=list, description="the boxes that are on")
    chosen: dict[str, str] = Field(default_factory=dict, description="a select's name -> the option it shows")
    list_chosen: dict[str, list[str]] = Field(default_factory=dict, description="a list box's name (a select shown "
                                              "as a list, which may take several) -> the options chosen in it")
    told_apart: dict[str, list[str]] = Field(default_factory=dict, description="a name several clickable "
                                             "elements share -> what tells each apart (agentpair.tools.snapshot.told_apart)")
    told_items: dict[str, list[str]] = Field(default_factory=dict, description="the same, all that each one's "
                                             "item says")
    lists: list[list[str]] = Field(default_factory=list, description="the names of a list's items: clickable "
                                   "siblings of one role under one parent, three or more")
    links: dict[str, list[str]] = Field(default_factory=dict, description="a link's name -> where each link "
                                        "of that name leads (its /url, as the page writes it)")
    non_submit: list[str] = Field(default_factory=list, description="buttons of a form with a submit button "
                                  "that do not send it (type button or reset)")


FIELD_ROLES = {"textbox", "searchbox", "spinbutton"}
BOX_ROLES = set(CheckArgs.model_json_schema()["properties"]["ref"]["x-roles"])  # what `check` acts on
NOT_CLICKED = FIELD_ROLES | {"slider", "option"}


def page_names(snapshot: str, non_submit: Iterable[str] = ()) -> PageNames:
    """The names of the page's interactive elements that are not disabled, sorted by what a step may
    do to them; `non_submit`: the refs of a form's buttons that do not send it (the browser tells)."""
    names, apart = PageNames(), told_apart_items(snapshot)
    named = ref_names(snapshot)
    names.non_submit = list(dict.fromkeys(named[ref] for ref in non_submit if ref in named))
    names.checked = [name for name, on in box_states(snapshot).items() if on]
    for node in walk_elements(snapshot):
        if node.role not in INTERACTIVE or not node.name or "[disabled]" in node.attrs:
            continue  # a disabled element takes no step (a form behind a dialog)
        options = [o.name for o in node.children if o.role == "option" and o.name]
        if options:
            names.dropdowns.setdefault(node.name, options)
            shown = [o.name for o in node.children if o.role == "option" and "[selected]" in o.attrs]
            names.chosen.setdefault(node.name, (shown or options)[0])
            if node.role == "listbox":
                names.list_chosen.setdefault(node.name, shown)
        elif node.role in FIELD_ROLES or node.role == "combobox":
            names.fields.append(node.name)
        if node.role in BOX_ROLES:
            names.boxes.append(node.name)
        if node.role not in NOT_CLICKED and not options:
            names.clickable.setdefault(node.name, []).append(node.role)
            if node.role == "link":
                names.links.setdefault(node.name, []).extend(c.value for c in node.children if c.role == "/url")
            if (ref := REF.search(node.attrs)) and ref.group(1) in apart:
                telling, item = apart[ref.group(1)]
                names.told_apart.setdefault(node.name, []).append(telling)
                names.told_items.setdefault(node.name, []).append(item)
    names.lists = _lists(parse_elements(snapshot))
    return names


def _lists(nodes: list[Element]) -> list[list[str]]:
    """Each run of three or more clickable siblings of one role (a list's items), by their names; a
    sibling that holds one clickable child and no other (a list item holding its link or menu item)
    counts as that child."""
    found = []
    for node in nodes:
        items = [c if _clickable(c) else only[0] for c in node.children
                 if _clickable(c) or len(only := [g for g in c.children if _clickable(g)]) == 1 == len(c.children)]
        roles = [c.role for c in items]
        for role in dict.fromkeys(roles):
            if roles.count(role) >= 3:
                found.append([c.name for c in items if c.role == role])
        found += _lists(node.children)
    return found


def _clickable(node: Element) -> bool:
    return node.role in INTERACTIVE - NOT_CLICKED - BOX_ROLES and bool(node.name)


def page_state(observation: Any) -> str:
    """What tells one state of a page from another: its URL and its snapshot without refs (which
    are renumbered on every observation) and without the mark of the focused element (a click
    moves it)."""
    snapshot = REF.sub("", getattr(observation, "snapshot", "") or "").replace(" [active]", "")
    return getattr(observation, "url", "") + "\n" + snapshot
