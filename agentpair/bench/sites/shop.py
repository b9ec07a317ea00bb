"""Family `shop` (development): an outdoor-gear shop with a search, product pages whose colour and size
are chosen before adding to a cart, a cart with removal behind a confirmation, and a checkout form
that rejects missing fields. Near-duplicate products share the target's words."""

from __future__ import annotations

import random
from urllib.parse import quote_plus

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, choice, confirm, errors, esc, field, form, link, pages, redirect, table,
    words_match,
)

SHOPS = ["Northfield Outfitters", "Cairn & Co", "Bramble Gear", "Summit Supply House"]
FIRST = ["Ridge", "Tarn", "Fell", "Scree", "Moraine", "Corrie", "Gorge", "Heath"]
SECOND = ["Trail", "Alpine", "Storm", "Valley", "Canyon", "Coastal"]
KINDS = ["Jacket", "Fleece", "Backpack", "Rain Shell", "Hiking Boot", "Sleeping Bag"]
TWISTS = ["{a} {b} {k} Junior", "{a} {k}", "{b} {k}", "{a} {b} {k} Lite", "{a} {b} Insulated {k}", "{b} {a} {k}"]
COLOURS = ["Slate", "Moss", "Ember", "Glacier", "Charcoal", "Ochre"]
SIZES = ["XS", "S", "M", "L", "XL"]
MATERIALS = ["recycled nylon", "merino wool", "ripstop polyester", "waxed cotton", "Gore-Tex laminate"]
PEOPLE = ["Imogen Thwaite", "Ravi Subramanian", "Marta Kowalczyk", "Oisin Brady", "Leila Haddad"]
STREETS = ["14 Quarry Lane", "3 Mill Row", "27 Harbour Street", "9 Orchard Close"]
CITIES = [("Kendal", "LA9 4QR"), ("Keswick", "CA12 5JD"), ("Ambleside", "LA22 0BZ")]


class Shop(Site):
    menu = [("Home", "/"), ("Cart", "/cart")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(SHOPS)
        a, b, k = rng.choice(FIRST), rng.choice(SECOND), rng.choice(KINDS)
        names = [f"{a} {b} {k}", *(t.format(a=a, b=b, k=k) for t in rng.sample(TWISTS, 5))]
        names += [f"{rng.choice(FIRST)} {rng.choice(SECOND)} {rng.choice(KINDS)}" for _ in range(6)]
        names = list(dict.fromkeys(names))
        target = names[0]
        rng.shuffle(names)
        self.products = {f"p{100 + i}": {
            "name": n, "price": rng.randrange(39, 320) + rng.choice([0.0, 0.5, 0.99]),
            "colours": rng.sample(COLOURS, 3), "sizes": SIZES[rng.randrange(2):], "material": rng.choice(MATERIALS),
            "weight": rng.randrange(250, 2400, 10)} for i, n in enumerate(names)}
        self.target = next(pid for pid, p in self.products.items() if p["name"] == target)
        self.cart: list[dict[str, str]] = []

    def get(self, path: str, query: dict[str, str]) -> str:
        match path.strip("/").split("/"):
            case [""]:
                search = form("/search", field("Search products", "q"), "Search", "get")
                picks = "".join(f"<li>{link(p['name'], '/p/' + pid)}</li>" for pid, p in list(self.products.items())[6:10])
                return self.page("Home", f"<h1>Welcome to {esc(self.name)}</h1>{search}<h2>Staff picks</h2><ul>{picks}</ul>")
            case ["search"]:
                q = query.get("q", "")
                found = [(pid, p) for pid, p in self.products.items() if words_match(p["name"], q)]
                shown, pager = pages(found, query, f"/search?q={quote_plus(q)}&")
                rows = [[link(p["name"], "/p/" + pid), f"£{p['price']:.2f}"] for pid, p in shown]
                return self.page("Search", f"<h1>Results for “{esc(q)}”</h1><p>{len(found)} products</p>"
                                 + table(["Product", "Price"], rows) + pager, [("Home", "/"), ("Search", "")])
            case ["p", pid] if pid in self.products:
                return self.product(pid, [])
            case ["cart"]:
                return self.cart_page()
            case ["cart", "remove", n] if n.isdigit() and int(n) < len(self.cart):
                line = self.cart[int(n)]
                return confirm(self, f"Remove {line['name']} ({line['colour']}, {line['size']}) from your cart?",
                               f"/cart/remove/{n}", "Remove item", "/cart", [("Cart", "/cart"), ("Remove", "")])
            case ["checkout"]:
                return self.checkout({}, [])
            case ["done"]:
                return self.page("Order placed", "<h1>Thank you: your order is placed</h1>")
        return NOT_FOUND

    def product(self, pid: str, problems: list[str]) -> str:
        p = self.products[pid]
        specs = table(["Material", "Weight"], [[esc(p["material"]), f"{p['weight']} g"]])
        inner = (choice("Colour", "colour", ["Choose a colour", *p["colours"]])
                 + choice("Size", "size", ["Choose a size", *p["sizes"]]) + field("Quantity", "qty", "1", "number"))
        body = (f"<h1>{esc(p['name'])}</h1><p>Price: £{p['price']:.2f}</p>{specs}{errors(problems)}"
                + form(f"/p/{pid}", inner, "Add to cart"))
        return self.page(p["name"], body, [("Home", "/"), (p["name"], "")])

    def cart_page(self) -> str:
        rows = [[esc(line["name"]), esc(line["colour"]), esc(line["size"]), esc(line["qty"]),
                 link("Remove", f"/cart/remove/{n}")] for n, line in enumerate(self.cart)]
        lines = table(["Item", "Colour", "Size", "Qty", ""], rows) + link("Proceed to checkout", "/checkout")
        body = "<h1>Your cart</h1>" + (lines if rows else "<p>Your cart is empty.</p>")
        return self.page("Cart", body, [("Home", "/"), ("Cart", "")])

    def checkout(self, values: dict[str, str], problems: list[str]) -> str:
        inner = "".join(field(label, key, values.get(key, "")) for key, label in CHECKOUT)
        return self.page("Checkout", "<h1>Checkout</h1>" + errors(problems) + form("/checkout", inner, "Place order"),
                         [("Cart", "/cart"), ("Checkout", "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["p", pid] if pid in self.products:
                p = self.products[pid]
                problems = [f"Please choose a {key}." for key, options in (("colour", p["colours"]), ("size", p["sizes"]))
                            if data.get(key) not in options]
                if problems:
                    return self.product(pid, problems)
                self.cart.append({"pid": pid, "name": p["name"], "colour": data["colour"], "size": data["size"],
                                  "qty": data.get("qty") or "1"})
                return redirect("/cart")
            case ["cart", "remove", n] if n.isdigit() and int(n) < len(self.cart) and data.get("confirm") == "yes":
                line = self.cart.pop(int(n))
                self.record("remove", line["pid"], colour=line["colour"])
                return redirect("/cart")
            case ["checkout"]:
                problems = [f"{label} is required." for key, label in CHECKOUT if not data.get(key, "").strip()]
                if not self.cart:
                    problems.append("Your cart is empty.")
                if problems:
                    return self.checkout(data, problems)
                for line in self.cart:
                    self.record("order", line["pid"], colour=line["colour"], size=line["size"], qty=line["qty"],
                                name=data["name"], postcode=data["postcode"])
                self.cart = []
                return redirect("/done")
        return NOT_FOUND


CHECKOUT = [("name", "Full name"), ("street", "Street address"), ("city", "Town"), ("postcode", "Postcode")]


def buy(rng: random.Random) -> Case:
    shop = Shop(rng)
    p = shop.products[shop.target]
    colour, size, person, street = rng.choice(p["colours"]), rng.choice(p["sizes"]), rng.choice(PEOPLE), rng.choice(STREETS)
    city, postcode = rng.choice(CITIES)
    goal = (f"At {shop.name}, order one {p['name']} in {colour}, size {size}, and have it sent to {person}, "
            f"{street}, {city}, postcode {postcode}.")
    return Case(shop, goal, Expect(actions=[Action(verb="order", item=shop.target, fields={
        "colour": colour, "size": size, "qty": "1", "name": person, "postcode": postcode})]))


def ask_specs(rng: random.Random) -> Case:
    shop = Shop(rng)
    p = shop.products[shop.target]
    goal = f"On {shop.name}, find the {p['name']}: what does it weigh, and what material is it made of?"
    return Case(shop, goal, Expect(answer=[float(p["weight"]), p["material"]]))


def remove_from_cart(rng: random.Random) -> Case:
    shop = Shop(rng)
    words = set(shop.products[shop.target]["name"].split())
    near = [pid for pid, p in shop.products.items() if pid != shop.target and words & set(p["name"].split())]
    for pid in rng.sample(near, 3) + [shop.target]:
        p = shop.products[pid]
        shop.cart.append({"pid": pid, "name": p["name"], "colour": rng.choice(p["colours"]),
                          "size": rng.choice(p["sizes"]), "qty": "1"})
    rng.shuffle(shop.cart)
    line = next(line for line in shop.cart if line["pid"] == shop.target)
    goal = f"My cart at {shop.name} holds a {line['name']} I no longer want: remove it, and keep everything else."
    return Case(shop, goal, Expect(actions=[Action(verb="remove", item=shop.target)]), start="/")


TEMPLATES = {"buy": buy, "ask-specs": ask_specs, "remove-from-cart": remove_from_cart}
