"""Page families the executor never trains on (inbox, profile, booking): the held-out-family split,
drawn with the held-out vocabulary, so its accuracy measures pages of a new kind, not new names."""

from __future__ import annotations

import random

from agentpair.training.datagen.pages import Page, Builder, distinct, person, price
from agentpair.training.datagen.vocab import Vocab

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _day(rng: random.Random) -> str:
    return f"{rng.choice(MONTHS)} {rng.randint(1, 28)}"


def inbox_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    """A mail client: folder links, a search box, a compose button, and a list of messages whose
    subjects are links, each row with its sender, day and unread mark."""
    b = Builder(rng, vocab)
    folders = ["Inbox", "Sent", "Drafts", "Archive", "Spam"]
    b.add("<aside>" + " ".join(b.el("link", f, href="/mail/" + f.lower()) for f in folders) + "</aside>")
    b.add(f"<header>{b.el('searchbox', 'Search mail')} {b.el('button', 'Compose')}</header>")
    b.add(b.el("select", "Show", options=["All", "Unread", "Starred"]))
    records = []
    subjects = distinct(rng, lambda: f"{vocab.one(rng, 'topic').capitalize()} "
                         f"{rng.choice(['plans', 'question', 'update', 'invoice', 'photos', 'meeting'])}", rng.randint(3, 5))
    b.add("<ul>")
    for subject in subjects:
        rec = {"title": subject, "sender": person(rng, vocab), "received": _day(rng),
               "unread": rng.random() < 0.4}
        mark = "<b>unread</b> " if rec["unread"] else ""
        link = b.el("link", subject, href="/mail/" + subject.lower().replace(" ", "-"))
        b.add(f"<li>{mark}<span>{rec['sender']}</span> {link} <time>{rec['received']}</time></li>")
        records.append(rec)
    b.add("</ul>")
    unread = sum(r["unread"] for r in records)
    b.add(f"<footer>{unread} unread of {len(records)} · {b.el('checkbox', 'Select all')}</footer>")
    facts = {"folder": "Inbox", "unread_count": unread, "message_count": len(records)}
    return b.page("inbox", site, f"Inbox ({unread}) - {site} Mail", "/mail/inbox",
                  f"Read my mail on {site}", facts, records=records)


def profile_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    """A member's profile: name heading, labelled details in a definition list, follow and
    message buttons, and a list of the people they follow with their cities."""
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 3))
    name = person(rng, vocab)
    handle = name.split()[0].lower() + str(rng.randint(2, 99))
    facts = {"name": name, "handle": handle, "city": vocab.one(rng, "site"),
             "followers": rng.randint(3, 9000), "joined": f"{_day(rng)}, {rng.randint(2009, 2024)}"}
    b.add(f"<h1>{name}</h1><p>@{handle}</p>")
    rows = "".join(f"<dt>{label}</dt><dd>{facts[key]}</dd>" for label, key in (
        ("City", "city"), ("Followers", "followers"), ("Member since", "joined")))
    b.add(f"<dl>{rows}</dl>")
    b.add(b.el("button", f"Follow {name.split()[0]}") + " " + b.el("button", "Send message"))
    b.add("<h2>Following</h2><ul>")
    records = []
    for other in distinct(rng, lambda: person(rng, vocab), rng.randint(2, 4)):
        rec = {"name": other, "city": vocab.one(rng, "site")}
        b.add(f"<li>{b.el('link', other, href='/u/' + other.split()[0].lower())} · {rec['city']}</li>")
        records.append(rec)
    b.add(f"</ul>{b.el('textbox', 'Note about ' + name.split()[0])}")
    return b.page("profile", site, f"{name} (@{handle}) - {site}", f"/u/{handle}",
                  f"Look at {name}'s profile on {site}", facts, records=records)


def booking_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    """A stay to book: dates and guests to fill, a room type to pick, extras to tick, and a table
    of rooms with their nightly price and beds."""
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 3))
    b.add(f"<h1>Book your stay at {site}</h1><form>")
    for label in ("Check-in date", "Check-out date"):
        b.add(f"<p>{b.el('textbox', label)}</p>")
    b.add(f"<p>{b.el('select', 'Guests', options=[str(n) for n in range(1, 7)])}</p>")
    rooms = distinct(rng, lambda: f"{vocab.one(rng, 'color')} {rng.choice(['Suite', 'Room', 'Loft', 'Cabin'])}",
                      rng.randint(2, 4))
    b.add(f"<p>{b.el('select', 'Room type', options=rooms)}</p>")
    for extra in rng.sample(["Breakfast included", "Late checkout", "Airport pickup", "Parking space"], 2):
        b.add(f"<p>{b.el('checkbox', extra)}</p>")
    b.add(f"<p>{b.el('textbox', 'Special requests')}</p>{b.el('button', 'Check availability')}</form>")
    records = [{"name": room, "price": price(rng), "beds": rng.randint(1, 4)} for room in rooms]
    rows = "".join(f"<tr><td>{r['name']}</td><td>${r['price']:.2f} a night</td><td>{r['beds']} beds</td></tr>"
                   for r in records)
    b.add(f"<table><tr><th>Room</th><th>Price</th><th>Beds</th></tr>{rows}</table>")
    phone = f"{rng.randint(200, 999)}-{rng.randint(1000, 9999)}"
    b.add(f"<p>Front desk: {phone}</p>")
    return b.page("booking", site, f"Book - {site}", "/book", f"Book a room at {site}",
                  {"hotel": site, "phone": phone}, records=records)


UNSEEN_BUILDERS = {"inbox": inbox_page, "profile": profile_page, "booking": booking_page}
