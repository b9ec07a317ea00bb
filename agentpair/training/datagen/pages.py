"""Synthetic web pages in eight families (form, search, products, table, menu, settings,
article, spec sheet; more in pages_lists.py, and pages_unseen.py for evaluation only), each with distractors, as HTML plus the facts and elements tasks are built from.
Interactive elements carry data-k keys so rendering can map them to snapshot refs."""

from __future__ import annotations

import html
import random
from dataclasses import dataclass, field
from typing import Any

from agentpair.training.datagen.plan_vocab import SPLIT_LABELS, UNITS, WHOLE
from agentpair.training.datagen.vocab import Vocab



@dataclass
class El:
    key: str
    kind: str  # link | button | textbox | password | searchbox | select | checkbox
    label: str
    options: list[str] = field(default_factory=list)
    href: str = ""
    checked: bool = False


@dataclass
class Page:
    family: str
    site: str
    title: str
    path: str
    html: str
    goal: str
    elements: list[El]
    facts: dict[str, Any]  # name -> value shown on the page (extraction targets)
    records: list[dict[str, Any]] = field(default_factory=list)  # rows/products/results
    secrets: dict[str, str] = field(default_factory=dict)


class Builder:
    """Accumulates HTML and elements for one page."""

    def __init__(self, rng: random.Random, vocab: Vocab):
        self.rng, self.vocab = rng, vocab
        self.parts: list[str] = []
        self.elements: list[El] = []

    def add(self, markup: str) -> None:
        self.parts.append(markup)

    def el(self, kind: str, label: str, **kw: Any) -> str:
        e = El(f"k{len(self.elements)}", kind, label, **kw)
        self.elements.append(e)
        k, lab = e.key, html.escape(label)
        if kind == "link":
            return f'<a data-k="{k}" href="{html.escape(e.href)}">{lab}</a>'
        if kind == "button":
            return f'<button data-k="{k}" type="button">{lab}</button>'
        if kind in ("textbox", "password", "searchbox"):
            t = {"textbox": "text", "password": "password", "searchbox": "search"}[kind]
            return f'<input data-k="{k}" type="{t}" aria-label="{lab}">'
        if kind == "select":
            opts = "".join(f"<option>{html.escape(o)}</option>" for o in e.options)
            return f'<select data-k="{k}" aria-label="{lab}">{opts}</select>'
        chk = " checked" if e.checked else ""
        return f'<label><input data-k="{k}" type="checkbox"{chk}> {lab}</label>'

    def nav(self, n: int) -> None:
        items = self.vocab.pick(self.rng, "nav", n)
        links = " ".join(self.el("link", t, href="/" + t.lower().replace(" ", "-")) for t in items)
        self.add(f"<nav>{links}</nav>")

    def page(self, family: str, site: str, title: str, path: str, goal: str,
             facts: dict[str, Any], **kw: Any) -> Page:
        body = "\n".join(self.parts)
        doc = f"<html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head><body>{body}</body></html>"
        return Page(family, site, title, path, doc, goal, self.elements, facts, **kw)


def person(rng: random.Random, vocab: Vocab) -> str:
    return f"{vocab.one(rng, 'given')} {vocab.one(rng, 'family')}"


def product(rng: random.Random, vocab: Vocab) -> str:
    return f"{vocab.one(rng, 'color')} {vocab.one(rng, rng.choice(['material', 'color']))} " \
           f"{vocab.one(rng, 'item')}".replace("  ", " ")


def price(rng: random.Random) -> float:
    cents = rng.choice([v for v in range(1, 100) if v % 10])
    return float(f"{rng.randint(1, 400)}.{cents:02d}")


def code(rng: random.Random, n: int = 6) -> str:
    return "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(n))


def distinct(rng: random.Random, make: Any, n: int) -> list[Any]:
    out: list[Any] = []
    while len(out) < n:
        v = make()
        if v not in out:
            out.append(v)
    return out


def form_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 4))
    heading = rng.choice(["Create your account", "Contact us", "Checkout", "Sign in",
                          "Book a visit", "Your details", "Registration"])
    b.add(f"<h1>{heading}</h1><form>")
    for label in vocab.pick(rng, "field", rng.randint(2, 4)):
        b.add(f"<p>{b.el('textbox', label)}</p>")
    secrets = {}
    if heading == "Sign in" or rng.random() < 0.3:
        secrets = {"password": code(rng, 10)}
        b.add(f"<p>{b.el('password', 'Password')}</p>")
    for label in rng.sample(["Country", "Size", "Language", "Plan", "Delivery", "Time slot"],
                            rng.randint(0, 2)):
        b.add(f"<p>{b.el('select', label, options=vocab.pick(rng, 'option', rng.randint(3, 5)))}</p>")
    for label in vocab.pick(rng, "setting", rng.randint(0, 2)):
        b.add(f"<p>{b.el('checkbox', label)}</p>")
    primary, other = vocab.pick(rng, "button", 2)
    b.add(f"{b.el('button', primary)} {b.el('button', other)}</form>")
    note = f"Questions? Call {rng.randint(200, 999)}-{rng.randint(1000, 9999)}."
    b.add(f"<footer><p>{note}</p></footer>")
    facts = {"heading": heading, "phone": note.split()[-1].rstrip(".")}
    return b.page("form", site, f"{heading} - {site}", "/" + heading.lower().replace(" ", "-"),
                  f"{heading} on {site}", facts, secrets=secrets)


def search_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 3))
    query = vocab.one(rng, "topic")
    b.add(f"<form role=search>{b.el('searchbox', 'Search ' + site)} {b.el('button', 'Search')}</form>")
    records = []
    names = distinct(rng, lambda: product(rng, vocab), rng.randint(3, 5))
    b.add(f"<h2>{len(names)} results for {query}</h2><ul>")
    for name in names:
        rec = {"title": name, "price": price(rng), "seller": person(rng, vocab)}
        link = b.el("link", name, href="/item/" + name.lower().replace(" ", "-"))
        b.add(f"<li>{link}<p>${rec['price']:.2f} from {rec['seller']}</p></li>")
        records.append(rec)
    b.add("</ul>" + b.el("link", "Next page", href="/search?page=2"))
    facts = {"query": query, "result_count": len(names), "first_result": names[0]}
    return b.page("search", site, f"Search: {query} - {site}", "/search?q=" + query, 
                  f"Find {query} items on {site}", facts, records=records)


def products_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 4))
    category = vocab.one(rng, "item").capitalize() + "s"
    b.add(f"<h1>{category}</h1>")
    b.add(b.el("select", "Sort by", options=["Featured", "Price: low to high", "Newest"]))
    records = []
    for name in distinct(rng, lambda: product(rng, vocab), rng.randint(3, 4)):
        rec = {"name": name, "price": price(rng), "rating": rng.randint(1, 5),
               "in_stock": rng.random() < 0.7}
        stock = "In stock" if rec["in_stock"] else "Out of stock"
        btn = b.el("button", f"Add {name} to cart")
        b.add(f"<div><h3>{name}</h3><p>${rec['price']:.2f} · {rec['rating']} stars · {stock}</p>{btn}</div>")
        records.append(rec)
    b.add(b.el("link", "View cart", href="/cart"))
    return b.page("products", site, f"{category} | {site}", "/shop/" + category.lower(),
                  f"Shop for {category.lower()} on {site}", {"category": category}, records=records)


def table_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 3))
    table = vocab.one(rng, "table")
    cols = vocab.pick(rng, "column", 2)
    b.add(f"<h1>{table.capitalize()}</h1><table><tr><th>Name</th><th>{cols[0]}</th><th>{cols[1]}</th><th></th></tr>")
    records = []
    for name in distinct(rng, lambda: person(rng, vocab), rng.randint(3, 5)):
        rec = {"name": name, cols[0]: vocab.one(rng, "status"), cols[1]: rng.randint(1, 999)}
        edit = b.el("link", f"Edit {name}", href=f"/{table}/{code(rng, 4).lower()}")
        b.add(f"<tr><td>{name}</td><td>{rec[cols[0]]}</td><td>{rec[cols[1]]}</td><td>{edit}</td></tr>")
        records.append(rec)
    b.add("</table>" + b.el("button", "Export CSV") + " " + b.el("button", "Add row"))
    facts = {"table": table, "columns": cols, "row_count": len(records)}
    return b.page("table", site, f"{table.capitalize()} - {site} admin", f"/admin/{table}",
                  f"Manage {table} on {site}", facts, records=records)


def menu_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    b = Builder(rng, vocab)
    n = rng.randint(4, 6)
    words = vocab.pick(rng, "nav", n + rng.randint(3, 5))
    b.add(" ".join(b.el("link", t, href="/" + t.lower()) for t in words[:n]))
    b.add(f"<h1>Welcome to {site}</h1>")
    items = words[n:]
    menu = "".join(f"<li>{b.el('link', t, href='/more/' + t.lower())}</li>" for t in items)
    b.add(f"{b.el('button', 'Menu')}<ul>{menu}</ul>")
    hours = f"{rng.randint(6, 11)}:00-{rng.randint(17, 22)}:00"
    b.add(f"<p>Open daily {hours}. {b.el('link', 'Log in', href='/login')}</p>")
    return b.page("menu", site, site, "/", f"Explore {site}", {"hours": hours})


def settings_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 3))
    b.add("<h1>Settings</h1>")
    for label in vocab.pick(rng, "setting", rng.randint(3, 5)):
        b.add(f"<p>{b.el('checkbox', label, checked=rng.random() < 0.5)}</p>")
    b.add(f"<p>{b.el('select', 'Language', options=vocab.pick(rng, 'option', 4))}</p>")
    b.add(f"<p>{b.el('textbox', 'Display name')}</p>")
    b.add(b.el("button", vocab.one(rng, "button")) + " " + b.el("button", "Reset"))
    user = person(rng, vocab)
    b.add(f"<p>Signed in as {user}</p>")
    return b.page("settings", site, f"Settings - {site}", "/settings",
                  f"Update my settings on {site}", {"user": user})


def article_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 4))
    topic = vocab.one(rng, "topic")
    title = f"{rng.choice(['A guide to', 'Notes on', 'Why we love', 'Getting into'])} {topic}"
    author, minutes = person(rng, vocab), rng.randint(2, 19)
    date = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    b.add(f"<article><h1>{title}</h1><p>By {author} · {date} · {minutes} min read</p>")
    b.add(f"<p>{person(rng, vocab)} started with {topic} in {vocab.one(rng, 'site')}. "
          f"The club now has {rng.randint(10, 900)} members.</p></article>")
    b.add(f"<h2>Comments</h2><p>{b.el('textbox', 'Your comment')} {b.el('button', 'Post')}</p>")
    related = vocab.one(rng, "topic")
    b.add(f"<aside>{b.el('link', 'More on ' + related, href='/tag/' + related)}</aside>")
    facts = {"title": title, "author": author, "date": date, "minutes": minutes, "topic": topic}
    return b.page("article", site, f"{title} - {site}", "/blog/" + topic,
                  f"Read about {topic} on {site}", facts)


def _spec_value(rng: random.Random, spec: str) -> float | int:
    return rng.choice([4, 8, 16, 32, 64, 128, 256]) if spec in WHOLE else round(rng.uniform(0.5, 9.5), 2)


def _money(value: float) -> str:
    return f"${value:,.0f}" if value == int(value) else f"${value:,.2f}"


def spec_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    """A product's spec sheet the way shops write one: a price over $1,000 with a thousands
    separator next to a struck-out old price, values with units and trailing notes, and a
    comparison table of sibling products with lookalike names as distractors."""
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 4))
    specs = rng.sample(SPLIT_LABELS[vocab.split]["spec"], 3)
    key = {s: f"{s.lower()}_{UNITS[s].lower()}" for s in specs}
    item, color = vocab.one(rng, "item"), vocab.one(rng, "color")  # siblings differ by a word or two
    names = distinct(rng, lambda: f"{rng.choice([color, vocab.one(rng, 'color')])} "
                      f"{vocab.one(rng, 'material')} {item}", rng.randint(2, 3))
    records = [{"name": n, "price_usd": float(rng.randint(150, 2999)) if rng.random() < 0.6 else price(rng),
                **{key[s]: _spec_value(rng, s) for s in specs}} for n in names]
    main = records[0]
    was = main["price_usd"] + rng.choice([50, 100, 200])
    b.add(f"<h1>{main['name']}</h1><p>${main['price_usd']:,.2f} <s>${was:,.2f}</s> - save ${was - main['price_usd']:,.0f}</p>")
    b.add(b.el("button", "Add to cart") + " " + b.el("button", "Add to compare"))
    notes = ["", "", " (approx.)", " typical", " *"]
    rows = "".join(f"<tr><th>{s}</th><td>{main[key[s]]:g} {UNITS[s]}{rng.choice(notes)}</td></tr>" for s in specs)
    b.add(f"<table><caption>Specifications</caption>{rows}</table><h2>Compare</h2>")
    head = "".join(f"<th>{s}</th>" for s in specs[:2])
    def href(name: str) -> str:
        return "/p/" + name.lower().replace(" ", "-")
    sibs = "".join(f"<tr><td>{b.el('link', r['name'], href=href(r['name']))}</td>"
                   f"<td>{_money(r['price_usd'])}</td>" + "".join(f"<td>{r[key[s]]:g} {UNITS[s]}</td>" for s in specs[:2])
                   + "</tr>" for r in records[1:])
    b.add(f"<table><tr><th>Model</th><th>Price</th>{head}</tr>{sibs}</table>")
    siblings = [{k: v for k, v in r.items() if k in ("name", "price_usd", *(key[s] for s in specs[:2]))}
                for r in records[1:]]
    return b.page("spec", site, f"{main['name']} - {site}", href(main["name"]), f"Look up the {main['name']} on {site}",
                  {"product": main["name"]}, records=[main, *siblings])


BUILDERS = {"form": form_page, "search": search_page, "products": products_page,
            "table": table_page, "menu": menu_page, "settings": settings_page,
            "article": article_page, "spec": spec_page}
