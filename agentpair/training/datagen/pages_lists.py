"""Training page families of lists and detail pages (purchases, events, recipe, forum thread): a
record's values sit on its own row or card, details follow their labels, counts sit in prose."""

from __future__ import annotations

import random

from agentpair.training.datagen.pages import Page, Builder, distinct, code, person, price
from agentpair.training.datagen.vocab import Vocab

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]


def _date(rng: random.Random) -> str:
    return rng.choice([f"{rng.choice(MONTHS)} {rng.randint(1, 28)}",
                       f"{rng.randint(1, 28)} {rng.choice(MONTHS)[:3]}",
                       f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"])


def purchases_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    """An order history: one card per order (number, day placed, item count, total, status) with
    its own Track button, and a line that counts the delivered ones."""
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 3))
    b.add(f"<h1>Order history</h1>{b.el('select', 'Orders placed in', options=['Last 30 days', 'Past 3 months', '2024'])}")
    records = []
    for number in distinct(rng, lambda: code(rng, rng.randint(5, 7)), rng.randint(2, 4)):
        rec = {"name": f"Order {number}", "placed": _date(rng), "items": rng.randint(1, 9), "total": price(rng),
               "status": vocab.one(rng, "status")}
        b.add(f"<section><h3>{rec['name']}</h3><p>Placed {rec['placed']} · {rec['items']} items · "
              f"total ${rec['total']:.2f}</p><p>{rec['status']}</p>{b.el('button', 'Track ' + number)}</section>")
        records.append(rec)
    done = sum(r["status"] == records[0]["status"] for r in records)
    b.add(f"<p>{done} of {len(records)} are {records[0]['status'].lower()}.</p>")
    return b.page("purchases", site, f"Order history - {site}", "/account/history", f"Look through my order history on {site}",
                  {"order_count": len(records)}, records=records)


def events_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    """Upcoming events: a title link per row with its day, venue and seats left (or a sold-out
    mark), a button per row, and a filter box."""
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 4))
    b.add(f"<h1>What's on at {site}</h1>{b.el('textbox', 'Filter events')}<ol>")
    records = []
    for title in distinct(rng, lambda: f"{vocab.one(rng, 'topic').capitalize()} "
                           f"{rng.choice(['night', 'workshop', 'meetup', 'fair', 'talk'])}", rng.randint(3, 5)):
        seats = rng.choice([0, rng.randint(1, 60)])
        rec = {"title": title, "day": _date(rng), "venue": vocab.one(rng, "site") + " Hall",
               **({"seats_left": seats} if seats else {}), "sold_out": seats == 0}
        left = "<em>sold out</em>" if seats == 0 else f"{seats} seats left"
        b.add(f"<li>{b.el('link', title, href='/e/' + title.lower().replace(' ', '-'))} · {rng.choice(DAYS)} · <time>{rec['day']}</time> · "
              f"{rec['venue']} · {left} {b.el('button', 'Remind me about ' + title)}</li>")
        records.append(rec)
    b.add(f"</ol><p>{len(records)} events coming up.</p>" + b.el("checkbox", "Show past events"))
    return b.page("events", site, f"Events - {site}", "/events", f"Find an event at {site}",
                  {"event_count": len(records)}, records=records)


def recipe_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    """A recipe: labelled details ("Prep time: 25 min"), an author line, ingredients, and reviews
    by people with their stars and day."""
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 3))
    name = f"{vocab.one(rng, 'color')} {rng.choice(['soup', 'pie', 'salad', 'stew', 'cake', 'curry'])}"
    facts = {"recipe": name, "author": person(rng, vocab), "prep_minutes": rng.randint(5, 90),
             "servings": rng.randint(1, 8), "calories": rng.randint(120, 900)}
    b.add(f"<h1>{name}</h1><p>Recipe by {facts['author']}</p>")
    b.add("".join(f"<p><b>{label}:</b> {value}</p>" for label, value in rng.sample([
        ("Prep time", f"{facts['prep_minutes']} min"), ("Serves", facts["servings"]),
        ("Calories", f"{facts['calories']} kcal")], 3)))
    b.add("<ul>" + "".join(f"<li>{rng.randint(1, 500)} g {vocab.one(rng, 'material').lower()}</li>"
                           for _ in range(rng.randint(2, 4))) + "</ul>")
    b.add(b.el("button", "Save recipe") + " " + b.el("button", "Print"))
    records = []
    b.add("<h2>Reviews</h2>")
    for who in distinct(rng, lambda: person(rng, vocab), rng.randint(2, 3)):
        rec = {"name": who, "stars": rng.randint(1, 5), "posted": _date(rng)}
        b.add(f"<article><p>{who} · {rec['stars']} stars · {rec['posted']}</p></article>")
        records.append(rec)
    b.add(f"{b.el('textbox', 'Your review')} {b.el('button', 'Post review')}")
    return b.page("recipe", site, f"{name} - {site}", "/recipes/" + name.lower().replace(" ", "-"),
                  f"Cook the {name} from {site}", facts, records=records)


def forum_page(rng: random.Random, vocab: Vocab, site: str) -> Page:
    """A forum thread: its title and reply count, then posts, each by a user (some marked as
    moderators) with a day and a like count, and a like button of its own."""
    b = Builder(rng, vocab)
    b.nav(rng.randint(2, 3))
    thread = f"{rng.choice(['Tips on', 'Thoughts on', 'Best', 'First time'])} {vocab.one(rng, 'topic')}"
    posters = distinct(rng, lambda: person(rng, vocab), rng.randint(2, 4))
    b.add(f"<h1>{thread}</h1><p>{len(posters) - 1} replies</p>")
    records = []
    for who in posters:
        rec = {"name": who, "posted": _date(rng), "likes": rng.randint(0, 99), "moderator": rng.random() < 0.3}
        role = " <small>moderator</small>" if rec["moderator"] else ""
        b.add(f"<div><p><b>{who}</b>{role} wrote on {rec['posted']}:</p><p>I like {vocab.one(rng, 'topic')}.</p>"
              f"<p>{rec['likes']} likes {b.el('button', 'Like post by ' + who)}</p></div>")
        records.append(rec)
    b.add(f"{b.el('textbox', 'Reply')} {b.el('button', 'Post reply')}")
    return b.page("forum", site, f"{thread} - {site} forum", "/t/" + code(rng, 5).lower(),
                  f"Join the thread on {site}", {"thread": thread, "replies": len(posters) - 1}, records=records)


LIST_BUILDERS = {"purchases": purchases_page, "events": events_page, "recipe": recipe_page, "forum": forum_page}
