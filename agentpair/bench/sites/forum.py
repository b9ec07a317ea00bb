"""Family `forum` (REPORT split: never develop, tune or train on it): a community forum seen by a
moderator: boards, a board's threads over pages, a thread's posts each with its own moderation
links (hide a post), and locking a thread behind a confirmation. Thread titles share words with the
target's, and usernames differ by a suffix."""

from __future__ import annotations

import random

from agentpair.bench.sites.base import (
    NOT_FOUND, Action, Case, Expect, Reply, Site, area, confirm, errors, esc, form, link, pages, redirect, table,
)

FORUMS = ["Allotment Talk", "Tinkerers' Bench", "Riverside Anglers' Forum"]
BOARDS = ["General chat", "Tools and kit", "Help wanted", "Show and tell"]
TOPICS = ["compost heap", "rain barrel", "pallet bench", "cold frame", "bird feeder", "wormery"]
SHAPES = ["Building a {t} on a budget", "{t} building tips", "Is my {t} too small?", "Old {t} for swap",
          "Building a second {t}", "Budget {t} photos"]
HANDLES = ["greenfinger", "spadework", "muddyboots", "hedgehog", "turnip_ted", "weedwhacker", "dibber"]
LINES = ["Has anyone tried this with reclaimed wood?", "Mine took a whole weekend.", "Great photos, thanks!",
         "Buy cheap watches at my shop, link in profile!!!", "I'd add a lid to keep the rain out.",
         "Try the hardware store on Mill Lane.", "Same problem here, no fix yet.", "Lovely work."]


class Forum(Site):
    menu = [("Boards", "/"), ("Moderation log", "/log")]

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.name = rng.choice(FORUMS)
        topic = rng.choice(TOPICS)
        titles = [s.format(t=topic) for s in rng.sample(SHAPES, 4)]
        titles += [s.format(t=t) for t in rng.sample([t for t in TOPICS if t != topic], 4) for s in rng.sample(SHAPES, 1)]
        board = rng.choice(BOARDS)
        self.threads: dict[str, dict] = {}
        for i, title in enumerate(titles):
            posts = [{"by": rng.choice(HANDLES), "text": rng.choice(LINES), "hidden": False}
                     for _ in range(rng.randrange(3, 7))]
            self.threads[f"t{880 + i * 11}"] = {"title": title, "board": board if i < 6 else rng.choice(BOARDS),
                                                "posts": posts, "locked": False, "views": rng.randrange(40, 2000)}
        self.target = "t880"
        self.threads = dict(rng.sample(list(self.threads.items()), len(self.threads)))
        for i, handle in enumerate(rng.sample(HANDLES, 2)):  # look-alike usernames around the target's
            self.threads[self.target]["posts"].insert(1 + i, {"by": f"{handle}{'' if i else '_2'}",
                                                              "text": rng.choice(LINES), "hidden": False})

    def get(self, path: str, query: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case [""]:
                rows = [[link(b, f"/board/{n}"), str(sum(t["board"] == b for t in self.threads.values()))]
                        for n, b in enumerate(BOARDS)]
                return self.page("Boards", "<h1>Boards</h1>" + table(["Board", "Threads"], rows))
            case ["board", n] if n.isdigit() and int(n) < len(BOARDS):
                board = BOARDS[int(n)]
                mine = [(k, t) for k, t in self.threads.items() if t["board"] == board]
                shown, pager = pages(mine, query, f"/board/{n}?")
                rows = [[link(t["title"], f"/thread/{k}"), str(len(t["posts"]) - 1), str(t["views"]),
                         "Locked" if t["locked"] else "Open"] for k, t in shown]
                return self.page(board, f"<h1>{esc(board)}</h1>" + table(["Thread", "Replies", "Views", "State"], rows)
                                 + pager, [("Boards", "/"), (board, "")])
            case ["thread", k] if k in self.threads:
                return self.thread(k)
            case ["thread", k, "lock"] if k in self.threads:
                return confirm(self, f"Lock “{self.threads[k]['title']}”? Nobody will be able to reply.",
                               f"/thread/{k}/lock", "Lock thread", f"/thread/{k}")
            case ["thread", k, "hide", n] if k in self.threads and n.isdigit() and int(n) < len(self.threads[k]["posts"]):
                post = self.threads[k]["posts"][int(n)]
                body = (f"<h1>Hide a post</h1><p>Post by {esc(post['by'])}: “{esc(post['text'])}”</p>"
                        + form(f"/thread/{k}/hide/{n}", area("Reason shown to the member", "reason"), "Hide post"))
                crumbs = [("Boards", "/"), (self.threads[k]["title"], f"/thread/{k}"), ("Hide", "")]
                return self.page("Hide post", body, crumbs)
            case ["log"]:
                rows = [[esc(a.verb), esc(self.threads[a.item]["title"])] for a in self.actions]
                return self.page("Moderation log", "<h1>Moderation log</h1>" + table(["Action", "Thread"], rows))
        return NOT_FOUND

    def thread(self, k: str, problems: list[str] = ()) -> str:
        t = self.threads[k]
        posts = "".join(
            f"<article><h3>{esc(p['by'])}{' (original post)' if n == 0 else ''}</h3>"
            f"<p>{'[hidden by a moderator]' if p['hidden'] else esc(p['text'])}</p>"
            f"{'' if p['hidden'] else link('Hide this post', f'/thread/{k}/hide/{n}')}</article>"
            for n, p in enumerate(t["posts"]))
        tools = "<p>This thread is locked.</p>" if t["locked"] else f"<p>{link('Lock thread', f'/thread/{k}/lock')}</p>"
        board = BOARDS.index(t["board"])
        return self.page(t["title"], f"<h1>{esc(t['title'])}</h1>{errors(list(problems))}{tools}{posts}",
                         [("Boards", "/"), (t["board"], f"/board/{board}"), (t["title"], "")])

    def post(self, path: str, data: dict[str, str]) -> str | Reply:
        match path.strip("/").split("/"):
            case ["thread", k, "lock"] if k in self.threads and data.get("confirm") == "yes":
                self.threads[k]["locked"] = True
                self.record("lock", k)
                return redirect(f"/thread/{k}")
            case ["thread", k, "hide", n] if k in self.threads and n.isdigit() and int(n) < len(self.threads[k]["posts"]):
                if not data.get("reason", "").strip():
                    return self.thread(k, ["A reason is required to hide a post."])
                post = self.threads[k]["posts"][int(n)]
                post["hidden"] = True
                self.record("hide", k, by=post["by"], text=post["text"])
                return redirect(f"/thread/{k}")
        return NOT_FOUND


def lock(rng: random.Random) -> Case:
    site = Forum(rng)
    t = site.threads[site.target]
    return Case(site, f"As a moderator of {site.name}, lock the thread “{t['title']}” in {t['board']}.",
                Expect(actions=[Action(verb="lock", item=site.target)]))


def hide_post(rng: random.Random) -> Case:
    site = Forum(rng)
    t = site.threads[site.target]
    for other in t["posts"]:
        other["text"] = LINES[7] if other["text"] == LINES[3] else other["text"]
    post = t["posts"][1]
    post["text"] = LINES[3]
    goal = (f"On {site.name}, hide {post['by']}'s spam reply in the thread “{t['title']}”, giving the reason "
            f"\"Advertising\". Leave every other post alone.")
    return Case(site, goal, Expect(actions=[Action(verb="hide", item=site.target,
                                                   fields={"by": post["by"], "text": LINES[3]})]))


def ask_replies(rng: random.Random) -> Case:
    site = Forum(rng)
    t = site.threads[site.target]
    goal = f"On {site.name}, how many replies and views does the thread “{t['title']}” have, and who started it?"
    return Case(site, goal, Expect(answer=[float(len(t["posts"]) - 1), float(t["views"]), t["posts"][0]["by"]]))


TEMPLATES = {"lock": lock, "hide-post": hide_post, "ask-replies": ask_replies}
