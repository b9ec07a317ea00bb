"""Long forms: a page with 20-26 labelled text fields, and one instruction that gives every
field's value, quoted, after a word for the field (its label or another word for it), in any
order. Filling the form is one fill of 20-26 independent choices (which quoted value is whose),
for the executor's bulk workload and its training."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentpair.agent.form_fill import form_request_parts
from agentpair.training.datagen.pages import Builder, Page, code
from agentpair.training.datagen.pages_lists import _date
from agentpair.training.datagen.vocab import Vocab

Make = Callable[[random.Random, Vocab, str], str]  # (rng, words, site) -> a value as typed


@dataclass(frozen=True)
class Field:
    labels: tuple[str, ...]  # what a form may call it
    said: tuple[str, ...]  # what an instruction may call it, besides its label
    make: Make


def _phone(rng: random.Random, *_: Any) -> str:
    return f"{rng.randint(200, 999)}-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"


def _word(pool: str) -> Make:
    return lambda rng, words, _: words.one(rng, pool)


FIELDS = {
    "first": Field(("First name", "Given name"), ("forename", "first name"), _word("given")),
    "last": Field(("Last name", "Surname", "Family name"), ("surname", "family name"), _word("family")),
    "email": Field(("Email", "Email address"), ("e-mail", "mail address"),
                   lambda rng, words, site: f"{words.one(rng, 'given').lower()}@{site.lower()}.com"),
    "phone": Field(("Phone", "Phone number", "Mobile"), ("telephone", "mobile number"), _phone),
    "street": Field(("Street", "Street address"), ("street address", "street"),
                    lambda rng, words, _: f"{rng.randint(1, 299)} {words.one(rng, 'family')} Road"),
    "city": Field(("City", "Town"), ("city", "town"), _word("family")),
    "postal": Field(("Postal code", "Postcode", "ZIP code"), ("zip", "postcode"),
                    lambda rng, *_: f"{rng.randint(10000, 99999)}"),
    "country": Field(("Country",), ("country of residence", "country"), _word("option")),
    "nationality": Field(("Nationality", "Citizenship"), ("nationality", "citizenship"), _word("option")),
    "company": Field(("Company", "Organisation", "Employer"), ("employer", "firm"),
                     lambda rng, words, _: f"{words.one(rng, 'family')} {rng.choice(['Ltd', 'Group', 'Labs'])}"),
    "job": Field(("Job title", "Position"), ("role", "position"),
                 lambda rng, words, _: f"{words.one(rng, 'topic').capitalize()} {rng.choice(['lead', 'analyst', 'editor'])}"),
    "website": Field(("Website", "Homepage"), ("web address", "site"),
                     lambda rng, words, _: f"https://{words.one(rng, 'family').lower()}.org"),
    "username": Field(("Username", "Handle"), ("login name", "user name"),
                      lambda rng, words, _: f"{words.one(rng, 'given').lower()}{rng.randint(10, 99)}"),
    "account": Field(("Account ID", "Member ID"), ("account number", "member number"), lambda rng, *_: code(rng, 8)),
    "promo": Field(("Promo code", "Voucher code"), ("coupon", "voucher"), lambda rng, *_: code(rng, 6)),
    "birth": Field(("Date of birth", "Birthday"), ("birth date", "birthday"), lambda rng, *_: _date(rng)),
    "arrival": Field(("Arrival date", "Check-in date"), ("arrival", "check-in"), lambda rng, *_: _date(rng)),
    "departure": Field(("Departure date", "Check-out date"), ("departure", "check-out"), lambda rng, *_: _date(rng)),
    "guests": Field(("Guests", "Party size"), ("number of guests", "party size"), lambda rng, *_: str(rng.randint(1, 12))),
    "passport": Field(("Passport number",), ("passport", "document number"), lambda rng, *_: code(rng, 9)),
    "contact": Field(("Emergency contact",), ("contact person", "next of kin"),
                     lambda rng, words, _: f"{words.one(rng, 'given')} {words.one(rng, 'family')}"),
    "contact_phone": Field(("Emergency phone",), ("emergency number", "contact's phone"), _phone),
    "department": Field(("Department", "Team"), ("division", "team"),
                        lambda rng, words, _: words.one(rng, "topic").capitalize()),
    "tax": Field(("VAT number", "Tax ID"), ("tax number", "vat id"), lambda rng, *_: f"EU{rng.randint(10**7, 10**8 - 1)}"),
    "seat": Field(("Seat preference",), ("seat",), lambda rng, *_: f"{rng.randint(1, 40)}{rng.choice('ABCDEF')}"),
    "notes": Field(("Delivery notes", "Comments"), ("notes", "comment"),
                   lambda rng, words, _: f"Leave it with {words.one(rng, 'given')}"),
}
OPENINGS = ["Fill in the form with these details: ", "Complete every field: ", "Enter the following: ",
            "Fill out the {h} form: "]


def long_form_page(rng: random.Random, vocab: Vocab, site: str, fields: tuple[int, int] = (20, 26)) -> Page:
    """A form of fields[0]-fields[1] labelled text fields (in two or three sections) and a submit
    button; facts: "fields" (label -> the value to type), "kinds" (label -> its FIELDS key)."""
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 4))
    heading = rng.choice(["Registration", "Booking details", "Membership application", "Your profile",
                          "Travel form", "New account"])
    b.add(f"<h1>{heading}</h1><form>")
    kinds = rng.sample(list(FIELDS), rng.randint(*fields))
    values: dict[str, str] = {}
    kinds_of: dict[str, str] = {}
    cut = sorted(rng.sample(range(3, len(kinds) - 3), rng.randint(1, 2)))
    for i, kind in enumerate(kinds):
        if i == 0 or i in cut:
            b.add(f"<h2>{rng.choice(['About you', 'Contact', 'Trip', 'Work', 'Extras', 'Address'])} ({i // 8 + 1})</h2>")
        field = FIELDS[kind]
        label = rng.choice(field.labels)
        value = field.make(rng, vocab, site)
        while value in values.values():
            value = field.make(rng, vocab, site)
        values[label] = value
        kinds_of[label] = kind
        b.add(f"<p>{b.el('textbox', label)}</p>")
    b.add(f"{b.el('button', rng.choice(['Submit', 'Save', 'Send', 'Register']))}</form>")
    return b.page("long_form", site, f"{heading} - {site}", "/" + heading.lower().replace(" ", "-"),
                  f"Fill in the {heading.lower()} form on {site}", {"heading": heading, "fields": values, "kinds": kinds_of})


def long_form_example(rng: random.Random, page: Page) -> dict[str, Any]:
    """The one instruction that fills the whole form: every value quoted after a word for its
    field (its label half the time), in a shuffled order; the fill's schema (a key per field) and
    target."""
    values: dict[str, str] = page.facts["fields"]
    said = {label: label.lower() if rng.random() < 0.5 else rng.choice(FIELDS[kind].said)
            for label, kind in page.facts["kinds"].items()}
    order = rng.sample(list(values), len(values))
    sep = rng.choice(["; ", ", "])
    opening = rng.choice(OPENINGS).format(h=page.facts["heading"].lower())
    instruction = opening + sep.join(f'{said[label]} "{values[label]}"' for label in order)
    schema, _ = form_request_parts(list(values), instruction)
    return {"kind": "extract", "instruction": instruction, "schema": schema,
            "target": {key: values[label] for key, label in zip(schema["properties"], values)}}
