"""Family `gradebook` (REPORT split: never develop, tune or train on it): a school's markbook: classes,
a class's assessments, an assessment's table of pupils with a link per pupil to enter a mark, a mark
form that refuses a mark above the assessment's maximum. Classes share a subject across year groups
and sets; pupils' names differ by a letter or a surname."""

from __future__ import annotations

import random

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, area, errors, esc, field, form, link, redirect, table,
)

SCHOOLS = ["Harrowgate Academy", "St Brendan's High", "Fenwick Community College"]
SUBJECTS = ["Chemistry", "Geography", "History", "Computing", "French"]
WORK = ["Rates of reaction test", "River fieldwork write-up", "End of unit quiz", "Source analysis essay",
        "Practical report", "Vocabulary test", "Mock exam paper 1"]
PUPILS = [("Lily Evans", "Lilly Evans", "Lily Evanson"), ("Tom Okoro", "Tom Okafor", "Tomi Okoro"),
          ("Hana Kowal", "Hanna Kowal", "Hana Kowalski")]
OTHER_PUPILS = ["Ben Ashworth", "Zara Malik", "Finn Doyle", "Maya Grant", "Oscar Reyes", "Esme Hart"]


class Gradebook(Site):
    menu = [("My classes", "/")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(SCHOOLS)
        subject, year = rng.choice(SUBJECTS), rng.randrange(7, 11)
        titles = [f"Year {year} {subject}", f"Year {year + 1} {subject}", f"Year {year} {subject} (set 2)",
                  f"Year {year} {rng.choice([s for s in SUBJECTS if s != subject])}"]
        self.classes: dict[str, dict] = {}
        for i, title in enumerate(titles):
            pupils = [*rng.choice(PUPILS), *rng.sample(OTHER_PUPILS, 4)] if i == 0 else rng.sample(OTHER_PUPILS, 5)
            rng.shuffle(pupils)
            work = {f"a{j}": {"title": w, "max": rng.choice([20, 25, 40, 50, 60]), "due": f"{rng.randrange(1, 29)} March"}
                    for j, w in enumerate(rng.sample(WORK, 4))}
            marks = {(a, p): rng.randrange(w["max"] // 3, w["max"] + 1) for a, w in work.items() for p in pupils
                     if rng.random() < 0.6}
            self.classes[f"c{41 + i * 5}"] = {"title": title, "pupils": pupils, "work": work, "marks": marks}
        self.target = "c41"
        self.classes = dict(rng.sample(list(self.classes.items()), len(self.classes)))

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                rows = [[link(c["title"], f"/class/{k}"), str(len(c["pupils"]))] for k, c in self.classes.items()]
                return self.page("My classes", "<h1>My classes</h1>" + table(["Class", "Pupils"], rows))
            case ["class", k] if k in self.classes:
                c = self.classes[k]
                rows = [[link(w["title"], f"/class/{k}/{a}"), esc(w["due"]), str(w["max"])] for a, w in c["work"].items()]
                return self.page(c["title"], f"<h1>{esc(c['title'])}</h1>" + table(["Assessment", "Due", "Out of"], rows),
                                 [("My classes", "/"), (c["title"], "")])
            case ["class", k, a] if k in self.classes and a in self.classes[k]["work"]:
                c, w = self.classes[k], self.classes[k]["work"][a]
                rows = [[esc(p), esc(c["marks"].get((a, p), "not marked")), link("Enter mark", f"/class/{k}/{a}/{n}")]
                        for n, p in enumerate(c["pupils"])]
                return self.page(w["title"], f"<h1>{esc(w['title'])}</h1><p>Out of {w['max']}</p>"
                                 + table(["Pupil", "Mark", ""], rows),
                                 [("My classes", "/"), (c["title"], f"/class/{k}"), (w["title"], "")])
            case ["class", k, a, n] if self._pupil(k, a, n):
                return self.mark_form(k, a, int(n), {}, [])
        return NOT_FOUND

    def _pupil(self, k: str, a: str, n: str) -> bool:
        return k in self.classes and a in self.classes[k]["work"] and n.isdigit() and int(n) < len(self.classes[k]["pupils"])

    def mark_form(self, k: str, a: str, n: int, values: dict[str, str], problems: list[str]) -> str:
        c, w = self.classes[k], self.classes[k]["work"][a]
        pupil = c["pupils"][n]
        inner = field(f"Mark (out of {w['max']})", "mark", values.get("mark", ""), "number") + area("Comment", "comment")
        return self.page("Enter mark", f"<h1>{esc(pupil)}: {esc(w['title'])}</h1>{errors(problems)}"
                         + form(f"/class/{k}/{a}/{n}", inner, "Save mark"),
                         [("My classes", "/"), (c["title"], f"/class/{k}"), (w["title"], f"/class/{k}/{a}"), (pupil, "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["class", k, a, n] if self._pupil(k, a, n):
                c, w = self.classes[k], self.classes[k]["work"][a]
                try:
                    mark = float(data.get("mark", ""))
                except ValueError:
                    mark = -1.0
                if not 0 <= mark <= w["max"]:
                    return self.mark_form(k, a, int(n), data, [f"Enter a mark from 0 to {w['max']}."])
                pupil = c["pupils"][int(n)]
                c["marks"][(a, pupil)] = f"{mark:g}"
                self.record("mark", f"{k}/{a}", pupil=pupil, mark=f"{mark:g}")
                return redirect(f"/class/{k}/{a}")
        return NOT_FOUND

    def pick(self, rng: random.Random) -> tuple[str, dict, str]:
        """The target class's near-duplicate pupil (the first of a look-alike trio) and one of its assessments."""
        c = self.classes[self.target]
        pupil = next(t[0] for t in PUPILS if t[0] in c["pupils"])
        a = rng.choice(list(c["work"]))
        return a, c["work"][a], pupil


def enter_mark(rng: random.Random) -> Case:
    site = Gradebook(rng)
    a, w, pupil = site.pick(rng)
    mark = rng.randrange(w["max"] // 2, w["max"])
    goal = (f"In the {site.name} markbook, record a mark of {mark} for {pupil} on the {w['title']} in "
            f"{site.classes[site.target]['title']}.")
    return Case(site, goal, Expect(actions=[Action(verb="mark", item=f"{site.target}/{a}",
                                                   fields={"pupil": pupil, "mark": str(mark)})]))


def ask_mark(rng: random.Random) -> Case:
    site = Gradebook(rng)
    a, w, pupil = site.pick(rng)
    c = site.classes[site.target]
    c["marks"][(a, pupil)] = rng.randrange(w["max"] // 3, w["max"] + 1)
    goal = (f"In the {site.name} markbook, what mark did {pupil} get on the {w['title']} in {c['title']}, "
            f"and what was it out of?")
    return Case(site, goal, Expect(answer=[float(c["marks"][(a, pupil)]), float(w["max"])]))


def ask_top(rng: random.Random) -> Case:
    site = Gradebook(rng)
    a, w, _ = site.pick(rng)
    c = site.classes[site.target]
    pupil, top = rng.choice(c["pupils"]), rng.randrange(w["max"] * 3 // 4, w["max"] + 1)
    for key in [key for key in c["marks"] if key[0] == a]:
        c["marks"][key] = min(c["marks"][key], top - 1)  # one pupil alone at the top
    c["marks"][(a, pupil)] = top
    goal = f"In the {site.name} markbook, who got the highest mark on the {w['title']} in {c['title']}, and what was it?"
    return Case(site, goal, Expect(answer=[pupil, float(top)]))


TEMPLATES = {"enter-mark": enter_mark, "ask-mark": ask_mark, "ask-top": ask_top}
