"""Dates and times typed into date and time fields: a value as people write it ("05/20/2010",
"9:37 PM") put into the format such a field takes ("2010-05-20", "21:37")."""

from __future__ import annotations

from datetime import datetime

FORMATS = {  # <input type=...> -> (the formats a value may come in, the format the field takes)
    "date": (("%m/%d/%Y", "%Y-%m-%d", "%m-%d-%Y", "%B %d, %Y", "%b %d, %Y", "%d %B %Y"), "%Y-%m-%d"),
    "time": (("%I:%M %p", "%I:%M%p", "%H:%M", "%I %p", "%H:%M:%S"), "%H:%M"),
    "month": (("%m/%Y", "%Y-%m", "%B %Y", "%b %Y"), "%Y-%m"),
    "datetime-local": (("%m/%d/%Y %I:%M %p", "%m/%d/%Y %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"), "%Y-%m-%dT%H:%M"),
}


def field_value(input_type: str, text: str) -> str:
    """`text` in the format a field of this input type takes; unchanged for other fields, or when
    it is in no format known here (the field then says what it made of it)."""
    formats = FORMATS.get(input_type.lower())
    if formats is None:
        return text
    for given in formats[0]:
        try:
            return datetime.strptime(" ".join(text.split()).upper() if "%p" in given else text.strip(),
                                     given).strftime(formats[1])
        except ValueError:
            continue
    return text
