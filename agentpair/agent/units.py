"""What a field's name says of the value it asks (its label words, its unit) and the numbers
page texts show, in a unit or in any."""

from __future__ import annotations

import re

NUMBER = re.compile(r"(?<![\w-])-?\d[\d,]*(?:\.\d+)?")

# A number field named with a unit ("price_usd", "weight_kg", "minutes") asks for a number the page
# shows in that unit: the unit's sign before the number or its symbol after it.
UNITS = {"usd": (r"\$|US\$", r"USD|dollars?"), "eur": ("€", "€|EUR|euros?"), "gbp": ("£", "GBP|pounds?"),
         "in": ("", r'"|″|in|inch(?:es)?'), "cm": ("", "cm"), "mm": ("", "mm"), "m": ("", "m"), "km": ("", "km"),
         "kb": ("", "KB"), "mb": ("", "MB"), "gb": ("", "GB"), "tb": ("", "TB"), "g": ("", "g"), "kg": ("", "kg"),
         "lb": ("", "lbs?"), "l": ("", "l|litres?|liters?"), "ml": ("", "ml"), "w": ("", "W"), "wh": ("", "Wh"),
         "hz": ("", "Hz"), "h": ("", "h|hrs?|hours?"), "hours": ("", "h|hrs?|hours?"),
         "min": ("", "min|minutes?"), "minutes": ("", "min|minutes?"), "days": ("", "days?"),
         "years": ("", "years?|yrs?"), "pct": ("", "%|percent"), "percent": ("", "%|percent")}

_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
DATE = re.compile(rf"\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b"
                  rf"|\b{_MONTH}\s+\d{{1,2}}(?:,?\s+\d{{4}})?\b|\b\d{{1,2}}\s+{_MONTH}(?:\s+\d{{4}})?\b", re.IGNORECASE)
DATE_PARTS = frozenset({"year", "month", "day", "date"})  # a field asking for (a part of) a date

NAMING = frozenset({"name", "title", "product", "model"})  # a field asking what a thing is called


def page_numbers(texts: list[str]) -> list[str]:
    """The numbers the texts show, in order, commas dropped."""
    return [n.replace(",", "") for text in texts for n in NUMBER.findall(text)]


def without_dates(texts: list[str]) -> list[str]:
    """The texts with the dates they show cut out ("16 Jul", "July 4, 2025", "2025-07-04",
    "07/04/2025"), so that their numbers are not read as counts or amounts."""
    return [DATE.sub(" ", text) for text in texts]


def label_words(field: str) -> set[str]:
    """A field's label as words: its name without a unit (storage_gb: {"storage"})."""
    parts = re.findall(r"[a-z]+", field.lower())
    return set(parts[:-1] if len(parts) > 1 and parts[-1] in UNITS else parts)


def word_set(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def numbers_in_unit(lines: list[str], field: str) -> list[str]:
    """The numbers the lines show in the unit the field's name ends with (commas dropped); none
    where the name has no unit (UNITS)."""
    unit = UNITS.get(field.rsplit("_", 1)[-1].lower())
    if unit is None:
        return []
    sign, symbol = unit
    number = NUMBER.pattern
    shown = re.compile((rf"(?:{sign})\s?({number})|" if sign else "") + rf"({number})\s?(?:{symbol})(?![A-Za-z])",
                       re.IGNORECASE)
    found = (next(g for g in match.groups() if g) for line in lines for match in shown.finditer(line))
    return list(dict.fromkeys(n.replace(",", "") for n in found))
