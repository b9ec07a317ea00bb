"""Family `helpdesk` (REPORT split: never develop, tune or train on it): a support desk: a queue of
tickets over pages with a status filter, a ticket's page with the customer's messages and facts, and
one update form (status, assignee, reply) that refuses to mark a ticket solved without a reply.
Subjects repeat across customers, and the target customer has other tickets with similar subjects."""

from __future__ import annotations

import random

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, area, choice, errors, esc, form, link, pages, redirect, table,
)

DESKS = ["Parcelwise Support", "Lumen Home Help Centre", "Kettleby Care Desk"]
SUBJECTS = ["Refund not received", "Parcel arrived damaged", "Wrong size delivered", "Cannot reset password",
            "Charged twice for one order", "Delivery address change"]
CUSTOMERS = ["Greta Holm", "Samuel Adeyemi", "Chloe Brennan", "Rafael Souza", "Ingrid Falk", "Hamza Qureshi"]
AGENTS = ["Unassigned", "Priya (billing)", "Marcus (logistics)", "Jo (accounts)", "Elena (returns)"]
STATUSES = ["Open", "Pending", "Solved"]
PRIORITIES = ["Low", "Normal", "High", "Urgent"]
VIEWS = {"Unsolved": ["Open", "Pending"], "Any": STATUSES}


class Helpdesk(Site):
    menu = [("Queue", "/tickets"), ("Solved", "/tickets?status=Solved")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(DESKS)
        subject, customer = rng.choice(SUBJECTS), rng.choice(CUSTOMERS)
        pairs = [(subject, customer), *((subject, c) for c in rng.sample([c for c in CUSTOMERS if c != customer], 3)),
                 *((s, customer) for s in rng.sample([s for s in SUBJECTS if s != subject], 2))]
        pairs += [pair for pair in ((rng.choice(SUBJECTS), rng.choice(CUSTOMERS)) for _ in range(9))
                  if pair != (subject, customer)][:8]
        self.tickets: dict[str, dict] = {}
        for i, (s, c) in enumerate(pairs):
            self.tickets[str(52031 + i * 13 + rng.randrange(10))] = {
                "subject": s, "customer": c, "priority": rng.choice(PRIORITIES), "status": rng.choice(STATUSES[:2]),
                "assignee": "Unassigned", "order": f"PW-{rng.randrange(100000, 999999)}",
                "message": f"Hello, about order {{order}}: {s.lower()}. Please help."}
        self.target = next(iter(self.tickets))
        self.tickets = dict(rng.sample(list(self.tickets.items()), len(self.tickets)))

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                return redirect("/tickets")
            case ["tickets"]:
                status = query.get("status", "Unsolved")
                mine = [(k, t) for k, t in self.tickets.items() if t["status"] in VIEWS.get(status, [status])]
                shown, pager = pages(mine, query, f"/tickets?status={status}&")
                rows = [[link(f"#{k}", f"/ticket/{k}"), esc(t["subject"]), esc(t["customer"]), esc(t["priority"]),
                         esc(t["status"])] for k, t in shown]
                pick = form("/tickets", choice("Show", "status", [*VIEWS, *STATUSES], status), "Show", "get")
                return self.page("Queue", f"<h1>Tickets: {esc(status)}</h1>{pick}"
                                 + table(["Ticket", "Subject", "Customer", "Priority", "Status"], rows) + pager)
            case ["ticket", k] if k in self.tickets:
                return self.ticket(k, [])
            case ["updated", k] if k in self.tickets:
                return self.page("Updated", f"<h1>Ticket #{k} updated</h1>{link('Back to the queue', '/tickets')}")
        return NOT_FOUND

    def ticket(self, k: str, problems: list[str]) -> str:
        t = self.tickets[k]
        facts = table(["Customer", "Order", "Priority", "Status", "Assignee"],
                      [[esc(t[f]) for f in ("customer", "order", "priority", "status", "assignee")]])
        inner = (choice("Status", "status", STATUSES, t["status"]) + choice("Assignee", "assignee", AGENTS, t["assignee"])
                 + area("Reply to the customer", "reply"))
        body = (f"<h1>#{k} {esc(t['subject'])}</h1>{facts}<blockquote>{esc(t['message'].format(order=t['order']))}"
                f"</blockquote>{errors(problems)}<h2>Update ticket</h2>" + form(f"/ticket/{k}", inner, "Update"))
        return self.page(f"#{k}", body, [("Queue", "/tickets"), (f"#{k}", "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["ticket", k] if k in self.tickets:
                status, assignee = data.get("status"), data.get("assignee")
                if status not in STATUSES or assignee not in AGENTS:
                    return self.ticket(k, ["Choose a status and an assignee."])
                if status == "Solved" and not data.get("reply", "").strip():
                    return self.ticket(k, ["Add a reply to the customer before marking the ticket solved."])
                self.tickets[k].update(status=status, assignee=assignee)
                self.record("update", k, status=status, assignee=assignee)
                return redirect(f"/updated/{k}")
        return NOT_FOUND


def _which(site: Helpdesk) -> str:
    t = site.tickets[site.target]
    return f"{t['customer']}'s ticket “{t['subject']}”"


def solve(rng: random.Random) -> Case:
    site = Helpdesk(rng)
    t = site.tickets[site.target]
    goal = (f"On {site.name}, mark {_which(site)} as solved, replying \"Sorted: you should see it within 3 days.\" "
            f"Change nothing else.")
    return Case(site, goal, Expect(actions=[Action(verb="update", item=site.target,
                                                   fields={"status": "Solved", "assignee": t["assignee"]})]))


def assign(rng: random.Random) -> Case:
    site = Helpdesk(rng)
    t = site.tickets[site.target]
    agent = rng.choice(AGENTS[1:])
    goal = f"On {site.name}, assign {_which(site)} to {agent.split(' ')[0]}, leaving its status as it is."
    return Case(site, goal, Expect(actions=[Action(verb="update", item=site.target,
                                                   fields={"status": t["status"], "assignee": agent})]))


def ask_order(rng: random.Random) -> Case:
    site = Helpdesk(rng)
    t = site.tickets[site.target]
    goal = f"On {site.name}, which order is {_which(site)} about, and what priority does the ticket have?"
    return Case(site, goal, Expect(answer=[t["order"], t["priority"]]))


TEMPLATES = {"solve": solve, "assign": assign, "ask-order": ask_order}
