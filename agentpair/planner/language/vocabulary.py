"""The goal's English, for parse.py: the word lists and patterns a goal is read by, the runs of its
words a value can be, which of a page's names and options it names, what it rules out, the texts
it gives to enter."""

from __future__ import annotations

import itertools
import re

MAX_VALUE_WORDS = 12
OPENERS = "\"'“‘([{<"
CLOSERS = "\"'”’)]}>,;:"
SENTENCE_END = ".!?"
UNIT_WORDS = {"kg", "g", "mg", "lb", "lbs", "oz", "m", "cm", "mm", "km", "ft", "l", "ml", "gb", "tb", "mb",
              "%", "h", "min", "s", "pcs", "pack", "packs"}
LINKING = {"by", "of", "is"}  # "directed by Bowen", "a budget of 500", "the postcode is LS2 7EW"
COMMON_WORDS = {"a", "an", "the", "of", "and", "or", "to", "in", "on", "for", "with", "me", "my", "i", "no", "not"}
SMALL_WORDS = COMMON_WORDS | LINKING | {"from", "at"}  # no value starts or ends with one
WORD = r"\w(?:[\w'.-]*\w)?"
ABBREVIATION = re.compile(r"(?<!\w)(?:St|Dr|Mr|Mrs|Ms|Jr|Sr|Inc|Ltd|Co|Corp|Ave|Rd|No|etc)\.$")  # a stop that is the word's own
NUMBER_WORD = re.compile(r"^-?\d+(?:[.,]\d+)?$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.\w+$")
# a date or a time, a time's AM/PM with it ("05/20/2010", "2027-03-04", "9:37 PM", "12:30:15 p.m.")
SENTENCE_STOP = r"(?<!\b[A-Z])[.!?;](?:\s|$)"  # a sentence's (or clause's) end: not an initial's stop ("K. Le Guin")
CLAUSE_START = r"(?:^|(?<!\b[A-Z])[.!?;]\s+|\b(?:and|then)\s+)"  # before a clause's first word, its verb ("... and forward it")
DATE_OR_TIME = re.compile(r"\b\d{1,4}[/:-]\d{1,2}(?:[/-]\d{1,4}|:\d{2})?(?: ?(?:[AaPp][Mm]|[AaPp]\.[Mm]\.)(?!\w)|\b)")


# what a goal asks by its verbs and phrases
OPENING = r"\b(?:go to|open|visit|navigate to|take me to|head to|click(?: on)?|press|hit|tap|show me|view)(?: the| my| your)? "
OPENS = r"(?:open|go to|visit|view|show me|navigate to|take me to)\b"  # a clause that opens a page
WHERE = r"\b(?:under|inside|from the|in the)\s+{name}\b|\b{name}\s*(?:>|, then\b)"  # where a page is
FIND = re.compile(r"\b(?i:find|look for|locate) ([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)(?=[,.;:!?]|$| (?:in|on|at|from|and|of|for)\b)")
# "Find Casie in the book": a name to find (a name, ending there: not "Find Support tickets")
SETTING = re.compile(r"\b(?:set(?! up\b)|change|switch|turn)(?: the| my| your)? ([a-z][\w -]{2,30}?) to \S", re.I)
QUOTED_CLICK = re.compile(r'\bclick(?:\s+on)?(?:\s+the)?(?:\s+(?:link|button|tab|word|item))?\s+["“]([^"”]+)["”]', re.I)
EACH = re.compile(QUOTED_CLICK.pattern + r"(?:\s+button)?\s+on\s+(all|every|each|\d+)\b", re.I)  # "... on 3 posts"
ADDRESS = re.compile(r"https?://[^\s\"'<>]+|(?<![\w/])/[\w\-./?=&%#~]*")  # a URL or a site's path
READING = re.compile(r"\?|\b(?:report|tell me|find out|what|which|how much|how many|look up the [\w ,]+? of)\b", re.I)
NOT_WANTED = r"\b(?:not|no)\s+(?:an? |the |any )?([^,.;:()]+)"  # "do not send me the digest"
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")
GIVEN_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b|\b(\d{4})-(\d{1,2})-(\d{1,2})\b")  # 12/02/2016, 2016-12-02
CODE = re.compile(r"(?<![\w.,])\d{3,}(?![\w.,]\d)")  # a number things are named by ("case #3107")
# the kinds of thing a goal asks for, by which a button's first word is offered (see Goal.asks_for)
SHOPPING = frozenset({"add", "basket", "buy", "cart", "check", "checkout", "deliver", "delivery", "get", "order",
                      "purchase", "ship", "shipping", "shop", "want"})
DELETING = frozenset({"delete", "remove", "trash", "discard", "erase"})
MARKING = frozenset({"star", "favorite", "favourite", "mark", "flag"})
CREATING = frozenset({"create", "make", "register", "registration", "join", "signup", "book", "add", "set", "submit",
                      "new"})
SIDE_EFFECTS = {"add": SHOPPING, "buy": SHOPPING, "order": SHOPPING, "purchase": SHOPPING,
                "create": CREATING, "register": CREATING,
                **{verb: DELETING for verb in ("delete", "remove", "trash")}, "star": MARKING, "flag": MARKING,
                **{verb: frozenset({verb}) for verb in ("archive", "cancel", "follow", "notify", "share",
                                                         "subscribe", "unsubscribe", "verify")}}
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december"]


def codes_in(text: str) -> set[str]:
    """The numbers of three or more digits a text names things by."""
    return set(CODE.findall(text))


def value_runs(words: list[str], start: int) -> list[str]:
    """The runs of up to MAX_VALUE_WORDS words from `start` a value can be (see typed_values); a
    value of one or two words does not take the full stop of the sentence it ends (one inside quotes or an
    abbreviation's it may)."""
    found: dict[str, None] = {}
    for end in range(start + 1, min(start + MAX_VALUE_WORDS, len(words)) + 1):
        if end == start + 1 < len(words) and words[start].isdigit() and _qualifies(words[end]):
            continue  # a number a unit or a name qualifies ("3 kg", "40 Elm Road") is no value alone
        said = " ".join(words[start:end])
        run = said.lstrip(OPENERS).rstrip(CLOSERS)
        if "(not" in words[start:end]:
            break  # it runs into what the goal rules out ("3 kg (not the 1 kg bag)")
        unstopped = run.rstrip(SENTENCE_END).rstrip(CLOSERS)
        stop_is_the_goals = said[-1:] in SENTENCE_END and end - start < 3 and not ABBREVIATION.search(said)  # "year 1998."
        found.update(dict.fromkeys([unstopped] if stop_is_the_goals else [run, unstopped]))
    return list(found)


def loose(value: str) -> bool:
    """A run that starts or ends with a small word ("for action", "movies by"): no value of its own."""
    words = value.split()
    return bool(words) and (words[0] in SMALL_WORDS or words[-1] in SMALL_WORDS)


def holds_other(run: str, taken: set[str], fields: list[str]) -> bool:
    """A run of the goal's words that holds a value another field takes ("Bowen from year 1998") or a
    word of a field's name ("action movies" for Movie Genre): no value for a field the goal leaves unnamed."""
    return any(re.search(rf"(?<!\w){re.escape(t)}(?!\w)", run) for t in taken) or any(
        says_name(word, field) for word in run.split() for field in fields)


def _qualifies(word: str) -> bool:
    """A word after a number that makes it part of a longer value: a unit or a capitalised name."""
    return word[:1].isupper() or word.lower().rstrip(CLOSERS + SENTENCE_END) in UNIT_WORDS


def labelled_values(goal: str, field: str) -> list[str]:
    """The values the goal gives by a word of the field's name or one sharing its first five letters
    (_labelled_at): a number right before it ("12 guests"), else right after it, a linking word
    between ("postcode LS2 7EW", "year 1998", "directed by Bowen"): a code (a word with a digit,
    and the runs from it) or a name (words that start with a capital, ending the clause or followed
    by a small word: "Bowen from ..."); they go into that field and no other."""
    words = _unquoted(goal).split()
    found: dict[str, None] = {}
    for label, at in _labelled_at(words, field):
        if at < label:  # "12 guests"
            found.setdefault(words[at].strip(OPENERS + CLOSERS), None)
        elif any(c.isdigit() for c in words[at]):
            found.update(dict.fromkeys(value_runs(words, at)))
        elif name := _name_at(words, at):
            found.setdefault(name, None)
    return list(found)


def _name_at(words: list[str], at: int) -> str:
    """The name starting at words[at]: its words that start with a capital, where it ends the clause
    or a small word follows ("Bowen from year 1998"), not a sentence's first words ("Your refund is ...")."""
    name = list(itertools.takewhile(lambda w: w[:1].isupper(), words[at:at + MAX_VALUE_WORDS]))
    ends = next((k for k, w in enumerate(name) if w[-1] in CLOSERS + SENTENCE_END), None)
    after = words[at + len(name)] if at + len(name) < len(words) else ""
    if ends is None and after and after.casefold() not in SMALL_WORDS:
        return ""
    return " ".join(name[:len(name) if ends is None else ends + 1]).lstrip(OPENERS).rstrip(CLOSERS + SENTENCE_END)


def listed_before(goal: str, field: str, count: int) -> list[str]:
    """What the goal lists, comma by comma, right before a code it labels with a word of the field's
    name (labelled_values), nearest first, for the `count` fields the form has right before that
    one: "as Mo Salah, 40 Elm Road, Leeds, postcode LS2 7EW" gives ["Leeds",
    "40 Elm Road", "Mo Salah"] for City, Street address, Full name: segments whose
    words all start with a capital or a digit, up to one that only ends so (with a capital), whose
    end is the last."""
    words = _unquoted(goal).split()
    at = next(iter(_label_positions(words, field)), None)
    if at is None or not at or not words[at - 1].endswith(","):
        return []
    listed = []
    for segment in " ".join(words[:at]).rstrip(",").split(",")[::-1][:count]:
        said = segment.split()
        named = next((i for i in range(len(said)) if all(w[0].isupper() or w[0].isdigit() for w in said[i:])), len(said))
        if named < len(said) and (not named or any(w[0].isupper() for w in said[named:])):
            listed.append(" ".join(said[named:]))
        if named:  # "then pay as Mo Salah": its name ends the list
            break
    return listed


def quote_label(goal: str, text: str) -> str:
    """The word right before where the goal quotes `text` ('the password "US"': password), if any."""
    said = re.search(r'(\w+)\s+["“]' + re.escape(text) + r'["”]', goal)
    return said.group(1) if said else ""


def _unquoted(goal: str) -> str:
    return re.sub(r'"[^"]*"|“[^”]*”', '""', goal)


def _label_positions(words: list[str], field: str) -> list[int]:
    """Where a word of the field's name stands right before a word with a digit (a labelled code)."""
    return [i for i, at in _labelled_at(words, field) if at == i + 1 and any(c.isdigit() for c in words[at])]


def _labelled_at(words: list[str], field: str) -> list[tuple[int, int]]:
    """(where a word of the field's name, or one sharing its first five letters, stands; where the
    value it labels starts): a number right before it, else a word with a digit or a capital after
    it, LINKING words between; a word that opens a clause (a verb) labels no name."""
    found = []
    for i, word in enumerate(words):
        if word.casefold().strip(OPENERS + CLOSERS + SENTENCE_END) in LINKING or not says_name(word, field):
            continue  # "Written by": "2001 by Fikezo" labels no year
        if i and NUMBER_WORD.match(words[i - 1]):
            found.append((i, i - 1))
            continue
        at = i + 1 + (i + 1 < len(words) and words[i + 1].casefold() in LINKING and not words[i].endswith(tuple(CLOSERS)))
        verb = not i or words[i - 1][-1] in ",;:." or words[i - 1].casefold() in {"and", "then"}
        if at < len(words) and (any(c.isdigit() for c in words[at]) or words[at][:1].isupper() and not verb):
            found.append((i, at))  # a clause's verb labels no name ("Search Paris hotels", "... and email Bob")
    return found


def says_name(word: str, field: str) -> bool:
    """The word is one of the field's name, give or take a plural s, or shares its first five letters
    with one ("directed" for Director); a name of small words only ("To:") is its words."""
    said = word.casefold().strip(OPENERS + CLOSERS + SENTENCE_END)
    label = word_set(field, letters_only=True) or set(re.findall(r"[^\W\d_]+", field.casefold()))  # "To:" is its word
    return any(said == w or said.removesuffix("s") == w or len(w) >= 5 and said[:5] == w[:5] for w in label)


def word_set(text: str, letters_only: bool = False) -> set[str]:
    """The text's words, lower case, less COMMON_WORDS (with letters_only, digits split words off)."""
    return {w for w in re.findall(r"[^\W\d_]+" if letters_only else r"[^\W_]+", text.casefold())
            if w not in COMMON_WORDS}


PLACE_NAME = re.compile(r"^(\d+(?:st|nd|rd|th)) (\w+)$")  # an element named by its place: "2nd textbox"


def named_by(goal: str, name: str) -> bool:
    """Every word of the name (COMMON_WORDS aside) is one of the goal's, give or take a plural s; a
    name of place ("2nd radio") only as that phrase ("the 2nd radio button"), not its words apart."""
    if place := PLACE_NAME.match(name):
        return re.search(rf"\b{place[1]} (?:\w+ )?{place[2]}", goal, re.I) is not None  # "the 3rd (input) textbox"
    goal_words = set(re.findall(WORD, goal.casefold()))
    words = {w for w in re.findall(WORD, name.casefold()) if w not in COMMON_WORDS}
    return bool(words) and all({w, w.removesuffix("s"), w + "s"} & goal_words for w in words)


def ruled_out_words(goal: str) -> list[set[str]]:
    """What the goal says not to pick, as word sets: "(not the 1 kg bag or the scoop)" ->
    {1, kg, bag}, {scoop}; a click whose words hold one of them is not offered."""
    out = []
    for clause in re.findall(r"\bnot (?:an? |the )?([^,.;:()]+)", goal, re.I):
        out += [w for part in re.split(r"\bor (?:an? |the )?", clause) if (w := word_set(part))]
    return out


def named_options(goal: str, options: list[str]) -> list[str]:
    """The options of a dropdown the goal names: those it says whole ("to 2 hours", of "1 hour,
    2 hours, 4 hours"), else those it names by a word only they say ("courier delivery" ->
    "Courier (same day, $9)"); all of them when it names none."""
    whole = [o for o in options if o.strip() and re.search(r"(?<!\w)" + re.escape(o) + r"(?!\w)", goal, re.I)]
    if whole:
        return whole
    shared = set.intersection(*(word_set(o, letters_only=True) for o in options)) if options else set()
    said = word_set(goal, letters_only=True)
    named = [o for o in options if (word_set(o, letters_only=True) - shared) & said]
    return named or options


def said_split(goal: str, name: str) -> bool:
    """The goal says a long word of the name as two, as a verb: "sign up" for "Go to signup"."""
    return any(re.search(r"\b(?:" + "|".join(f"{w[:i]} {w[i:]}" for i in range(2, len(w) - 1)) + r")\b", goal, re.I)
               for w in re.findall(r"[^\W\d_]{6,}", name))


QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')  # a text the goal puts in straight or curly double quotes


def quoted_texts(goal: str) -> list[str]:
    """The texts the goal quotes, in its order."""
    return [m.group(1) or m.group(2) for m in QUOTED.finditer(goal)]


def goal_texts(goal: str) -> list[tuple[str, str]]:
    """The texts the goal gives to enter, each with the words that lead to it: quoted ones, and one
    closing the goal after a colon ("post this answer: The shop opens at nine.")."""
    texts = [(goal[:m.start()], m.group(1) or m.group(2)) for m in QUOTED.finditer(goal)]
    closing = re.search(r":\s+([^:\"“”]+?)[.!]?$", goal)
    if closing and len(closing.group(1).split()) >= 3 and ". " not in closing.group(1) \
            and not re.match(r"(field|box)\b", closing.group(1)):  # a label's own colon: "the Definition file: field"
        texts.append((goal[:closing.start()], goal[closing.start(1):].rstrip()))  # its full stop its own
    return texts


def closing_clause(goal: str) -> str:
    """The goal's last clause, from its verb to its sentence's end: a clause opens the goal or a
    sentence (an initial, "K. Le Guin", ends none) or follows "and" or "then"; the texts it gives
    (goal_texts) hold no clause, and a clause that says not to do something ("Do not change any
    other setting.") is not one to close with."""
    for _, text in goal_texts(goal):
        goal = goal.replace(text, "")
    starts = [m for m in re.finditer(CLAUSE_START + r"(\w+(?:\s+not|n't)?)", goal)
              if not re.match(r"(?:do|does|did)\s*(?:not|n't)$|never$", m.group(1), re.I)]
    if not starts:
        return ""
    clause = goal[starts[-1].start(1):]
    end = re.search(SENTENCE_STOP, clause)
    return clause[:end.start()] if end else clause


def closing_verb(goal: str) -> str:
    """The verb (lower case) the goal's last clause opens with (closing_clause)."""
    verb = re.match(r"\w+(?:\s+not|n't)?", closing_clause(goal))
    return verb.group(0).casefold() if verb else ""


def sent_into(goal: str, text: str) -> str:
    """Where the goal says a text it gives goes, in the words right after it ('"-5" into the 2nd
    textbox' -> "2nd textbox"); "" when it says so nowhere there."""
    at = goal.find(text)
    after = re.match(r"""["”']?\s+(?:in|into)\s+(?:the\s+)?([^,.;:"]+)""", goal[at + len(text):]) if at >= 0 else None
    return after.group(1).strip() if after else ""


def task_said(goal: str) -> str:
    """The goal less an opening clause that only says where ("In the Orbit admin panel, ...",
    "On Pebblemart, ...", "Foo: ..."): what to do there."""
    where = re.match(r"((?:on|at|in|from)\s+(?:the\s+)?)?[^,:;.]{1,40}([,:])\s", goal, re.I)
    return goal[where.end():] if where and (where.group(1) or where.group(2) == ":") else goal


def task_words(goal: str) -> set[str]:
    """The goal's words (as it writes them) less those of where it says the site is (task_said)."""
    return set(re.findall(WORD, task_said(goal)))


def given_emails(goal: str) -> list[str]:
    """The e-mail addresses the goal gives, brackets and the sentence's marks off their ends."""
    return [w for w in (w.strip(OPENERS + CLOSERS + SENTENCE_END) for w in goal.split()) if EMAIL.match(w)]
