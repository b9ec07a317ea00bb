"""`Goal`: a goal's text parsed once into typed values (its quoted texts and the clauses that lead to
them, dates, numbers, addresses, e-mails, what it rules out, the verb of its closing clause, what it
asks to open, click, find or set), and the questions a rule asks of it about a page's names (does it
name this link, which options of this dropdown, which value does it label with this field's word)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from agentpair.planner.language import vocabulary as w


@dataclass(frozen=True)
class GoalText:
    """A text the goal gives to enter, with the words that lead to it and its last clause's words."""

    text: str
    lead: str
    lead_words: frozenset[str]


@dataclass(frozen=True)
class Goal:
    """What a goal says, as values; `parse_goal` makes one per goal text."""

    text: str
    word_set: frozenset[str]  # lower case, COMMON_WORDS off
    lower_words: frozenset[str]  # every \w+ word, lower case
    quoted: tuple[str, ...]  # the texts it quotes
    texts: tuple[GoalText, ...]  # the texts it gives to enter (quoted, or closing it after a colon)
    closing_clause: str
    closing_verb: str
    closing_words: frozenset[str]
    closing_opens: bool  # its closing clause opens a page ("... then open your account dashboard")
    task_words: frozenset[str]  # its words as written, less where it says the site is
    opening: str  # what follows a verb that opens a page at its start, past where it says the site is
    addresses: tuple[str, ...]  # URLs and site paths
    emails: tuple[str, ...]
    dates: tuple[str, ...]  # dates and times as written
    date: tuple[int, int, int] | None  # the first month/day/year or year-month-day date: (year, month, day)
    numbers: frozenset[str]  # the numbers it says
    codes: frozenset[str]  # numbers of three or more digits it names things by ("case #3107")
    ruled_out: tuple[frozenset[str], ...]  # "(not the 1 kg bag or the scoop)" -> {1, kg, bag}, {scoop}
    refused: frozenset[str]  # the last word of each clause it says no to ("no digest")
    boxes: tuple[str, ...]  # the boxes it says to put something in ("into the Notes box")
    asks: bool  # it asks for facts (a question, "report", "what", "how many")
    only: bool  # it says "only"
    extreme: str  # "max" or "min" where it asks for the greatest or the smallest, else ""
    quoted_clicks: tuple[str, ...]  # what it quotes to click ('click the "Share" button')
    each: tuple[str, str] | None  # a quoted button to click on all (or N) items: (name, "all" or N)
    to_find: tuple[str, ...]  # the names it says to find ("Find Petra in the book")
    settings: tuple[frozenset[str], ...]  # the settings it sets ("set the font size to 14"), as word sets
    click_label: str  # the word after "click (on) the/their" ("click on her phone": phone)
    focuses: bool  # it opens with "focus" or "click"
    runs: tuple[str, ...]  # every run of its words a value can be (value_runs), none starting or ending small
    short_runs: tuple[str, ...]  # the one- and two-step runs of each start

    # -- questions about a page's names --
    def names(self, name: str) -> bool:
        """Every word of the name is one of the goal's (a name of place only as that phrase)."""
        return w.named_by(self.text, name)

    def says_whole(self, name: str) -> bool:
        return bool(self.spans_of(name))

    def spans_of(self, name: str) -> list[tuple[int, int]]:
        """Where the goal says the name whole, as a phrase (any case)."""
        return _spans(self.text, name)

    def says_after_from_by(self, name: str) -> bool:
        """The goal says the name right after "from" or "by" ("the email from Cora")."""
        return re.search(rf"\b(?:from|by) {re.escape(name)}(?!\w)", self.text, re.I) is not None

    def says_split(self, name: str, flat: bool = False) -> bool:
        """It says a long word of the name as two, as a verb: "sign up" for "Go to signup" (`flat`:
        in its words with the marks between them off)."""
        return w.said_split(_flat(self.text) if flat else self.text, name)

    def says_where(self, name: str) -> bool:
        """It says the name as where a page is ("Security under Catalog", "Catalog > Security")."""
        return re.search(w.WHERE.format(name=re.escape(name)), self.text, re.I) is not None

    def opens(self, name: str) -> bool:
        """It asks to open, press or visit the name ("... and go to Messages", "press Submit")."""
        said = " ".join(re.findall(w.WORD, name))
        return bool(said) and re.search(w.OPENING + re.escape(said) + r"\b", _flat(self.text), re.I) is not None

    def opens_with_link(self, name: str) -> bool:
        """It opens (past where it says the site is) with a verb that opens a page and then the whole
        name, not followed by a capitalised word or a number (not a longer name's start)."""
        return re.match(re.escape(name) + r"(?!\w)(?!\s+(?-i:[A-Z]|\d))", self.opening, re.I) is not None

    def opens_clause_with(self, word: str) -> bool:
        """A clause of the goal opens with the word ("... and forward it": forward)."""
        return re.search(w.CLAUSE_START + re.escape(word) + r"\b", self.text, re.I) is not None

    def closing_names(self, name: str) -> bool:
        return w.named_by(self.closing_clause, name)

    def asks_for(self, kind: frozenset[str]) -> bool:
        """The goal says a word of the kind, in any of its forms ("buy", "buys", "buying")."""
        return any({k, k + "s", k + "d", k + "ed", k + "ing", k.removesuffix("e") + "ing"} & self.lower_words
                   for k in kind)

    def options_named(self, options: list[str]) -> list[str]:
        return w.named_options(self.text, options)

    def names_an_option(self, options: list[str]) -> bool:
        """It names an option of the dropdown: some but not all, or the one it has."""
        return len(self.options_named(options)) < len(options) or len(options) == 1 == len(
            [o for o in options if o.casefold() in self.text.casefold()])

    def numbered(self, names: list[str]) -> list[str]:
        """Of `names`, not those that say only numbers of 3+ digits other than the goal's codes."""
        if not any(w.codes_in(n) & self.codes for n in names):
            return names
        return [n for n in names if not w.codes_in(n) or w.codes_in(n) & self.codes]

    def labelled(self, field: str) -> list[str]:
        return _labelled(self.text, field)

    def labelled_whole(self, field: str) -> str | None:
        """The value the goal labels with a word of the field's name, as far as its clause goes."""
        return next((v for v in self.labelled(field) if not any(c.isdigit() for c in v) or v[-1].isalnum()
                     and re.search(re.escape(v) + r"(?:[,;.]|$)", self.text)), None)

    def listed_before(self, field: str, count: int) -> list[str]:
        return w.listed_before(self.text, field, count)

    def holds_other(self, run: str, taken: set[str], fields: list[str]) -> bool:
        return w.holds_other(run, taken, fields)

    def quote_label(self, text: str) -> str:
        return w.quote_label(self.text, text)

    def sent_into(self, text: str) -> str:
        """Where it says a text it gives goes, in the words right after it ("" where it says not)."""
        return w.sent_into(self.text, text)

    def sends_into(self, text: str, name: str) -> bool:
        """It sends the text it gives into the element of that name ('"-5" into the 2nd textbox')."""
        return w.named_by(self.sent_into(text), name)

    def said_times(self, value: str) -> int:
        """How often the goal says the value whole."""
        return len(re.findall(rf"(?<!\w){re.escape(value)}(?!\w)", self.text))

    def given_values(self, clickable: set[str]) -> list[str]:
        """Its quoted texts that name nothing clickable here, and its dates and times."""
        quoted = [text for text in self.quoted[:8] if text not in clickable]
        inside = " ".join(quoted)
        return list(dict.fromkeys([*quoted, *(d for d in self.dates if d not in inside)]))

    def repeated_in(self, line: str) -> bool:
        """A line that repeats the goal (a task page may show its own task)."""
        return self.text in line


def _flat(text: str) -> str:
    return " ".join(re.findall(w.WORD, text))


@lru_cache(maxsize=4096)
def _spans(text: str, name: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.I)]


@lru_cache(maxsize=4096)
def _labelled(text: str, field: str) -> list[str]:
    return w.labelled_values(text, field)


def _date(text: str) -> tuple[int, int, int] | None:
    given = w.GIVEN_DATE.search(text)
    if not given:
        return None
    return (int(given[3]), int(given[1]), int(given[2])) if given[1] else (int(given[4]), int(given[5]), int(given[6]))


def _each(text: str) -> tuple[str, str] | None:
    said = w.EACH.search(text)
    return (said.group(1), said.group(2)) if said else None


def _extreme(text: str) -> str:
    most = re.search(r"\b(greatest|largest|highest|biggest|smallest|lowest|least)\b", text, re.I)
    return "" if not most else "max" if most[1].casefold() in ("greatest", "largest", "highest", "biggest") else "min"


def _texts(text: str) -> tuple[GoalText, ...]:
    return tuple(GoalText(t, lead, frozenset(w.word_set(re.split(r"[,;]| and ", lead)[-1])))
                 for lead, t in w.goal_texts(text))


@lru_cache(maxsize=256)
def parse_goal(text: str) -> Goal:
    """The goal's text as a `Goal` (cached: a run parses its goal once)."""
    words = text.split()
    runs = [v for start in range(1, len(words)) for v in w.value_runs(words, start) if not w.loose(v)]
    short = [v for start in range(1, len(words)) for v in w.value_runs(words, start)[:2] if not w.loose(v)]
    clause = w.closing_clause(text)
    opening = re.match(w.OPENS + r"\s+(?:the\s+|my\s+|your\s+)?(.+)", w.task_said(text), re.I | re.S)
    return Goal(
        text=text, word_set=frozenset(w.word_set(text)),
        lower_words=frozenset(re.findall(r"\w+", text.casefold())), quoted=tuple(w.quoted_texts(text)),
        texts=_texts(text), closing_clause=clause, closing_verb=w.closing_verb(text),
        closing_words=frozenset(w.word_set(clause)), closing_opens=re.match(w.OPENS, clause, re.I) is not None,
        task_words=frozenset(w.task_words(text)), opening=opening.group(1) if opening else "",
        addresses=tuple(dict.fromkeys(m.group().rstrip(".,;:!?)") for m in w.ADDRESS.finditer(text) if len(m.group()) > 1)),
        emails=tuple(w.given_emails(text)), dates=tuple(w.DATE_OR_TIME.findall(text)), date=_date(text),
        numbers=frozenset(w.NUMBER.findall(text.rstrip(w.SENTENCE_END))), codes=frozenset(w.codes_in(text)),
        ruled_out=tuple(frozenset(s) for s in w.ruled_out_words(text)),
        refused=frozenset(clause.split()[-1].casefold() for clause in re.findall(w.NOT_WANTED, text, re.I)),
        boxes=tuple(re.findall(r"\b(?:in|into) the ([\w ]+?) (?:box|field)\b", text)),
        asks=w.READING.search(text) is not None, only=re.search(r"\bonly\b", text, re.I) is not None,
        extreme=_extreme(text), quoted_clicks=tuple(m.group(1) for m in w.QUOTED_CLICK.finditer(text)),
        each=_each(text), to_find=tuple(m[1] for m in w.FIND.finditer(text)),
        settings=tuple(frozenset(w.word_set(m.group(1))) for m in w.SETTING.finditer(text)),
        click_label=(m[1] if (m := re.search(r"\bclick(?: on)?(?: the| their| his| her| its| your)? ([\w-]+)",
                                             text, re.I)) else ""),
        focuses=re.match(r"\s*(?:focus|click)\b", text, re.I) is not None,
        runs=tuple(dict.fromkeys(runs)), short_runs=tuple(short),
    )
