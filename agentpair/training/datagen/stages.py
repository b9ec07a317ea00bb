"""A second stage for training goals: once the page a goal names is open, send a reply or change a
setting there, so the planner learns that reaching a page does not always end the goal."""

from __future__ import annotations

import random
from dataclasses import dataclass

from agentpair.training.datagen.sites import (Call, Move, Screen, Site, alert, button, choose, click, finish, h, p,
                                     select, textarea, type_in)

DONE = "The goal is done."
REPLIES = ["We have sent a replacement.", "Your refund is on its way.", "Thanks, we fixed the address.",
           "The order ships on Monday.", "Please send us a photo of the damage.",
           "Your account is unlocked now.", "We will call you tomorrow morning."]
ASKS = ["My parcel arrived damaged.", "Where is my refund?", "I cannot sign in any more.",
        "Please change my delivery address.", "When will my order ship?"]
REPLY_FIELDS = ["Reply", "Your answer", "Message", "Answer", "Write a reply", "Comment"]
SEND = ["Send answer", "Send", "Post reply", "Reply", "Submit reply"]
SAVE = ["Save", "Save changes", "Update", "Apply", "Save settings"]
SETTINGS = {"Idle timeout": ["5 minutes", "10 minutes", "30 minutes", "1 hour"],
            "Language": ["English", "French", "German", "Spanish"],
            "Time zone": ["UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo"],
            "Currency": ["USD", "EUR", "GBP", "JPY"], "Items per page": ["10", "25", "50", "100"],
            "Theme": ["Light", "Dark", "System"], "News summary": ["Daily", "Weekly", "Never"]}
TAILS = {"reply": [" Then send this reply there: {text}", " Once there, reply with: {text}",
                   " On that page, post the reply \"{text}\"", " and send the customer this reply: {text}",
                   ", then reply: {text}"],
         "setting": [" Then set {setting} to {value} and save it.", " There, change {setting} to {value} and save.",
                     " On that page, switch {setting} to {value}; save the change.",
                     ", set {setting} to {value} there and save it.", " and change {setting} to {value}."]}


# The same change asked for on its own, the page it lives on only hinted at, as users write it
HINTED = ["set the {setting} to {value} (it is a {page} setting) and save it",
          "change {setting} to {value}; it lives under {page}. Save it",
          "switch {setting} to {value} in the {page} settings and save"]


@dataclass
class Stage:
    """What the goal adds (tail), and the calls that carry it out on the named page; for a
    setting, also the whole task with the page only hinted at (hinted)."""

    tail: str
    calls: list[Call]
    hinted: str = ""

    def extend(self, goal: str) -> str:
        """The goal with this stage: a new sentence, or inside the goal's last one (as goals
        often write it: "sign in ..., open case #310 and send ... this answer: ...")."""
        return goal[:-1] + self.tail if self.tail.startswith((",", " and")) else goal + self.tail


def second_stage(rng: random.Random, site: Site, page: str, path: str) -> Stage:
    if rng.random() < 0.5:
        text, label, send = rng.choice(REPLIES), rng.choice(REPLY_FIELDS), rng.choice(SEND)
        ask = p(f"Customer wrote: {rng.choice(ASKS)}")

        def screen(note: str = "") -> Screen:
            return site.screen(path, page, h(page), alert(note) if note else "", ask, textarea(label), button(send))
        moves: list[Move] = [type_in(label, text), click("button", send)]
        tail, hinted = rng.choice(TAILS["reply"]).format(text=text), ""
        thought, answer, said, note = "Write the reply and send it.", f"Sent the reply: {text}", [text], "Reply sent."
    else:
        names = rng.sample(list(SETTINGS), 3)
        setting = rng.choice(names)
        value = rng.choice(SETTINGS[setting][1:])
        save = rng.choice(SAVE)

        def screen(note: str = "") -> Screen:
            shown = {n: value if note and n == setting else SETTINGS[n][0] for n in names}
            selects = "".join(select(n, SETTINGS[n], shown[n]) for n in names)
            return site.screen(path, page, h(page), alert(note) if note else "", selects, button(save))
        moves = [choose(setting, value), click("button", save)]
        tail = rng.choice(TAILS["setting"]).format(setting=setting, value=value)
        hinted = rng.choice(HINTED).format(setting=setting.lower(), value=value, page=page.lower())
        thought, answer, said, note = f"Set {setting} and save.", f"Set {setting} to {value}", [value], "Changes saved."
    calls = [Call(screen(), thought, moves), Call(screen(note), DONE, [finish(answer, said)])]
    return Stage(tail, calls, hinted)
