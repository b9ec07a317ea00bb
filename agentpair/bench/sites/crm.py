"""Family `crm` (REPORT split: never develop, tune or train on it): a sales CRM: a deals pipeline over
pages, a deal's page with a stage form, contacts with their company, and a contact's activity log with
a form to log a call, email or meeting that refuses an empty summary. Deals of the target's company
have names holding its name, and the same deal name exists at another company; contacts share names."""

from __future__ import annotations

import random

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, area, choice, errors, esc, form, link, pages, redirect, table,
)

CRMS = ["Pipewell CRM", "Ledgerline Sales", "Brightfunnel"]
COMPANIES = ["Atherton Freight", "Bellweather Dairies", "Cobalt Print Works", "Dunmore Hotels", "Eastgate Clinics"]
DEALS = ["Fleet telematics", "Warehouse scanners", "Staff rota software", "Card terminals", "Guest wifi"]
SUFFIXES = ["{} renewal", "{} (phase 2)", "{} pilot"]
LOOK_ALIKES = [("Harriet Lowe", "Harriet Lowry"), ("Idris Pryce", "Idris Price"), ("Kirsty Mair", "Kirsty Muir")]
PEOPLE = ["Janek Wolski", "Leon Baptiste", "Nadia Haddad", "Owen Tremayne"]
STAGES = ["Lead", "Qualified", "Proposal", "Negotiation", "Won", "Lost"]
OWNERS = ["Amelia Ross", "Ben Carver", "Chidi Eze"]
KINDS = ["Call", "Email", "Meeting"]


class Crm(Site):
    menu = [("Deals", "/deals"), ("Contacts", "/contacts")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(CRMS)
        company, other = rng.sample(COMPANIES, 2)
        deal = rng.choice(DEALS)
        names = [(deal, company), (deal, other), *((s.format(deal), company) for s in SUFFIXES)]
        names += [(d, rng.choice(COMPANIES)) for d in rng.sample([d for d in DEALS if d != deal], 4)]
        self.deals = {f"d{900 + i * 3}": {"name": n, "company": c, "value": rng.randrange(20, 400) * 250,
                                          "stage": rng.choice(STAGES[:4]), "owner": rng.choice(OWNERS)}
                      for i, (n, c) in enumerate(names)}
        self.target = "d900"
        self.deals = dict(rng.sample(list(self.deals.items()), len(self.deals)))
        self.contacts = {f"p{40 + i}": {"name": n, "company": COMPANIES[i % len(COMPANIES)] if i else company,
                                        "phone": f"0161 496 {rng.randrange(1000, 9999)}", "log": []}
                         for i, n in enumerate([*rng.choice(LOOK_ALIKES), *PEOPLE])}
        self.contacts["p41"]["company"] = other  # the target contact's look-alike name, at the other company

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                return redirect("/deals")
            case ["deals"]:
                shown, pager = pages(list(self.deals.items()), query, "/deals?")
                rows = [[link(d["name"], f"/deal/{k}"), esc(d["company"]), f"£{d['value']:,}", esc(d["stage"])]
                        for k, d in shown]
                return self.page("Deals", "<h1>Pipeline</h1>" + table(["Deal", "Company", "Value", "Stage"], rows) + pager)
            case ["deal", k] if k in self.deals:
                d = self.deals[k]
                facts = table(["Company", "Value", "Stage", "Owner"],
                              [[esc(d["company"]), f"£{d['value']:,}", esc(d["stage"]), esc(d["owner"])]])
                body = (f"<h1>{esc(d['name'])}</h1>{facts}<h2>Move stage</h2>"
                        + form(f"/deal/{k}", choice("Stage", "stage", STAGES, d["stage"]), "Update stage"))
                return self.page(d["name"], body, [("Deals", "/deals"), (d["name"], "")])
            case ["contacts"]:
                rows = [[link(c["name"], f"/contact/{k}"), esc(c["company"]), esc(c["phone"])]
                        for k, c in self.contacts.items()]
                return self.page("Contacts", "<h1>Contacts</h1>" + table(["Name", "Company", "Phone"], rows))
            case ["contact", k] if k in self.contacts:
                return self.contact(k, [])
        return NOT_FOUND

    def contact(self, k: str, problems: list[str]) -> str:
        c = self.contacts[k]
        log = "".join(f"<li>{esc(line)}</li>" for line in c["log"]) or "<li>No activity yet.</li>"
        inner = choice("Activity", "kind", KINDS) + area("Summary", "summary")
        body = (f"<h1>{esc(c['name'])}</h1><p>{esc(c['company'])}, {esc(c['phone'])}</p><h2>Activity</h2><ul>{log}</ul>"
                f"<h2>Log activity</h2>{errors(problems)}" + form(f"/contact/{k}", inner, "Save activity"))
        return self.page(c["name"], body, [("Contacts", "/contacts"), (c["name"], "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["deal", k] if k in self.deals and data.get("stage") in STAGES:
                self.deals[k]["stage"] = data["stage"]
                self.record("stage", k, stage=data["stage"])
                return redirect(f"/deal/{k}")
            case ["contact", k] if k in self.contacts and data.get("kind") in KINDS:
                if not data.get("summary", "").strip():
                    return self.contact(k, ["Add a summary of the activity."])
                self.contacts[k]["log"].append(f"{data['kind']}: {data['summary'].strip()}")
                self.record("note", k, kind=data["kind"])
                return redirect(f"/contact/{k}")
        return NOT_FOUND


def _deal(site: Crm) -> str:
    d = site.deals[site.target]
    return f"the “{d['name']}” deal with {d['company']}"


def close_won(rng: random.Random) -> Case:
    site = Crm(rng)
    return Case(site, f"In {site.name}, mark {_deal(site)} as Won.",
                Expect(actions=[Action(verb="stage", item=site.target, fields={"stage": "Won"})]))


def log_call(rng: random.Random) -> Case:
    site = Crm(rng)
    c = site.contacts["p40"]
    goal = (f"In {site.name}, log a call with {c['name']} of {c['company']}, summary: \"Agreed to send a revised "
            f"quote.\"")
    return Case(site, goal, Expect(actions=[Action(verb="note", item="p40", fields={"kind": "Call"})]))


def ask_deal(rng: random.Random) -> Case:
    site = Crm(rng)
    d = site.deals[site.target]
    return Case(site, f"In {site.name}, what is {_deal(site)} worth, and who owns it?",
                Expect(answer=[float(d["value"]), d["owner"]]))


TEMPLATES = {"close-won": close_won, "log-call": log_call, "ask-deal": ask_deal}
