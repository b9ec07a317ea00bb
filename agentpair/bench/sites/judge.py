"""Judging a site run: the actions the site recorded against those expected (each exactly once, nothing
else), a question's answer against its expected values (numbers as numbers, text case-insensitively),
and whether every value of an answer appears on a page the run saw."""

from __future__ import annotations

import json
import re
from typing import Any

from agentpair.bench.sites.base import Action, Expect

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def norm(text: Any) -> str:
    return " ".join(str(text).split()).casefold()


def numbers(text: str) -> list[float]:
    """The numbers written in `text` (thousands separators dropped: "$1,250.00" is 1250)."""
    found = []
    for match in NUMBER.findall(text):
        try:
            found.append(float(match.replace(",", "")))
        except ValueError:
            continue
    return found


def has_value(text: str, value: str | float) -> bool:
    """`value` is in `text`: a number as one of its numbers, a string as whole words, case-insensitively
    ("Lily Evans" is not in "Lily Evanson")."""
    if isinstance(value, (int, float)):
        return any(abs(n - value) < 0.005 for n in numbers(text))
    return re.search(rf"(?<!\w){re.escape(norm(value))}(?!\w)", norm(text)) is not None


def answer_text(answer: Any) -> str:
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False) if answer is not None else ""


def _matches(done: Action, want: Action) -> bool:
    return (done.verb == want.verb and done.item == want.item
            and all(norm(done.fields.get(k, "")) == norm(v) for k, v in want.fields.items()))


def judge(expect: Expect, actions: list[Action], answer: Any) -> list[str]:
    """Why the run failed (empty when it succeeded)."""
    reasons = []
    for want in expect.actions:
        times = sum(_matches(done, want) for done in actions)
        if times != 1:
            reasons.append(f"{want.verb} {want.item} {want.fields or ''} recorded {times} times, expected once")
    for done in actions:
        if not any(_matches(done, want) for want in expect.actions):
            reasons.append(f"unexpected action: {done.verb} {done.item} {done.fields or ''}".rstrip())
    for value in expect.answer or ():
        if not has_value(answer_text(answer), value):
            reasons.append(f"the answer {answer_text(answer)[:120]!r} lacks {value!r}")
    return reasons


def leaves(answer: Any) -> list[Any]:
    """The scalar values of an answer (a JSON string read as JSON first)."""
    if isinstance(answer, str):
        try:
            decoded = json.loads(answer)
        except ValueError:
            return [answer]
        return leaves(decoded) if isinstance(decoded, (dict, list)) else [answer]
    if isinstance(answer, dict):
        return [v for value in answer.values() for v in leaves(value)]
    if isinstance(answer, list):
        return [v for value in answer for v in leaves(value)]
    return [] if answer is None else [answer]


def grounded(answer: Any, seen: list[str]) -> bool:
    """Every value of the answer appears on a page the run saw: a number among the pages' numbers, a text
    whole, or, where it holds numbers, each of them (a sentence around a value read off the page)."""
    pages = "\n".join(seen)
    for value in leaves(answer):
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            if not has_value(pages, float(value)):
                return False
        elif not has_value(pages, str(value)):
            held = numbers(str(value))
            if not held or not all(has_value(pages, n) for n in held):
                return False
    return True
