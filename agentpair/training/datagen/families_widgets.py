"""Planner episodes of single-page widget tasks, the shapes small web tasks take: a search form
whose values the goal describes in its own words ("describe"), boxes to tick among many ("pick"),
text the page shows to copy into a field ("copy"), and, held out as a whole family, number fields
set to a value ("numbers"). Every pool is split in halves like plan_vocab's (even index: train)."""

from __future__ import annotations

import random
from typing import Any

from agentpair.training.datagen.plan_vocab import Words
from agentpair.training.datagen.sites import (Call, Episode, Screen, Site, button, click, esc, finish, h, p, slug, tick,
                                     type_in)
from agentpair.training.datagen.stages import DONE
from agentpair.training.datagen.vocab import Vocab

# A search form per domain: each field with its labels, the phrases a goal states its value in and
# its values; every list is split in halves (even index: train, odd: held-out) by `halves`.
DOMAINS: list[dict[str, Any]] = [
    {"noun": ["books", "novels"], "fields": {
        "Author": (["Author", "Writer", "Written by", "Book author"], ["by {v}", "written by {v}"], "family"),
        "Topic": (["Topic", "Subject", "Theme", "About"], ["about {v}", "on {v}"],
                  ["gardening", "sailing", "chess", "beekeeping", "baking", "pottery"]),
        "Year": (["Year", "Published", "Year published", "Publication year"], ["from {v}", "published in {v}"],
                 "year")}},
    {"noun": ["hotels", "rooms"], "fields": {
        "Town": (["Destination", "Where to", "Town", "Resort"], ["in {v}", "at {v}"], "city"),
        "Guests": (["Guests", "Adults", "Guest count", "Persons"], ["for {v} guests", "for {v} adults"], "small"),
        "Nights": (["Nights", "Stay length", "Night count", "Nights staying"], ["for {v} nights", "staying {v} nights"],
                   "small")}},
    {"noun": ["jobs", "openings"], "fields": {
        "Role": (["Role", "Position", "Job", "Vacancy"], ["as {v}", "for a {v}"],
                 ["welder", "nurse", "driver", "baker", "chef", "roofer"]),
        "Where": (["Workplace", "Based in", "Office", "Work town"], ["in {v}", "based in {v}"], "city"),
        "Salary": (["Minimum salary", "Salary from", "Pay from", "Lowest pay"], ["paying at least {v}", "from {v} a year"],
                   "money")}},
    {"noun": ["cars", "used cars"], "fields": {
        "Make": (["Make", "Brand", "Car make", "Maker"], ["made by {v}", "from {v}"], "family"),
        "Colour": (["Colour", "Paint", "Color", "Body colour"], ["in {v}", "painted {v}"], "color"),
        "Year": (["Model year", "First registered", "Year built", "Registered"], ["built in {v}", "from {v}"],
                 "year")}},
    {"noun": ["recipes", "dishes"], "fields": {
        "Ingredient": (["Ingredient", "Main ingredient", "Made with", "Key ingredient"], ["with {v}", "using {v}"],
                       ["lentils", "salmon", "spinach", "tofu", "barley", "squid"]),
        "Cuisine": (["Cuisine", "Kitchen", "Cooking style", "Tradition"], ["in the {v} style", "from the {v} kitchen"],
                    ["Thai", "Greek", "Korean", "Peruvian", "Basque", "Cajun"]),
        "Minutes": (["Max minutes", "Ready in", "Prep minutes", "Minutes at most"],
                    ["ready in {v} minutes", "under {v} minutes"], "small")}},
    {"noun": ["flights", "trains"], "fields": {
        "From": (["From", "Leaving from", "Origin", "Starting at"], ["from {v}", "leaving {v}"], "city"),
        "To": (["To", "Going to", "Arriving at", "Bound for"], ["to {v}", "arriving in {v}"], "city"),
        "Passengers": (["Passengers", "Travellers", "Riders", "Tickets for"], ["for {v} passengers", "with {v} seats"],
                       "small")}},
    {"noun": ["pets", "animals to adopt"], "fields": {
        "Kind": (["Species", "Animal", "Pet type", "Creature"], ["of kind {v}", "of the kind {v}"],
                 ["rabbit", "parrot", "tortoise", "ferret", "gecko", "hamster"]),
        "Years": (["Max age", "Years old", "Age up to", "Oldest age"], ["aged {v}", "up to {v} years old"], "small"),
        "Shelter": (["Shelter", "Rescue centre", "Kennel", "Refuge"], ["at the {v} shelter", "near {v}"], "city")}},
    {"noun": ["concerts", "gigs"], "fields": {
        "Artist": (["Artist", "Performer", "Act", "Headliner"], ["by {v}", "featuring {v}"], "family"),
        "Venue": (["Venue", "Hall", "Stage", "Arena"], ["at {v}", "held at {v}"], "site"),
        "Month": (["Month", "In month", "Which month", "Month of"], ["in {v}", "during {v}"],
                  ["March", "July", "October", "May", "April", "June"])}},
]
CITIES = ["Leeds", "Porto", "Lyon", "Graz", "Turin", "Ghent", "Bergen", "Malmo", "Cork", "Brno",
          "Split", "Kassel", "Aarhus", "Tartu", "Padua", "Nantes"]
VERBS = ["Search for {x}", "Find {x}", "Look up {x}", "Show me {x}", "List {x}", "I want {x}",
         "Search the site for {x}", "Get the {x}"]
SUBMITS = ["Search", "Run query", "Find", "Filter", "Show results", "Browse matches", "Apply", "Get matches"]
# Words and a word of like meaning: the goal may name a box by the one, the page shows the other.
LIKE = [("happy", "glad"), ("big", "large"), ("quick", "fast"), ("angry", "furious"), ("small", "tiny"),
        ("begin", "start"), ("end", "finish"), ("shout", "yell"), ("rich", "wealthy"), ("smart", "clever"),
        ("hard", "difficult"), ("sad", "unhappy"), ("close", "near"), ("buy", "purchase"), ("rock", "stone"),
        ("car", "automobile"), ("kid", "child"), ("tidy", "neat"), ("road", "street"), ("sick", "ill"),
        ("house", "home"), ("quiet", "silent"), ("strong", "powerful"), ("cold", "chilly"),
        ("old", "ancient"), ("brave", "bold"), ("jump", "leap"), ("easy", "simple"),
        ("odd", "strange"), ("tired", "sleepy"), ("fix", "repair"), ("wet", "damp")]
PICK_GOALS = ["Select {names} and click {submit}.", "Tick {names}, then press {submit}.",
              "Check the boxes for {names} and hit {submit}.", "Mark {names}; then {submit}.",
              "Choose {names} and press {submit}.", "Select words like {names} and click {submit}.",
              "Check {names} only, then click {submit}.", "Pick {names}, then submit with {submit}."]
COPY_GOALS = ["Copy the text from the {source} into the {target} field and press {submit}.",
              "Type what the {source} says into {target}, then click {submit}.",
              "Paste the {source} text into the {target} box and hit {submit}.",
              "Put the text shown in the {source} into {target} and submit with {submit}.",
              "Repeat the {source} in the {target} field, then press {submit}.",
              "Enter the text of the {source} into {target} and click {submit}."]
SOURCES = ["quote", "message", "note", "code", "banner", "notice", "caption", "instructions"]
TARGETS = ["Answer", "Typed copy", "Response", "Copy field", "Text", "Transcript", "Your version", "Echo box"]
NUMBER_GOALS = ["Set {label} to {value} and press {submit}.", "Change {label} to {value}, then click {submit}.",
                "Enter {value} as the {label} and hit {submit}.", "Make the {label} {value}; {submit}."]
NUMBER_FIELDS = ["Copies", "Portions", "Floors", "Bedrooms", "Volume", "Tickets wanted", "Crates", "Laps"]


def halves(pool: list[Any], split: str) -> list[Any]:
    return pool[0::2] if split == "train" else pool[1::2]


def value(rng: random.Random, vocab: Vocab, kind: Any) -> str:
    if isinstance(kind, list):
        return rng.choice(halves(kind, vocab.split))
    return {"family": lambda: vocab.one(rng, "family"), "city": lambda: rng.choice(halves(CITIES, vocab.split)),
            "year": lambda: str(rng.randint(1950, 2024)), "small": lambda: str(rng.randint(2, 12)),
            "money": lambda: f"{rng.randint(20, 90)}000", "color": lambda: vocab.one(rng, "color").lower(),
            "site": lambda: vocab.one(rng, "site")}[kind]()


def input_in(layout: str, label: str, text: str = "", kind: str = "text") -> str:
    """A field in one of the layouts small sites use: a label around it, a table row, a placeholder."""
    val = f' value="{esc(text)}"' if text else ""
    if layout == "row":
        return f"<tr><td>{esc(label)}</td><td><input type=\"{kind}\"{val}></td></tr>"
    if layout == "placeholder":
        return f'<p><input type="{kind}" placeholder="{esc(label)}"{val}></p>'
    return f"<p><label>{esc(label)} <input type=\"{kind}\"{val}></label></p>"


def fields_block(layout: str, parts: list[str]) -> str:
    return f"<table>{''.join(parts)}</table>" if layout == "row" else "".join(parts)


def describe(rng: random.Random, vocab: Vocab, words: Words) -> Episode:
    site = Site(rng, vocab)
    domain = rng.choice(DOMAINS)
    noun = rng.choice(domain["noun"])
    keys = list(domain["fields"])
    asked = rng.sample(keys, rng.randint(2, len(keys)))
    labels = {k: rng.choice(halves(domain["fields"][k][0], words.split)) for k in keys}
    values = {k: value(rng, vocab, domain["fields"][k][2]) for k in keys}
    phrases = [rng.choice(halves(domain["fields"][k][1], words.split)).format(v=values[k]) for k in asked]
    goal = rng.choice(halves(VERBS, words.split)).format(x=f"{noun} {' '.join(phrases)}") + "."
    rng.shuffle(keys)  # the page's order is not the goal's
    layout = rng.choice(["label", "row", "placeholder"])
    submit = rng.choice(halves(SUBMITS, words.split))
    moves = [type_in(labels[k], values[k]) for k in (keys if rng.random() < 0.5 else asked) if k in asked]

    def form(state: dict[str, str]) -> Screen:
        parts = [input_in(layout, labels[k], state.get(labels[k], "")) for k in keys]
        return site.screen("/search", f"Find {noun}", h(f"Find {noun}"), fields_block(layout, parts), button(submit))

    found = rng.randint(0, 9)
    results = site.screen("/results", "Results", h("Results"), p(f"{found} {noun} match your search."))
    calls = [Call(form({}), f"Fill in the {len(asked)} values the goal gives, then {submit}.",
                  [*moves, click("button", submit)]),
             Call(results, DONE, [finish(f"Searched for {noun} {' '.join(phrases)}", [])])]
    return Episode("describe", site.name, goal, calls)


def pick(rng: random.Random, vocab: Vocab, words: Words) -> Episode:
    site = Site(rng, vocab)
    pairs = halves(LIKE, words.split)
    n = rng.randint(4, 7)
    soft = rng.random() < 0.4
    shown_pairs = rng.sample(pairs, n)
    flip = [rng.random() < 0.5 for _ in shown_pairs]
    shown = [b if f else a_ for (a_, b), f in zip(shown_pairs, flip)]  # what the boxes say
    said = [a_ if f else b for (a_, b), f in zip(shown_pairs, flip)]  # its like word
    chosen = sorted(rng.sample(range(n), rng.randint(1, min(3, n - 1))))
    named = [said[i] if soft else shown[i] for i in chosen]
    rng.shuffle(named)
    names = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    submit = rng.choice(halves(SUBMITS, words.split))
    template = rng.choice(halves(PICK_GOALS, words.split))
    goal = template.format(names=names, submit=submit)
    labelled = rng.random() < 0.5
    heading = rng.choice(["Pick", "Choose", "Select"]) + " words"

    def page(ticked: set[int]) -> Screen:
        boxes = "".join(
            f"<p><label><input type=\"checkbox\"{' checked' if i in ticked else ''}> {esc(w)}</label></p>"
            if labelled else
            f"<p><input type=\"checkbox\" id=\"b{i}\"{' checked' if i in ticked else ''}>"
            f"<label for=\"b{i}\">{esc(w)}</label></p>" for i, w in enumerate(shown))
        return site.screen("/", "", h(heading), boxes, button(submit))

    thought = "Tick the boxes whose words mean what the goal names, then submit." if soft else \
        "Tick the boxes the goal names, then submit."
    moves = [tick(shown[i]) for i in chosen]
    calls = [Call(page(set()), thought, [*moves, click("button", submit)]),
             Call(page(set(chosen)), DONE, [finish("Ticked " + ", ".join(shown[i] for i in chosen), [])])]
    return Episode("pick", site.name, goal, calls)


def sentence(rng: random.Random, vocab: Vocab) -> str:
    words = [vocab.one(rng, "color").lower(), vocab.one(rng, "item"), rng.choice(["near", "under", "by", "on"]),
             "the", vocab.one(rng, "material").lower(), vocab.one(rng, "item")]
    return " ".join(words).capitalize() + rng.choice([".", "", " today.", " at noon."])


def copy(rng: random.Random, vocab: Vocab, words: Words) -> Episode:
    site = Site(rng, vocab)
    text = sentence(rng, vocab)
    source, target = rng.choice(halves(SOURCES, words.split)), rng.choice(halves(TARGETS, words.split))
    submit = rng.choice(halves(SUBMITS, words.split))
    goal = rng.choice(halves(COPY_GOALS, words.split)).format(source=source, target=target, submit=submit)
    shown = rng.choice(["paragraph", "textarea"])
    src = (f"<h2>{esc(source.capitalize())}</h2>{p(text)}" if shown == "paragraph" else
           f"<p><label>{esc(source.capitalize())}<br><textarea readonly>{esc(text)}</textarea></label></p>")

    def page(typed: str) -> Screen:
        return site.screen("/", "", src, input_in("label", target, typed), button(submit))

    calls = [Call(page(""), f"Type the {source}'s text into {target}, then {submit}.",
                  [type_in(target, text), click("button", submit)]),
             Call(site.screen("/done", "Sent", h("Sent"), p("Thanks.")), DONE, [finish(f"Copied: {text}", [])])]
    return Episode("copy", site.name, goal, calls)


def numbers(rng: random.Random, vocab: Vocab, words: Words) -> Episode:
    """Held out as a family: number fields (spin buttons) set to the value the goal gives."""
    site = Site(rng, vocab)
    label, submit = rng.choice(NUMBER_FIELDS), rng.choice(halves(SUBMITS, words.split))
    other = rng.choice([f for f in NUMBER_FIELDS if f != label])
    target = str(rng.randint(-5, 20))
    goal = rng.choice(NUMBER_GOALS).format(label=label, value=target, submit=submit)
    first = rng.random() < 0.5

    def page(set_to: str) -> Screen:
        fields = [input_in("label", label, set_to or "1", "number"), input_in("label", other, "1", "number")]
        return site.screen("/" + slug(label), label, *(fields if first else fields[::-1]), button(submit))

    calls = [Call(page(""), f"Type {target} into {label}, then {submit}.", [type_in(label, target, role="spinbutton"),
                                                                          click("button", submit)]),
             Call(site.screen("/saved", "Saved", h("Saved"), p(f"{label}: {target}")), DONE,
                  [finish(f"Set {label} to {target}", [])])]
    return Episode("numbers", site.name, goal, calls)
