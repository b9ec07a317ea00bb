"""Labels and goal wordings for planner episodes, split like vocab.py: items at even index go to
train, at odd index to held-out, so held-out sites use labels and phrasings never trained on."""

from __future__ import annotations

import random
import re

from agentpair.training.datagen.vocab import SPLITS

LABELS: dict[str, list[str]] = {
    "login_link": ["Sign in", "Log in", "Member login", "Customer login", "Sign in here",
                   "Account login", "Sign in now", "Log in here"],
    "user_field": ["Username", "User ID", "Login name", "User name", "Account name", "Member ID",
                   "Username or email", "Login ID"],
    "sign_in": ["Sign in", "Log in", "Sign me in", "Log me in", "Enter account", "Access account",
                "Sign in securely", "Let me in"],
    "signup": ["Create an account", "Open an account", "New here? Start now", "Get an account",
               "Make an account", "Start a free trial"],
    "forgot": ["Forgot password?", "Reset your password", "Trouble signing in?", "Lost password?"],
    "account_page": ["Billing", "Receipts", "Profile", "Security", "Subscriptions", "Messages",
                     "Payment methods", "Notifications", "Addresses", "Preferences", "Usage",
                     "Team members", "API keys", "Statements"],
    "search_field": ["Search", "Search products", "Find products", "Search the shop",
                     "Search our store", "Keywords", "What are you looking for?", "Search items"],
    "menu": ["Menu", "More", "Browse", "All sections", "Open menu", "Explore", "Sections",
             "Site menu"],
    "cart": ["View cart", "Cart", "Go to cart", "Basket", "Shopping cart", "Your bag"],
    "featured": ["New this week", "Popular now", "Featured", "Best sellers", "You may also like"],
    "aside": ["Add to wishlist", "Notify me", "Quick view", "Add to list", "Compare", "Details",
              "Share", "Save it"],  # a product's other button, beside its add-to-cart
    "create_link": ["New {}", "Create a {}", "Add a {}", "Set up a {}", "New {} from template",
                    "Launch a {}"],
    "checkout": ["Proceed to checkout", "Checkout now", "Go to checkout", "Check out",
                 "Continue to checkout", "Secure checkout"],
    "place_order": ["Place order", "Buy now", "Complete purchase", "Confirm order", "Pay now",
                    "Submit order"],
    "name_field": ["Name", "Full name", "Your name", "Customer name", "Name on order", "Contact name"],
    "street_field": ["Address", "Street and number", "Street", "Address line"],
    "city_field": ["Town", "City", "Town or city", "Locality"],
    "postcode_field": ["ZIP code", "Postcode", "Postal code", "Post code"],
    "shipping_field": ["Shipping", "Delivery", "Shipping method", "Delivery speed"],
    "shipping": ["Standard", "Express", "Economy", "Priority", "Next day", "Same day", "Saver",
                 "Overnight"],
    "email_field": ["Email", "E-mail address", "Email address", "Your email"],
    "register_link": ["Register now", "Sign up for the event", "Get tickets", "Book your place",
                      "Reserve a seat", "Join the event", "Registration", "Enrol now"],
    "contact_link": ["Contact us", "Write to us", "Send us a note", "Get in touch"],
    "message_field": ["Message", "Your message", "Comments", "How can we help?"],
    "submit": ["Submit", "Send now", "Submit entry", "Complete registration", "Post message",
               "Send it", "Confirm registration", "Send request"],
    "ticket_field": ["Ticket type", "Admission", "Pass type", "Entry"],
    "ticket": ["Student", "Standard pass", "Early bird", "Supporter", "Day pass", "Speaker",
               "Full conference", "Group"],
    "terms": ["I accept the terms", "I agree to the community guidelines", "I accept the privacy policy",
              "I agree to the rules", "I have read the terms", "I accept the event policy"],
    "newsletter": ["Subscribe to the newsletter", "Send me news", "Email me offers",
                   "Keep me posted", "Join the mailing list", "Send me updates"],
    "event": ["Summit", "Conference", "Meetup", "Workshop", "Festival", "Expo", "Forum day",
              "Hackathon"],
    "kind": ["service", "cron job", "worker", "database", "webhook", "queue", "bucket", "mailer"],
    "box": ["Config", "Job config", "Definition", "Config file", "Settings file", "Setup",
            "Configuration", "Manifest"],
    "other_box": ["Notes", "Environment variables", "Description", "Labels"],
    "slug_suffix": ["api", "web", "jobs", "sync", "feed", "auth", "billing", "search", "cache",
                    "mail"],
    "region": ["eu-west-1", "us-east-2", "ap-south-1", "eu-central-1", "us-west-2", "sa-east-1",
               "eu-north-1", "ap-east-1"],
    "spec": ["Weight", "Battery", "Memory", "Storage", "Screen", "Warranty", "Width", "Capacity"],
}
WHOLE = {"Battery", "Memory", "Storage", "Warranty", "Capacity"}  # specs given in whole units
UNITS = {"Weight": "kg", "Battery": "h", "Memory": "GB", "Storage": "GB", "Screen": "in",
         "Warranty": "years", "Width": "cm", "Capacity": "L"}

# Goal wordings per family; {names} are filled by the family generator.
GOALS: dict[str, list[str]] = {
    "login": ["Sign in to {site} as {user} with password {{secret:password}}{then}.",
              "Log into my {site} account (username {user}, password {{secret:password}}){then}.",
              "On {site}, log in with the username {user} and the password {{secret:password}}{then}.",
              "Use {user} / {{secret:password}} to sign in at {site}{then}.",
              "Open {site} and sign in as {user}; the password is {{secret:password}}{then}.",
              "I need to get into {site}: user {user}, password {{secret:password}}{then}."],
    "login_then": [", then open the {page} page", " and go to {page}", ", then open {page}",
                   " and then show me the {page} page"],
    "search": ["Search {site} for \"{query}\" and open the {target}.",
               "Find the {target} on {site}: search for {query} and open its page.",
               "On {site}, look up {query} and open the result called {target}.",
               "Use the search on {site} to find \"{query}\", then open {target}.",
               "Open the {target} page on {site} (search for {query}).",
               "Go to {site}, search {query} and click through to the {target}."],
    "navigate": ["Open the {target} page on {site}.", "Go to the {target} section of {site}.",
                 "On {site}, navigate to {target}.", "Take me to {site}'s {target} page.",
                 "Find the {target} page of {site} and open it.", "Show the {target} page on {site}."],
    "navigate_deep": ["Open {section} > {target} on {site}.",
                      "On {site}, go to {target} under {section}.",
                      "Navigate to {site}'s {target} page (it is under {section}).",
                      "In the {section} part of {site}, open {target}."],
    "buy": [("Buy one {target} on {site} (not the {other}) and check out as {name}, {street}, "
            "{city}, {postcode}, with {shipping} shipping."),
            ("At {site}, order a {target} for {name} ({street}, {city}, {postcode}); "
            "use {shipping} delivery. Do not buy the {other}."),
            ("Purchase the {target} from {site}. Ship it {shipping} to {name}, {street}, {city} "
            "{postcode}."),
            ("Add the {target} (not the {other}) to the cart on {site} and check out: {name}, "
            "{street}, {city}, {postcode}, {shipping} shipping."),
            ("I want the {target} from {site}, sent by {shipping} shipping to {name} at {street}, "
            "{city}, {postcode}."),
            ("Get one {target} at {site}; deliver to {name}, {street}, {city}, {postcode} with "
            "{shipping} shipping.")],
    "register": ["Register {name} ({email}) for the {event} on {site}: {ticket} ticket. {extras}",
                 ("Sign {name} up for the {site} {event} with the email {email} and a {ticket} "
                 "ticket. {extras}"),
                 "On {site}, book a ticket ({ticket}) to the {event} for {name}, email {email}. {extras}",
                 ("Fill in the {event} registration on {site} for {name} <{email}>, ticket: {ticket}. "
                 "{extras}")],
    "register_extras": ["Accept the terms and do not subscribe to the newsletter.",
                        "Agree to the terms, leave the newsletter off, and submit.",
                        "Tick the terms box, untick the newsletter, then register.",
                        "Accept the terms; no newsletter, please."],
    "contact": ["Message {site} from {name} ({email}): \"{message}\"",
                "Use the contact form on {site} to write \"{message}\" as {name}, {email}.",
                "Contact {site} as {name} <{email}> and say: {message}",
                "Write to {site} from {email} (name {name}) with the message \"{message}\"."],
    "extract": ["On {site}, open the {target} page and report its {facts}.",
                "What are the {facts} of the {target} on {site}?",
                "Find the {target} on {site} and tell me its {facts}.",
                "Look up the {facts} of {site}'s {target}.",
                "Go to the {target} on {site} and read off its {facts}.",
                "Report the {facts} of the {target} sold on {site}."],
    "lookup": ["In the {table} table on {site}, what is the {column} of {person}?",
               "What {column} does {person} have in {site}'s {table} list?",
               "Look up {person} in the {table} table on {site} and report the {column}.",
               "Tell me the {column} shown for {person} on {site}'s {table} page."],
    "code": [("In the {site} console, create a new {kind} from the template on the New {kind} page: "
             "{settings}. Paste the filled-in config into the {box} box and create it."),
             ("Create a {kind} on {site} with {settings}, using the page's template; the config goes "
             "in the {box} box."),
             ("On {site}, add a {kind} ({settings}) by filling in the template and submitting it in "
             "the {box} field."),
             ("Set up a new {kind} in {site}: {settings}. Fill the template into {box} and create "
             "the {kind}."),
             "Use the New {kind} page of {site} to create one with {settings} (config in {box}).",
             "Make a {kind} on {site}: {settings}. Put the completed template in the {box} box."],
}


# Training-only labels and wordings: with a handful per pool the planner learns the pool by
# heart instead of reading the page and the goal (held-out correctness stayed near a third).
TRAIN_LABELS: dict[str, list[str]] = {
    "login_link": ["Your profile area", "Members area", "My account", "Sign on",
                   "Account sign-in", "Returning customer? Sign in", "Portal login"],
    "user_field": ["Email or username", "Customer number", "Account ID", "Handle", "Login",
                   "Your username", "Card number", "Username / email"],
    "sign_in": ["Continue", "Sign on", "Enter", "Proceed", "Authenticate", "Open my account", "Next"],
    "signup": ["Register", "Join now", "Sign up", "Become a member", "Create profile"],
    "forgot": ["Forgotten your password?", "Can't sign in?", "Recover account", "Password help"],
    "account_page": ["Orders", "Invoices", "Settings", "Wallet", "Favourites", "Devices",
                     "Integrations", "Privacy", "Rewards", "Support tickets", "Activity"],
    "search_field": ["Find", "Search catalogue", "Look up items", "Type to find",
                     "Search for anything", "Product finder", "Query"],
    "menu": ["Navigation", "Show menu", "Categories", "Everything", "Departments", "Main menu"],
    "cart": ["Trolley", "Shopping bag", "Open cart", "Items in cart", "Bag"],
    "featured": ["Trending", "Top picks", "Customer favourites", "Editor's choice"],
    "aside": ["Favourite", "Specs", "Bookmark", "Watch", "Save for later", "Add to compare",
              "Move to wishlist", "Gift it"],
    "create_link": ["Start a {}", "Add new {}", "+ New {}"],
    "checkout": ["Continue to payment", "Checkout", "Pay securely", "Go to payment", "Review and pay"],
    "place_order": ["Pay and finish", "Finish order", "Order now", "Complete order", "Place my order"],
    "name_field": ["Recipient", "Recipient name", "Deliver to", "Addressee", "First and last name"],
    "street_field": ["Street address", "Address 1", "House and street", "Street name and number"],
    "city_field": ["Town/city", "Municipality", "Place", "Suburb"],
    "postcode_field": ["ZIP", "Postal / ZIP code", "Zip code", "PIN code"],
    "shipping_field": ["Shipping speed", "Shipping option", "Carrier", "Dispatch"],
    "shipping": ["Two-day", "Freight", "Budget", "Courier", "Weekend", "First class", "Tracked"],
    "email_field": ["Contact email", "Work email", "Email for updates", "Your e-mail"],
    "register_link": ["Sign me up", "Register", "Attend", "Claim a ticket", "RSVP", "Save my seat"],
    "contact_link": ["Contact", "Message us", "Support", "Drop us a line", "Feedback"],
    "message_field": ["Question", "Details", "What's on your mind?", "Your note", "Enquiry"],
    "submit": ["Send", "Done", "Confirm", "Finish", "Send message", "Save and submit", "Go ahead"],
    "ticket_field": ["Ticket", "Pass", "Ticket class", "Attendee type"],
    "ticket": ["VIP", "Virtual", "Exhibitor", "Volunteer", "Press", "Two-day pass"],
    "terms": ["I agree to the terms and conditions", "I accept the house rules",
              "I have read and accept the policy", "I consent to the terms"],
    "newsletter": ["Sign me up for news", "Email me the newsletter", "Subscribe me",
                   "Yes, send me offers"],
    "event": ["Congress", "Summer camp", "Symposium", "Fair", "Retreat", "Bootcamp"],
    "box": ["Spec", "Definition file", "YAML", "Config text", "Template", "Blueprint"],
    "other_box": ["Comments", "Tags", "Owner notes", "Annotations"],
}
TRAIN_GOALS: dict[str, list[str]] = {
    "login": ["Sign in on {site}. Username: {user}. Password: {{secret:password}}{then}.",
              "Please authenticate at {site} using {user} and {{secret:password}}{then}.",
              "{site} sign-in: {user} / {{secret:password}}{then}.",
              "Get me signed in to {site} as {user} (password {{secret:password}}){then}.",
              "Access my {site} account with username {user} and password {{secret:password}}{then}."],
    "login_then": [" and open {page} afterwards", "; after that, visit {page}",
                   ", and once signed in open the {page} page", ". Then show {page}"],
    "search": ["On {site}, search for {query} and then open {target}.",
               "Look for \"{query}\" on {site} and click the {target} result.",
               "Type {query} into {site}'s search box and open the {target} page.",
               "Find {target} on {site} by searching \"{query}\".",
               "{site}: search {query}, open {target}."],
    "navigate": ["Go to {target} on {site}.", "Open {site} and click through to {target}.",
                 "I want to see the {target} page of {site}.", "Visit {site}'s {target} section.",
                 "Bring up {target} on {site}."],
    "navigate_deep": ["Go to {section}, then {target}, on {site}.",
                      "On {site}, open {target} from the {section} menu.",
                      "Find {target} inside {section} on {site}.", "{site}: {section}, then {target}."],
    "buy": ["Order the {target} on {site} (not the {other}). Ship to {name}, {street}, {city}, "
            "{postcode} by {shipping}.",
            "Get one {target} from {site} for {name}: {street}, {city} {postcode}; "
            "{shipping} shipping.",
            "Buy {target} at {site} and have it sent {shipping} to {name}, {street}, {city}, {postcode}.",
            "On {site}, put the {target} in the cart, not the {other}, then pay: {name}, {street}, "
            "{city}, {postcode}, {shipping}."],
    "register": ["Get {name} ({email}) a {ticket} ticket for the {site} {event}. {extras}",
                 "Book {name} into the {event} at {site} with {email}, ticket {ticket}. {extras}",
                 "Register for the {event} on {site}: name {name}, email {email}, ticket {ticket}. {extras}"],
    "register_extras": ["Tick the terms and skip the newsletter.", "Terms: yes. Newsletter: no.",
                        "Agree to the terms but leave the newsletter unticked."],
    "contact": ["Send {site} a message as {name} ({email}): {message}",
                "On {site}'s contact page, write \"{message}\" from {name}, {email}.",
                "Fill in {site}'s contact form: {name}, {email}, message \"{message}\"."],
    "extract": ["Tell me the {facts} of the {target} on {site}.",
                "Open {target} on {site} and give me its {facts}.",
                "I need the {facts} for {site}'s {target}.", "Check {site} for the {target}'s {facts}."],
    "lookup": ["Find {person} in {site}'s {table} table and give me the {column}.",
               "On {site}, what is {person}'s {column} in the {table} list?",
               "Read the {column} of {person} from the {table} table on {site}."],
    "code": ["Create a {kind} on {site}'s New {kind} page with {settings}; fill the template into "
             "{box} and submit.",
             "On {site}, use the template to set up a {kind}: {settings}. The config goes into {box}.",
             "Add a new {kind} on {site} with {settings}. Put the filled template in the {box} field "
             "and create it."],
}
# Page labels that may be written differently on a training site (case, a trailing mark), so the
# planner copies a label from the page rather than recalling it.
VARIED = set(TRAIN_LABELS) - {"shipping", "ticket", "event", "create_link"}
DECORATIONS = [str.upper, str.lower, lambda s: s + ":", lambda s: s + " ›", lambda s: s + " *"]


def _halves(pools: dict[str, list[str]], extra: dict[str, list[str]]) -> dict[str, dict[str, list[str]]]:
    return {"train": {k: v[0::2] + extra.get(k, []) for k, v in pools.items()},
            "heldout": {k: v[1::2] for k, v in pools.items()}}


SPLIT_LABELS = _halves(LABELS, TRAIN_LABELS)
SPLIT_GOALS = _halves(GOALS, TRAIN_GOALS)
assert set(SPLIT_LABELS) == set(SPLITS)


class Words:
    """One split's labels and goal wordings."""

    def __init__(self, split: str) -> None:
        self.split = split
        self.labels = SPLIT_LABELS[split]
        self.goals = SPLIT_GOALS[split]

    def one(self, rng: random.Random, pool: str) -> str:
        return self._written(rng, pool, rng.choice(self.labels[pool]))

    def pick(self, rng: random.Random, pool: str, k: int) -> list[str]:
        return [self._written(rng, pool, label) for label in rng.sample(self.labels[pool], k)]

    def _written(self, rng: random.Random, pool: str, label: str) -> str:
        """A training label is written differently on a quarter of the sites."""
        if self.split != "train" or pool not in VARIED or rng.random() >= 0.25:
            return label
        return rng.choice(DECORATIONS)(label)

    def goal(self, rng: random.Random, family: str, **values: str) -> str:
        """A goal wording of this split with {names} filled ({{secret:...}} is left alone)."""
        template = rng.choice(self.goals[family])
        return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), template)


WORDS = {split: Words(split) for split in SPLITS}
