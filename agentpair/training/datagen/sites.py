"""The pieces planner episodes are made of: pages of a generated site (Screen, Site, markup),
plan steps in the planner's own wording (Move), planner calls (Call) and whole tasks (Episode)."""

from __future__ import annotations

import html
import random
from dataclasses import dataclass, field
from typing import Any

from agentpair.training.datagen.vocab import Vocab

PASSWORD = "{{secret:password}}"
ROLE_WORD = {"link": "link", "button": "button"}


@dataclass(frozen=True)
class Screen:
    """One page as the browser shows it: rendered once, then read by every call made on it."""

    site: str
    path: str
    title: str
    body: str

    @property
    def url(self) -> str:
        return f"http://{self.site.lower()}.test{self.path}"

    @property
    def html(self) -> str:
        return (f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(self.title)}</title>"
                f"</head><body>{self.body}</body></html>")


@dataclass
class Move:
    """A plan step (keys in the plan schema's order) and how it ran: the element the executor
    grounded it in, the tool arguments besides the ref, and its output (an extraction)."""

    step: dict[str, Any]
    data: list[str] = field(default_factory=list)  # the task's values the step must carry
    labels: list[str] = field(default_factory=list)  # the page's labels it must name
    element: tuple[str, str] | None = None  # (role, name) on the page it ran on
    args: dict[str, Any] = field(default_factory=dict)
    output: Any = None
    error: str | None = None  # it FAILED with this message ({ref}: the ref it was given)

    @property
    def values(self) -> list[str]:
        return [*self.data, *self.labels]

    def ran(self, error: str | None = None, **changes: Any) -> Move:
        """This step as it actually ran (arguments or element changed, or failed)."""
        moved = Move(dict(self.step), self.data, self.labels, self.element, dict(self.args), self.output,
                     error)
        for key, value in changes.items():
            if key == "instruction":
                moved.step["instruction"] = value
            else:
                setattr(moved, key, value)
        return moved


@dataclass
class Call:
    """One planner call: the page it sees, the plan it should answer (thought, moves), and the
    records those steps left behind (by default: all ran fine)."""

    screen: Screen
    thought: str
    moves: list[Move]
    ran: list[Move] | None = None

    def records(self) -> list[Move]:
        ran = self.moves if self.ran is None else self.ran
        return [m for m in ran if m.step["kind"] != "finish"]

    def plan(self) -> dict[str, Any]:
        return {"thought": self.thought, "steps": [m.step for m in self.moves]}


@dataclass
class Episode:
    family: str
    site: str
    goal: str
    calls: list[Call]
    secrets: dict[str, str] = field(default_factory=dict)
    output_schema: dict[str, Any] | None = None


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


# ---- markup ----------------------------------------------------------------------------------
def a(label: str, href: str = "") -> str:
    return f'<a href="{esc(href or "/" + slug(label))}">{esc(label)}</a>'


def button(label: str, expanded: bool | None = None) -> str:
    state = "" if expanded is None else f' aria-expanded="{str(expanded).lower()}"'
    return f'<button type="button"{state}>{esc(label)}</button>'


def labelled_button(name: str, text: str) -> str:
    """A button whose accessible name (aria-label) says more than its text: "Add X to cart"."""
    return f'<button type="button" aria-label="{esc(name)}">{esc(text)}</button>'


def field_(label: str, value: str = "", kind: str = "text") -> str:
    val = f' value="{esc(value)}"' if value else ""
    return f"<p><label>{esc(label)} <input type=\"{kind}\"{val}></label></p>"


def textarea(label: str, value: str = "") -> str:
    return f'<p><label>{esc(label)}<br><textarea rows="4">{esc(value)}</textarea></label></p>'


def select(label: str, options: list[str], chosen: str = "") -> str:
    opts = "".join(f"<option{' selected' if o == chosen else ''}>{esc(o)}</option>" for o in options)
    return f"<p><label>{esc(label)} <select>{opts}</select></label></p>"


def checkbox(label: str, checked: bool = False) -> str:
    return f"<p><label><input type=\"checkbox\"{' checked' if checked else ''}> {esc(label)}</label></p>"


def radios(label: str, options: list[str], chosen: str = "") -> str:
    buttons = "".join(f'<label><input type="radio" name="{slug(label)}"{" checked" if o == chosen else ""}> '
                      f"{esc(o)}</label> " for o in options)
    return f"<fieldset><legend>{esc(label)}</legend>{buttons}</fieldset>"


def alert(text: str) -> str:
    return f'<p role="alert">{esc(text)}</p>'


def p(text: str) -> str:
    return f"<p>{esc(text)}</p>"


def h(text: str, level: int = 1) -> str:
    return f"<h{level}>{esc(text)}</h{level}>"


# ---- plan steps in the planner's wording -------------------------------------------------------
def act(tool: str, instruction: str, **rest: Any) -> Move:
    return Move({"kind": "act", "instruction": instruction, "tool": tool}, **rest)


def click(role: str, label: str) -> Move:
    return act("click", f"click the {label} {ROLE_WORD[role]}", labels=[label], element=(role, label))


def type_in(label: str, text: str, role: str = "textbox", submit: bool = False) -> Move:
    box = "box" if role == "searchbox" else "field"
    tail = " and press Enter" if submit else ""
    return act("type", f"type {text} into the {label} {box}{tail}", data=[text], labels=[label],
               element=(role, label), args={"text": text, "submit": submit})


def choose(label: str, option: str) -> Move:
    return act("select", f"select {option} in the {label} dropdown", data=[option], labels=[label],
               element=("combobox", label), args={"option": option})


def tick(label: str, on: bool = True, role: str = "checkbox") -> Move:
    verb = "check" if on else "uncheck"
    return act("check", f"{verb} the {label} box", labels=[label] if on else [label, "uncheck"],
               element=(role, label), args={"on": on})


def back() -> Move:
    return act("go_back", "go back to the previous page")


def extract(instruction: str, schema: dict[str, Any], output: Any, data: list[str]) -> Move:
    return Move({"kind": "extract", "instruction": instruction, "schema": schema}, data=data,
                labels=list(schema.get("properties", {})), output=output)


def code(instruction: str, template: str, box: str, filled: str, data: list[str]) -> Move:
    return Move({"kind": "code", "instruction": instruction, "template": template,
                 "target": f"the {box} box"}, data=data, labels=[box], element=("textbox", box),
                args={"text": filled})


def finish(answer: Any, data: list[str], instruction: str = "the goal is done") -> Move:
    return Move({"kind": "finish", "instruction": instruction, "answer": answer}, data=data)


# ---- failures, as the tools report them --------------------------------------------------------
def stale(rng: random.Random) -> tuple[str, dict[str, str]]:
    """A ref the executor took from an older page: the error and the arguments it gave."""
    ref = f"e{rng.randint(24, 80)}"
    return f"no element with ref {ref} on this page; refs change as pages change: observe again", {"ref": ref}


def typo(rng: random.Random, text: str) -> str:
    """The text with two neighbouring letters swapped (never the text itself)."""
    spots = [i for i in range(len(text) - 1) if text[i].isalpha() and text[i + 1].isalpha()
             and text[i] != text[i + 1]]
    i = rng.choice(spots)
    return text[:i] + text[i + 1] + text[i] + text[i + 2:]


# Chrome that real sites carry and a training site may too: task-like links in the nav (a second
# "Sign in" beside the form), side blocks and footer links, so the planner learns to look past them.
CHROME_LINKS = ["Sign in", "My account", "Shopping bag (0)", "Contact", "Support", "Wishlist"]
FOOTER_LINKS = ["Privacy", "Terms of use", "Cookies", "Accessibility", "Sitemap", "Imprint"]
ASIDES = [("New here?", "Open an account today."), ("Free delivery", "On orders over $50."),
          ("Need a hand?", "Our team answers within a day."), ("Newsletter", "News and offers once a month."),
          ("Opening hours", "Monday to Friday, 9 to 5."), ("Gift cards", "Give the choice.")]


class Site:
    """A generated site: its name and the chrome (nav links, side blocks, footer) every page of it
    shares; only training sites get the extra chrome, so held-out sites stay as they were."""

    def __init__(self, rng: random.Random, vocab: Vocab, nav: int = 3) -> None:
        self.rng, self.vocab = rng, vocab
        self.name = vocab.one(rng, "site")
        self.nav = vocab.pick(rng, "nav", nav)
        self.footer = rng.choice([f"© 2024 {self.name}", f"{self.name} Ltd.",
                                  f"Call {rng.randint(200, 999)}-{rng.randint(1000, 9999)}"])
        self.extra_links: list[str] = []
        self.footer_links: list[str] = []
        self.asides: list[tuple[str, str]] = []
        if vocab.split == "train":  # decided before any draw, so held-out episodes are unchanged
            self.extra_links = rng.sample(CHROME_LINKS, rng.randint(0, 2))
            self.footer_links = rng.sample(FOOTER_LINKS, rng.randint(0, 3))
            self.asides = rng.sample(ASIDES, rng.randint(0, 2))

    def screen(self, path: str, title: str, *parts: str, nav: bool = True) -> Screen:
        links = " ".join(a(t) for t in [*self.nav, *self.extra_links]) if nav else ""
        aside = f"<aside>{''.join(h(t, 2) + p(x) for t, x in self.asides)}</aside>" if self.asides else ""
        footer = esc(self.footer) + "".join(" " + a(t) for t in self.footer_links)
        body = f"<nav>{links}</nav><main>{''.join(parts)}</main>{aside}<footer>{footer}</footer>"
        return Screen(self.name, path, f"{title} - {self.name}" if title else self.name, body)

    def person(self) -> tuple[str, str]:
        return self.vocab.one(self.rng, "given"), self.vocab.one(self.rng, "family")
