"""How a value can be spelled outside the browser: one regex that finds it in any mix of the spellings
URLs, forms, JSON, HTML and Python give each character (percent-encoding under any safe set, `+` for a
space, backslash escapes, \\uXXXX, HTML entities), and in base64 (standard or URL-safe) at any alignment.

ASCII letters and digits stand as themselves (no standard encoder spells them otherwise), and no
spelling is shorter than the value, so a text shorter than it, or lacking one of its runs of letters
and digits and each of its base64 forms, cannot hold it: Replacer checks that at the speed of `in`
and searches only a text that passes with the regex."""

from __future__ import annotations

import base64
import functools
import html.entities
import re

SHORT = 8  # a value shorter than this is found only where it stands as a whole token
_ESCAPED = {"\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}  # JSON's and Python's one-letter escapes


@functools.cache
def _entity_names() -> dict[str, list[str]]:
    """Each character -> the HTML entity names that spell it alone (`amp;`, `AMP`, `sol;`, ...)."""
    names: dict[str, list[str]] = {}
    for name, text in html.entities.html5.items():
        if len(text) == 1:
            names.setdefault(text, []).append(name)
    return names


def _hex(number: int, width: int = 0) -> str:
    """Hex digits of a number, each letter in either case."""
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{number:0{width}x}")


def _json_unit(c: str) -> str:
    """`\\uXXXX` of a character (a surrogate pair above U+FFFF), under any depth of backslashes."""
    units = c.encode("utf-16-be")
    return "".join(rf"\\++u{_hex(int.from_bytes(units[i:i + 2]), 4)}" for i in range(0, len(units), 2))


@functools.lru_cache(maxsize=4096)
def _character(c: str) -> str:
    """A regex for one character in every spelling: itself, %XX of its UTF-8 bytes (also encoded
    again as %25XX), `+` for a space, a backslash escape, \\uXXXX, a named or numeric HTML entity;
    an ASCII letter or digit only as itself. Itself last: a backslash is the start of other spellings."""
    if c.isascii() and c.isalnum():
        return c
    spellings = ["".join(f"%(?:25)*{_hex(b, 2)}" for b in c.encode()), _json_unit(c),
                 rf"&#0*{ord(c)}(?:;|(?![0-9]))", rf"&#[xX]0*{_hex(ord(c))}(?:;|(?![0-9a-fA-F]))"]
    spellings += [f"&{re.escape(name)}" for name in sorted(_entity_names().get(c, []), key=len, reverse=True)]
    if c == " ":
        spellings.append(r"\+")
    if c in "\"'/":
        spellings.append(rf"\\++{re.escape(c)}")
    if c in _ESCAPED:
        spellings.append(rf"\\++{_ESCAPED[c]}")
    return "(?:" + "|".join([*spellings, re.escape(c)]) + ")"


def base64_cores(value: str) -> list[str]:
    """The base64 text only `value`'s bytes decide, standard and URL-safe, wherever in a longer
    encoded byte string the value starts (offset 0, 1 or 2 of a 3-byte group)."""
    raw, cores = value.encode(), []
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + raw).decode().rstrip("=")
        first, last = -(-offset * 8 // 6), (offset + len(raw)) * 8 // 6  # sextets wholly inside the value
        cores += [encoded[first:last], encoded[first:last].translate(str.maketrans("+/", "-_"))]
    return cores


def _base64_forms(value: str) -> list[str]:
    """The value's own base64 (padded or not, standard or URL-safe), and, unless it is short, its cores."""
    encoded = base64.b64encode(value.encode()).decode()
    forms = {encoded, encoded.rstrip("="), base64.urlsafe_b64encode(value.encode()).decode(),
             base64.urlsafe_b64encode(value.encode()).decode().rstrip("=")}
    if len(value) >= SHORT:
        forms |= set(base64_cores(value))
    return sorted((f for f in forms if f), key=len, reverse=True)


def spelled(value: str) -> str:
    """A regex finding `value` in any spelling; a short value only as a whole token (never inside a
    longer word: a 1-character key is no reason to rewrite every word holding that letter)."""
    # a run of backslashes is one run in any spelling, taken whole (possessive: escapes nest to any
    # depth, and a run matched a backslash at a time would be retried every way it can be split)
    units = re.findall(r"\\+|[^\\]", value)
    body = "".join(f"{_character(unit[0])}++" if unit[0] == "\\" else _character(unit) for unit in units)
    pattern = "|".join([body, *map(re.escape, _base64_forms(value))])
    return f"(?:{pattern})" if len(value) >= SHORT else rf"(?<![\w-])(?:{pattern})(?![\w-])"


@functools.lru_cache(maxsize=256)
def compiled(values: tuple[str, ...]) -> re.Pattern[str]:
    """One regex for several values, group `v<i>` matching values[i]; list the longer values first so
    that a value holding another is found whole."""
    return re.compile("|".join(f"(?P<v{i}>{spelled(v)})" for i, v in enumerate(values)))


class Replacer:
    """Replaces each of several values, in any spelling, by its replacement; a longer value first, so
    that a value holding another is replaced whole."""

    def __init__(self, pairs: tuple[tuple[str, str], ...]) -> None:
        ordered = sorted(pairs, key=lambda pair: -len(pair[0]))
        self._values = tuple(value for value, _ in ordered)
        self._replacements = [replacement for _, replacement in ordered]
        self._shortest = min(map(len, self._values), default=0)
        self._clues = [(re.findall("[A-Za-z0-9]+", value), _base64_forms(value)) for value in self._values]

    def __call__(self, text: str) -> str:
        if not self._values or len(text) < self._shortest:
            return text
        held = tuple(i for i, (runs, encoded) in enumerate(self._clues)
                     if all(run in text for run in runs) or any(form in text for form in encoded))
        if not held:
            return text
        pattern = compiled(tuple(self._values[i] for i in held))
        return pattern.sub(lambda match: self._replacements[held[int(match.lastgroup[1:])]], text)
