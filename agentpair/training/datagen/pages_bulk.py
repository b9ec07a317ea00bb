"""Bulk pages: a table or a list of cards with 10-20 records, and the extraction of every record
into an array of objects (fields named as the header says, or in other words), for the executor's
bulk workload and its training."""

from __future__ import annotations

import html
import random
from dataclasses import dataclass
from typing import Any, Callable

from agentpair.training.datagen.pages import Builder, Page, code, distinct, person, price, product
from agentpair.training.datagen.pages_lists import _date
from agentpair.training.datagen.vocab import Vocab


@dataclass(frozen=True)
class Column:
    headers: tuple[str, ...]  # what a table's header may call it
    fields: tuple[str, ...]  # what an extraction's schema may call it
    kind: str  # its JSON type
    make: Callable[[random.Random, Vocab], tuple[Any, str]]  # -> (value, as shown)


def _shown(make: Callable[[random.Random, Vocab], Any]) -> Callable[[random.Random, Vocab], tuple[Any, str]]:
    def value(rng: random.Random, vocab: Vocab) -> tuple[Any, str]:
        v = make(rng, vocab)
        return v, str(v)
    return value


def _money(rng: random.Random, _: Vocab) -> tuple[float, str]:
    v = price(rng)
    return v, f"${v:,.2f}"


def _weight(rng: random.Random, _: Vocab) -> tuple[float, str]:
    v = round(rng.uniform(0.2, 40), 1)
    return v, f"{v} kg"


NAMES = {
    "person": Column(("Name", "Customer", "Owner", "Contact"), ("name", "customer", "owner", "contact_name"), "string",
                     _shown(person)),
    "product": Column(("Product", "Item", "Article"), ("product", "item", "product_name", "title"), "string",
                      _shown(product)),
}
COLUMNS = {
    "status": Column(("Status", "State", "Stage"), ("status", "state", "stage"), "string",
                     _shown(lambda rng, vocab: vocab.one(rng, "status"))),
    "country": Column(("Country", "Region", "Destination"), ("country", "region", "destination", "location"),
                      "string", _shown(lambda rng, vocab: vocab.one(rng, "option"))),
    "amount": Column(("Total", "Amount", "Price", "Cost"), ("total_usd", "amount_usd", "price_usd", "cost_usd"),
                     "number", _money),
    "quantity": Column(("Qty", "Quantity", "Units"), ("quantity", "units", "item_count", "qty"), "integer",
                       _shown(lambda rng, _: rng.randint(1, 99))),
    "weight": Column(("Weight", "Mass"), ("weight_kg", "mass_kg"), "number", _weight),
    "date": Column(("Date", "Placed", "Due", "Updated"), ("date", "placed_on", "due_date", "updated"), "string",
                   _shown(lambda rng, _: _date(rng))),
    "reference": Column(("ID", "Ref", "Code"), ("id", "reference", "code", "order_id"), "string",
                        _shown(lambda rng, _: code(rng, 6))),
    "score": Column(("Score", "Rating", "Points"), ("score", "rating", "points"), "integer",
                    _shown(lambda rng, _: rng.randint(0, 100))),
}
ALL = {**NAMES, **COLUMNS}


def bulk_page(rng: random.Random, vocab: Vocab, site: str, rows: tuple[int, int] = (10, 16)) -> Page:
    """A table (a header, a row per record) or a list of cards (a heading and
    a line of parts per record, a View button) of rows[0]-rows[1] records, with a line counting
    them. facts: "thing" (what a record is), "columns" (kind -> what the table's header calls it)."""
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 4))
    thing = vocab.one(rng, "table")
    kinds = [rng.choice(list(NAMES)), *rng.sample(list(COLUMNS), rng.randint(2, 3))]
    headers = {k: rng.choice(ALL[k].headers) for k in kinds}
    n = rng.randint(*rows)
    firsts = distinct(rng, lambda: ALL[kinds[0]].make(rng, vocab), n)
    records = [{kinds[0]: first, **{k: ALL[k].make(rng, vocab) for k in kinds[1:]}} for first in firsts]
    b.add(f"<h1>{thing.capitalize()}</h1><p>Showing {n} {thing}</p>")
    if rng.random() < 0.6:
        b.add("<table><tr>" + "".join(f"<th>{html.escape(headers[k])}</th>" for k in kinds) + "</tr>")
        for rec in records:
            b.add("<tr>" + "".join(f"<td>{html.escape(rec[k][1])}</td>" for k in kinds) + "</tr>")
        b.add("</table>")
    else:
        b.add("<ul>")
        for rec in records:
            parts = " · ".join(html.escape(rec[k][1]) for k in kinds[1:])
            b.add(f"<li><h3>{html.escape(rec[kinds[0]][1])}</h3><p>{parts}</p>{b.el('button', 'View')}</li>")
        b.add("</ul>")
    b.add(b.el("button", "Export CSV"))
    values = [{k: v for k, (v, _) in rec.items()} for rec in records]
    return b.page("bulk", site, f"{thing.capitalize()} - {site}", f"/{thing}", f"Go through the {thing} on {site}",
                  {"thing": thing, "columns": headers}, records=values)


def bulk_example(rng: random.Random, page: Page) -> dict[str, Any]:
    """Extract every record of a bulk page: 2-4 of its columns (always its name), each field named
    after the column's header or in other words, as an array under the records' name or alone."""
    headers: dict[str, str] = page.facts["columns"]
    kinds = list(headers)
    asked = [kinds[0], *rng.sample(kinds[1:], rng.randint(min(2, len(kinds) - 1), len(kinds) - 1))]
    names = {}
    for k in asked:
        own = [f for f in ALL[k].fields if f.split("_")[0] == headers[k].lower()]
        names[k] = rng.choice(own) if own and rng.random() < 0.5 else rng.choice(ALL[k].fields)
    item = {"type": "object", "required": [names[k] for k in asked],
            "properties": {names[k]: {"type": ALL[k].kind} for k in asked}}
    thing = page.facts["thing"]
    array = {"type": "array", "items": item}
    words = ", ".join(names[k].replace("_", " ") for k in asked)
    instruction = rng.choice([f"List every one of the {thing} with its {words}",
                              f"Extract all {thing} shown: {words}",
                              f"Read each row of the {thing} into the list ({words})"])
    target = [{names[k]: rec[k] for k in asked} for rec in page.records]
    if rng.random() < 0.5:
        return {"kind": "extract", "instruction": instruction, "schema": array, "target": target}
    key = thing.replace(" ", "_")
    return {"kind": "extract", "instruction": instruction,
            "schema": {"type": "object", "required": [key], "properties": {key: array}}, "target": {key: target}}


def target_records(target: Any) -> tuple[str, list[dict[str, Any]]]:
    """A bulk example's records and the pointer of their array ("" where the target is the array)."""
    if isinstance(target, list):
        return "", target
    key = next(iter(target))
    return "/" + key, target[key]
