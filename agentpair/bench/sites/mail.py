"""Family `mail` (development): a webmail inbox over pages (newest first), a message's page with its
sender, date and body, a reply form that refuses an empty reply, and deletion behind a confirmation.
The target's sender writes other messages, and other senders use the same subject."""

from __future__ import annotations

import random

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, area, confirm, errors, esc, form, link, pages, redirect, table,
)

SERVICES = ["Postbox Mail", "Wren Webmail", "Larkspur Mail"]
SENDERS = ["Hollis Grant", "Meera Pillai", "Jakub Nowicki", "Sunniva Berg", "Kwame Asante", "Dolores Vega"]
SUBJECTS = ["Venue for the spring offsite", "Invoice 4471 overdue", "Quarterly figures draft", "Team lunch on Friday",
            "Parking permits renewal", "Laptop replacement request"]
ROOMS = ["the Linden Room", "Studio B", "the boardroom on floor 4", "the Harbour Suite"]


class Mail(Site):
    menu = [("Inbox", "/"), ("Sent", "/sent")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(SERVICES)
        sender, subject = rng.choice(SENDERS), rng.choice(SUBJECTS)
        letters = [(sender, subject), *((s, subject) for s in rng.sample([s for s in SENDERS if s != sender], 2)),
                   *((sender, s) for s in rng.sample([s for s in SUBJECTS if s != subject], 2))]
        letters += [(rng.choice(SENDERS), rng.choice(SUBJECTS)) for _ in range(9)]
        self.messages: dict[str, dict] = {}
        for i, (who, about) in enumerate(dict.fromkeys(letters)):
            self.messages[f"m{560 + i * 9}"] = {
                "from": who, "subject": about, "date": f"{rng.randrange(1, 29)} October", "time": rng.choice(
                    ["09:30", "10:15", "13:00", "14:45", "16:20"]), "room": rng.choice(ROOMS),
                "people": rng.randrange(4, 30)}
        self.target = "m560"
        self.messages = dict(rng.sample(list(self.messages.items()), len(self.messages)))
        self.sent: list[str] = []

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                shown, pager = pages(list(self.messages.items()), query, "/?")
                rows = [[esc(m["from"]), link(m["subject"], f"/msg/{k}"), esc(m["date"])] for k, m in shown]
                return self.page("Inbox", f"<h1>Inbox ({len(self.messages)})</h1>"
                                 + table(["From", "Subject", "Received"], rows) + pager)
            case ["msg", k] if k in self.messages:
                m = self.messages[k]
                body = (f"<h1>{esc(m['subject'])}</h1><p>From: {esc(m['from'])}, {esc(m['date'])}</p>"
                        f"<p>Hello, we meet at {m['time']} in {esc(m['room'])}; {m['people']} people have said yes."
                        f"</p><p>{link('Reply', f'/msg/{k}/reply')} {link('Delete', f'/msg/{k}/delete')}</p>")
                return self.page(m["subject"], body, [("Inbox", "/"), (m["subject"], "")])
            case ["msg", k, "reply"] if k in self.messages:
                return self.reply_form(k, [])
            case ["msg", k, "delete"] if k in self.messages:
                m = self.messages[k]
                return confirm(self, f"Delete “{m['subject']}” from {m['from']}?", f"/msg/{k}/delete", "Delete",
                               f"/msg/{k}")
            case ["sent"]:
                rows = [[esc(line)] for line in self.sent]
                return self.page("Sent", "<h1>Sent</h1>" + (table(["Message"], rows) if rows else "<p>Nothing sent.</p>"))
        return NOT_FOUND

    def reply_form(self, k: str, problems: list[str]) -> str:
        m = self.messages[k]
        return self.page("Reply", f"<h1>Re: {esc(m['subject'])}</h1><p>To: {esc(m['from'])}</p>{errors(problems)}"
                         + form(f"/msg/{k}/reply", area("Message", "body"), "Send"),
                         [("Inbox", "/"), (m["subject"], f"/msg/{k}"), ("Reply", "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["msg", k, "reply"] if k in self.messages:
                if not data.get("body", "").strip():
                    return self.reply_form(k, ["Write a message before sending."])
                self.record("reply", k)
                self.sent.append(f"Re: {self.messages[k]['subject']} to {self.messages[k]['from']}")
                return redirect("/sent")
            case ["msg", k, "delete"] if k in self.messages and data.get("confirm") == "yes":
                del self.messages[k]
                self.record("delete", k)
                return redirect("/")
        return NOT_FOUND


def _which(site: Mail) -> str:
    m = site.messages[site.target]
    return f"the email from {m['from']} titled “{m['subject']}”"


def reply(rng: random.Random) -> Case:
    site = Mail(rng)
    return Case(site, f"In {site.name}, reply to {_which(site)} with \"Thanks, I will be there.\"",
                Expect(actions=[Action(verb="reply", item=site.target)]))


def delete(rng: random.Random) -> Case:
    site = Mail(rng)
    return Case(site, f"In {site.name}, delete {_which(site)}; keep every other message.",
                Expect(actions=[Action(verb="delete", item=site.target)]))


def ask_meeting(rng: random.Random) -> Case:
    site = Mail(rng)
    m = site.messages[site.target]
    goal = f"In {site.name}, {_which(site)} names a meeting: at what time, in which room, and how many said yes?"
    return Case(site, goal, Expect(answer=[m["time"], m["room"].removeprefix("the "), float(m["people"])]))


TEMPLATES = {"reply": reply, "delete": delete, "ask-meeting": ask_meeting}
