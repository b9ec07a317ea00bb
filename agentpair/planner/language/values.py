"""The values a step's words name, read by their English: the runs of words a value can be (a
step's: after a verb, up to where the wording resumes; a page's: up to a separator), a value
without the label before it, the spans that are the wording run on, on or off as a verb says, what a
code step labels for a template's holes, what an instruction quotes and the words before it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

VERBATIM_WORDS = 12  # the longest run of an instruction's words a verbatim argument may be
QUOTES = "\"'\u201c\u201d\u2018\u2019"
SEPARATOR = re.compile(r"^[^\w{]+$")  # a word of no letters or digits between a page text's parts: "·", "|"
# A value a step names is the object of a verb or of a preposition ("type X into ...",
# "select X in ...", "set L to X", "fill in L with X", "search for X"; not the "type" of "the
# Seat type dropdown") and ends where the wording resumes ("into", "in", "as", "and press
# Enter", "without ...") or at the end.
VERBS = frozenset({"type", "enter", "select", "choose", "pick", "put", "write", "fill", "input", "insert",
                   "set", "change", "search", "press", "paste", "add", "open", "visit", "load"})
PREPOSITIONS = frozenset({"to", "for", "with"})
CLAUSE_VERBS = VERBS | {"submit", "hit", "click", "tap", "save", "send", "confirm"}  # "... and submit"
RESUMES = frozenset({"into", "in", "as", "and", "without", "then", "to", "on", "for", "with", "from", "at"})
ARTICLES = frozenset({"the", "a", "an", "your", "my", "this"})
ON_VERBS = frozenset({"check", "tick", "enable", "select", "pick", "choose", "mark", "activate"})
OFF_VERBS = frozenset({"uncheck", "untick", "disable", "deselect", "unselect", "clear", "unmark", "deactivate"})
LINKS = {"to", "=", "is", "of", "as", ":"}  # between a name and its value: "port to 8080"
CONNECTORS = LINKS | {"the", "a", "an", "and", "or", "with", "for", "in", "on", "set", "use", "write"}
QUOTED = re.compile(r'"([^"]+)"|\u201c([^\u201d]+)\u201d')
NUMBER = re.compile(r"(?<![\w-])-?\d[\d,]*(?:\.\d+)?")


def word_runs(text: str, max_words: int) -> list[str]:
    """Every run of up to `max_words` of the text's words, marks and quotes off each word."""
    words = [w.strip(".,;:!?()\"'") for w in text.split()]
    return [" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, min(len(words), i + max_words) + 1)]


def said_numbers(instruction: str) -> list[str]:
    """The numbers a step says, in order, commas dropped."""
    return [m.replace(",", "") for m in NUMBER.findall(instruction)]


def same_words(a: str, b: str) -> bool:
    """The two texts say the same words, however spaced (a field's value and a step's copy of it)."""
    return a.split() == b.split()


def said_at(text: str, phrase: str) -> list[int]:
    """Where the text says the phrase whole (any case), as offsets."""
    return [m.start() for m in re.finditer(rf"(?<!\w){re.escape(phrase.casefold())}(?!\w)", text.casefold())]


def label_off(span: str, name: str, description: str) -> str:
    """A value the step labels with its argument's name or description ("the subject Router keeps
    rebooting" for `subject`, "the e-mail address ada@x.org" for an e-mail's), without the label."""
    said = re.findall(r"[a-z][a-z-]*", f"{name.replace('_', ' ')} {description}".lower())
    label = {w.replace("-", "") for w in said if len(w) > 2 and w not in ARTICLES}
    words = span.split()
    at = next((i for i, w in enumerate(words) if w.lower() not in ARTICLES), len(words))
    end = at
    while end < len(words) - 1 and words[end].lower().replace("-", "").strip(":") in label:
        end += 1
    return " ".join(words[end:]) if end > at else span


def own_words_off(spans: list[str], element_names: set[str]) -> list[str]:
    """The spans that are a value, not the step's own wording run on: none holding the name of
    the element the step acts on ("4WS3RQ in Coupon code" typed into Coupon code) or going on
    into another clause ("Veri Tideti and press Enter"); all of them where every one does."""
    names = [n.casefold() for n in element_names] if len(element_names) == 1 else []

    def runs_on(span: str) -> bool:
        words = span.casefold().split()
        if any(a in ("and", "then") and b in CLAUSE_VERBS for a, b in zip(words, words[1:])):
            return True
        return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", span.casefold()) for n in names)
    return [s for s in spans if not runs_on(s)] or spans



def switched(instruction: str) -> bool | None:
    """On or off, as a step's verb says: "check the X box", "untick X", "switch X off"; None when
    it says neither."""
    words = re.findall(r"[\w-]+", instruction.casefold())
    if not words:
        return None
    if words[0] in OFF_VERBS:
        return False
    if words[0] in ON_VERBS:
        return True
    if words[0] in ("turn", "switch", "toggle") and {"on", "off"} & {words[1] if len(words) > 1 else "", words[-1]}:
        return "off" not in (words[1], words[-1])
    return None



def verbatim_spans(text: str, whole: Literal["named", "shown"], secret_names: Iterable[str] = (),
                   max_words: int = VERBATIM_WORDS) -> list[str]:
    """The runs of up to `max_words` words of the text that a whole value can be, then the
    placeholder of each secret the text names; no repeats.
    "named" (a value a step names), bare (no quotes, no punctuation after): starting after a
    clause's verb (VERBS), a preposition or a colon; ending the text, in punctuation or a quote,
    or before a word the wording resumes with (RESUMES); and quoted whole if opened by a quote.
    So "select Japan in the Country dropdown" offers "Japan" and "Japan in the Country dropdown"
    only, and "type 'Paris' into the City field" "Paris"; a sentence's own full stop, before the
    wording resumes ("type We did it. into the Reply box"), stays with it.
    "shown" (a value a page shows), also without the quotes around it and the punctuation after
    it: ending the text, in punctuation, or before a separator ("·", "|", "-"); so "Crimson
    Walnut cushion" offers no "Crimson", and "By Ada · 2024-03-08" offers "Ada" and "2024-03-08"."""
    words = text.split()
    named = whole == "named"
    starts = _value_starts(words) if named else set(range(len(words)))
    spans: dict[str, None] = {}
    for i in sorted(starts):
        for j in range(i + 1, min(len(words), i + max_words) + 1):
            if not (_whole_value(words, i, j) if named else _ends_shown(words, j)):
                continue
            if not named and any(SEPARATOR.match(w) for w in words[i:j]):
                break  # a shown value does not run past a separator
            span = " ".join(words[i:j])
            own_mark = named and j < len(words) and span[-1] in ".!?"  # "type We did it. into the ..."
            bare = span.rstrip(",;:") if own_mark else span.rstrip(".,;:!?")
            stripped = (bare.strip(QUOTES),)
            for variant in stripped if named else (bare, *stripped):
                if variant:
                    spans[variant] = None
    for name in secret_names:
        if name.replace("_", " ").lower() in text.replace("_", " ").lower():  # the placeholder names it too
            spans["{{secret:" + name + "}}"] = None
    return list(spans)



def _value_starts(words: list[str]) -> set[int]:
    """Where a value the words name may start: after a verb that opens a clause (first, or after
    a comma, "and" or "then"), a preposition or a colon."""
    lower = [w.lower() for w in words]
    opens = [i == 0 or lower[i - 1] in ("and", "then") or lower[i - 1][-1] in ",;" for i in range(len(words))]
    return {i + 1 for i, w in enumerate(lower) if i + 1 < len(words)
            and (w in VERBS and opens[i] or w in PREPOSITIONS or w.endswith(":"))}



def _whole_value(words: list[str], start: int, end: int) -> bool:
    """Whether words[start:end], which starts where a value may, can be one (see verbatim_spans)."""
    last = words[end - 1].rstrip(".,;:!?")
    if words[start][0] in QUOTES:
        if not (last and last[-1] in QUOTES):
            return False
    elif any(words[k].lower() in RESUMES and words[k + 1].lower() in ARTICLES for k in range(start + 1, end - 1)):
        return False  # runs on past "into the ...": the wording resumed there
    return end == len(words) or words[end - 1][-1] in ".,;:!?" + QUOTES or words[end].lower() in RESUMES



def _ends_shown(words: list[str], end: int) -> bool:
    """Whether a value a page shows may end before words[end]."""
    return end == len(words) or words[end - 1][-1] in ".,;:!?" or SEPARATOR.match(words[end]) is not None


def hole_values(holes: list[str], instruction: str) -> dict[str, list[str]]:
    """What each hole may hold where the instruction labels a value with the hole's name: the word
    right after the name (past a "to", "=" or "is": "port to 8080") or right before it, within one
    part between commas (or a colon), a connecting word never ("name ledger-svc", "5 workers",
    "TCP port 9090"), keyed as the executor's `allowed` ("/name"); a hole said again ({{name_2}})
    takes its name's. Holes the instruction does not name are left to the caller (`holes`: the
    template's hole names, in its order)."""
    parts = [part.split() for part in re.split(r"[,;]|:\s", instruction)]
    allowed: dict[str, list[str]] = {}
    for hole in holes:
        key = re.sub(r"_\d+$", "", hole).replace("_", " ").casefold().split()
        found = []
        for words in parts:
            bare = [w.strip(".:()") for w in words]
            said = [w.casefold() for w in bare]
            for i in range(len(said) - len(key) + 1):
                if said[i:i + len(key)] == key:
                    after = i + len(key)
                    while after < len(said) and said[after] in LINKS:
                        after += 1
                    found += [w for w in bare[after:after + 1] + bare[max(i - 1, 0):i] if w.casefold() not in CONNECTORS]
        if found:
            allowed["/" + hole] = list(dict.fromkeys(found))
    return allowed


def quoted_values(instruction: str) -> list[str]:
    """The values an instruction quotes ("..." or curly quotes), each once, in its order."""
    return list(dict.fromkeys(a or b for a, b in QUOTED.findall(instruction)))


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def said_before(instruction: str) -> list[tuple[list[str], str]]:
    """Each quoted value with the words right before it, after the last punctuation there
    ('...; first name "Ada"' -> (["first", "name"], "Ada"))."""
    out, at = [], 0
    for match in QUOTED.finditer(instruction):
        pieces = [words for piece in re.split(r"[;,.:\n]", instruction[at:match.start()])
                  if (words := words_of(piece))]
        out.append((pieces[-1] if pieces else [], match.group(1) or match.group(2)))
        at = match.end()
    return out
