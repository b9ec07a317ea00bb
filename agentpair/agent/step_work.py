"""What one plan step asks for: the executor's fill requests, and the tool call the step comes to
(from the executor's fills, or from the arguments the planner wrote itself in single-model mode)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from agentpair.models import FillRequest, FillResult, Step
from agentpair.planner.grounding.page_clicks import ways_to_name
from agentpair.planner.language.steps import read_step
from agentpair.planner.language.values import (label_off, own_words_off, said_at, said_numbers, same_words,
                                               switched, verbatim_spans)
from agentpair.agent.rows import bulk_values
from agentpair.agent.units import NAMING, label_words, numbers_in_unit, page_numbers, word_set
from agentpair.agent.code_holes import code_values, shown_template, with_holes
from agentpair.tools.base import Observation, Toolbox
from agentpair.tools.snapshot import (body_rows, box_states, first_items, item_texts, link_urls, main_heading, option_labels,
                            page_texts, ref_names, refs_fitting, table_rows, told_apart)

TARGET_SCHEMA = {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}
PAGE_WORDS = 8  # the longest run of one page text's words an extracted string may be
COUNTS = 21  # an extracted integer that asks for a count (of rows, results ...) may be one up to 20
COUNTED = re.compile(r"count|number of|how many|total", re.IGNORECASE)  # a field's name or description asking for one




def fill_requests(step: Step, context: str, observation: Observation, toolbox: Toolbox,
                  secret_names: Iterable[str] = (), goal: str = "") -> list[FillRequest]:
    """The executor's work for one step: none when the planner wrote the args or the tool is
    unknown, two for a targeted code step (the text, then the element to type it into); `goal`:
    the task's, whose labelled values a code step's holes may take."""
    if step.kind == "act":
        tool = toolbox.get(step.tool or "")
        if tool is None or step.args is not None:
            return []
        schema = tool.args_schema()
        return [FillRequest(kind="tool_args", instruction=step.instruction, context=context, schema=schema,
                            allowed=allowed_values(observation, schema, step.instruction, secret_names))]
    if step.kind == "extract":
        schema, rows, tied, distinct = bulk_values(observation.snapshot, step.schema_ or {})
        return [FillRequest(kind="extract", instruction=step.instruction, context=context, schema=schema,
                            allowed={**page_values(observation, schema, step.instruction), **rows}, tied=tied,
                            distinct=distinct)]
    shown = shown_template(observation.text)  # a template the page shows is the one to fill
    template = with_holes(shown, step.template) if shown else step.template
    requests = [FillRequest(kind="code", instruction=step.instruction, context=context, template=template,
                            allowed=code_values(observation, template or "", step.instruction, goal))]
    if step.target:
        typing = toolbox.get("type")  # the code is typed in: its element is one `type` can act on
        allowed = allowed_refs(observation, typing.args_schema() if typing else TARGET_SCHEMA, step.target)
        requests.append(FillRequest(kind="tool_args", instruction=f"the element: {step.target}",
                                    context=context, schema=TARGET_SCHEMA, allowed=allowed))
    return requests


def allowed_refs(observation: Observation, tool_schema: dict[str, Any], instruction: str = "") -> dict[str, list[str]]:
    """The refs a tool's `ref` may name on this page: those of the roles it declares (`x-roles`),
    else all, narrowed to the elements the instruction names (named_refs); "" first where the ref
    is optional (`read` the whole page, `wait_for` a text); none when it takes no ref or the page
    has none."""
    ref = tool_schema.get("properties", {}).get("ref")
    if ref is None or not observation.refs:
        return {}
    optional = [] if "ref" in tool_schema.get("required", []) else [""]
    fitting = refs_fitting(observation.snapshot, observation.refs, ref.get("x-roles"))
    return {"/ref": optional + named_refs(observation.snapshot, fitting, instruction)}


def named_refs(snapshot: str, refs: list[str], instruction: str) -> list[str]:
    """`refs` narrowed to the elements the instruction names: those whose name, as a step may say
    it (ways_to_name), is the longest one it says, not counting its first word ("Press the Menu
    button" names Menu, not a link called Press) unless nothing else is said; and of those the one
    its closing "(...)" tells apart ("click the Moby Dick link (Audiobook, 2004)",
    see told_apart), where a name said inside that "(...)" names nothing ("click the star
    button (Giulia)" is no click on Giulia's row). All of them where it names none."""
    step, names = read_step(instruction.rstrip()), ref_names(snapshot)  # names outside "(...)": its bare words
    said: dict[str, tuple[int, int]] = {}  # ref -> (where, how long) its name is said
    for ref in refs:
        found = [(at, len(form)) for form in ways_to_name(names.get(ref, "")) if form for at in said_at(step.bare, form)]
        if found:
            said[ref] = max(found, key=lambda f: (f[0] > 0, f[1]))
    later = {r: n for r, (at, n) in said.items() if at > 0} or {r: n for r, (_, n) in said.items()}
    if not later:
        return refs
    longest = max(later.values())
    kept = [r for r in refs if later.get(r) == longest]
    if len(kept) < 2 or not step.item:
        return kept  # nothing to tell apart: the page is not parsed again
    apart = told_apart(snapshot)
    return [r for r in kept if r in apart and apart[r] == step.item] or kept


def allowed_values(observation: Observation, tool_schema: dict[str, Any], instruction: str,
                   secret_names: Iterable[str] = ()) -> dict[str, list[Any]]:
    """What a tool call's arguments may be: the fitting refs, and for each argument the tool marks
    `x-verbatim` (text to type, an option to pick) a value the instruction names (see
    verbatim_spans; a number for a number argument) or the placeholder of a secret it names, since
    a step names its value; where it marks `x-labelled` (a function tool's), without the label that
    names the argument before it ("the subject X": X, see _label_off);
    where it marks `x-links` (a URL to open) also a link target on the page, and where it marks
    `x-options` (an option) only the named values the page shows as options, if any is; never
    the step's own wording run on (_own_words_off); a step in the grounded wording ("type X into the
    Y field") gets X whole, no shorter run of it, and where X is a field's value, that value exactly
    as the field holds it (observation.field_values: the snapshot trims it). So no executor can type or open a value
    nobody gave. An argument marked `x-switch` (on or off) is what the instruction's verb says,
    where it says one (see switched)."""
    allowed = allowed_refs(observation, tool_schema, instruction)
    for name, prop in tool_schema.get("properties", {}).items():
        if prop.get("x-switch") and (state := switched(instruction)) is not None:
            allowed["/" + name] = [state]
    props = {n: p for n, p in tool_schema.get("properties", {}).items() if p.get("x-verbatim")}
    if not props:
        return allowed
    # a step that names no value the usual way ("save profile") is still held to its own words
    spans = verbatim_spans(instruction, "named", secret_names) \
        or verbatim_spans(instruction, "shown", secret_names)
    names = ref_names(observation.snapshot)
    spans = own_words_off(spans, {names[r] for r in allowed.get("/ref", []) if r in names})
    said = read_step(instruction)
    typed = said.value if said.verb == "type" and said.role else None
    copied = [v for v in observation.field_values.values() if typed and same_words(v, typed)]
    if copied:
        spans = copied[:1]  # a field's value copied: as the field holds it, spaces and lines and all
    elif typed and typed in spans:
        spans = [typed]  # the grounded wording says its value whole: no shorter run of it
    for name, prop in props.items():
        values = list(dict.fromkeys(label_off(s, name, prop.get("description", "")) for s in spans)) \
            if prop.get("x-labelled") else spans
        if kind := _number_kind(prop):  # a number the instruction says
            values = [int(n) if kind == "integer" and n.lstrip("-").isdigit() else float(n)
                      for n in dict.fromkeys(said_numbers(instruction))]
            values = [v for v in values if kind == "number" or isinstance(v, int)]
        if prop.get("x-links"):
            values = list(dict.fromkeys(spans + link_urls(observation.snapshot)))
        if prop.get("x-options"):
            options = set(option_labels(observation.snapshot))
            values = [v for v in spans if v in options] or spans
        if values:
            allowed["/" + name] = values
    return allowed


def _number_kind(prop: dict[str, Any]) -> str | None:
    """"integer" or "number" for an argument of that type (or optional of it), else None."""
    kinds = [b.get("type") for b in prop.get("anyOf", [prop])]
    found = [k for k in kinds if k in ("integer", "number")]
    return found[0] if found and all(k in ("integer", "number", "null") for k in kinds) else None


def page_values(observation: Observation, schema: dict[str, Any], instruction: str = "") -> dict[str, list[Any]]:
    """What an extraction's top-level fields may be, since it reads the page: a string is a whole
    run of up to PAGE_WORDS words of one of the page's texts (an element's name or value, the
    title, a part of the URL's path; see verbatim_spans) or "" (absent), a number one the page shows
    (commas dropped; in the field's unit where its name ends with one the page shows, UNITS), an
    integer that asks for a count (COUNTED) also a count up to 20, or, counting rows, the number
    of rows each table has below its header; a string asking for the first (or top) one, what the
    first item of a list or the first row of a table says first (first_items); and a string asking
    for the name (NAMING) of the thing the instruction names, that thing's name as the page says it
    (naming none, a name, product or model is the page's main heading: what a product page is about).
    Where the instruction names a thing on the page (its longest text the instruction holds, not
    one made of the asked fields' words only: "Followers" is a label), the
    texts are what the page says of it: its cell in the field's column or the row headed by the
    field's label (table_cells), else its list item (a result, a card, a row: item_texts), less
    its own name's parts and numbers; otherwise the numbers a table gives the field for rows the
    instruction does not name are left out. A boolean is the state of the box or switch named with
    the field's label (label_words), where there is one. Fields with an enum, a pattern or a
    format, and fields no value fits, are left to the schema."""
    path = [part for part in urlsplit(observation.url).path.split("/") if part]
    lines = [*page_texts(observation.snapshot), observation.title, *path]
    tables = table_rows(observation.snapshot)
    found = Counter(page_numbers(lines))
    said = instruction.casefold()
    asked = {w for name in schema.get("properties", {}) for w in label_words(name)}
    named = max((t for t in lines if len(t) >= 8 and t.casefold() in said and not word_set(t) <= asked), key=len, default="")
    item = item_texts(observation.snapshot, named) if named else []  # the item the instruction names
    boxes = box_states(observation.snapshot)
    heading = main_heading(observation.snapshot)
    allowed: dict[str, list[Any]] = {}
    for name, prop in schema.get("properties", {}).items():
        if {"enum", "const", "pattern", "format"} & set(prop):
            continue
        kind, values = prop.get("type"), []
        cells, others = table_cells(tables, name, named)
        said_of = cells or item or lines  # what the page says of the instruction's subject
        if kind == "string":
            lo, hi = prop.get("minLength", 0), prop.get("maxLength", 10**6)
            spans = [s for line in said_of for s in verbatim_spans(line, "shown", max_words=PAGE_WORDS)
                     if said_of is not item or s == named or s.casefold() not in named.casefold()]
            absent = [] if cells and spans else [""]  # a table's cell for the subject shows its value
            values = [v for v in dict.fromkeys([*absent, *spans]) if lo <= len(v) <= hi]
            if label_words(name) & {"first", "top"}:  # the first of a list or a table
                values = [v for v in first_items(observation.snapshot) if lo <= len(v) <= hi] or values
            elif named and label_words(name) <= NAMING and lo <= len(named) <= hi:  # the named thing's name
                values = [named]
            elif not named and label_words(name) <= NAMING - {"title"} and lo <= len(heading) <= hi and heading:
                values = [heading]  # naming none: the product a page is about (an article's title may not be)
        elif kind in ("integer", "number"):
            counted = kind == "integer" and COUNTED.search(f"{name} {prop.get('description', '')}") is not None
            shown = numbers_in_unit(lines, name) or list(found)
            if said_of is lines:  # less what a table gives the field for rows the instruction does not name
                other = Counter(page_numbers(others))
                shown = [n for n in shown if found[n] > other[n]] or shown
            else:  # what the page says of the subject, not the numbers in its name ("Kestrel 9 Max")
                own = set(page_numbers([named])) if said_of is item else set()
                shown = numbers_in_unit(said_of, name) or [n for n in page_numbers(said_of) if n not in own] or shown
            values = [int(n) for n in shown if "." not in n] + list(range(COUNTS if counted else 0)) \
                if kind == "integer" else [float(n) for n in shown]
            if counted and label_words(name) & {"row", "rows"} and tables:  # rows a table has
                values = [len(body_rows(rows)) for rows in tables]
            values = [v for v in dict.fromkeys(values) if prop.get("minimum", v) <= v <= prop.get("maximum", v)]
        elif kind == "boolean":  # the state of the box or switch the field's label names, if one does
            values = [on for box, on in boxes.items() if word_set(box) == label_words(name)][:1]
        if values:
            allowed["/" + name] = values
    return allowed


def table_cells(tables: list[list[list[tuple[bool, str]]]], field: str,
                subject: str) -> tuple[list[str], list[str]]:
    """What the page's tables give a field: the cells for the subject (the page's name the
    instruction names: in the field's column, on the rows whose first cell holds it; else on a
    row headed by the field's label, "Memory | 16 GB"), and the field's cells on other rows (all
    their cells, where a table of items has no column for the field: a sibling's "Memory" is not
    the page's own `ram_gb`). A field's label is its name without a unit (label_words)."""
    label = label_words(field)
    said = subject.casefold()

    def labels(text: str) -> bool:
        return bool(label) and label <= word_set(text)

    def names(row: list[tuple[bool, str]]) -> bool:
        return bool(said) and not row[0][0] and said in row[0][1].casefold()

    of_row = any(names(row) for rows in tables for row in rows if row)  # a row's, not the page's own
    named, headed, others = [], [], []
    for rows in tables:
        header = next((row for row in rows if row and all(head for head, _ in row)), [])
        column = next((i for i, (_, text) in enumerate(header) if labels(text)), None)
        for row in rows:
            if row is header or not row:
                continue
            if column is not None and column < len(row):
                (named if names(row) else others).append(row[column][1])
            elif row[0][0] and labels(row[0][1]) and not of_row:
                headed += [text for _, text in row[1:]]
            elif header and not row[0][0] and not names(row):  # another item's row, no column for the field
                others += [text for _, text in row]
    return named or headed, others


def tool_call(step: Step, fills: list[FillResult]) -> tuple[str, dict[str, Any]]:
    """The tool name and arguments of an act step or a targeted code step, once filled."""
    if step.kind == "code":
        return "type", {"ref": fills[1].value["ref"], "text": fills[0].value}
    return step.tool or "", step.args if step.args is not None else fills[0].value
