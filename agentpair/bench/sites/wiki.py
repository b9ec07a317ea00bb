"""Family `wiki` (development): a local-history wiki: a search over article titles, an article's page
with its facts in a box (a table), an edit form for those facts that refuses a population that is not
a whole number. Articles' titles hold the target's name (East X, X Abbey, X railway station)."""

from __future__ import annotations

import random
from urllib.parse import quote_plus

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, errors, esc, field, form, link, redirect, table, words_match,
)

WIKIS = ["Shirepedia", "The Vale Local History Wiki", "Parish Notes Wiki"]
PLACES = ["Harwick", "Ellerby", "Stainmore", "Cadwell", "Thornleigh", "Ravensmoor", "Ashby Fold"]
AROUND = ["East {}", "{} Abbey", "{} railway station", "Little {}", "{} Moor"]
RIVERS = ["Wharfe", "Nidd", "Ure", "Swale", "Calder", "Aire"]
COUNTIES = ["North Riding", "West Riding", "Westmorland", "Cumberland"]
FACTS = [("county", "County"), ("population", "Population"), ("river", "River"), ("first_recorded", "First recorded")]


class Wiki(Site):
    menu = [("Main page", "/"), ("Random article", "/wiki/random")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(WIKIS)
        place = rng.choice(PLACES)
        titles = [place, *(a.format(place) for a in rng.sample(AROUND, 4)),
                  *rng.sample([p for p in PLACES if p != place], 4)]
        self.articles = {f"a{300 + i}": {"title": t, "county": rng.choice(COUNTIES),
                                         "population": str(rng.randrange(180, 40000)), "river": rng.choice(RIVERS),
                                         "first_recorded": str(rng.randrange(1086, 1600))} for i, t in enumerate(titles)}
        self.target = "a300"
        self.articles = dict(rng.sample(list(self.articles.items()), len(self.articles)))

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                search = form("/search", field("Search", "q"), "Go", "get")
                return self.page("Main page", f"<h1>{esc(self.name)}</h1>{search}")
            case ["search"]:
                q = query.get("q", "")
                found = [link(a["title"], f"/wiki/{k}") for k, a in self.articles.items() if words_match(a["title"], q)]
                return self.page("Search", f"<h1>Search results for “{esc(q)}”</h1><ul>"
                                 + "".join(f"<li>{f}</li>" for f in found) + "</ul>",
                                 [("Main page", "/"), (f"Search: {q}", f"/search?q={quote_plus(q)}")])
            case ["wiki", "random"]:
                return redirect(f"/wiki/{next(iter(self.articles))}")
            case ["wiki", k] if k in self.articles:
                a = self.articles[k]
                box = table([label for _, label in FACTS], [[esc(a[key]) for key, _ in FACTS]], caption=a["title"])
                body = (f"<h1>{esc(a['title'])}</h1>{box}<p>{esc(a['title'])} is a place in the {esc(a['county'])} "
                        f"on the River {esc(a['river'])}.</p><p>{link('Edit this page', f'/wiki/{k}/edit')}</p>")
                return self.page(a["title"], body, [("Main page", "/"), (a["title"], "")])
            case ["wiki", k, "edit"] if k in self.articles:
                return self.edit_form(k, self.articles[k], [])
        return NOT_FOUND

    def edit_form(self, k: str, values: dict[str, str], problems: list[str]) -> str:
        a = self.articles[k]
        inner = "".join(field(label, key, values.get(key, "")) for key, label in FACTS)
        return self.page("Edit", f"<h1>Editing {esc(a['title'])}</h1>{errors(problems)}"
                         + form(f"/wiki/{k}/edit", inner, "Save page"),
                         [("Main page", "/"), (a["title"], f"/wiki/{k}"), ("Edit", "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["wiki", k, "edit"] if k in self.articles:
                values = {key: data.get(key, "").strip() for key, _ in FACTS}
                if not values["population"].replace(",", "").isdigit():
                    return self.edit_form(k, values, ["Population must be a whole number."])
                values["population"] = values["population"].replace(",", "")
                changed = {key: v for key, v in values.items() if v != self.articles[k][key]}
                self.articles[k].update(values)
                self.record("edit", k, changed=",".join(sorted(changed)), **changed)
                return redirect(f"/wiki/{k}")
        return NOT_FOUND


def ask_facts(rng: random.Random) -> Case:
    site = Wiki(rng)
    a = site.articles[site.target]
    goal = f"According to {site.name}, what is the population of {a['title']}, and when was it first recorded?"
    return Case(site, goal, Expect(answer=[float(a["population"]), float(a["first_recorded"])]))


def fix_population(rng: random.Random) -> Case:
    site = Wiki(rng)
    a = site.articles[site.target]
    new = str(int(a["population"]) + rng.randrange(50, 900))
    goal = f"On {site.name}, correct the population of {a['title']} to {new}, leaving the other facts as they are."
    edit = Action(verb="edit", item=site.target, fields={"population": new, "changed": "population"})
    return Case(site, goal, Expect(actions=[edit]))


TEMPLATES = {"ask-facts": ask_facts, "fix-population": fix_population}
