"""Which clicks a grounded plan step may make on a page, and when one is plainly the next step:
the page's clickables as a step says them, less boxes, side effects the goal does not ask for,
what it rules out and what changed nothing; on a page with nothing to fill, the link the goal
names or asks to open, the way to the cart once it is filled, what shows a hidden setting; while
a name the goal says to click is elsewhere, the tabs, links and "more" buttons that may show it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urljoin, urlsplit

from agentpair.planner.language.steps import Said, asked_for, read_step
from agentpair.planner.language.vocabulary import MONTHS, SIDE_EFFECTS, WORD, says_name, word_set
from agentpair.planner.request import DoneStep, PlanRequest
from agentpair.planner.page_view import BOX_ROLES, PageNames

TRAILING_MARKS = " :*›»>"
NUMBER_NAME = re.compile(r"^-?\d+(?:\.\d+)?$")
CLICK_VERBS = {"click", "press", "hit", "tap", "open", "go", "visit", "view", "show"}
VIEW_ROLES = {"link", "tab"}  # what switches the view: a link, a tab (a section that expands)


def writable(text: str) -> bool:
    """A string a pattern or an enum can carry inside a JSON string without escapes: llama-cpp-python
    (0.3.36) writes a quote of an enum value into its grammar so that its server dies on it."""
    return bool(text) and not any(c in text for c in '"\\^') and all(c >= " " for c in text)


def ways_to_name(name: str) -> list[str]:
    """A name as a step may say it: whole, or without what a person leaves off when saying it (a
    leading number such as "#107", a trailing count such as "(0)", trailing marks such as ":" or "›");
    never with a double quote or a backslash (see writable), which it is then said without."""
    said = [" ".join(name.replace('"', " ").replace("\\", " ").split())]
    words = said[0].split()
    if len(words) > 1 and not any(c.isalpha() for c in words[0]):
        said.append(" ".join(words[1:]))
    said += [re.sub(r"\s*\([^()]*\)$", "", n) for n in said]
    said += [n.rstrip(TRAILING_MARKS) for n in said]
    return [n for n in dict.fromkeys(said) if writable(n.strip())]


def telling(names: PageNames, name: str) -> list[str]:
    """How a click says which of the elements sharing `name` it means: " (Audiobook, 2004)" for each
    one told apart, and nothing (the bare name) where some are not; [""] for a name of one element."""
    told = [f" ({t})" for t in dict.fromkeys(names.told_apart.get(name, [])) if writable(t)]
    return told + [""] * (len(told) < len(names.clickable[name]))


def clicks_on(click: str, names: Iterable[str]) -> bool:
    """The click step names one of `names` (any way to say it, either role, any item that tells it
    apart), not merely a longer name that starts with one ("Tern 40" is not "Tern 40 Pro")."""
    said = read_step(click)
    return any(said.clicks(w) for n in names for w in ways_to_name(n))


def done_said(request: PlanRequest) -> list[Said]:
    """What the steps that were done (ok), not only tried, said, as records."""
    return [read_step(s.instruction) for s in request.steps if s.ok]


def clicked_at_start(request: PlanRequest, name: str) -> bool:
    """A step of the run clicked an element said `name`, or one whose name says it first, any case."""
    return any(d.names_at_start(name) for d in done_said(request))


def offered_clicks(request: PlanRequest) -> list[str]:
    """The clicks offered on this page: no box (a box is checked), no step that changed nothing on this
    very page (request.unchanged), no side effect the goal does not ask for (asked_for) or the run
    made already, no click on what the goal rules out (ruled_out_words), nor on a thing numbered
    other than the goal numbers it (by_number), nor on one of a shared name whose item the goal
    does not say where it says another's (told_by_goal), nor on a list's item other than those the
    goal names, where it names some (named_items), nor on one it says only inside a longer one's name
    (said_inside_longer), nor on a link to the page shown (to_this_page) or, while the form holds
    unsent typing (typed_unsent), any link or a form's button the goal does not name that does not send it, nor, where it quotes what to click, on what it
    does not name (quoted_only), nor, where it asks for the greatest or smallest, on other numbers (extreme),
    nor, where it says to click a thing by a label the page shows before it, on others (labelled_click)."""
    names, done = request.names, set(request.unchanged)
    clicks, goal = page_clicks(request), request.parsed_goal
    clicks = [c for c in clicks if c not in done and asked_for(goal, read_step(c))
              and not any(words <= word_set(c) for words in goal.ruled_out)]
    clicks = [c for c in goal.numbered(clicks) if c not in side_effects_done(request.steps)]
    here, unsent = to_this_page(request), typed_unsent(request)  # a button sharing such a link's name stays
    aside = [n for n in names.non_submit if not goal.names(n)] if unsent else []
    clicks = [c for c in clicks if not (read_step(c).leaves and (unsent or clicks_on(c, here))) and not clicks_on(c, aside)]
    return told_by_goal(request, named_items(request, quoted_only(request, extreme(request, labelled_click(
        request, said_inside_longer(request, clicks))))))


def page_clicks(request: PlanRequest) -> list[str]:
    """Every click on this page's clickables but its boxes, as a step says it (ways_to_name,
    telling), less those that left this very page as it was (request.unchanged)."""
    names, done = request.names, set(request.unchanged)
    return [click for name, roles in names.clickable.items() for role in dict.fromkeys(roles) if role not in BOX_ROLES
            for said in ways_to_name(name) for told in telling(names, name)
            if (click := f"click the {said} {'link' if role == 'link' else 'button'}{told}") not in done]


def to_this_page(request: PlanRequest) -> list[str]:
    """The links that all lead to the page shown (a site's name linking to its home page, on the home
    page): clicking one loads the same page again. A link to a part of a page (#...) is not one: it
    may open a tab."""
    def where(url: str) -> str:
        return re.sub(r"/index\.html?$", "/", urlsplit(url)._replace(fragment="").geturl())
    here = where(request.url)
    return [name for name, urls in request.names.links.items() if request.url and urls
            and all("#" not in u and where(urljoin(request.url, u)) == here for u in urls)]


def typed_unsent(request: PlanRequest) -> bool:
    """The run typed into this page's form (a type step, or a code step into a box) and since then
    clicked nothing, pressed no Enter and went nowhere: a link now would leave the form unsent."""
    for done in reversed(request.steps):
        if done.kind == "code" and done.target is not None and done.ok:
            return True
        if done.kind == "act" and done.ok and done.tool == "type":
            return not (done.args or {}).get("submit")
        if done.kind == "act" and done.ok and done.tool in ("click", "press", "goto", "go_back"):
            return False  # sent, or gone; a box set, an option picked, a read or a scroll sends nothing
    return False


def said_inside_longer(request: PlanRequest, clicks: list[str]) -> list[str]:
    """Without the clickables whose name the goal says only as part of a longer clickable's name it
    says ("open the Tern 40 Pro page": not "Tern 40")."""
    spans = {n: request.parsed_goal.spans_of(n) for n in request.names.clickable}
    inside = [n for n, at in spans.items() if at and all(
        any(a <= s and e <= b and (a, b) != (s, e) for other, wider in spans.items() if other != n for a, b in wider)
        for s, e in at)]
    return [c for c in clicks if not clicks_on(c, inside)]


def extreme(request: PlanRequest, clicks: list[str]) -> list[str]:
    """Where the goal asks for the greatest (largest, highest, biggest) or the smallest (lowest,
    least) and clickables here are named by numbers: of those, only the greatest or the smallest."""
    most = request.parsed_goal.extreme
    numbers = {n: float(n) for n in request.names.clickable if NUMBER_NAME.match(n)}
    if not most or len(numbers) < 2:
        return clicks
    pick = (max if most == "max" else min)(numbers, key=numbers.get)
    return [c for c in clicks if not clicks_on(c, [n for n in numbers if n != pick])]


def quoted_only(request: PlanRequest, clicks: list[str]) -> list[str]:
    """Where the goal quotes the name of a thing to click ('Click the "Share" button') and the page
    has it: only the clickables the goal names (that one, and others it names: "then click Submit")."""
    quoted, names = request.parsed_goal.quoted_clicks, request.names.clickable
    if not any(says(n, q) for n in names for q in quoted):
        return clicks
    said = [n for n in names if any(says(n, q) for q in quoted) or request.parsed_goal.names(n)]
    return [c for c in clicks if clicks_on(c, said)] or clicks


def named_items(request: PlanRequest, clicks: list[str]) -> list[str]:
    """Of a list's items (names.lists), where the goal says some by their whole names ("the email by
    Coletta"), only those, and of those the ones it says after "from" or "by" where it says some so
    ("forward to Evy the email from Cora": the item is Cora's): not the other items."""
    for items in request.names.lists:
        said = [n for n in items if request.parsed_goal.says_whole(n)]
        said = [n for n in said if request.parsed_goal.says_after_from_by(n)] or said
        if said:
            clicks = [c for c in clicks if not clicks_on(c, set(items) - set(said))]
    return clicks


def told_by_goal(request: PlanRequest, clicks: list[str]) -> list[str]:
    """Of the elements sharing a name, told apart by their items (telling), the ones whose item says
    a word of the goal (the star of the mail from Giulia, the reply under each of @kenda's posts),
    where the goal says such a word: not the others, nor the bare name."""
    goal_words = {w for w in request.parsed_goal.word_set if len(w) > 2}
    for name, tells in request.names.told_apart.items():
        items = request.names.told_items.get(name) or tells
        said = [t for t, item in zip(tells, items) if word_set(item) & goal_words - word_set(name)]
        if said:
            clicks = [c for c in clicks if not clicks_on(c, [name]) or read_step(c).item in said]
    return clicks


def signed_in(request: PlanRequest) -> bool:
    """Every secret of the task has been typed (the run has signed in)."""
    typed = [d.value for d in done_said(request) if d.verb == "type"]
    return bool(request.secret_names) and all(any("{{secret:" + n + "}}" in v for v in typed) for n in request.secret_names)


def next_up(request: PlanRequest, clicks: list[str]) -> list[str]:
    """On a page with nothing to fill, the clicks that are plainly the next step, when there are such:
    a clickable the goal asks to open ("sign up" for "Go to signup"; once signed in "go to
    Messages": _to_open), else, once the run has added to the cart what the goal checks out, the way
    to the cart ("View cart"), not another product's "Add to cart"."""
    if request.names.fields:
        return []
    opened = to_open(request, split=not signed_in(request))
    next_up = [c for c in clicks if clicks_on(c, opened)]
    added = any("cart" in f"{d.name} {d.item}".casefold() for d in map(read_step, side_effects_done(request.steps)))
    clicked = clicks_made(request.steps)
    goal = request.parsed_goal
    if next_up or not added or not goal.says_split("checkout") or any(goal.says_split(c) for c in clicked):
        return next_up  # (once it has checked out, the cart is behind it)
    return [c for c in clicks if (said := read_step(c)).names_a_cart and said.lead_word not in SIDE_EFFECTS]


def named_links(request: PlanRequest, clicks: list[str]) -> list[str]:
    """On a page with nothing to fill, where the goal names links here it has not clicked, those links
    and the buttons, no other link: "turn on two-step login (it is a privacy setting)" opens
    Privacy, not Profile. The goal names a link by words it says in lower case, as a thing to go
    to, beyond where it says the site is (task_words) and the texts it gives to enter, or as where
    what it opens is ("go to Security under Catalog", "Catalog > Security": then that link is the
    only link); a capitalised word said otherwise is often part of another name ("the Forum day",
    a "(Press)" ticket) that a link happens to share, so where the goal names one so, it is left
    to the planner which link to open."""
    goal = request.parsed_goal
    words = goal.task_words - {w for given in goal.texts for w in re.findall(WORD, given.text)}
    lower, done = {w for w in words if w.islower()}, done_said(request)
    links = {c: said.name for c in clicks if (said := read_step(c)).verb == "click" and said.role == "link"}
    named = {name for name, roles in request.names.clickable.items()
             if "link" in roles and word_set(name) and word_set(name) <= {w.casefold() for w in words}}
    where = {n for n in named if goal.says_where(n.rstrip(TRAILING_MARKS))}
    if not named or any(not word_set(n) <= lower for n in named - where):
        return clicks
    chosen = [c for c, said in links.items() if any(said in ways_to_name(n) for n in named)
              and not any(d.clicks(said) and d.role == "link" for d in done)]
    chosen = [c for c in chosen if any(links[c] in ways_to_name(n) for n in where)] or chosen
    return [c for c in clicks if c in chosen or c not in links] if chosen else clicks


def hidden_setting(request: PlanRequest, clicks: list[str]) -> list[str]:
    """The clicks that show more of a form ("Show more", "More settings") where the goal
    sets a setting ("set the font size to 14 points") no field, dropdown or box of it is
    named for: it is behind one of them, and saving before would save the rest unchanged."""
    names = request.names
    settings = request.parsed_goal.settings
    here = [word_set(n) for n in [*names.fields, *names.dropdowns, *names.boxes]]
    if not settings or not here or all(any(wanted <= n for n in here) for wanted in settings):
        return []  # no form here (a menu's "More" button is another matter) or every setting on it
    return [c for c in clicks if (said := read_step(c)).discloses and not said.item]


def clicks_made(steps: list[DoneStep]) -> list[str]:
    """The click steps of the run that ran (ok), as they were said."""
    return [s.instruction for s in steps if s.ok and s.kind == "act" and s.tool == "click"]


def side_effects_done(steps: list[DoneStep]) -> set[str]:
    """The clicks with a side effect (SIDE_EFFECTS: "Add ... to cart") the run has made: once is the
    order; and those on one item's action ("like (Clark @dis)"): a second would undo the first."""
    return {c for c in clicks_made(steps) if read_step(c).side_effect}


def bare(name: str) -> str:
    """A name as said, its closing punctuation off ("cursus." is the word "cursus")."""
    return name.rstrip(".,;:!?").casefold()


def page_shown(request: PlanRequest) -> str:
    """The page view's text, less a line that repeats the goal (a task page may show its own task)."""
    return "\n".join(line for line in request.page.splitlines() if not request.parsed_goal.repeated_in(line))


def sought(request: PlanRequest) -> list[str]:
    """The names the goal says to click in quotes (click on the link "X") that no clickable here has
    and no step of the run clicked, and the names it says to find ("Find Casie in the book") that the
    page does not show: they are elsewhere, behind a tab, a link or the next page."""
    done = done_said(request)
    quoted = [name for name in request.parsed_goal.quoted_clicks if not any(says(n, name) for n in request.names.clickable)
              and not any(d.verb == "click" and d.name.casefold().startswith(bare(name)) for d in done)]
    shown = page_shown(request).casefold()
    return quoted + [name for name in request.parsed_goal.to_find if name.casefold() not in shown]


def quoted_here(request: PlanRequest) -> list[str]:
    """The clickables here that the goal says to click in quotes (says) that no step of the run clicked."""
    quoted = request.parsed_goal.quoted_clicks
    return [n for n in request.names.clickable if any(says(n, q) for q in quoted) and not clicked_at_start(request, n)]


def says(name: str, quoted: str) -> bool:
    """A clickable's name is the quoted text, or opens with it ("Block @kenda" for "Block")."""
    return bare(name) == bare(quoted) or bare(name).startswith(bare(quoted) + " ")


def seeking(request: PlanRequest, clicks: list[str]) -> list[str]:
    """While the goal's quoted click is not on this page (sought): the links, tabs and buttons that
    show more ("More", "Show all") here that the run has not clicked, not the page's other content;
    all clicks where there are none."""
    if not sought(request):
        return clicks
    views = [said for name, roles in request.names.clickable.items() if VIEW_ROLES & set(roles)
             for said in ways_to_name(name)]
    done = {w.casefold() for d in done_said(request) for w in (d.words, d.bare)}
    kept = [c for c, said in zip(clicks, map(read_step, clicks))
            if (any(said.name == v or said.name.startswith(v + " ") for v in views) or said.discloses)
            and (c.casefold() not in done or said.turns_page)]
    return kept or clicks


def labelled_click(request: PlanRequest, clicks: list[str]) -> list[str]:
    """Where the goal says to click a thing by a label the page shows right before a clickable ("click
    on their address" and "Address:" then a button): only that clickable, and what the goal names."""
    said = request.parsed_goal.click_label
    lines = request.page.splitlines()
    labelled = [m[2] for label, line in zip(lines, lines[1:]) if said and label.endswith(":") and " " not in label.strip()
                and says_name(said, label) and (m := re.match(r'^(button|link) "(.+)"$', line))]
    if not labelled or sought(request):  # not before the page shows what the goal is about
        return clicks
    return [c for c in clicks if clicks_on(c, labelled)] or clicks


def clause_buttons(request: PlanRequest) -> list[str]:
    """The buttons here whose one-word name is the verb a clause of the goal opens with ("... and
    forward it to Kim": Forward; not a verb that says to click) that no step of the run clicked."""
    return [name for name, roles in request.names.clickable.items() if "button" in roles
            and len(said := re.findall(WORD, name)) == 1 and said[0].casefold() not in CLICK_VERBS
            and request.parsed_goal.opens_clause_with(said[0]) and not clicked_at_start(request, name)]


def to_open(request: PlanRequest, split: bool = False) -> list[str]:
    """The clickables here the goal asks to open or press ("... and go to Messages", "open Preferences",
    "press Submit"), or quotes by their whole name (click the link "Pricing"), or
    says split as a verb ("sign up" for "Go to signup"; only those with `split`) that no
    step of the run clicked."""
    goal = request.parsed_goal
    quoted = {bare(q) for q in goal.quoted}
    return [name for name in request.names.clickable if re.findall(WORD, name)
            and (goal.says_split(name, flat=True) or bare(name) in quoted or not split and goal.opens(name))
            and not clicked_at_start(request, name)]


SHOWN_MONTH = re.compile(r"^(?:\w+: )?(" + "|".join(MONTHS) + r") (\d{4})$", re.I | re.M)  # a calendar's heading


def calendar_day(request: PlanRequest) -> list[str]:
    """Where the page shows a calendar (a month's heading, "December 2016", and links named by days)
    and the goal gives a date (month/day/year or year-month-day): the click on its day when the
    calendar shows its month, else on the calendar's "Next" or "Prev" towards it, where it has them."""
    shown, given = SHOWN_MONTH.search(request.page), request.parsed_goal.date
    if not shown or not given:
        return []
    year, month, day = given
    at = (int(shown[2]), MONTHS.index(shown[1].casefold()) + 1)
    links = {name for name, roles in request.names.clickable.items() if "link" in roles}
    if at == (year, month):
        return [f"click the {day} link"] if str(day) in links else []
    toward = "Next" if at < (year, month) else "Prev"
    return [f"click the {toward} {'link' if toward in links else 'button'}"] if toward in request.names.clickable else []


def field_to_focus(request: PlanRequest) -> list[str]:
    """Where the goal says to focus or click into a field it names ("Focus into the 3rd textbox") and
    no step has clicked it: the click on that field."""
    if not request.parsed_goal.focuses:
        return []
    done = done_said(request)
    return [f"click the {said[0]} field" for f in request.names.fields if request.parsed_goal.names(f)
            and (said := ways_to_name(f)) and not any(d.verb == "click" and d.role == "field"
                                                       and d.name.casefold() == said[0].casefold() for d in done)]
