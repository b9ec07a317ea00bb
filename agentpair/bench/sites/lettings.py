"""Family `lettings` (REPORT split: never develop, tune or train on it): a letting agent's homes to rent:
a search form (area, bedrooms, highest rent), results over pages, a home's page with its rent,
deposit and facts, and a viewing request form that refuses a phone number without digits. Homes on
the target's street differ by house or flat number and by bedrooms."""

from __future__ import annotations

import random
from urllib.parse import urlencode

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, choice, errors, esc, field, form, link, pages, redirect, table,
)

AGENTS = ["Marlow & Finch Lettings", "Keyhaven Homes", "Oakridge Property Rentals"]
AREAS = ["Jesmond", "Heaton", "Gosforth", "Byker", "Fenham"]
STREETS = ["Cromwell Road", "Tankerville Terrace", "Baronswood Avenue", "Sackville Street", "Ashleigh Grove"]
KINDS = ["flat", "terraced house", "maisonette", "studio"]
SLOTS = ["Thursday 10:00", "Friday 17:30", "Saturday 11:00", "Saturday 14:30"]
PEOPLE = [("Dana Whitlock", "07700 900412"), ("Kofi Mensah", "07700 900873"), ("Elif Aydin", "07700 900158")]


class Lettings(Site):
    menu = [("Find a home", "/"), ("Contact", "/contact")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(AGENTS)
        area, street = rng.choice(AREAS), rng.choice(STREETS)
        number = rng.randrange(4, 60)
        spots = [(f"Flat {f}, {number} {street}", area) for f in rng.sample(range(1, 9), 3)]
        spots += [(f"{n} {street}", area) for n in rng.sample([n for n in range(4, 90) if n != number], 3)]
        spots += [(f"{rng.randrange(2, 90)} {s}", rng.choice(AREAS)) for s in rng.sample(STREETS, 4) for _ in range(2)]
        self.homes: dict[str, dict] = {}
        for i, (address, where) in enumerate(dict.fromkeys(spots)):
            beds = 0 if i > 2 and rng.random() < 0.15 else rng.randrange(1, 4)
            rent = rng.randrange(55, 180) * 10
            self.homes[f"h{7300 + i * 17}"] = {
                "address": address, "area": where, "beds": beds, "rent": rent, "deposit": round(rent * 60 / 52),
                "kind": "studio" if beds == 0 else rng.choice(KINDS[:3]), "available": f"{rng.randrange(1, 29)} July"}
        self.target = "h7300"
        self.homes = dict(rng.sample(list(self.homes.items()), len(self.homes)))

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                inner = (choice("Area", "area", ["Any area", *AREAS]) + choice("Bedrooms", "beds", ["Any", "1+", "2+", "3+"])
                         + field("Highest rent (£ per month)", "max", "", "number"))
                return self.page("Find a home", "<h1>Homes to rent</h1>" + form("/results", inner, "Search", "get"))
            case ["results"]:
                found = [(k, h) for k, h in self.homes.items() if self.fits(h, query)]
                keep = {k: v for k, v in query.items() if k != "page"}
                shown, pager = pages(found, query, f"/results?{urlencode(keep)}&")
                rows = [[link(h["address"], f"/home/{k}"), esc(h["area"]), str(h["beds"]), f"£{h['rent']:,} pcm"]
                        for k, h in shown]
                return self.page("Results", f"<h1>{len(found)} homes</h1>"
                                 + table(["Address", "Area", "Bedrooms", "Rent"], rows) + pager,
                                 [("Find a home", "/"), ("Results", "")])
            case ["home", k] if k in self.homes:
                return self.home(k, {}, [])
            case ["requested"]:
                return self.page("Request sent", "<h1>Thanks: we will confirm your viewing by phone</h1>")
            case ["contact"]:
                return self.page("Contact", f"<h1>Contact</h1><p>Call {esc(self.name)} on 0191 496 0000.</p>")
        return NOT_FOUND

    @staticmethod
    def fits(home: dict, query: dict[str, str]) -> bool:
        beds = query.get("beds", "Any")
        try:
            highest = float(query.get("max") or "inf")
        except ValueError:
            highest = float("inf")
        return (query.get("area", "Any area") in ("Any area", home["area"]) and home["rent"] <= highest
                and (beds == "Any" or home["beds"] >= int(beds.rstrip("+") or 0)))

    def home(self, k: str, values: dict[str, str], problems: list[str]) -> str:
        h = self.homes[k]
        facts = table(["Rent", "Deposit", "Bedrooms", "Type", "Available from"], [[
            f"£{h['rent']:,} pcm", f"£{h['deposit']:,}", str(h["beds"]), esc(h["kind"]), esc(h["available"])]])
        inner = (field("Your name", "name", values.get("name", "")) + field("Phone", "phone", values.get("phone", ""))
                 + choice("Viewing time", "slot", SLOTS, values.get("slot", "")))
        body = (f"<h1>{esc(h['address'])}, {esc(h['area'])}</h1>{facts}<h2>Request a viewing</h2>{errors(problems)}"
                + form(f"/home/{k}", inner, "Request viewing"))
        return self.page(h["address"], body, [("Find a home", "/"), ("Results", "/results"), (h["address"], "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["home", k] if k in self.homes:
                problems = ["Enter your name."] if not data.get("name", "").strip() else []
                if sum(c.isdigit() for c in data.get("phone", "")) < 7:
                    problems.append("Enter a phone number we can call.")
                if data.get("slot") not in SLOTS:
                    problems.append("Choose a viewing time.")
                if problems:
                    return self.home(k, data, problems)
                self.record("viewing", k, name=data["name"].strip(), slot=data["slot"])
                return redirect("/requested")
        return NOT_FOUND


def _home(site: Lettings) -> str:
    h = site.homes[site.target]
    rooms = "studio" if h["beds"] == 0 else f"{h['beds']}-bedroom {h['kind']}"
    return f"the {rooms} at {h['address']}, {h['area']}"


def viewing(rng: random.Random) -> Case:
    site = Lettings(rng)
    (name, phone), slot = rng.choice(PEOPLE), rng.choice(SLOTS)
    goal = f"With {site.name}, request a viewing of {_home(site)} on {slot} for {name}, phone {phone}."
    return Case(site, goal, Expect(actions=[Action(verb="viewing", item=site.target, fields={"name": name, "slot": slot})]))


def ask_costs(rng: random.Random) -> Case:
    site = Lettings(rng)
    h = site.homes[site.target]
    goal = f"With {site.name}, what are the monthly rent and the deposit of {_home(site)}, and from when is it available?"
    return Case(site, goal, Expect(answer=[float(h["rent"]), float(h["deposit"]), h["available"]]))


def ask_count(rng: random.Random) -> Case:
    site = Lettings(rng)
    h = site.homes[site.target]
    beds, highest = max(1, h["beds"]), h["rent"] + rng.randrange(0, 40) * 10
    query = {"area": h["area"], "beds": f"{beds}+", "max": str(highest)}
    count = sum(site.fits(home, query) for home in site.homes.values())
    goal = (f"With {site.name}, how many homes in {h['area']} with at least {beds} bedroom{'s' * (beds > 1)} "
            f"cost at most £{highest:,} a month?")
    return Case(site, goal, Expect(answer=[float(count)]))


TEMPLATES = {"viewing": viewing, "ask-costs": ask_costs, "ask-count": ask_count}
