"""Family `events` (REPORT split: never develop, tune or train on it): a venue's what's-on listing with
category links, an event's page with its ticket prices (a table), a ticket form that refuses more than
six tickets, and a review page where the purchase is confirmed. The same show runs on several nights,
and other shows' titles hold its name."""

from __future__ import annotations

import random

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, choice, errors, esc, field, form, link, redirect, table,
)

VENUES = ["The Lantern Rooms", "Corn Exchange Arts", "Quayside Playhouse"]
SHOWS = ["Midwinter Folk Night", "Jazz Quartet Evening", "Comedy Cellar", "String Trio Recital", "Poetry Slam"]
AROUND = ["Late {}", "{} for Families", "{} Matinee", "Acoustic {}"]
KINDS = ["Music", "Comedy", "Spoken word", "Family"]
TICKETS = ["Standard", "Concession", "Front row"]
BUYERS = [("Wilhelmina Osei", "w.osei@post.test"), ("Rory Gallagher", "rory.g@inbox.test"),
          ("Yuki Tanaka", "yuki.t@mailbox.test")]


class Events(Site):
    menu = [("What's on", "/"), ("Visit us", "/visit")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(VENUES)
        show = rng.choice(SHOWS)
        nights = sorted(rng.sample(range(3, 27), 3))
        billing = [(show, n) for n in nights] + [(a.format(show), rng.choice(nights)) for a in rng.sample(AROUND, 3)]
        billing += [(s, rng.randrange(3, 27)) for s in rng.sample([s for s in SHOWS if s != show], 3)]
        self.events: dict[str, dict] = {}
        for i, (title, night) in enumerate(billing):
            base = rng.randrange(9, 30)
            self.events[f"e{610 + i * 4}"] = {
                "title": title, "date": f"{night} November", "kind": rng.choice(KINDS), "doors": rng.choice(
                    ["18:30", "19:00", "19:30", "20:00"]), "prices": {"Standard": base, "Concession": base - 4,
                                                                     "Front row": base + rng.randrange(5, 15)}}
        self.target = "e610"
        self.events = dict(rng.sample(list(self.events.items()), len(self.events)))
        self.pending: dict[str, str] = {}

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                kind = query.get("kind", "")
                shown = [(k, e) for k, e in self.events.items() if kind in ("", e["kind"])]
                rows = [[link(e["title"], f"/event/{k}"), esc(e["date"]), esc(e["kind"])] for k, e in shown]
                kinds = " ".join(link(k, f"/?kind={k}") for k in KINDS)
                return self.page("What's on", f"<h1>What's on</h1><p>{kinds}</p>" + table(["Event", "Date", "Type"], rows))
            case ["event", k] if k in self.events:
                return self.event(k, {}, [])
            case ["review"] if self.pending:
                e = self.events[self.pending["event"]]
                total = e["prices"][self.pending["type"]] * int(self.pending["qty"])
                body = (f"<h1>Review your order</h1><p>{self.pending['qty']} x {esc(self.pending['type'])} for "
                        f"{esc(e['title'])}, {esc(e['date'])}: £{total} in total, for {esc(self.pending['name'])}.</p>"
                        + form("/review", "", "Confirm purchase") + link("Change", f"/event/{self.pending['event']}"))
                return self.page("Review", body, [("What's on", "/"), (e["title"], f"/event/{self.pending['event']}"),
                                                  ("Review", "")])
            case ["booked"]:
                return self.page("Booked", "<h1>Your tickets are booked</h1>")
            case ["visit"]:
                return self.page("Visit us", f"<h1>Visit {esc(self.name)}</h1><p>Box office opens an hour before doors.</p>")
        return NOT_FOUND

    def event(self, k: str, values: dict[str, str], problems: list[str]) -> str:
        e = self.events[k]
        prices = table(["Ticket", "Price"], [[esc(t), f"£{p}"] for t, p in e["prices"].items()])
        inner = (choice("Ticket type", "type", TICKETS, values.get("type", "")) + field("Quantity", "qty", "1", "number")
                 + field("Name", "name", values.get("name", "")) + field("Email", "email", values.get("email", "")))
        body = (f"<h1>{esc(e['title'])}</h1><p>{esc(e['date'])}, doors {e['doors']}. {esc(e['kind'])}.</p>{prices}"
                f"{errors(problems)}" + form(f"/event/{k}", inner, "Buy tickets"))
        return self.page(e["title"], body, [("What's on", "/"), (e["title"], "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["event", k] if k in self.events:
                qty = data.get("qty", "")
                problems = [] if qty.isdigit() and 1 <= int(qty) <= 6 else ["Choose between 1 and 6 tickets."]
                if not data.get("name", "").strip() or "@" not in data.get("email", ""):
                    problems.append("Enter your name and email.")
                if problems or data.get("type") not in TICKETS:
                    return self.event(k, data, problems or ["Choose a ticket type."])
                self.pending = {"event": k, "type": data["type"], "qty": qty, "name": data["name"].strip()}
                return redirect("/review")
            case ["review"] if self.pending:
                p, self.pending = self.pending, {}
                self.record("tickets", p["event"], type=p["type"], qty=p["qty"], name=p["name"])
                return redirect("/booked")
        return NOT_FOUND


def buy_tickets(rng: random.Random) -> Case:
    site = Events(rng)
    e = site.events[site.target]
    (name, email), kind, qty = rng.choice(BUYERS), rng.choice(TICKETS), rng.randrange(2, 5)
    goal = (f"At {site.name}, buy {qty} {kind} tickets for {e['title']} on {e['date']} in the name of {name} "
            f"({email}).")
    return Case(site, goal, Expect(actions=[Action(verb="tickets", item=site.target,
                                                   fields={"type": kind, "qty": str(qty), "name": name})]))


def ask_prices(rng: random.Random) -> Case:
    site = Events(rng)
    e = site.events[site.target]
    goal = (f"At {site.name}, when do doors open for {e['title']} on {e['date']}, and what do a Front row and a "
            f"Concession ticket cost?")
    return Case(site, goal, Expect(answer=[e["doors"], float(e["prices"]["Front row"]), float(e["prices"]["Concession"])]))


TEMPLATES = {"buy-tickets": buy_tickets, "ask-prices": ask_prices}
