"""Render synthetic pages once in Chromium (agentpair.tools.browser.Browser), cache the observations, and
write dataset JSONL: `python -m agentpair.training.datagen.build --out data/executor --pages 500`."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from pathlib import Path
from typing import Any

from agentpair.training.datagen.pages import BUILDERS, Page
from agentpair.training.datagen.pages_bulk import bulk_page
from agentpair.training.datagen.pages_lists import LIST_BUILDERS
from agentpair.training.datagen.pages_long_forms import long_form_page
from agentpair.training.datagen.pages_unseen import UNSEEN_BUILDERS
from agentpair.training.datagen.tasks import dumps, page_examples
from agentpair.training.datagen.vocab import VOCABS, Vocab
from playwright.async_api import Route

from agentpair.tools.base import Observation
from agentpair.tools.browser import Browser
from agentpair.tools.snapshot import find_ref

# held-out uses different seeds and vocabulary on the first eight families; "families" the
# held-out vocabulary on page families training never draws (pages_unseen); "bulk" trains on
# tables and lists of 10-16 records read whole (pages_bulk; agentpair.bench.bulk holds its own out);
# "long_forms" forms of 20-26 fields filled from one instruction (pages_long_forms; the same)
SPLIT_SEEDS = {"train": 1000, "heldout": 9000, "families": 9500, "bulk": 2000, "long_forms": 3000}
SPLIT_BUILDERS = {"train": {**BUILDERS, **LIST_BUILDERS}, "heldout": BUILDERS, "families": UNSEEN_BUILDERS,
                  "bulk": {"bulk": bulk_page}, "long_forms": {"long_form": long_form_page}}
EVAL_PAGES = {"heldout": 80, "families": 60}  # pages of each evaluation split


def make_pages(split: str, n: int, seed: int | None = None) -> list[Page]:
    """n pages of one split, deterministic for (split, seed)."""
    rng, words, builders = random.Random(SPLIT_SEEDS[split] if seed is None else seed), vocab(split), SPLIT_BUILDERS[split]
    return [builders[rng.choice(list(builders))](rng, words, words.one(rng, "site")) for _ in range(n)]


def vocab(split: str) -> Vocab:
    return VOCABS[{"families": "heldout", "bulk": "train", "long_forms": "train"}.get(split, split)]


ROLES = {"link": "link", "button": "button", "textbox": "textbox", "password": "textbox",
         "searchbox": "searchbox", "select": "combobox", "checkbox": "checkbox"}


def element_refs(page: Page, obs: Observation) -> dict[str, str]:
    """Element key -> ref, by role and exact name; elements sharing a role and name are left out."""
    seen: dict[tuple[str, str], int] = {}
    for e in page.elements:
        seen[(ROLES[e.kind], e.label)] = seen.get((ROLES[e.kind], e.label), 0) + 1
    refs = {}
    for e in page.elements:
        if seen[(ROLES[e.kind], e.label)] == 1:
            try:
                refs[e.key] = find_ref(obs.snapshot, ROLES[e.kind], e.label, exact=True)
            except LookupError:  # trimmed from the snapshot
                continue
    return refs


def serve(html: str) -> Any:
    async def handler(route: Route) -> None:
        await route.fulfill(body=html, content_type="text/html")
    return handler


async def render_all(pages: list[Page], cache: Path) -> list[tuple[Observation, dict[str, str]]]:
    """Observations (as the browser tool makes them) and element refs, cached as JSONL."""
    if cache.is_file():
        rows = [json.loads(line) for line in cache.read_text().splitlines()]
        if len(rows) == len(pages) and all(r["html"] == p.html for r, p in zip(rows, pages)):
            return [(Observation(**r["observation"]), r["refs"]) for r in rows]
    out = []
    async with Browser() as browser:
        for page in pages:  # a fresh context per page, so refs read e1, e2, ... as in a run
            await browser.start_task("about:blank", allowed_origins=["*"])
            await browser.page.route("**/*", serve(page.html))
            await browser.page.goto(f"http://{page.site.lower()}.test{page.path}")
            obs = await browser.observe()
            out.append((obs, element_refs(page, obs)))
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("".join(json.dumps({"html": p.html, "observation": o.model_dump(),
                                         "refs": r}) + "\n" for p, (o, r) in zip(pages, out)))
    return out


def examples(split: str, pages: list[Page], rendered: list[tuple[Observation, dict[str, str]]],
             seed: int, rounds: int = 1) -> list[dict[str, Any]]:
    """Examples of every page; each round draws new instructions and values for the same pages."""
    rng = random.Random(seed + 1)
    out = []
    for _ in range(rounds):
        for i, (page, (obs, refs)) in enumerate(zip(pages, rendered)):
            for ex in page_examples(rng, page, obs, refs, vocab(split)):
                out.append({"split": split, "page": i, **ex})
    return out


def build(out: Path, split: str, n_pages: int, seed: int | None = None, rounds: int = 1) -> Path:
    seed = SPLIT_SEEDS[split] if seed is None else seed
    pages = make_pages(split, n_pages, seed)
    rendered = asyncio.run(render_all(pages, out / f"pages-{split}.jsonl"))
    path = out / f"{split}.jsonl"
    path.write_text("".join(dumps(r) + "\n" for r in examples(split, pages, rendered, seed, rounds)))
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="data/executor")
    ap.add_argument("--pages", type=int, default=500, help="training pages")
    ap.add_argument("--heldout-pages", type=int, default=EVAL_PAGES["heldout"])
    ap.add_argument("--families-pages", type=int, default=EVAL_PAGES["families"],
                    help="pages of the families training never sees")
    ap.add_argument("--bulk-pages", type=int, default=200, help="training pages of 10-16 records read whole")
    ap.add_argument("--long-form-pages", type=int, default=200, help="training forms of 20-26 fields")
    ap.add_argument("--rounds", type=int, default=3, help="example draws per training page")
    args = ap.parse_args()
    for split, n, rounds in (("train", args.pages, args.rounds), ("bulk", args.bulk_pages, args.rounds),
                             ("long_forms", args.long_form_pages, args.rounds),
                             ("heldout", args.heldout_pages, 1), ("families", args.families_pages, 1)):
        path = build(Path(args.out), split, n, rounds=rounds)
        print(f"{split}: {sum(1 for _ in path.open())} examples from {n} pages -> {path}")


if __name__ == "__main__":
    main()
