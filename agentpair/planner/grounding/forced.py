"""Steps the loop takes without asking the planner, where the grounded schema (grounding.schema)
leaves no choice about them. Its rules, one line each:

- where what the form lacks (form_left) can go in one way only (each field one value, each value
  one field, none of it tried before in the run), after a refused button click or where it leaves
  no empty field not marked optional: all of it, in one plan;
- where the schema allows exactly one step (one act, one wording), the loop takes it;
- a button click refused while the form lacked values is taken once the form holds them, unless a
  click or a text typed with Enter ran since (retried);
- once every field of the answer schema is read, the run answers with the values read (answered);
- once the run's last step filled in a form that lacks nothing (form_left, no empty field not marked
  optional), the one button its closing clause's verb names ("... and submit the form": Submit) (sent);
- where the task asks for no answer, it ends once the run clicked the button its closing clause's verb
  names ("... and submit the form": Submit) after filling something in, and the page changed, if
  nothing is left to do (closed);
- where the task asks for no answer, it ends once a click changed the page to one whose first
  heading says only words of the closing clause, a clause that opens a page ("... then open your
  account dashboard": "Dashboard") (arrived);
- a run's first step, where the goal (past where it says the site is) opens with a verb that opens a
  page and the whole name of a link here ("open the Nimbus 14 Pro product page"; the longest such
  name), is the click on that link (opened);
- where the schema allows only an extraction into a schema it fixes (the answer's fields unread, on
  the page the goal asks about), the loop takes it: "extract the <fields> of <the page's heading>" (read);
- where the page leaves nothing to type, select, check or write, the one click offered on a thing the
  goal quotes to click ('click on the "Mute" button': Mute @leo), if the run clicked none of them (quoted);
- where a dialog has disabled the page's fields (a field shown [disabled]), its button that dismisses
  it (Cancel, Close, Dismiss, No, Not now, No thanks), if the goal does not name that button (dismissed);
- where the goal quotes a button to click on all (or N) of the items it names ('the "Retweet" button on
  all posts by @leonie'), the clicks on those offered and not made yet (all, or as many as N leaves),
  before anything else, then the button the closing clause names (each).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from agentpair.models import Step
from agentpair.planner.grounding.form_left import empty_fields, form_left
from agentpair.planner.language.steps import dismissing, read_step
from agentpair.planner.language.vocabulary import word_set
from agentpair.planner.grounding.page_clicks import clicked_at_start, clicks_on, says, telling, ways_to_name
from agentpair.planner.grounding.schema import (DONE, acted_with, first_heading, found_values, grounded_steps, owes_no_answer,
                                                refused)
from agentpair.planner.page_view import PageNames
from agentpair.planner.request import PlanRequest

FILLS = ("type", "select", "check")  # the tools that fill in a form
DISABLED_FIELD = re.compile(r'^(?:textbox|searchbox|combobox|spinbutton|checkbox|radio) ".*" \[disabled\]', re.M)


def forced_steps(request: PlanRequest) -> list[Step]:
    """The steps the grounded schema leaves no choice about, taken without asking the planner ([]
    where it leaves one): all the form lacks (form_left), where it goes in one way only, after a
    refused button click or where it fills the form whole; the one step the schema allows (one act
    with one wording); the refused click once the form holds what it lacked (retried); once every
    field of the answer schema was read, the finish answering with what was read (answered); the
    finish once the goal's closing click is done (closed) or the page it opens is shown (arrived);
    that click once the form it sends lacks nothing (sent); the link the goal opens with (opened); the
    extraction the schema fixes (read); the click on what the goal quotes (quoted); the way out of a
    dialog that disabled the page's fields (dismissed); the clicks on all (or N) items (each)."""
    if not request.tools or request.names == PageNames():
        return []
    left = form_left(request)
    if left and _one_way(left, request) and (refused(request) or _fills_whole(left, request)):
        return [Step(kind="act", tool=tool, instruction=step) for tool, step in left]
    shapes, _ = grounded_steps(request)
    if steps := each(request, shapes):
        return steps
    if step := dismissed(request) or next(filter(None, (rule(request, shapes) for rule in (
            retried, answered, closed, sent, arrived, opened, read, quoted))), None):
        return [step]
    if len(shapes) != 1 or shapes[0]["properties"]["kind"].get("const") != "act":
        return []
    wordings = _wordings(shapes[0])
    return [Step(kind="act", tool=shapes[0]["properties"]["tool"]["const"], instruction=wordings[0])] \
        if len(wordings) == 1 else []


def _typed(left: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (value, field) of each type step of `left`."""
    return [(said.value, said.name) for tool, step in left if tool == "type" and (said := read_step(step)).role]


def _one_way(left: list[tuple[str, str]], request: PlanRequest) -> bool:
    """What the form lacks can be put in one way only: each field gets one value and each value one
    field; and no step of it was tried before in the run (a failed one is the planner's to repair)."""
    typed = _typed(left)
    tried = {s.instruction for s in request.steps}
    return len({f for _, f in typed}) == len(typed) == len({v for v, _ in typed}) and not tried & {s for _, s in left}


def _fills_whole(left: list[tuple[str, str]], request: PlanRequest) -> bool:
    """What the form lacks leaves no empty field that is not marked optional."""
    return not set(empty_fields(request, required=True)) - {field for _, field in _typed(left)}


def _wordings(shape: dict[str, Any]) -> list[str]:
    said = shape["properties"]["instruction"]
    return [said["const"]] if "const" in said else said.get("enum", [])


def _finish_shape(shapes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The finish the schema offers, if it does."""
    return next((s for s in shapes if s["properties"]["kind"].get("const") == "finish"), None)


def _offered_clicks(shapes: list[dict[str, Any]]) -> list[str]:
    """Every click wording the schema offers."""
    return [w for s in shapes if s["properties"]["kind"].get("const") == "act"
            and s["properties"]["tool"].get("const") == "click" for w in _wordings(s)]


def retried(request: PlanRequest, shapes: list[dict[str, Any]]) -> Step | None:
    """The click the loop refused (premature_click) when no click ran and no text was typed with
    Enter since (it may have sent the form already), and the schema offers it again: the planner
    asked for it, and the form now holds what it lacked."""
    for done in reversed(request.steps):
        if acted_with(done, "click") and done.refused:
            offered = done.instruction in _offered_clicks(shapes)
            return Step(kind="act", tool="click", instruction=done.instruction) if offered else None
        if done.ok and (acted_with(done, "click") or (done.args or {}).get("submit")):
            return None
    return None


def closed(request: PlanRequest, shapes: list[dict[str, Any]]) -> Step | None:
    """The finish, where the schema offers it, the task asks for no answer, and the run's last step
    clicked the button whose first word is the verb of the goal's closing clause ("... and submit the
    form": Submit) and changed the page, and the run filled something in before (typed, selected,
    checked, wrote code) for it to send: what the goal asks last is done."""
    last = read_step(request.steps[-1].instruction) \
        if request.steps and request.steps[-1].ok and acted_with(request.steps[-1], "click") else None
    offered = _finish_shape(shapes) is not None
    if not offered or not last or last.role != "button" or not owes_no_answer(request) or last.bare in request.unchanged:
        return None
    if not any(s.ok and (s.kind == "code" or s.tool in FILLS) for s in request.steps):
        return None  # nothing was filled in for it to send: a button that opens the form ("Create a queue")
    verb = request.parsed_goal.closing_verb
    return Step(kind="finish", instruction=DONE, answer=f"done: {last.bare}") \
        if verb and last.first_word == verb else None


def sent(request: PlanRequest, shapes: list[dict[str, Any]]) -> Step | None:
    """The click on the one button the schema offers whose first word is the verb of the goal's
    closing clause ("... and submit the registration": Submit registration), where the run's last
    steps filled in this form (typed, none with Enter, selected, checked) and the form lacks
    nothing: nothing the goal gives (form_left), no empty field not marked optional."""
    filling = list(itertools.takewhile(lambda s: s.kind == "act" and s.tool in FILLS,
                                       reversed(request.steps)))
    if not filling or not filling[0].ok or any((s.args or {}).get("submit") or read_step(s.instruction).submit
                                               for s in filling):
        return None  # not just filled in, or a text sent with Enter may have sent the form already
    verb = request.parsed_goal.closing_verb
    named = [w for w in _offered_clicks(shapes) if (said := read_step(w)).role == "button" and said.opens_with_word
             and not set("()") & set(said.name) and said.first_word == verb]
    if len(named) != 1 or form_left(request) or empty_fields(request, required=True):
        return None
    return Step(kind="act", tool="click", instruction=named[0])


def arrived(request: PlanRequest, shapes: list[dict[str, Any]]) -> Step | None:
    """The finish, where the schema offers it, the task asks for no answer, the goal's closing clause
    opens a page ("... then open your account dashboard") and the run's last step, a click, changed
    the page to one whose first heading (not the site's name) says only words of that clause ("Dashboard")."""
    last = request.steps[-1] if request.steps else None
    offered = _finish_shape(shapes) is not None
    if (not offered or not owes_no_answer(request) or not last or not last.ok or not acted_with(last, "click")
            or last.instruction in request.unchanged):
        return None
    goal = request.parsed_goal
    heading = first_heading(request)
    site = next(iter(request.names.clickable), None)  # a page's first link is its site's name, which heads its home page
    if not goal.closing_opens or not word_set(heading) or heading == site:
        return None
    return Step(kind="finish", instruction=DONE, answer=DONE) if word_set(heading) <= goal.closing_words else None


def answered(request: PlanRequest, shapes: list[dict[str, Any]]) -> Step | None:
    """The finish, where the schema offers it and holds each field of the answer to the one value
    an extraction read for it (_grounded_answer): nothing is left for the planner to say."""
    props = (_finish_shape(shapes) or {}).get("properties", {}).get("answer", {}).get("properties")
    found = found_values(request)
    if not props or any(k not in found or p.get("enum") != [found[k]] for k, p in props.items()):
        return None
    return Step(kind="finish", instruction=DONE, answer={k: p["enum"][0] for k, p in props.items()})


def opened(request: PlanRequest, shapes: list[dict[str, Any]]) -> Step | None:
    """The run's first step, where the goal, past where it says the site is (task_said), opens with
    a verb that opens a page and then the whole name of a link here, not followed by a capitalised
    word or a number ("open the Nimbus 14 Pro product page": Nimbus 14 Pro, not Nimbus 14; the
    longest such name), and the schema offers the one click on it."""
    if request.steps or not request.parsed_goal.opening:
        return None
    links = [name for name, roles in request.names.clickable.items() if "link" in roles and name.strip()
             and request.parsed_goal.opens_with_link(name)]
    if not links:
        return None
    longest = max(links, key=len)
    clicks = [c for c in _offered_clicks(shapes) if (said := read_step(c)).role == "link" and said.name in ways_to_name(longest)]
    return Step(kind="act", tool="click", instruction=clicks[0]) if len(clicks) == 1 else None


def read(request: PlanRequest, shapes: list[dict[str, Any]]) -> Step | None:
    """The extraction, where it is the only step the schema allows and the schema fixes what it reads
    (the answer's fields still unread, on the page the goal asks about): the fields, of what the
    page's first heading names, the words an executor is told to read by."""
    only = shapes[0]["properties"] if len(shapes) == 1 else {}
    schema = only.get("schema", {}).get("const") if only.get("kind", {}).get("const") == "extract" else None
    heading = first_heading(request)
    if not isinstance(schema, dict) or not schema.get("properties") or not heading:
        return None
    fields = list(schema["properties"])
    listed = ", ".join(fields[:-1]) + " and " + fields[-1] if len(fields) > 1 else fields[0]
    return Step(kind="extract", instruction=f"extract the {listed} of {heading}", schema=schema)


def quoted(request: PlanRequest, shapes: list[dict[str, Any]]) -> Step | None:
    """The one click the schema offers on a thing the goal quotes to click ('click on the "Mute"
    button': Mute @leo), where it offers nothing to type, select, check or write (a form may come
    first) and the run has clicked none of the things so quoted."""
    names = [name for name in request.names.clickable if any(says(name, q) for q in request.parsed_goal.quoted_clicks)]
    if not names or any(clicked_at_start(request, name) for name in names) or any(
            s["properties"]["kind"].get("const") == "code" or s["properties"].get("tool", {}).get("const") in FILLS
            for s in shapes):
        return None
    clicks = [c for c in _offered_clicks(shapes) if clicks_on(c, names)]
    return Step(kind="act", tool="click", instruction=clicks[0]) if len(clicks) == 1 else None


def dismissed(request: PlanRequest) -> Step | None:
    """The click on a dialog's button that dismisses it (Cancel, Close, ...), where the dialog has
    disabled the page's fields (the page view shows one [disabled]: "Your session is going to
    time out soon" over a sign-in form) and the goal does not name the button."""
    if not DISABLED_FIELD.search(request.page):
        return None
    ways_out = [f"click the {ways_to_name(name)[0]} button{told}" for name, roles in request.names.clickable.items()
                if "button" in roles and dismissing(name) and not request.parsed_goal.names(name)
                for told in telling(request.names, name)]  # (a side effect the grounded clicks leave out)
    return Step(kind="act", tool="click", instruction=ways_out[0]) if len(ways_out) == 1 else None


def each(request: PlanRequest, shapes: list[dict[str, Any]]) -> list[Step]:
    """Where the goal quotes a button to click on all (or N) of the items it names ('click the
    "Retweet" button on all posts by @leonie'), the clicks on it the schema offers (the items the
    goal names: told_by_goal) that the run has not made: all of them, or as many as N leaves; once
    made, the click on the button the goal's closing clause names ("... and then click Submit")."""
    said = request.parsed_goal.each
    if not said:
        return []
    names = [name for name in request.names.clickable if says(name, said[0])]
    made = [s for s in request.steps if s.ok and acted_with(s, "click") and clicks_on(s.instruction, names)]
    todo = [c for c in _offered_clicks(shapes) if clicks_on(c, names) and c not in {s.instruction for s in made}]
    if said[1].isdigit():
        todo = todo[:max(0, int(said[1]) - len(made))]
    if made and not todo:  # all made: the button the closing clause names ("... and then click Submit")
        todo = [c for c in _offered_clicks(shapes) if not clicks_on(c, names) and clicks_on(
            c, [n for n in request.names.clickable if request.parsed_goal.closing_names(n)])][:1]
    return [Step(kind="act", tool="click", instruction=c) for c in todo]
