"""Every spelling of a value the standard encoders give (urllib.parse under many safe sets, html, json,
base64, repr), generated here apart from agentpair.tools.spellings, to check that none of them leaks."""

from __future__ import annotations

import base64
import html
import html.entities
import json
import random
import re
import string
from urllib.parse import quote, quote_plus

ENCODE_URI = ";,/?:@&=+$-_.!~*'()#"  # what JavaScript's encodeURI keeps
ENCODE_URI_COMPONENT = "-_.!~*'()"  # what encodeURIComponent keeps


def safe_sets(count: int = 24, seed: int = 61) -> list[str]:
    """Sets of characters a percent-encoder may keep: none, each punctuation character alone, the
    browser's two, and `count` random subsets of punctuation and space."""
    rng = random.Random(seed)
    pool = string.punctuation + " "
    return ["", *pool, ENCODE_URI, ENCODE_URI_COMPONENT,
            *("".join(rng.sample(pool, rng.randint(2, len(pool)))) for _ in range(count))]


def _percent(value: str) -> set[str]:
    forms = set()
    for safe in safe_sets():
        forms |= {quote(value, safe=safe), quote_plus(value, safe=safe)}
    lower = {re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), form) for form in forms}
    return forms | lower | {quote(quote(value, safe=""), safe="")}  # lower-case hex; encoded twice


def _escaped(value: str) -> set[str]:
    """JSON string insides (ASCII or not, with `\\/`, nested once) and Python's repr insides."""
    inside = json.dumps(value)[1:-1]
    return {inside, json.dumps(value, ensure_ascii=False)[1:-1], inside.replace("/", "\\/"),
            json.dumps(json.dumps(value))[1:-1], repr(value)[1:-1]}


def _entities(value: str) -> set[str]:
    """html.escape's, and every character not a letter or digit as a decimal, hex or named entity."""
    def each(spell) -> str:
        return "".join(c if c.isalnum() else spell(c) for c in value)

    named = {c: f"&{name};" for c, name in ((chr(p), n) for p, n in html.entities.codepoint2name.items())}
    return {html.escape(value), html.escape(value, quote=False), each(lambda c: f"&#{ord(c)};"),
            each(lambda c: f"&#x{ord(c):x};"), each(lambda c: f"&#X{ord(c):X};"),
            each(lambda c: named.get(c, c))}


def _base64(value: str) -> set[str]:
    raw = value.encode()
    forms = {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
    return forms | {f.rstrip("=") for f in forms}


def encodings(value: str) -> set[str]:
    """`value` as each encoder above writes it (itself included)."""
    return {value} | _percent(value) | _escaped(value) | _entities(value) | _base64(value)


def embedded_base64(value: str) -> list[str]:
    """base64 of byte strings that hold the value after 0, 1 and 2 other bytes (as in HTTP Basic
    auth's `user:password`) and before others, standard and URL-safe."""
    blobs = [b"user:"[:k] + value.encode() + b"|tail" for k in range(3, 6)]
    return [encode(blob).decode().rstrip("=") for blob in blobs
            for encode in (base64.b64encode, base64.urlsafe_b64encode)]


def hidden_in_base64(text: str, value: str) -> int:
    """How many runs of base64 letters in `text` decode, at some alignment, to bytes holding `value`."""
    raw, found = value.encode(), 0
    for run in re.findall(r"[A-Za-z0-9+/_-]{12,}", text):
        run = run.replace("-", "+").replace("_", "/")
        chunks = (run[start:][: (len(run) - start) // 4 * 4] for start in range(4))
        found += any(raw in base64.b64decode(chunk) for chunk in chunks)
    return found


def leaks(text: str, value: str) -> int:
    """Occurrences of `value` in `text` in any of its encodings, base64 inside longer base64 included."""
    return sum(text.count(form) for form in encodings(value)) + hidden_in_base64(text, value)
