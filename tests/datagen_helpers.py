"""Dataset records without a browser: pages with a stand-in snapshot, for fast tests."""

from __future__ import annotations

import html
import random
import re
from typing import Any

from agentpair.training.datagen.build import ROLES, make_pages, vocab
from agentpair.training.datagen.tasks import page_examples
from agentpair.tools.base import Observation

TAG = re.compile(r"<[^>]+>")


def offline_records(split: str, n_pages: int, seed: int | None = None) -> list[dict[str, Any]]:
    """Records as build.py makes them, over a one-line-per-element stand-in snapshot."""
    rng, out = random.Random(0), []
    for i, page in enumerate(make_pages(split, n_pages, seed)):
        lines = [f'- {ROLES[e.kind]} "{e.label}"' + " [checked]" * e.checked + f" [ref=e{j + 1}]"
                 + (f"\n  - /url: {e.href}" if e.href else "")
                 for j, e in enumerate(page.elements)]
        # the page's text too, one line per run between tags, as the snapshot's text lines
        lines += [f"- text: {t}" for t in map(str.strip, html.unescape(TAG.sub("\n", page.html)).splitlines()) if t]
        refs = {e.key: f"e{j + 1}" for j, e in enumerate(page.elements)}
        obs = Observation(url=f"http://{page.site.lower()}.test{page.path}", title=page.title,
                          snapshot="\n".join(lines), text=page.title, refs=list(refs.values()))
        out += [{"split": split, "page": i, **ex}
                for ex in page_examples(rng, page, obs, refs, vocab(split))]
    return out
