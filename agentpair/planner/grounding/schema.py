"""The plan schema narrowed to one page and one task (a grounded schema). Its rules, one line each:

Names (tools/unnamed.py, page_view.page_names)
- a pointer-cursor element with no role is a button named by its text (an icon: title, alt, class);
- an unnamed field takes the short text before it, else its place among its role ("2nd textbox");
- a disabled element takes no step.
What a step may say (_grounded_acts, offered_clicks, field_values.typed_values and typing_groups)
- it names only elements the page has, in the page's words; same-named ones told apart by their item,
  and only those whose item says a word of the goal where some do;
- it types only a run of the goal's words, a text the page shows whole (a line of text, a table
  cell, a field's value), an extracted value or a secret's placeholder;
- a secret goes only into the field named after it, an e-mail into a mail field, a value the goal
  labels with a field's word ("postcode X", "directed by Bowen" for Director, "12 guests") into that
  field (where it does so for some, the other empty fields take short runs of its words holding
  no such value nor a field's word), a text it sends "into the 2nd textbox" into that one (fields
  named by place then take nothing else), a table row's value (where the goal gives none) into the
  field of its label, the one text the goal quotes into the page's one field; no field is offered
  the value it shows, nor, where the page filled it, a value no such rule gives it;
- of a list's items (three or more clickable siblings of one role), only those the goal names
  whole, where it names some ("the email by Coletta"), and of those the ones after "from"/"by";
- an element named by its place ("2nd radio") is named by the goal only as that phrase;
- a clickable whose name the goal says only inside a longer clickable's name is not offered;
- a link to the page shown (a site's name on its home page) is not offered; a link to a part of it (#) is;
- while the form holds text the run typed and no button or Enter sent: no link, go to or go back, nor
  a button of a form that does not send it (type "button" or "reset") unless the goal names it;
- a box is offered the verb that turns it, never the one undoing the run's own step;
- a dropdown is offered only the options the goal names;
- a step that left this page as it was is not offered again here, nor a second search;
- a go to names an address the goal gives (an http(s) URL or a path from "/"); with none, no go to;
- a button that adds, buys, creates, registers, deletes, subscribes (its first word) only when the
  goal asks for such;
  nothing the goal rules out ("not the ..."); of numbered things, the number the goal says;
- on a page with nothing to fill: the links the goal names, else what it asks to open, else (once
  the cart holds what it buys) the cart; where the form hides a setting the goal sets, only "show more";
- where the page shows a calendar ("December 2016", day links) and the goal gives a date: its day,
  else the calendar's Next/Prev towards its month; a read-only field typed into is clicked (its picker);
- while a name the goal says to click in quotes, or to find ("Find Petra in the book"), is not on the
  page: only links, tabs and buttons that show more ("More") not yet clicked (the next page's ">"
  again and again); where a quoted one is, only the clickables the goal names;
- where the goal says to click a thing by a label the page shows right before a clickable ("click
  on her phone", "Phone:" then a button): only that one;
- where the goal opens with "focus" or "click" into a field it names: clicking that field;
- an item's action the run took ("like (Clark @dis)") is not taken again (it would undo it);
- where the goal asks for the greatest (smallest), of the clickables named by numbers only that one.
- with an answer schema: extract exactly the unread fields, then answer with the values read;
- a code step types into a box the goal names (where it names one) and into no box a code step of
  the run wrote already.
No finish while (still_to_do)
- a clickable here the goal asks to open or press (or quotes: 'click the "Block" button') is
  unclicked, or one it says to click is elsewhere,
  or a button named by the verb a clause of the goal opens with ("... and forward it": Forward);
- a text the goal gives to enter is untyped or unsent, a box it names to fill is empty;
- the form lacks what the goal gives for it (form_left: boxes and options it names, boxes on that
  name what it says no to ("no digest"), its e-mail address for an empty mail field, listed
  address lines, quoted texts, dates and times for empty fields, its one number for the one
  number field; where it gives no values, a table row's value for the empty field of its label);
- the task asks for no answer and the run has not acted yet, or has not typed a value the goal gives
  (given_values) that this page does not show.
Refused in the loop (form_left.premature_click, through Grounding.refusal: heuristic grounding only)
- a button click while the form lacks what form_left finds; the next plan may only put that in;
- a link, go to or go back while the form holds text typed and not sent (typed_unsent).
Taken without the planner: agentpair.planner.grounding.forced.

A small planner misspells names and cuts values short; under this schema a grammar-constrained
server (llama.cpp) cannot emit either. The rules read the goal as typed values (request.parsed_goal:
agentpair.planner.language.goal) and the run's steps as records (PlanRequest.steps, each step's words
read into a Said by language.steps), never the goal's text or the history lines the planner reads.
Under structural grounding (grounding.layer) only the first group, "Names", and the structural core
of the second hold: elements the page has, values given, secrets into their fields, no step again
that left this page as it was.
"""

from __future__ import annotations

import re
from typing import Any

from agentpair.planner.grounding.field_values import secret_groups, typed_values, typing_groups
from agentpair.planner.language.vocabulary import SENTENCE_END, word_set
from agentpair.planner.grounding.form_left import form_left
from agentpair.planner.language.steps import read_step, says_verb
from agentpair.planner.grounding.page_clicks import (calendar_day, page_clicks, clause_buttons, done_said, field_to_focus, hidden_setting, named_links, next_up,
                                   offered_clicks, page_shown, quoted_here, seeking, signed_in, sought, to_open, typed_unsent,
                                   ways_to_name, writable)
from agentpair.planner.request import EXTRACT_SCHEMA, MAX_PLAN_STEPS, TEXT, DoneStep, PlanRequest, finish_shape, plan_object, plan_schema, step_shape
from agentpair.planner.page_view import PageNames

ESCAPED = set("|?*+()[]{}")  # a backslash makes these literal in both Python's re and llama.cpp's
CLASSED = set(".$")  # llama.cpp keeps "\." as an escape its grammar rejects: "[.]" instead
GROUNDED_TOOLS = ("click", "type", "select", "check", "go_back")
GO_BACK = "go back to the previous page"
FREE_VERBS = {"goto": "go to", "wait_for": "wait"}
SETS_NOTHING = {"read", "wait_for", "scroll", "check", "select"}  # tools whose steps send no form
FORCED = "the only step the page allows"  # the thought of a plan the loop took without the planner
DONE = "the goal is done"  # a finish's instruction


def _literal(text: str) -> str:
    """`text` as a regex matching only itself, in the regex subset llama.cpp compiles."""
    return "".join("\\" + c if c in ESCAPED else f"[{c}]" if c in CLASSED else c for c in text)


def _one_of(texts: list[str]) -> str:
    return "(" + "|".join(_literal(t) for t in texts) + ")"


def _act(tool: str, instruction: dict[str, Any]) -> dict[str, Any]:
    return step_shape("act", {"tool": {"const": tool}}, ["tool"], instruction)


def _grounded_acts(request: PlanRequest, values: list[str], clicks: list[str], heuristic: bool = True) -> list[dict[str, Any]]:
    """One act shape per grounded tool the page gives something to do, then one per other tool;
    `values` are what a step may type (typed_values), `clicks` what it may click (offered_clicks). A box is
    offered only the verb that turns it (check when off, uncheck when on) and never the one undoing
    what a step of the run did, nor a box the goal leaves alone (_not_to_check); no step that
    changed nothing on this very page (request.unchanged) is offered again, nor a field the run has
    submitted a text into with Enter, as said (no second search). Without `heuristic` (structural
    grounding): every option and box, each field any value but a secret not named for it."""
    names, tools, done = request.names, [t.name for t in request.tools], set(request.unchanged)
    shapes = []
    if heuristic and not names.fields and (signed_in(request) or not request.secret_names):  # the way to sign in
        clicks = named_links(request, clicks)
    clicks = seeking(request, clicks) if heuristic else clicks
    if "click" in tools and clicks:
        shapes.append(_act("click", {"enum": clicks}))
    submitted = {said.name for s in request.steps if s.ok and acted_with(s, "type") and (said := read_step(s.instruction)).submit
                 and said.role and said.value == (s.args or {}).get("text")}
    retyped = {said.value for said in map(read_step, done) if said.verb == "type" and said.role}
    typing = (typing_groups if heuristic else secret_groups)(request, [v for v in values if v not in retyped], submitted)
    if "type" in tools and typing:
        into = "|".join(f"{_one_of(vals)} into the {_one_of(fields)}" for vals, fields in typing)
        shapes.append(_act("type", {"type": "string", "pattern": f"^type ({into}) (field|box)( and press Enter)?$"}))
    choices = [f"select {option} in the {said} dropdown" for name, options in names.dropdowns.items()
               if not heuristic or request.parsed_goal.names_an_option(options)
               for option in (request.parsed_goal.options_named(options) if heuristic else options) if writable(option)
               for said in ways_to_name(name)]
    choices = [c for c in choices if c not in done]
    if "select" in tools and choices:
        shapes.append(_act("select", {"enum": choices}))
    leave = _not_to_check(request) if heuristic else set()
    turns = [(name in names.checked, said) for name in names.boxes if name in names.checked or name not in leave
             for said in ways_to_name(name)]
    set_by_run = {s.instruction for s in request.steps if s.ok and acted_with(s, "check")}
    ticks = [f"{'uncheck' if on else 'check'} the {said} box" for on, said in turns  # never undoing the run's own
             if f"{'uncheck' if on else 'check'} the {said} box" not in done
             and f"{'check' if on else 'uncheck'} the {said} box" not in set_by_run]
    if "check" in tools and ticks:
        shapes.append(_act("check", {"enum": ticks}))
    leaving = heuristic and typed_unsent(request)  # nothing that leaves a form typed into and not sent
    if "go_back" in tools and GO_BACK not in done and not leaving:
        shapes.append(_act("go_back", {"const": GO_BACK}))
    # the rest: an instruction that starts with the tool's own verb, so that a step cannot name a
    # missing element under another tool
    for tool in tools:
        if tool not in GROUNDED_TOOLS and not (leaving and tool == "goto"):
            verb = FREE_VERBS.get(tool, tool.replace("_", " "))
            if any(says_verb(d, verb) for d in done):
                continue  # it did nothing here once: any other wording would do nothing too
            if tool == "goto":  # only an address the goal gives ("go to the finish" opened a page named so)
                if addresses := request.parsed_goal.addresses:
                    shapes.append(_act(tool, {"enum": [f"{verb} {address}" for address in addresses]}))
                continue
            shapes.append(_act(tool, {"type": "string", "pattern": f"^{_literal(verb)}( [^\"\\\\]*)?$"}))
    return shapes


def _not_to_check(request: PlanRequest) -> set[str]:
    """The boxes a goal that names one of their kind leaves alone: other radio buttons where it names
    one (checking one would undo it), and, where it says "the pottery class only", the other
    boxes sharing a word with the one it names ("weaving class")."""
    names, goal = request.names, request.parsed_goal
    named = [b for b in names.boxes if goal.names(b)]
    radios = [b for b in names.boxes if "radio" in names.clickable.get(b, [])]
    out = {b for b in radios if not goal.names(b)} if set(named) & set(radios) else set()
    if goal.only:
        out |= {b for b in names.boxes if b not in named and any(word_set(b) & word_set(n) for n in named)}
    return out


def grounded_plan_schema(request: PlanRequest, heuristic: bool = True) -> dict[str, Any]:
    """The plan schema for this request's page and task (the plain one when the request knows no
    names, as one built by hand may not). A code step must name a field to type its text into;
    with no field on the page there is no code step. Without `heuristic`: the structural core only
    (grounding.layer)."""
    if not request.tools or request.names == PageNames():
        return plan_schema([t.name for t in request.tools], request.output_schema)
    return plan_object(*grounded_steps(request, heuristic=heuristic))


def grounded_steps(request: PlanRequest, reads: bool = True, heuristic: bool = True) -> tuple[list[dict[str, Any]], int]:
    """The step shapes a grounded plan may hold, and how many steps it may have. reads=False is for
    a planner that reads the page into its answer and writes its own text (single_model): no
    extract or code step (a code step becomes typing the code into its field), no value left unread,
    and on the page the goal asks about, the finish is the only step. Without `heuristic`: the
    page's elements and the values given, none of the rules that read the goal's words."""
    values = typed_values(request)
    if not heuristic:
        return _structural_steps(request, values), MAX_PLAN_STEPS
    left = form_left(request)
    if left and refused(request):  # a submit was refused: fill the form
        return [_act(tool, {"enum": [step for t, step in left if t == tool]}) for tool in dict.fromkeys(
            t for t, _ in left)], len(left)
    if day := calendar_day(request) or field_to_focus(request):  # a date on the calendar shown; a field to focus
        return [_act("click", {"enum": day})], MAX_PLAN_STEPS
    clicks = offered_clicks(request)
    if hidden := hidden_setting(request, clicks):  # what the goal sets is behind a "Show more" button
        return [_act("click", {"enum": hidden})], MAX_PLAN_STEPS
    if plainly_next := next_up(request, clicks):  # the only step
        return [_act("click", {"enum": plainly_next})], MAX_PLAN_STEPS
    unread = _unread(request) if reads else {}
    asks = unread or unread is None and not request.memory and request.parsed_goal.asks
    if (asks or not reads and request.parsed_goal.asks) and _about_the_goal(request):
        if not reads:
            return [finish_shape(request.output_schema)], 1
        schema = EXTRACT_SCHEMA if unread is None else {"const": unread}  # the page the goal asks about: read it
        return [step_shape("extract", {"schema": schema}, ["schema"])], MAX_PLAN_STEPS
    steps = _grounded_acts(request, values, clicks)
    if unread != {}:
        schema = EXTRACT_SCHEMA if unread is None else {"const": unread}
        steps.append(step_shape("extract", {"schema": schema}, ["schema"]))
    fields = [f"the {said} box" for name in request.names.fields for said in ways_to_name(name)]
    named = {f"the {box.casefold()} box" for box in request.parsed_goal.boxes}
    fields = [f for f in fields if f.casefold() in named] or fields  # where the goal says the text goes
    written = {s.target for s in request.steps if s.ok and s.kind == "code"}  # a box takes one text
    fields = [f for f in fields if f not in written]
    if fields and reads:
        steps.append(step_shape("code", {"template": TEXT, "target": {"enum": fields}}, ["template", "target"]))
    elif fields and "type" in [t.name for t in request.tools]:
        steps.append(_act("type", {"enum": [f"type the code into {field}" for field in fields]}))
    if not unread and not still_to_do(request):
        steps.append(finish_shape(_grounded_answer(request, values) if reads else request.output_schema))
    return steps, MAX_PLAN_STEPS


def _structural_steps(request: PlanRequest, values: list[str]) -> list[dict[str, Any]]:
    """The structural core: acts on the page's elements (page_clicks), the extraction (of the
    answer's unread fields, where it has an answer schema), a code step into a field no code step
    filled, and the finish answering with what was read."""
    unread = _unread(request)
    steps = _grounded_acts(request, values, page_clicks(request), heuristic=False)
    if unread != {}:
        steps.append(step_shape("extract", {"schema": EXTRACT_SCHEMA if unread is None else {"const": unread}}, ["schema"]))
    written = {s.target for s in request.steps if s.ok and s.kind == "code"}
    if fields := [f for name in request.names.fields for said in ways_to_name(name) if (f := f"the {said} box") not in written]:
        steps.append(step_shape("code", {"template": TEXT, "target": {"enum": fields}}, ["template", "target"]))
    if not unread:
        steps.append(finish_shape(_grounded_answer(request, values)))
    return steps


def refused(request: PlanRequest) -> bool:
    """The loop refused a button click of this run (premature_click)."""
    return any(s.refused for s in request.steps)


def acted_with(done: DoneStep, tool: str) -> bool:
    return done.kind == "act" and done.tool == tool


def owes_no_answer(request: PlanRequest) -> bool:
    """The task asks for no answer: no answer schema, no question in the goal (Goal.asks)."""
    return not request.output_schema and not request.parsed_goal.asks


def first_heading(request: PlanRequest) -> str:
    """The first heading the page view shows ("" where none)."""
    return next((m.group(1) for m in re.finditer(r'^heading "(.+)"$', request.page, re.M)), "")


def _about_the_goal(request: PlanRequest) -> bool:
    """The page is about the thing the goal names: its heading (the first the page view shows) is a
    name of two or more words the goal says, not a link (a site's name heads its home page and
    links there)."""
    heading = first_heading(request)
    return len(word_set(heading)) >= 2 and request.parsed_goal.names(heading) and heading not in request.names.clickable


def still_to_do(request: PlanRequest) -> list[str]:
    """What the goal plainly asks for that the run has not done on this page: a clickable here it
    asks to open (to_open), what its form lacks (form_left), and,
    while the page has a field, a text it gives to enter (quoted, or closing the goal after a
    colon: "post this answer: The shop opens at nine.") that no step has typed, and a box it
    names to fill ("put the template in the Setup box") that no step has typed into (nor a code
    step filled), a typed text not sent, a setting it sets that the form hides (hidden_setting),
    and, for a task that asks for no answer (no answer schema, no question), any action at all
    while the run has taken none.
    While there is one, no finish is offered: a small planner calls a goal done a page early."""
    done = done_said(request)
    typed = [d.value for d in done if d.verb == "type"]
    opening = [f"click the {name}" for name in dict.fromkeys([*to_open(request), *clause_buttons(request),
                                                                *quoted_here(request)])]
    texts = [given.text.rstrip(SENTENCE_END) for given in request.parsed_goal.texts]
    to_type = [f"type {text}" for text in texts if request.names.fields and not any(v.startswith(text) for v in typed)]
    coded = any(s.ok and s.kind == "code" for s in request.steps)
    to_fill = [f"fill the {box} box" for box in request.parsed_goal.boxes
               if not coded and not any(d.verb == "type" and (d.name.casefold() + " ").startswith(box.casefold() + " ")
                                        for d in done)]
    hidden = hidden_setting(request, [f"click the {name} button" for name in request.names.clickable])
    acts = [s for s in request.steps if s.ok and not (s.kind == "act" and s.tool in SETS_NOTHING)]  # nor does a failed step
    last = acts[-1] if acts else None
    unsent = ["send what was typed"] if request.names.fields and last and (acted_with(last, "type") or last.kind == "code") \
        and not read_step(last.instruction).submit else []
    acted = any(s.ok and (s.kind == "act" and s.tool or s.kind == "code") for s in request.steps)
    idle = ["act on the page"] if owes_no_answer(request) and not acted else []
    shown = page_shown(request)
    to_enter = [f"type {v}" for v in request.parsed_goal.given_values(set(request.names.clickable))
                if owes_no_answer(request) and not any(t.startswith(v) for t in typed) and v not in shown]
    elsewhere = [f"click {name}" for name in sought(request)]
    return (opening + to_type + to_fill + [step for _, step in form_left(request)] + unsent + hidden + idle + to_enter
            + elsewhere)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def found_values(request: PlanRequest) -> dict[str, Any]:
    """What the extractions so far hold, by field name: the latest value of each, but an empty
    one ("" or null, as a later extraction of a field not on the page gives) never replaces a value."""
    found: dict[str, Any] = {}
    for item in request.memory:
        for k, v in (item.items() if isinstance(item, dict) else []):
            if v not in ("", None) or k not in found:
                found[k] = v
    return found


def _unread(request: PlanRequest) -> dict[str, Any] | None:
    """The task's answer schema narrowed to the fields no extraction holds yet ({} when none is
    left; None when the task has no answer schema with fields). While some are unread, an
    extraction asks for exactly them and no finish is offered: a plan answers from what was read,
    not before."""
    schema = request.output_schema
    if not schema or not isinstance(schema.get("properties"), dict) or not schema["properties"]:
        return None
    found = found_values(request)
    unread = {k: v for k, v in schema["properties"].items() if k not in found}
    if not unread:
        return {}
    return {"type": "object", "required": [k for k in schema.get("required", []) if k in unread],
            "properties": unread}


def _grounded_answer(request: PlanRequest, values: list[str]) -> dict[str, Any] | None:
    """The task's answer schema with what the plan may say in it held to what the task holds: a
    top-level field is the value extracted under its name (an array of records as read); where none
    was, a string field is one of `values` (runs of the goal's words, extracted values:
    typed_values) and a number field one the extractions hold, where they hold one; so a finish
    copies what was found instead of making a value up."""
    schema = request.output_schema
    if not schema or not isinstance(schema.get("properties"), dict):
        return schema
    found = found_values(request)
    numbers = [v for v in found.values() if _number(v)]
    properties = {}
    for name, prop in schema["properties"].items():
        kind, allowed = prop.get("type") if isinstance(prop, dict) else None, []
        own = [found[name]] if name in found else []
        if kind == "string" and not {"enum", "const", "pattern", "format"} & set(prop):
            allowed = [v for v in own if isinstance(v, str) and writable(v)] or values
        elif kind in ("number", "integer") and not {"enum", "const"} & set(prop):
            own = [v for v in own if _number(v)] or numbers  # its own, else any
            allowed = own if kind == "number" else [int(v) for v in own if float(v).is_integer()]
        elif kind in ("array", "object") and not {"enum", "const"} & set(prop):
            allowed = own  # the records read (a bulk extraction's), else the planner's: one value, unhashable
        unique = allowed if kind in ("array", "object") else list(dict.fromkeys(allowed))
        properties[name] = {**prop, "enum": unique} if allowed else prop
    return {**schema, "properties": properties}
