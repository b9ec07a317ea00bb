"""What the goal gives for a page's form that the form does not hold yet (form_left), and the loop's
refusal of a button click before it does (premature_click); the grounded schema (grounding.schema)
offers those steps first and no finish while they are left.
"""

from __future__ import annotations

import re

from agentpair.planner.language.vocabulary import SENTENCE_END, says_name, word_set
from agentpair.planner.grounding.page_clicks import done_said, page_shown, typed_unsent, ways_to_name, writable
from agentpair.planner.language.steps import Said, read_step
from agentpair.planner.language import GoalText
from agentpair.planner.request import DoneStep, PlanRequest

REFUSED = "the form does not yet hold what the goal gives: "  # premature_click's reason
UNSENT = "the form holds text typed into it that no button has sent yet: a link would leave it unsent"
SPINNER = re.compile(r'^spinbutton "((?:[^"\\]|\\.)*)"(?: \[[^\]]*\])*(?::\s*(.*))?$', re.M)
FIELD_LINE = re.compile(r'^(?:textbox|searchbox|spinbutton|combobox) "((?:[^"\\]|\\.)*)"(?: \[[^\]]*\])*: (.+)$', re.M)
OPTIONAL = re.compile(r"\boptional\b", re.I)


def aimed_fields(request: PlanRequest, given: GoalText) -> list[str]:
    """Where the goal says a text goes: the page's fields it names right after the text ('"-5" into
    the 2nd textbox', sent_into), else those the last clause before it names by one of their words
    ("this answer" -> "Your answer"); never a secret's."""
    if request.parsed_goal.sent_into(given.text):
        return [f for f in request.names.fields if request.parsed_goal.sends_into(given.text, f)]
    return [f for f in request.names.fields if word_set(f) & given.lead_words
            and not any(s.replace("_", " ").casefold() in f.casefold() for s in request.secret_names)]


def listed_values(request: PlanRequest) -> dict[str, list[str]]:
    """The fields right before one the goal labels a code for ("postcode LS2 7EW"), each with what
    the goal lists for it (listed_before), then that field with its code as given whole; in the
    form's order."""
    fields, listed = request.names.fields, {}
    for k, field in enumerate(fields):
        for before, said in zip(fields[:k][::-1], request.parsed_goal.listed_before(field, k)):
            listed.setdefault(before, [said])
        code = request.parsed_goal.labelled_whole(field)
        if code and k and fields[k - 1] in listed:
            listed.setdefault(field, [code])
    return {field: listed[field] for field in fields if field in listed}


def _typings(request: PlanRequest, ok: bool) -> list[tuple[int, DoneStep, Said]]:
    """The run's type steps in the grounded wording that ran (ok) or failed, each with its place in
    the run and what it said (the value, the field)."""
    return [(at, s, said) for at, s in enumerate(request.steps) if s.ok == ok and s.kind == "act" and s.tool == "type"
            and (said := read_step(s.instruction)).verb == "type" and said.role]


def typed_fields(request: PlanRequest, ok: bool) -> dict[str, str]:
    """The fields the run's type steps typed into (ok) or failed to, each with the value it said."""
    return {said.name: said.value for _, _, said in _typings(request, ok)}


def kept_typing(request: PlanRequest) -> set[str]:
    """The fields (lower case) the run typed into that keep it: all, but those shown empty now that
    were typed before the run dismissed a dialog (a dialog that reset the form undid the typing)."""
    empty = set(empty_fields(request))
    dismissed = max((at for at, s in enumerate(request.steps) if s.ok and read_step(s.instruction).dismisses), default=-1)
    return {said.name.casefold() for at, _, said in _typings(request, ok=True) if not (at < dismissed and said.name in empty)}


def form_left(request: PlanRequest) -> list[tuple[str, str]]:
    """What the goal gives for this page's form that the form does not hold yet, as the (tool,
    instruction) steps that put it there: a box it names ("Agree to the house rules", "cup size
    M") that is off, a box that is on naming what it says no to ("do not send me the digest": the
    last word of the clause), a dropdown one option of which it names ("spicy dishes") showing
    another, each option it names of a list box (which may take several) not chosen in it, a value
    it lists for an address form field ("..., Leeds, postcode LS2 7EW": _listed),
    a value it labels with a word of an empty field's name ("year 1998", "directed by Bowen": labelled_values)
    or a text it gives for a field it names ("this reply: ...") never typed, the e-mail address it gives for
    an empty field that says "mail", else a value it gives
    (a quoted text, a date, a time: given_values) never typed nor shown while the page has an
    empty field, into any empty field. While there is
    one, no finish is offered (still_to_do) and the loop runs no button click (premature_click):
    a small planner submits a form half filled; after such a refusal, the plan must do these. The
    one number a goal gives goes into the page's one number field (_number_to_set); where it gives no
    values, a table's row into the field of its label (_from_table)."""
    names, done, goal = request.names, done_said(request), request.parsed_goal
    typed_values = [d.value for d in done if d.verb == "type"]
    left = [("check", f"check the {said[0]} box") for box in names.boxes if box not in names.checked
            and goal.names(box) and not any(r <= word_set(box) for r in goal.ruled_out)
            and not any(d.verb == "uncheck" and d.name.casefold() == box.casefold() for d in done)
            and (said := ways_to_name(box))]
    left += [("check", f"uncheck the {said[0]} box") for box in names.checked if box in names.boxes
             and goal.refused & word_set(box) and (said := ways_to_name(box))]
    for name, options in names.dropdowns.items():
        named, said = goal.options_named(options), ways_to_name(name)
        if name in names.list_chosen and said and len(named) < len(options):  # a list box: each option named
            left += [("select", f"select {o} in the {said[0]} dropdown") for o in named if o not in names.list_chosen[name]]
        elif len(named) == 1 < len(options) and names.chosen.get(name) != named[0] and said:
            left.append(("select", f"select {named[0]} in the {said[0]} dropdown"))
    typed = kept_typing(request)
    listed = listed_values(request)
    for field, value in listed.items():
        said = ways_to_name(field)
        if said and not typed & {n.casefold() for n in said}:
            left.append(("type", f"type {value[0]} into the {said[0]} field"))
    left += _described(request, typed, listed)
    mail = [said[0] for f in names.fields if "mail" in f.casefold() and (said := ways_to_name(f))
            and said[0] in empty_fields(request) and not typed & {n.casefold() for n in said}]
    left += [("type", f"type {email} into the {mail[0]} field") for email in goal.emails[:1]
             if mail and not any(v.startswith(email) for v in typed_values)]
    for given in goal.texts:
        fields = [said[0] for f in aimed_fields(request, given) if (said := ways_to_name(f))]
        if fields and not any(v.startswith(given.text.rstrip(SENTENCE_END)) for v in typed_values):
            left.append(("type", f"type {given.text} into the {fields[0]} field"))
    if not any(tool == "type" for tool, _ in left):
        left += _number_to_set(request) or _from_table(request)
    if not any(tool == "type" for tool, _ in left):
        empty = empty_fields(request)
        for value in _untyped(request, typed):  # into the field a word of whose name the goal quotes it after, else any
            label = goal.quote_label(value)
            left += [("type", f"type {value} into the {field} field")
                     for field in [f for f in empty if label and says_name(label, f)] or empty]
    return list(dict.fromkeys(left))  # a value found two ways is one step


def _described(request: PlanRequest, typed: set[str], listed: dict[str, list[str]]) -> list[tuple[str, str]]:
    """Where the goal labels values for fields of the form by words of their names ("year 1998",
    "directed by Bowen": labelled_values), each such field while empty takes its value, and each
    other empty field (not optional) one of the short runs of the goal's words that hold no such
    value nor a word of a field's name ("action", "action movies" for Genre): the goal describes
    the whole form. `listed`: listed_values, which this leaves to form_left's address lines."""
    empty, fields, goal = empty_fields(request), request.names.fields, request.parsed_goal
    labelled = {f: v for f in fields if f not in listed and (v := goal.labelled_whole(f)) and writable(v)}
    if not labelled:
        return []
    runs = [v for v in goal.short_runs if writable(v) and not goal.holds_other(v, set(labelled.values()), fields)]
    steps = []
    for field in fields:
        said = ways_to_name(field)
        if not said or said[0] not in empty or typed & {n.casefold() for n in said} or field in listed \
                or OPTIONAL.search(field):
            continue
        steps += [("type", f"type {v} into the {said[0]} field") for v in ([labelled[field]] if field in labelled else runs)]
    return steps


def table_values(request: PlanRequest) -> dict[str, str]:
    """Where the goal gives no values of its own, each field labelled like a table row's first cell
    ("First name:" for "row: First name | Rhiamon") -> that row's next cell."""
    if request.parsed_goal.given_values(set(request.names.clickable)) or request.parsed_goal.texts:
        return {}
    rows = {cells[0].casefold(): cells[1] for line in request.page.splitlines() if line.startswith("row: ")
            and len(cells := line.removeprefix("row: ").split(" | ")) >= 2}
    return {field: value for field in request.names.fields
            if (value := rows.get(field.rstrip(" :*").casefold())) and writable(value)}


def shown_values(request: PlanRequest) -> dict[str, str]:
    """The page's fields that show a value -> that value."""
    return dict(FIELD_LINE.findall(request.page))


def _from_table(request: PlanRequest) -> list[tuple[str, str]]:
    """Each empty field a table row gives a value for (table_values) takes it."""
    values, empty = table_values(request), empty_fields(request)
    return [("type", f"type {values[field]} into the {said[0]} field") for field in values
            if (said := ways_to_name(field)) and said[0] in empty]


def _number_to_set(request: PlanRequest) -> list[tuple[str, str]]:
    """The one number the goal gives, for the page's one number field (a spin button) showing
    another, while no step has typed it."""
    spinners = SPINNER.findall(request.page)
    numbers = set(request.parsed_goal.numbers)
    if len(spinners) != 1 or len(numbers) != 1:
        return []
    (name, shown), number = spinners[0], numbers.pop()
    said = ways_to_name(name.replace('\\"', '"'))
    typed = [d.value for d in done_said(request) if d.verb == "type"]
    if shown.strip() == number or any(v == number or v.startswith(number + " ") for v in typed) or not said:
        return []
    return [("type", f"type {number} into the {said[0]} field")]


def _untyped(request: PlanRequest, kept: set[str]) -> list[str]:
    """The values the goal gives (given_values) that no step typed into a field that kept it
    (`kept`: kept_typing) and the page does not show (a line that repeats the goal aside), while the
    page has an empty field."""
    typed = {value for field, value in typed_fields(request, ok=True).items() if field.casefold() in kept}
    shown = page_shown(request)
    values = request.parsed_goal.given_values(set(request.names.clickable)) if empty_fields(request) else []
    return [v for v in values if v not in typed and v not in shown and writable(v)]


def empty_fields(request: PlanRequest, required: bool = False) -> list[str]:
    """The page's text fields that show no value and no step failed to type into (but while it was
    disabled: a field of the page is enabled), as a step says them; `required`: only those whose
    name does not say they are optional."""
    filled = set(shown_values(request))
    failed = {said.name for _, s, said in _typings(request, ok=False) if not s.disabled}  # (a disabled one may be enabled now)
    return [said[0] for name in request.names.fields if name not in filled and not (required and OPTIONAL.search(name))
            and (said := ways_to_name(name)) and not failed & set(said)]


def typed_field(instruction: str) -> str | None:
    """The field a typing step names, as the grounded schema words it ("type X into the Name field")."""
    said = read_step(instruction)
    return said.name if said.verb == "type" and said.role else None


def premature_click(request: PlanRequest, instruction: str) -> str | None:
    """Why a step clicking a button must wait, or a link, a go to or a go back must not be taken
    (refused_click), else None."""
    refusal = refused_click(request, instruction)
    return refusal[0] if refusal else None


def refused_click(request: PlanRequest, instruction: str) -> tuple[str, bool] | None:
    """Why a step clicking a button must wait (what form_left finds on the page: True beside it), or
    why a link, a go to or a go back must not be taken (typed_unsent: it would leave the form
    unsent: False), else None."""
    said = read_step(instruction)
    if said.leaves and typed_unsent(request):
        return UNSENT, False
    left = form_left(request) if said.verb == "click" and said.role == "button" else []
    return (REFUSED + "; ".join(step for _, step in left), True) if left else None
