"""Word pools for synthetic pages, split so the held-out split's names, labels and values never
occur in training: each pool is cut in two fixed halves, pseudo-words come from disjoint draws."""

from __future__ import annotations

import random
from dataclasses import dataclass

SPLITS = ("train", "heldout")

# Each list is split: items at even index -> train, odd index -> heldout.
POOLS: dict[str, list[str]] = {
    "color": ["Blue", "Crimson", "Green", "Amber", "Black", "Ivory", "Teal", "Maroon", "Silver",
              "Coral", "Olive", "Indigo", "White", "Violet", "Orange", "Beige", "Navy", "Scarlet",
              "Gray", "Turquoise", "Pink", "Mustard", "Brown", "Lavender"],
    "material": ["Cotton", "Wool", "Ceramic", "Bamboo", "Steel", "Linen", "Leather", "Glass",
                 "Oak", "Copper", "Denim", "Marble", "Silk", "Walnut", "Canvas", "Granite",
                 "Velvet", "Maple", "Suede", "Cedar"],
    "item": ["mug", "scarf", "lamp", "backpack", "kettle", "notebook", "blanket", "teapot",
             "wallet", "umbrella", "pillow", "candle", "jacket", "vase", "skillet", "helmet",
             "sneakers", "bowl", "clock", "tote", "sweater", "cushion", "jug", "apron", "hoodie",
             "planter", "tray", "beanie", "stool", "thermos", "mirror", "rug"],
    "field": ["Email", "Full name", "Phone", "Company", "Address", "Postcode", "Username",
              "Nickname", "Website", "Job title", "Department", "Coupon code", "Gift message",
              "City", "Street", "Mobile number", "Last name", "First name", "Team name",
              "Project name", "Invoice number", "Order reference", "Account ID", "Gamertag",
              "Billing email", "Contact person", "Delivery notes", "Tax number", "Alias",
              "Promo code", "Handle", "Recipient"],
    "button": ["Save", "Send form", "Continue", "Apply", "Send", "Confirm", "Update", "Onward",
               "Done", "Register", "Subscribe", "Proceed", "Sign up", "Book now", "Checkout",
               "Create account", "Place order", "Send message", "Finish", "Request quote",
               "Join", "Save changes", "Reserve", "Get started"],
    "nav": ["Home", "About", "Pricing", "Blog", "Careers", "Reach us", "Support", "Docs", "Press",
            "Partners", "Events", "Boutique", "Deals", "Gallery", "Forum", "Jobs", "News", "Leadership",
            "Stories", "Community", "Features", "Help", "Store", "Offers", "Resources",
            "Downloads", "Investors", "Catalog", "Journal", "Solutions"],
    "setting": ["Dark mode", "Email notifications", "Two-factor login", "Auto-save",
                "Show avatars", "Weekly digest", "Sound effects", "Compact view",
                "Location sharing", "Push alerts", "Public profile", "Read receipts",
                "Auto-play videos", "Beta features", "Spell check", "Offline mode",
                "High contrast", "Activity status", "Marketing emails", "Sync contacts"],
    "option": ["France", "Peru", "Canada", "Japan", "Kenya", "Chile", "Norway", "India",
               "Brazil", "Spain", "Egypt", "Mexico", "Italy", "Vietnam", "Ghana", "Poland",
               "Small", "Large", "Medium", "Extra large", "English", "German", "Portuguese",
               "Dutch", "Monthly", "Yearly", "Weekly", "Daily", "Standard", "Express",
               "Economy", "Priority", "Morning", "Evening", "Afternoon", "Midnight"],
    "column": ["Status", "Owner", "Region", "Amount", "Due", "Priority", "Stage", "Score",
               "Quantity", "Category", "Level", "Rank", "Budget", "Rating", "Plan", "Tier"],
    "status": ["Active", "Pending", "Closed", "Shipped", "Paused", "Draft", "Approved",
               "Overdue", "Archived", "Cancelled", "Open", "Delivered", "Failed", "Queued"],
    "topic": ["gardening", "astronomy", "cycling", "baking", "sailing", "pottery", "chess",
              "birdwatching", "photography", "climbing", "knitting", "surfing", "robotics",
              "beekeeping", "fencing", "origami", "archery", "kayaking", "jazz", "mosaics"],
    "table": ["customers", "orders", "invoices", "parcels", "tickets", "shipments",
              "employees", "bookings", "accounts", "vendors", "payments", "reviews"],
}
SYLLABLES = ["ba", "ko", "ri", "ta", "ne", "lo", "vi", "sa", "mu", "de", "pa", "zo", "fi", "ru",
             "ga", "te", "li", "no", "ka", "mi", "so", "ve", "du", "ra", "be", "ni", "to", "la",
             "fe", "jo", "ha", "wi", "ke", "po", "ma", "si", "ze", "bo", "ti", "lu"]


def _pseudo(rng: random.Random, parts: tuple[int, int]) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(*parts))).capitalize()


def _pseudo_pool(seed: int, n: int, parts: tuple[int, int], banned: set[str]) -> list[str]:
    rng, out = random.Random(seed), []
    while len(out) < n:
        w = _pseudo(rng, parts)
        if w not in banned and w not in out:
            out.append(w)
    return out


@dataclass(frozen=True)
class Vocab:
    """The word pools one split may use."""

    split: str
    pools: dict[str, list[str]]

    def pick(self, rng: random.Random, pool: str, k: int = 1) -> list[str]:
        return rng.sample(self.pools[pool], k)

    def one(self, rng: random.Random, pool: str) -> str:
        return rng.choice(self.pools[pool])

    def strings(self) -> set[str]:
        """Every name, label and value this split's pools hold."""
        return {w for words in self.pools.values() for w in words}


def _build() -> dict[str, Vocab]:
    halves: dict[str, dict[str, list[str]]] = {s: {} for s in SPLITS}
    for name, words in POOLS.items():
        halves["train"][name] = words[0::2]
        halves["heldout"][name] = words[1::2]
    # pseudo-words: site names (2-3 syllables), given names, family names; disjoint draws
    banned = {w for words in POOLS.values() for part in words for w in part.split()}
    for split, seed, n in (("train", 11, 400), ("heldout", 97, 80)):
        site = _pseudo_pool(seed, n, (2, 3), banned)
        given = _pseudo_pool(seed + 1, n, (2, 2), banned | set(site))
        family = _pseudo_pool(seed + 2, n, (3, 3), banned | set(site) | set(given))
        halves[split].update(site=site, given=given, family=family)
        banned |= set(site) | set(given) | set(family)
    return {s: Vocab(s, halves[s]) for s in SPLITS}


VOCABS = _build()
