"""Family `clinic` (development): a practice's clinicians, each with a two-week calendar of free times
(a table: days as columns, a link per free time, the second week behind "Next week"), a booking form
that wants a reason chosen, and the patient's appointments, cancelled behind a confirmation.
Clinicians' names sound alike and share a speciality; the same time is free on other days."""

from __future__ import annotations

import random
from datetime import date, timedelta

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, choice, confirm, errors, esc, field, form, link, redirect, table,
)

PRACTICES = ["Wyndham Road Surgery", "Elmstead Health Centre", "Kirkgate Medical Practice"]
NAMES = [("Dr Helen Marsh", "Dr Ellen Marsh", "Dr Helen Marshall"), ("Dr Omar Farouk", "Dr Omar Faruq", "Dr Amar Farouk"),
         ("Dr Sian Pryce", "Dr Sian Price", "Dr Sean Pryce")]
OTHERS = ["Dr Priya Nair", "Dr Gareth Hume", "Dr Ines Duarte"]
SPECIALITIES = ["GP", "Physiotherapy", "Dermatology"]
TIMES = ["08:30", "09:10", "09:50", "10:30", "11:10", "14:00", "14:40", "15:20"]
REASONS = ["Choose a reason", "New problem", "Follow-up", "Test results", "Medication review"]
PATIENTS = ["Ruth Okafor", "Declan Moore", "Yusuf Demir", "Freya Lindqvist"]


class Clinic(Site):
    menu = [("Clinicians", "/"), ("My appointments", "/appointments")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(PRACTICES)
        speciality = rng.choice(SPECIALITIES)
        names = [*rng.choice(NAMES), *rng.sample(OTHERS, 2)]
        self.target = "c1"
        self.clinicians = {f"c{i + 1}": {"name": n, "speciality": speciality if i < 3 else rng.choice(SPECIALITIES)}
                           for i, n in enumerate(names)}
        self.clinicians = dict(rng.sample(list(self.clinicians.items()), len(names)))  # listed in no telling order
        monday = date(2025, rng.randrange(3, 10), 1)
        monday += timedelta(days=(7 - monday.weekday()) % 7)
        self.days = [monday + timedelta(days=w * 7 + d) for w in range(2) for d in range(5)]
        self.slots: dict[str, dict[str, str]] = {}
        for c in self.clinicians:
            for day in self.days:
                for t in sorted(rng.sample(TIMES, 3)):
                    self.slots[f"s{len(self.slots) + 100}"] = {"clinician": c, "day": label(day), "time": t}
        self.booked: list[str] = []

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                rows = [[link(c["name"], f"/clinician/{k}"), esc(c["speciality"])] for k, c in self.clinicians.items()]
                return self.page("Clinicians", "<h1>Book with a clinician</h1>" + table(["Clinician", "Speciality"], rows))
            case ["clinician", k] if k in self.clinicians:
                return self.calendar(k, 1 if query.get("week") == "2" else 0)
            case ["slot", s] if s in self.slots and s not in self.booked:
                return self.booking(s, {}, [])
            case ["appointments"]:
                rows = [[esc(self.slots[s]["day"]), esc(self.slots[s]["time"]),
                         esc(self.clinicians[self.slots[s]["clinician"]]["name"]), link("Cancel", f"/cancel/{s}")]
                        for s in self.booked]
                body = "<h1>My appointments</h1>" + (table(["Date", "Time", "With", ""], rows) if rows else "<p>None.</p>")
                return self.page("My appointments", body, [("Clinicians", "/"), ("My appointments", "")])
            case ["cancel", s] if s in self.booked:
                slot = self.slots[s]
                return confirm(self, f"Cancel your appointment on {slot['day']} at {slot['time']}?", f"/cancel/{s}",
                               "Yes, cancel it", "/appointments")
            case ["booked"]:
                return self.page("Booked", "<h1>Your appointment is booked</h1>")
        return NOT_FOUND

    def calendar(self, k: str, week: int) -> str:
        c = self.clinicians[k]
        days = self.days[week * 5: week * 5 + 5]
        cells = [[" ".join(link(s["time"], f"/slot/{sid}") for sid, s in self.slots.items()
                           if s["clinician"] == k and s["day"] == label(day) and sid not in self.booked) or "Full"
                  for day in days]]
        other = link("Next week", f"/clinician/{k}?week=2") if week == 0 else link("Previous week", f"/clinician/{k}")
        body = (f"<h1>{esc(c['name'])}</h1><p>{esc(c['speciality'])}. Free times, week of {esc(label(days[0]))}:</p>"
                + table([label(d) for d in days], cells) + other)
        return self.page(c["name"], body, [("Clinicians", "/"), (c["name"], "")])

    def booking(self, s: str, values: dict[str, str], problems: list[str]) -> str:
        slot = self.slots[s]
        who = self.clinicians[slot["clinician"]]
        inner = field("Patient name", "patient", values.get("patient", "")) + choice("Reason", "reason", REASONS)
        body = (f"<h1>Book {esc(slot['time'])} on {esc(slot['day'])}</h1><p>With {esc(who['name'])}</p>"
                + errors(problems) + form(f"/slot/{s}", inner, "Book appointment"))
        return self.page("Book", body, [("Clinicians", "/"), (who["name"], f"/clinician/{slot['clinician']}"), ("Book", "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["slot", s] if s in self.slots and s not in self.booked:
                problems = ["Enter the patient's name."] if not data.get("patient", "").strip() else []
                if data.get("reason") not in REASONS[1:]:
                    problems.append("Choose a reason for the appointment.")
                if problems:
                    return self.booking(s, data, problems)
                self.booked.append(s)
                self.record("book", s, patient=data["patient"].strip(), reason=data["reason"])
                return redirect("/booked")
            case ["cancel", s] if s in self.booked and data.get("confirm") == "yes":
                self.booked.remove(s)
                self.record("cancel", s)
                return redirect("/appointments")
        return NOT_FOUND

    def slot_of(self, k: str, rng: random.Random) -> str:
        return rng.choice([sid for sid, s in self.slots.items() if s["clinician"] == k])


def label(day: date) -> str:
    return f"{day:%A} {day.day} {day:%B}"


def book(rng: random.Random) -> Case:
    site = Clinic(rng)
    s = site.slot_of(site.target, rng)
    slot, patient = site.slots[s], rng.choice(PATIENTS)
    goal = (f"At {site.name}, book {site.clinicians[site.target]['name']} on {slot['day']} at {slot['time']} "
            f"for {patient}; the reason is a follow-up.")
    return Case(site, goal, Expect(actions=[Action(verb="book", item=s,
                                                   fields={"patient": patient, "reason": "Follow-up"})]))


def cancel(rng: random.Random) -> Case:
    site = Clinic(rng)
    mine = [site.slot_of(site.target, rng) for _ in range(3)] + [site.slot_of("c2", rng)]
    site.booked = list(dict.fromkeys(mine))
    s = site.booked[0]
    rng.shuffle(site.booked)
    slot = site.slots[s]
    goal = (f"At {site.name}, cancel my appointment with {site.clinicians[site.target]['name']} on {slot['day']}; "
            f"keep the others.")
    same_day = [b for b in site.booked if site.slots[b]["day"] == slot["day"] and b != s]
    if same_day:
        goal = goal.replace(slot["day"], f"{slot['day']} at {slot['time']}")
    return Case(site, goal, Expect(actions=[Action(verb="cancel", item=s)]))


def ask_first_free(rng: random.Random) -> Case:
    site = Clinic(rng)
    day = label(rng.choice(site.days))
    times = [s["time"] for s in site.slots.values() if s["clinician"] == site.target and s["day"] == day]
    goal = f"At {site.name}, what is the earliest free time {site.clinicians[site.target]['name']} has on {day}?"
    return Case(site, goal, Expect(answer=[min(times)]))


TEMPLATES = {"book": book, "cancel": cancel, "ask-first-free": ask_first_free}
