"""Family `accounts` (development): a user-administration console: a paged, searchable table of users,
a user's page with their details, an edit form (role and team) and deactivation behind a
confirmation. Users share first or last names with the target, and one has the very same name (the
email tells them apart)."""

from __future__ import annotations

import random
from urllib.parse import quote_plus

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, choice, confirm, esc, field, form, link, pages, redirect, table,
    words_match,
)

CONSOLES = ["Teamdesk Admin", "Corvid Directory", "Keystone Console"]
FIRSTS = ["Ana", "Jonas", "Mireille", "Tariq", "Bethan", "Kenji", "Lucia", "Femi", "Orla", "Stefan"]
LASTS = ["Costa", "Berg", "Achebe", "Lindgren", "Moreau", "Okoye", "Walsh", "Havel", "Sato", "Quinn"]
DOMAINS = ["corvid.test", "corvid-labs.test", "partners.test"]
ROLES = ["Viewer", "Editor", "Billing manager", "Administrator"]
TEAMS = ["Finance", "Support", "Platform", "Marketing", "Legal"]
MONTHS = ["January", "February", "March", "April", "May", "June"]


class Accounts(Site):
    menu = [("Users", "/users"), ("Audit log", "/audit")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(CONSOLES)
        first, last = rng.choice(FIRSTS), rng.choice(LASTS)
        people = [(first, last), (first, last), (first, rng.choice(LASTS)), (rng.choice(FIRSTS), last),
                  (first, f"{last}-{rng.choice(LASTS)}")]
        people += [(rng.choice(FIRSTS), rng.choice(LASTS)) for _ in range(10)]
        self.users: dict[str, dict[str, str]] = {}
        for i, (f, l) in enumerate(people):
            domain = DOMAINS[1] if i == 1 else DOMAINS[0] if i == 0 else rng.choice(DOMAINS)
            self.users[f"u{204 + i * 3}"] = {
                "name": f"{f} {l}", "email": f"{f.lower()}.{l.lower()}{'' if i < 2 else i}@{domain}",
                "role": rng.choice(ROLES[:3]), "team": rng.choice(TEAMS), "status": "Active",
                "last": f"{rng.randrange(1, 29)} {rng.choice(MONTHS)} 2025"}
        self.target = "u204"
        self.users = dict(rng.sample(list(self.users.items()), len(self.users)))

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                return redirect("/users")
            case ["users"]:
                q = query.get("q", "")
                found = [(k, u) for k, u in self.users.items() if words_match(f"{u['name']} {u['email']}", q)]
                shown, pager = pages(found, query, f"/users?q={quote_plus(q)}&")
                rows = [[link(u["name"], f"/user/{k}"), esc(u["email"]), esc(u["role"]), esc(u["status"])]
                        for k, u in shown]
                body = ("<h1>Users</h1>" + form("/users", field("Find a user", "q", q), "Find", "get")
                        + table(["Name", "Email", "Role", "Status"], rows) + pager)
                return self.page("Users", body)
            case ["user", k] if k in self.users:
                u = self.users[k]
                facts = table(["Email", "Role", "Team", "Status", "Last sign-in"],
                              [[esc(u[f]) for f in ("email", "role", "team", "status", "last")]])
                actions = link("Edit user", f"/user/{k}/edit") + (
                    " " + link("Deactivate account", f"/user/{k}/deactivate") if u["status"] == "Active" else "")
                return self.page(u["name"], f"<h1>{esc(u['name'])}</h1>{facts}<p>{actions}</p>",
                                 [("Users", "/users"), (u["name"], "")])
            case ["user", k, "edit"] if k in self.users:
                u = self.users[k]
                inner = choice("Role", "role", ROLES, u["role"]) + choice("Team", "team", TEAMS, u["team"])
                return self.page("Edit user", f"<h1>Edit {esc(u['name'])}</h1><p>{esc(u['email'])}</p>"
                                 + form(f"/user/{k}/edit", inner, "Save changes"),
                                 [("Users", "/users"), (u["name"], f"/user/{k}"), ("Edit", "")])
            case ["user", k, "deactivate"] if k in self.users:
                u = self.users[k]
                return confirm(self, f"Deactivate {u['name']} ({u['email']})? They will be signed out.",
                               f"/user/{k}/deactivate", "Deactivate", f"/user/{k}")
            case ["audit"]:
                rows = [[esc(a.verb), esc(self.users[a.item]["email"])] for a in self.actions]
                return self.page("Audit log", "<h1>Audit log</h1>" + table(["Change", "User"], rows))
        return NOT_FOUND

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["user", k, "edit"] if k in self.users and data.get("role") in ROLES and data.get("team") in TEAMS:
                u = self.users[k]
                u.update(role=data["role"], team=data["team"])
                self.record("update", k, role=data["role"], team=data["team"])
                return redirect(f"/user/{k}")
            case ["user", k, "deactivate"] if k in self.users and data.get("confirm") == "yes":
                self.users[k]["status"] = "Deactivated"
                self.record("deactivate", k)
                return redirect(f"/user/{k}")
        return NOT_FOUND


def _who(site: Accounts) -> str:
    u = site.users[site.target]
    return f"{u['name']} ({u['email']})"


def deactivate(rng: random.Random) -> Case:
    site = Accounts(rng)
    return Case(site, f"In {site.name}, deactivate the account of {_who(site)}.",
                Expect(actions=[Action(verb="deactivate", item=site.target)]))


def change_role(rng: random.Random) -> Case:
    site = Accounts(rng)
    u = site.users[site.target]
    role = rng.choice([r for r in ROLES if r != u["role"]])
    article = "an" if role[0] in "AEIOU" else "a"
    return Case(site, f"In {site.name}, make {_who(site)} {article} {role}, leaving their team as it is.",
                Expect(actions=[Action(verb="update", item=site.target, fields={"role": role, "team": u["team"]})]))


def ask_last_sign_in(rng: random.Random) -> Case:
    site = Accounts(rng)
    u = site.users[site.target]
    goal = f"In {site.name}, which team is {_who(site)} on, and when did they last sign in?"
    return Case(site, goal, Expect(answer=[u["team"], u["last"]]))


TEMPLATES = {"deactivate": deactivate, "change-role": change_role, "ask-last-sign-in": ask_last_sign_in}
