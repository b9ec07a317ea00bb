"""Family `jobs` (development): a job board whose listings run over several pages (a keyword filter
beside them), job pages with salary and closing date, an application form that rejects a bad email,
and the applicant's own applications, withdrawn behind a confirmation. The same title is posted by
other employers, and the target employer posts longer titles holding it."""

from __future__ import annotations

import random
from urllib.parse import quote_plus

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, area, confirm, errors, esc, field, form, link, pages, redirect,
    table, words_match,
)

BOARDS = ["Brightwork Jobs", "Hireline", "The Vacancy Post", "Crewfinder"]
ROLES = ["Data Analyst", "Payroll Officer", "Site Engineer", "Content Designer", "Lab Technician",
         "Account Manager", "Warehouse Supervisor", "Mobile Developer"]
LONGER = ["Senior {}", "Junior {}", "{} Intern", "Lead {}", "{} (Fixed Term)"]
EMPLOYERS = ["Halden Water", "Orrin Logistics", "Pellow Health", "Quayside Media", "Tamsin Foods",
             "Verrow Systems", "Lanark Energy", "Ebbridge Council"]
CITIES = ["Leeds", "Bristol", "Norwich", "Derby", "Exeter", "Stirling"]
APPLICANTS = [("Noor Sheikh", "noor.sheikh@mailbox.test"), ("Callum Reid", "c.reid@post.test"),
              ("Agnieszka Nowak", "aga.nowak@inbox.test"), ("Tobias Lind", "tobias.lind@mailbox.test")]


class Jobs(Site):
    menu = [("Jobs", "/"), ("My applications", "/applications")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(BOARDS)
        role = rng.choice(ROLES)
        employer, *others = rng.sample(EMPLOYERS, 5)
        posts = [(role, employer), *((role, o) for o in others[:3]),
                 *((t.format(role), employer) for t in rng.sample(LONGER, 3)),
                 *((r, rng.choice(EMPLOYERS)) for r in rng.sample([r for r in ROLES if r != role], 6))]
        rng.shuffle(posts)
        self.jobs = {}
        for i, (title, company) in enumerate(posts):
            low = rng.randrange(24, 60) * 1000
            self.jobs[f"{3100 + i * 7}"] = {"title": title, "company": company, "city": rng.choice(CITIES),
                                             "low": low, "high": low + rng.randrange(3, 12) * 1000,
                                             "closes": f"{rng.randrange(1, 28)} {rng.choice(['June', 'July', 'August'])}"}
        self.target = next(j for j, p in self.jobs.items() if (p["title"], p["company"]) == (role, employer))
        self.applied: list[str] = []

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                q = query.get("q", "")
                found = [(j, p) for j, p in self.jobs.items() if words_match(f"{p['title']} {p['company']}", q)]
                shown, pager = pages(found, query, f"/?q={quote_plus(q)}&")
                rows = [[link(p["title"], f"/job/{j}"), esc(p["company"]), esc(p["city"])] for j, p in shown]
                body = (f"<h1>Latest vacancies</h1>{form('/', field('Keywords', 'q', q), 'Filter', 'get')}"
                        f"<p>{len(found)} vacancies</p>" + table(["Job", "Employer", "Location"], rows) + pager)
                return self.page("Vacancies", body)
            case ["job", j] if j in self.jobs:
                p = self.jobs[j]
                facts = table(["Employer", "Location", "Salary", "Closing date"], [[
                    esc(p["company"]), esc(p["city"]), f"£{p['low']:,} to £{p['high']:,} a year", esc(p["closes"])]])
                body = f"<h1>{esc(p['title'])}</h1>{facts}<p>{link('Apply for this job', f'/job/{j}/apply')}</p>"
                return self.page(p["title"], body, [("Jobs", "/"), (p["title"], "")])
            case ["job", j, "apply"] if j in self.jobs:
                return self.apply_form(j, {}, [])
            case ["applications"]:
                rows = [[esc(self.jobs[j]["title"]), esc(self.jobs[j]["company"]), link("Withdraw", f"/withdraw/{j}")]
                        for j in self.applied]
                body = "<h1>My applications</h1>" + (table(["Job", "Employer", ""], rows) if rows else "<p>None yet.</p>")
                return self.page("My applications", body, [("Jobs", "/"), ("My applications", "")])
            case ["withdraw", j] if j in self.applied:
                p = self.jobs[j]
                return confirm(self, f"Withdraw your application for {p['title']} at {p['company']}?",
                               f"/withdraw/{j}", "Withdraw application", "/applications")
            case ["sent"]:
                return self.page("Application sent", "<h1>Your application has been sent</h1>")
        return NOT_FOUND

    def apply_form(self, j: str, values: dict[str, str], problems: list[str]) -> str:
        p = self.jobs[j]
        inner = (field("Full name", "name", values.get("name", "")) + field("Email", "email", values.get("email", ""))
                 + area("Cover note", "note", values.get("note", "")))
        body = f"<h1>Apply: {esc(p['title'])}, {esc(p['company'])}</h1>{errors(problems)}" + form(
            f"/job/{j}/apply", inner, "Send application")
        return self.page("Apply", body, [("Jobs", "/"), (p["title"], f"/job/{j}"), ("Apply", "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["job", j, "apply"] if j in self.jobs:
                problems = ["Enter your full name."] if not data.get("name", "").strip() else []
                if "@" not in data.get("email", "") or "." not in data.get("email", "").split("@")[-1]:
                    problems.append("Enter an email address like name@example.com.")
                if problems:
                    return self.apply_form(j, data, problems)
                self.record("apply", j, name=data["name"].strip(), email=data["email"].strip())
                self.applied.append(j)
                return redirect("/sent")
            case ["withdraw", j] if j in self.applied and data.get("confirm") == "yes":
                self.applied.remove(j)
                self.record("withdraw", j)
                return redirect("/applications")
        return NOT_FOUND


def _role(site: Jobs) -> str:
    p = site.jobs[site.target]
    return f"{p['title']} job at {p['company']}"


def apply(rng: random.Random) -> Case:
    site = Jobs(rng)
    name, email = rng.choice(APPLICANTS)
    goal = (f"On {site.name}, apply for the {_role(site)} as {name}, email {email}, with the cover note "
            f"\"I can start next month.\"")
    return Case(site, goal, Expect(actions=[Action(verb="apply", item=site.target, fields={"name": name, "email": email})]))


def ask_salary(rng: random.Random) -> Case:
    site = Jobs(rng)
    p = site.jobs[site.target]
    goal = f"On {site.name}, what salary range does the {_role(site)} offer, and when does it close?"
    return Case(site, goal, Expect(answer=[float(p["low"]), float(p["high"]), p["closes"]]))


def withdraw(rng: random.Random) -> Case:
    site = Jobs(rng)
    same = [j for j, p in site.jobs.items() if j != site.target and
            (p["title"] == site.jobs[site.target]["title"] or p["company"] == site.jobs[site.target]["company"])]
    site.applied = rng.sample(same, 2) + [site.target]
    rng.shuffle(site.applied)
    goal = f"On {site.name}, withdraw my application for the {_role(site)}; keep my other applications."
    return Case(site, goal, Expect(actions=[Action(verb="withdraw", item=site.target)]))


TEMPLATES = {"apply": apply, "ask-salary": ask_salary, "withdraw": withdraw}
