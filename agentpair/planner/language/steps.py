"""What a step's words say, as a record: `read_step(words)` reads the grounded wording's grammar
("click the X link (item)", "type V into the F field and press Enter", "select O in the D dropdown",
"check the B box", "go back to the previous page", "go to ADDRESS", or a tool's own verb) into a
`Said`; rules read its fields, never the words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from agentpair.planner.language.goal import Goal
from agentpair.planner.language.vocabulary import SIDE_EFFECTS

TYPED = re.compile(r"type (.+) into the (.+?) (field|box)(?: and press Enter)?$")  # the value may say "into the"
CLICKED = re.compile(r"click the (.+) (link|button)$")  # read off the words less their item (TELLING)
FOCUSED = re.compile(r"click the (.+) field$")
SELECTED = re.compile(r"select (.+) in the (.+) dropdown$")
TICKED = re.compile(r"(check|uncheck) the (.+) box$")
DISMISS = r"(?:cancel|close|dismiss|no|not now|no thanks|×)"  # the name of a dialog's way out
PAGE_TURNS = re.compile(r"(?:>|»|›|next|next page|more)$", re.I)  # a link or button clicked again and again
TELLING = re.compile(r"( (?:link|button)) \((.*)\)$")  # a click's closing "(...)" that tells its element apart
DISCLOSES = re.compile(r"(?:(?:show|see|view) (?:more|advanced|all)|more|advanced|expand)\b", re.I)


@dataclass(frozen=True)
class Said:
    """A step's words as a record: its verb (click, type, select, check, uncheck, go back, go to, or
    a tool's own first word), the element as it says it (name, role, the item that tells it apart),
    the value it types, picks or opens, and whether it presses Enter after."""

    words: str
    bare: str  # the words without the "(...)" that tells the element apart ("click the Like button")
    verb: str
    name: str = ""
    role: str = ""  # link, button, field, box, dropdown
    item: str = ""
    value: str = ""
    submit: bool = False

    @property
    def lead_word(self) -> str:
        """The name's first word as written, lower case ("add" of "Add to cart")."""
        return self.name.split(" ", 1)[0].casefold()

    @property
    def first_word(self) -> str:
        """The name's first word, letters and digits only, lower case ("submit" of "#Submit form")."""
        return next(iter(re.findall(r"\w+", self.name)), "").casefold()

    @property
    def opens_with_word(self) -> bool:
        """The name starts with a letter or a digit (not a mark)."""
        return re.match(r"\w", self.name) is not None

    def clicks(self, name: str) -> bool:
        """It clicks the link or button said `name`, told apart or not."""
        return self.verb == "click" and self.role in ("link", "button") and self.name == name

    def names_at_start(self, name: str) -> bool:
        """It clicks an element said `name` (any role), or one whose name says it first ("Block
        @kenda" for "Block"), in any case."""
        said, want = self.name.casefold(), name.casefold()
        return self.verb == "click" and (said == want or said.startswith(want + " "))

    @property
    def leaves(self) -> bool:
        """A click on a link, a go to or a go back: it leaves the page."""
        return self.role == "link" and self.verb == "click" or self.verb in ("go to", "go back")

    @property
    def side_effect(self) -> bool:
        """A click whose name's first word says it adds, buys, deletes ... (SIDE_EFFECTS), or on one
        item's action ("like (Clark @dis)")."""
        return self.verb == "click" and (self.lead_word in SIDE_EFFECTS or bool(self.item))

    @property
    def dismisses(self) -> bool:
        return self.verb == "click" and self.role == "button" and not self.item and dismissing(self.name)

    @property
    def turns_page(self) -> bool:
        return self.verb == "click" and self.role in ("link", "button") and not self.item \
            and PAGE_TURNS.match(self.name) is not None

    @property
    def discloses(self) -> bool:
        """A click on a button that shows more ("Show more", "Advanced"), told apart or not."""
        return self.verb == "click" and self.role == "button" and DISCLOSES.match(self.name) is not None

    @property
    def names_a_cart(self) -> bool:
        return re.search(r"\b(?:cart|basket)\b", self.words, re.I) is not None


@lru_cache(maxsize=8192)
def read_step(words: str) -> Said:
    """The record a step's words make (see the module's grammar); a wording outside it is its verb."""
    told = TELLING.search(words)
    bare, item = (words[:told.start()] + told[1], told[2]) if told else (words, "")
    if m := TYPED.match(words):
        return Said(words, bare, "type", m[2], m[3], value=m[1], submit=words.endswith(" and press Enter"))
    if m := CLICKED.match(bare):
        return Said(words, bare, "click", m[1], m[2], item=item)
    if m := FOCUSED.match(words):
        return Said(words, bare, "click", m[1], "field")
    if m := SELECTED.match(words):
        return Said(words, bare, "select", m[2], "dropdown", value=m[1])
    if m := TICKED.match(words):
        return Said(words, bare, m[1], m[2], "box")
    if m := re.match(r"go (back|to)\b ?(.*)", words):
        return Said(words, bare, f"go {m[1]}", value=m[2] if m[1] == "to" else "")
    return Said(words, bare, words.split(" ", 1)[0], item=item, submit=words.endswith("press Enter"))


def dismissing(name: str) -> bool:
    """A dialog's way out by its name: Cancel, Close, Dismiss, No, Not now, No thanks, ×."""
    return re.fullmatch(DISMISS, name.strip(), re.I) is not None


def says_verb(words: str, verb: str) -> bool:
    """The step's words are the verb, or open with it ("go to /x" for "go to")."""
    return words == verb or words.startswith(verb + " ")


def asked_for(goal: Goal, said: Said) -> bool:
    """A click whose name's first word says it adds, buys, creates, deletes, subscribes ... is for
    a goal that asks for that kind of thing (SIDE_EFFECTS); "Save for later" for one that says
    "later"; "Add" without "to" creates."""
    name = said.name.casefold()
    if name.startswith("save for later"):  # a shop's bookmark, not a form's save
        return goal.asks_for(frozenset({"later"}))
    verb = said.lead_word
    if verb not in SIDE_EFFECTS or (verb == "add" and " to " not in name + " "):  # "Add a service" creates
        return True
    return goal.asks_for(SIDE_EFFECTS[verb])
