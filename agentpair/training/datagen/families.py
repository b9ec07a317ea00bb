"""Planner episodes of four task families on generated sites: logging in, searching, navigating
menus and buying; each may hold a failure the next call repairs (see families_forms.py for the rest)."""

from __future__ import annotations

import random

from agentpair.training.datagen.pages import code as random_code
from agentpair.training.datagen.pages import price
from agentpair.training.datagen.plan_vocab import Words
from agentpair.training.datagen.sites import (PASSWORD, Call, Episode, Screen, Site, a, alert, back, button,
                                              checkbox, choose, click, field_, finish, h, labelled_button, p,
                                              select, slug, stale, type_in, typo)
from agentpair.training.datagen.stages import DONE, second_stage
from agentpair.training.datagen.vocab import Vocab

FAIL = 0.35  # share of episodes with one failed step the planner must repair
DECOYS = ["Case for the {}", "Guide to the {}", "{} (used)", "Refill for the {}", "{} gift set",
          "Study notes: {}", "{} spare parts"]  # training results that name the target inside their own name


def login(rng: random.Random, vocab: Vocab, words: Words) -> Episode:
    site = Site(rng, vocab)
    given, family = site.person()
    user = rng.choice([f"{given.lower()}.{family.lower()}", f"{given.lower()}{rng.randint(1, 99)}",
                       f"{given[0].lower()}{family.lower()}"])
    link, user_label, sign_in = words.one(rng, "login_link"), words.one(rng, "user_field"), words.one(rng, "sign_in")
    signup, forgot = words.one(rng, "signup"), words.one(rng, "forgot")
    pages = page_labels(words, vocab, f"login {site.name}", words.pick(rng, "account_page", 3))
    target = rng.choice(pages) if rng.random() < 0.6 else ""
    then = words.goal(rng, "login_then", page=target) if target else ""
    goal = words.goal(rng, "login", site=site.name, user=user, then=then)
    # training only, checked before any draw so held-out episodes are unchanged
    stage = second_stage(rng, site, target, "/account/" + slug(target)) if (
        words.split == "train" and target and rng.random() < 0.5) else None
    goal = stage.extend(goal) if stage else goal

    # training only, from draws of its own: as on many sites, the form may offer signing up as a
    # second button beside its sign-in one, a box to stay signed in, and the reset link before the button
    extra = random.Random(f"login {site.name} {user}") if words.split == "train" else None
    buttons = [button(sign_in)]
    if extra and extra.random() < 0.5:
        buttons.insert(extra.randint(0, 1), button(words.one(extra, "signup")))
    stay = checkbox(extra.choice(["Remember me", "Stay signed in", "Remember this device"])) if (
        extra and extra.random() < 0.5) else ""
    links = [a(forgot, "/reset"), a(signup, "/signup")]
    early = links.pop(0) if extra and extra.random() < 0.5 else ""

    def form(user_value: str = "", secret: str = "", error: str = "") -> Screen:
        return site.screen("/login", sign_in, h(sign_in), alert(error) if error else "",
                           field_(user_label, user_value), field_("Password", secret, "password"), stay, early,
                           *buttons, *links)

    calls = []
    if rng.random() < 0.6:
        home = site.screen("/", "", h(f"Welcome to {site.name}"), p(rng.choice(
            ["Manage your account online.", "Your bills and settings in one place."])),
            a(signup, "/signup"), a(link, "/login"))
        calls.append(Call(home, "Open the sign-in page.", [click("link", link)]))
    secret = random_code(rng, 10)
    moves = [type_in(user_label, user), type_in("Password", PASSWORD), click("button", sign_in)]
    first = Call(form(), "Fill in the sign-in form and submit it.", moves)
    calls.append(first)
    kind = rng.choice(["typo", "stale", "refused"]) if rng.random() < FAIL else ""
    if kind == "typo":
        wrong = typo(rng, user)
        first.ran = [moves[0].ran(args={"text": wrong, "submit": False}), moves[1], moves[2]]
        calls.append(Call(form(wrong, "", "Wrong username or password."),
                          "The username was mistyped; type it again and sign in.", moves))
    elif kind == "stale":
        error, ref = stale(rng)
        first.ran = [moves[0], moves[1], moves[2].ran(error, args=ref)]
        calls.append(Call(form(user, secret), "Retry the failed step.", [moves[2]]))
    elif kind == "refused":
        error = f"refused: secret 'password' may only be typed into a password field, not '{user_label}'"
        first.ran = [moves[0], moves[1].ran(error, element=("textbox", user_label))]
        calls.append(Call(form(user), "Type the password into the Password field and sign in.", moves[1:]))
    links = "".join(f"<li>{a(t, '/account/' + slug(t))}</li>" for t in pages)
    dashboard = site.screen("/account", "Your account", h(f"Welcome back, {given}"),
                            f"<ul>{links}</ul>", button("Sign out"))
    if target:
        calls.append(Call(dashboard, f"Signed in; open the {target} page.", [click("link", target)]))
        if stage:
            return Episode("login", site.name, goal, calls + stage.calls, secrets={"password": secret})
        final = site.screen("/account/" + slug(target), target, h(target),
                            p(rng.choice(["Nothing new here.", "All up to date.", "No changes since last month."])))
        calls.append(Call(final, DONE, [finish(f"Signed in and opened the {target} page", [target])]))
    else:
        calls.append(Call(dashboard, DONE, [finish(f"Signed in as {user}", [user])]))
    return Episode("login", site.name, goal, calls, secrets={"password": secret})


def page_labels(words: Words, vocab: Vocab, key: str, labels: list[str]) -> list[str]:
    """Training only, from draws of their own: two sites in five name these pages with other words
    of the vocabulary (a topic, a table, a setting: "Gardening", "Invoices", "Dark mode"), so the
    planner opens the page the goal names rather than one of a few page names it knows."""
    own = random.Random(key)
    if words.split != "train" or own.random() >= 0.4:
        return labels
    pools = vocab.pools
    return own.sample([w.capitalize() for w in pools["topic"] + pools["table"]] + pools["setting"], len(labels))


def lookalikes(rng: random.Random, vocab: Vocab, n: int) -> list[str]:
    """Products sharing an item word, so only the full name tells them apart."""
    item = vocab.one(rng, "item")
    names: list[str] = []
    while len(names) < n:
        name = f"{vocab.one(rng, 'color')} {vocab.one(rng, 'material')} {item}"
        if name not in names:
            names.append(name)
    return names


def search(rng: random.Random, vocab: Vocab, words: Words) -> Episode:
    site = Site(rng, vocab)
    label = words.one(rng, "search_field")
    results = lookalikes(rng, vocab, rng.randint(3, 4))
    target = rng.choice(results)
    query = rng.choice([target.split()[-1], " ".join(target.split()[1:]), target]).lower()
    goal = words.goal(rng, "search", site=site.name, query=query, target=target)

    blurb = p(rng.choice(["Free returns within 30 days.", "New arrivals every week."]))
    # training only, from draws of its own: the home page may feature items that share words with
    # the one sought; the search still comes first
    extra = random.Random(f"search home {site.name} {target}") if words.split == "train" else None
    featured = "".join(f"<li>{a(t, '/item/' + slug(t))}</li>" for t in lookalikes(extra, vocab, 3)
                       if t != target) if extra and extra.random() < 0.5 else ""
    featured = h(words.one(extra, "featured"), 2) + f"<ul>{featured}</ul>" if featured else ""

    def home(value: str = "", note: str = "") -> Screen:
        return site.screen("/", "", h(site.name), field_(label, value, "search"), p(note) if note else "", blurb,
                           featured)

    box = type_in(label, query, role="searchbox", submit=True)
    first = Call(home(), "Search for the item.", [box])
    calls = [first]
    kind = rng.choice(["typo", "wrong"]) if rng.random() < FAIL else ""
    if kind == "typo":
        wrong = typo(rng, query)
        first.ran = [box.ran(args={"text": wrong, "submit": True})]
        calls.append(Call(home(wrong, f"0 results for {wrong}"), "The query was mistyped; search again.", [box]))
    # training only, from draws of its own: as on real shops, the results page keeps the search box
    # (holding the query) and may give each result a button beside its link
    real = random.Random(f"search {site.name} {target}") if words.split == "train" else None
    box_kept = field_(label, query if real.random() < 0.7 else "", "search") if real and real.random() < 0.6 else ""
    extras = [words.one(real, "aside") for _ in results] if real and real.random() < 0.5 else []
    if real and real.random() < 0.4:  # and a result whose name holds the target's: "Case for the X"
        decoy = real.choice(DECOYS).format(target)
        results = [*results, decoy] if real.random() < 0.5 else [decoy, *results]
        extras = extras and [*extras, words.one(real, "aside")]
    items = "".join(f"<li>{a(r, '/item/' + slug(r))}<p>${price(rng):.2f}</p>{button(x) if x else ''}</li>"
                    for r, x in zip(results, extras or [""] * len(results)))
    listing = site.screen("/search?q=" + slug(query), f"Results for {query}", box_kept,
                          h(f"{len(results)} results for {query}", 2), f"<ul>{items}</ul>")
    pick = click("link", target)
    calls.append(Call(listing, f"Open the {target}.", [pick]))

    def item(name: str) -> Screen:
        return site.screen("/item/" + slug(name), name, h(name), p(f"${price(rng):.2f}"),
                           button(f"Add {name} to cart"))

    if kind == "wrong":
        other = rng.choice([r for r in results if r != target])
        calls[-1].ran = [pick.ran(element=("link", other))]
        calls.append(Call(item(other), f"This is the {other}, not the {target}; go back.", [back()]))
        calls.append(Call(listing, f"Open the {target}.", [pick]))
    calls.append(Call(item(target), DONE, [finish(f"Opened the {target} page", [target])]))
    return Episode("search", site.name, goal, calls)


def navigate(rng: random.Random, vocab: Vocab, words: Words) -> Episode:
    site = Site(rng, vocab, nav=rng.randint(2, 3))
    menu = words.one(rng, "menu")
    hidden = [w for w in vocab.pick(rng, "nav", 8) if w not in site.nav][:4]
    deep = rng.random() < 0.3
    where = "nav" if not deep and rng.random() < 0.3 else "menu"
    section = rng.choice(site.nav if where == "nav" else hidden)
    leaves = page_labels(words, vocab, f"navigate {site.name}", words.pick(rng, "account_page", 3)) if deep else []
    target = rng.choice(leaves) if deep else section
    goal = (words.goal(rng, "navigate_deep", site=site.name, section=section, target=target) if deep
            else words.goal(rng, "navigate", site=site.name, target=target))
    path = "/" + slug(section) + "/" + slug(target) if deep else "/" + slug(target)
    stage = second_stage(rng, site, target, path) if words.split == "train" and rng.random() < 0.3 else None
    goal = stage.extend(goal) if stage else goal
    if stage and stage.hinted and random.Random(goal).random() < 0.5:
        goal = f"On {site.name}, {stage.hinted}."

    blurb = p(rng.choice(["Open daily from 9 to 5.", "Made with care since 1998."]))

    def home(opened: bool) -> Screen:
        items = "".join(f"<li>{a(t, '/more/' + slug(t))}</li>" for t in hidden)
        return site.screen("/", "", h(site.name), button(menu, opened), f"<ul>{items}</ul>" if opened else "",
                           blurb)

    def page(name: str, sub: list[str]) -> Screen:
        links = "".join(f"<li>{a(t, '/' + slug(name) + '/' + slug(t))}</li>" for t in sub)
        return site.screen("/" + slug(name), name, h(name), f"<ul>{links}</ul>" if sub else "",
                           p(f"Everything about {name.lower()} at {site.name}."))

    calls: list[Call] = []
    step = click("link", section)
    wrong = rng.random() < FAIL
    for attempt in range(2 if wrong else 1):
        if where == "menu":
            calls.append(Call(home(False), f"Find {section} behind the {menu} button.", [click("button", menu)]))
        calls.append(Call(home(where == "menu"), f"Open the {section} page.", [step]))
        if attempt == 0 and wrong:  # the executor clicked a neighbour: back to a fresh home page
            other = rng.choice([t for t in (hidden if where == "menu" else site.nav) if t != section])
            calls[-1].ran = [step.ran(element=("link", other))]
            calls.append(Call(page(other, []), f"This is {other}, not {section}; go back.", [back()]))
    if deep:
        calls.append(Call(page(section, leaves), f"Open {target} under {section}.", [click("link", target)]))
    if stage:
        return Episode("navigate", site.name, goal, calls + stage.calls)
    calls.append(Call(page(target, []), DONE, [finish(f"Opened the {target} page", [target])]))
    return Episode("navigate", site.name, goal, calls)


def buy(rng: random.Random, vocab: Vocab, words: Words) -> Episode:
    site = Site(rng, vocab)
    products = lookalikes(rng, vocab, rng.randint(3, 4))
    target = rng.choice(products)
    other = rng.choice([x for x in products if x != target])
    given, family = site.person()
    street = f"{rng.randint(1, 99)} {vocab.one(rng, 'family')} {rng.choice(['Road', 'Lane', 'Way', 'Row'])}"
    city, postcode = vocab.one(rng, "site"), f"{random_code(rng, 3)} {random_code(rng, 3)}"
    speeds = words.pick(rng, "shipping", 3)
    days = rng.sample(["1 day", "2 days", "3-5 days", "5-7 days", "7-10 days"], 3)
    options = [f"{s} ({d})" for s, d in zip(speeds, days)]
    chosen = rng.randrange(3)
    name = f"{given} {family}"
    goal = words.goal(rng, "buy", site=site.name, target=target, other=other, name=name, street=street,
                      city=city, postcode=postcode, shipping=speeds[chosen].lower())
    cart, checkout, place = words.one(rng, "cart"), words.one(rng, "checkout"), words.one(rng, "place_order")
    labels = [words.one(rng, k) for k in ("name_field", "street_field", "city_field", "postcode_field",
                                           "shipping_field")]
    aside = random.Random(f"buy {site.name} {target}")  # own draws: the episode's stream stays as it was
    others = [words.one(aside, "aside") for _ in products]
    # training only: the add buttons may say "Add to cart" with the product in their aria-label
    adds = {x: labelled_button(f"Add {x} to cart", "Add to cart") if words.split == "train" and aside.random() < 0.5
            else button(f"Add {x} to cart") for x in products}
    rows = "".join(f"<div>{h(x, 3)}{p(f'${price(rng):.2f}')}{adds[x]}{button(o)}</div>"
                   for x, o in zip(products, others))
    shop = site.screen("/shop", vocab.one(rng, "item").capitalize() + "s", h("Shop"), rows, a(cart, "/cart"))
    calls = [Call(shop, f"Add the {target} to the cart and open the cart.",
                  [click("button", f"Add {target} to cart"), click("link", cart)])]
    # training only: the ways back may be buttons beside the form's own (the plan still goes forward)
    way_back = (lambda text, path: button(text)) if words.split == "train" and aside.random() < 0.5 else a
    back_to_basket = aside.choice(["Return to basket", "Edit your order", "Change items"])
    basket = site.screen("/cart", "Your cart", h("Your cart"), p(f"1 x {target}"), button("Remove"),
                         way_back("Continue shopping", "/shop"), button(checkout))
    calls.append(Call(basket, "Go to checkout.", [click("button", checkout)]))

    def form(filled: bool = False, option: str = "") -> Screen:
        values = [name, street, city, postcode] if filled else ["", "", "", ""]
        fields = "".join(field_(lab, val) for lab, val in zip(labels, values))
        return site.screen("/checkout", "Checkout", h("Checkout"), fields, select(labels[4], options, option),
                           button(place), way_back(back_to_basket, "/cart"))

    moves = [type_in(labels[0], name), type_in(labels[1], street), type_in(labels[2], city),
             type_in(labels[3], postcode), choose(labels[4], options[chosen]), click("button", place)]
    first = Call(form(), "Fill in the checkout form and place the order.", moves)
    calls.append(first)
    kind = rng.choice(["option", "stale"]) if rng.random() < FAIL else ""
    if kind == "option":
        short = speeds[chosen]
        quoted = ", ".join(f"'{o}'" for o in options)
        error = f"{{ref}} has no option '{short}'; its options are {quoted}"
        first.ran = [*moves[:4], moves[4].ran(error, args={"option": short})]
        calls.append(Call(form(True), "Pick the shipping option by its full label and place the order.",
                          moves[4:]))
    elif kind == "stale":
        error, ref = stale(rng)
        first.ran = [*moves[:5], moves[5].ran(error, args=ref)]
        calls.append(Call(form(True, options[chosen]), "Retry the failed step.", moves[5:]))
    number = random_code(rng, 6)
    done = site.screen("/order/" + number.lower(), "Order placed", h("Order placed"),
                       p(f"Thank you, {given}! Your order number is {number}."))
    calls.append(Call(done, DONE, [finish(f"Order {number} placed", [number])]))
    return Episode("buy", site.name, goal, calls)
