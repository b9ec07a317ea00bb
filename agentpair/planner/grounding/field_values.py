"""What a grounded plan step may type, and into which of a page's fields (see grounding.schema's list
of rules): runs of the goal's words, texts the page shows whole, extracted values, secrets'
placeholders; each field with the values the goal gives it."""

from __future__ import annotations

import re

from agentpair.planner.grounding.form_left import (FIELD_LINE, OPTIONAL, SPINNER, aimed_fields, listed_values, shown_values, typed_fields,
                                 table_values)
from agentpair.planner.language.vocabulary import EMAIL, PLACE_NAME, SENTENCE_END
from agentpair.planner.grounding.page_clicks import ways_to_name, writable
from agentpair.planner.request import PlanRequest

ROLE_LINE = re.compile(r'^[a-z]+(?: "|:| \[|$)')  # an element's line, not a line of text
PAGE_TEXT_CHARS = 120


def typed_values(request: PlanRequest) -> list[str]:
    """What a step may type: every run of up to MAX_VALUE_WORDS of the goal's words (quotes and
    brackets off its ends; the sentence's full stop off), the texts it gives (goal_texts, as given),
    the texts the page shows (shown_texts),
    extracted values, placeholders."""
    found = dict.fromkeys(request.parsed_goal.runs)
    found.update(dict.fromkeys(given.text for given in request.parsed_goal.texts))  # with their own full stops
    for text in shown_texts(request.page):
        found.setdefault(text, None)
    for item in request.memory:
        for value in (item.values() if isinstance(item, dict) else [item]):
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                found.setdefault(str(value), None)
    for name in request.secret_names:
        found.setdefault("{{secret:" + name + "}}", None)
    return [value for value in found if writable(value)]


def shown_texts(page: str) -> list[str]:
    """The texts a page shows whole that a goal may ask to copy: each line of plain text, each table
    cell and each field's value, up to PAGE_TEXT_CHARS long (a page's long prose is no value to type)."""
    found = []
    for line in page.splitlines():
        line = line.strip()
        value = FIELD_LINE.match(line)
        texts = [value.group(2)] if value else line.removeprefix("row: ").split(" | ") if line.startswith("row: ") \
            else [line] if not ROLE_LINE.match(line) else []
        found += [text for text in texts if 0 < len(text) <= PAGE_TEXT_CHARS]
    return found


def typing_groups(request: PlanRequest, values: list[str], submitted: set[str]) -> list[tuple[list[str], list[str]]]:
    """Which values go into which fields, as (values, field names as said) groups: a secret goes
    only into the fields named after it (the password into "Password", never into a page's
    "identity check" box), and they take nothing else; e-mail addresses go into the fields that
    say "mail" where the page has such, and those take nothing else, as a value the goal labels
    with a word of a field's name takes that field ("postcode LS2 7EW", "12 guests": labelled_values;
    one the goal says twice may go into two), and the fields right before
    that one what the goal lists right before it, in order (listed_before); the one field of a page
    takes the one text the goal quotes; a text the goal aims at
    fields ("this reply: ...", _aimed_fields) goes only into those; a field a table row gives a
    value for (table_values) takes only that; no field takes the value it shows; a field the run
    typed a text into takes no other; no field the run submitted a text into (`submitted`, as
    said) takes more; where the goal sends a text to a field by its place ("into the 2nd textbox"),
    fields named by their place take only what it sends them; a field the page filled (not the
    run; a number field aside) takes only what these rules give it."""
    secrets = {v: v[len("{{secret:"):-2].replace("_", " ").casefold() for v in values if v.startswith("{{secret:")}
    emails = [v for v in values if EMAIL.match(v)]
    goal = request.parsed_goal
    aimed = {given.text.rstrip(SENTENCE_END): fields for given in goal.texts if (fields := aimed_fields(request, given))}
    listed, table, shown = listed_values(request), table_values(request), shown_values(request)
    owned: dict[str, list[str]] = {}
    for field in request.names.fields:
        own = [v for v, name in secrets.items() if name in field.casefold()]
        if not own and emails and "mail" in field.casefold():
            own = emails
        if not own:
            own = [v for v in goal.labelled(field) or listed.get(field, [])[:1] if v in values]
        if not own and field in table:
            own = [table[field]]
        if not own and len(request.names.fields) == 1 and len(quoted := goal.quoted) == 1:
            own = [v for v in values if v.rstrip(SENTENCE_END) == quoted[0].rstrip(SENTENCE_END)]  # the one text
        if not submitted & set(ways_to_name(field)):
            owned[field] = own
    said_twice = {v for own in owned.values() for v in own
                  if goal.said_times(v) > 1}
    taken = {v for own in owned.values() for v in own if v not in said_twice} | set(secrets)
    kept = typed_fields(request, ok=True)
    open_to = {f for f in request.names.fields if set(ways_to_name(f)) & set(kept)} | {
        name.replace('\\"', '"') for name, _ in SPINNER.findall(request.page)}  # typed by the run, or a number field
    groups: dict[tuple[str, ...], list[str]] = {}
    given = {g.text.rstrip(SENTENCE_END) for g in goal.texts}
    by_place = any(PLACE_NAME.match(f) for fields in aimed.values() for f in fields)
    for field, own in owned.items():
        if by_place and PLACE_NAME.match(field):  # the goal sends texts to fields by place: only those
            own = own or [v for v in values if field in aimed.get(v.rstrip(SENTENCE_END), [])]
        elif not own and not OPTIONAL.search(field) and (field not in shown or field in open_to):
            # an optional field the goal gives nothing for stays empty; one the page filled stays as it is
            own = [v for v in values if v not in taken and field in aimed.get(v.rstrip(SENTENCE_END), [field])
                   and (v.rstrip(SENTENCE_END) in given or not goal.holds_other(v, taken, request.names.fields))]
        own = [v for v in own if v != shown.get(field)]  # not the value it shows already
        if had := next((kept[said] for said in ways_to_name(field) if said in kept), None):
            own = [v for v in own if v == had]  # what the run typed here, again at most (a misspelt fill)
        else:  # and not what it typed into another field
            own = [v for v in own if v not in kept.values()]
        groups.setdefault(tuple(own), []).extend(ways_to_name(field))
    return [(list(own), fields) for own, fields in groups.items() if own and fields]


def secret_groups(request: PlanRequest, values: list[str], submitted: set[str]) -> list[tuple[list[str], list[str]]]:
    """The structural core of typing_groups: a secret goes only into the fields named after it, and
    every other field takes any other value; none the run submitted a text into (`submitted`)."""
    secrets = {v: v[len("{{secret:"):-2].replace("_", " ").casefold() for v in values if v.startswith("{{secret:")}
    plain = [v for v in values if v not in secrets]
    groups: dict[tuple[str, ...], list[str]] = {}
    for field in request.names.fields:
        if not submitted & set(ways_to_name(field)):
            own = [v for v, name in secrets.items() if name in field.casefold()] or plain
            groups.setdefault(tuple(own), []).extend(ways_to_name(field))
    return [(list(own), fields) for own, fields in groups.items() if own and fields]
