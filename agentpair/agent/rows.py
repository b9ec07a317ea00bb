"""Bulk extractions: an array of objects read off a page one item per row of a table (or item of
a list), each field of an item offered only what its own row says: the cell in the column whose
header names the field, else the row's cells in the columns no field's name claims; no two of an
item's text fields take the same text.

The executor then fills every row's fields in one request; which of those texts a field takes is
its decision (a header may name the field in other words, a list has no header at all).
"""

from __future__ import annotations

from typing import Any

from agentpair.agent.units import (DATE_PARTS, NAMING, label_words, numbers_in_unit, page_numbers, without_dates,
                                   word_set)
from agentpair.tools.snapshot import body_rows, list_headings, list_items, table_rows

MAX_ROWS = 40  # the most items a bulk extraction reads (its canvas grows with every row)
ArraySchema = tuple[str | None, dict[str, Any]]  # (the property holding it, None for the schema itself; item schema)


def row_arrays(schema: dict[str, Any]) -> list[ArraySchema]:
    """The arrays of objects an extraction asks for: the schema itself, or its top-level properties."""
    if _objects(schema):
        return [(None, schema["items"])]
    return [(name, prop["items"]) for name, prop in schema.get("properties", {}).items()
            if isinstance(prop, dict) and _objects(prop)]


def _objects(schema: dict[str, Any]) -> bool:
    items = schema.get("items")
    return schema.get("type") == "array" and isinstance(items, dict) and items.get("type") == "object" \
        and bool(items.get("properties"))


def pointer_child(where: str, key: str) -> str:
    """The JSON pointer of `key` under `where` (RFC 6901), as the executor reads `allowed`; written
    here, not imported from executor_engine.template, whose import loads torch."""
    return where + "/" + key.replace("~", "~0").replace("/", "~1")


Rows = tuple[list[list[str]], list[str], list[str]]  # rows' texts, the table's header, the list items' headings


def page_rows(snapshot: str, fields: list[str]) -> Rows:
    """The rows an array of objects with these fields is read from, each its texts (a table row's
    cells; a list item's parts), the table's header ([] for a list) and each list item's heading
    ([] for a table): of the page's tables and lists with two rows or more, the one whose header
    names most of the fields, then the longest."""
    sources: list[Rows] = []
    for rows in table_rows(snapshot):
        header = next(([text for _, text in row] for row in rows if row and all(head for head, _ in row)), [])
        sources.append(([[text for _, text in row] for row in body_rows(rows)], header, []))
    sources += [(items, [], headings) for items, headings in zip(list_items(snapshot), list_headings(snapshot))]
    sources = [source for source in sources if len(source[0]) >= 2]
    if not sources:
        return [], [], []

    def named(header: list[str]) -> int:
        return sum(any(label_words(f) and label_words(f) <= word_set(h) for h in header) for f in fields)
    return max(sources, key=lambda source: (named(source[1]), len(source[0])))


def named_columns(header: list[str], props: dict[str, Any], rows: list[list[str]]) -> dict[str, int]:
    """Field -> the column whose header names it (its label words, as label_words reads a field's
    name: "total_usd" is named by "Total"), where exactly one does; else the one unclaimed column
    whose header shares a word with the field's name ("order_id" and "ID") and whose every cell
    offers the field a value (a number field is not read from a column of names)."""
    columns = {}
    for field in props:
        named = [i for i, h in enumerate(header) if label_words(field) and label_words(field) <= word_set(h)]
        if len(named) == 1:
            columns[field] = named[0]
    for field, prop in props.items():
        sharing = [i for i, h in enumerate(header) if label_words(field) & word_set(h) and i not in columns.values()]
        if field not in columns and len(sharing) == 1 and isinstance(prop, dict) and \
                all(row_offers([row[sharing[0]]], field, prop) for row in rows if len(row) == len(header)):
            columns[field] = sharing[0]
    return columns


def row_cells(row: list[str], field: str, columns: dict[str, int], width: int) -> list[str]:
    """What a row offers a field: its cell in the field's column, else its cells in the columns no
    field claims (all of them in a list's item, or in a row that does not span the header)."""
    if len(row) != width:
        return row
    if field in columns:
        return [row[columns[field]]]
    return [cell for i, cell in enumerate(row) if i not in columns.values()]


def row_offers(row: list[str], name: str, prop: dict[str, Any]) -> list[Any]:
    """What one row offers a field: for a string, each of its texts; for a number, the numbers it
    shows (in the field's unit where its name ends with one the row shows), not those of a date
    unless the field's name asks for one (a year, a day); none for other kinds,
    or where the schema pins the value down (enum, const, pattern, format)."""
    if {"enum", "const", "pattern", "format"} & set(prop):
        return []
    kind = prop.get("type")
    if kind == "string":
        lo, hi = prop.get("minLength", 0), prop.get("maxLength", 10**6)
        return [t for t in dict.fromkeys(row) if t and lo <= len(t) <= hi]
    if kind in ("integer", "number"):
        row = row if label_words(name) & DATE_PARTS else without_dates(row)  # no count read off a date
        shown = numbers_in_unit(row, name) or page_numbers(row)
        values = [int(n) for n in shown if "." not in n] if kind == "integer" else [float(n) for n in shown]
        return [v for v in dict.fromkeys(values) if prop.get("minimum", v) <= v <= prop.get("maximum", v)]
    return []


Bulk = tuple[dict[str, Any], dict[str, list[Any]], list[list[str]], list[list[str]]]


def bulk_values(snapshot: str, schema: dict[str, Any]) -> Bulk:
    """The extraction's schema with each array of objects sized to the rows its page shows (within
    its own minItems and maxItems, at most MAX_ROWS); what each item's fields may be, keyed as the
    executor's `allowed` ("/orders/3/total_usd"); and, for a string field no header names, its
    pointers tied: every record takes it from the same column, or the same part of its list item
    where the items have as many parts (the executor's `tied`); and each record's string fields
    read off its row kept apart: no two take the same text (the executor's `distinct`). The schema
    unchanged where no array of objects is asked for or the page shows no rows."""
    allowed: dict[str, list[Any]] = {}
    tied: list[list[str]] = []
    distinct: list[list[str]] = []
    for holder, items in row_arrays(schema):
        props = items["properties"]
        rows, header, headings = page_rows(snapshot, list(props))
        if not rows:
            continue
        array = schema if holder is None else schema["properties"][holder]
        n = min(max(len(rows), array.get("minItems", 0)), array.get("maxItems", MAX_ROWS), MAX_ROWS)
        sized = {**array, "minItems": n, "maxItems": n}
        schema = sized if holder is None else {**schema, "properties": {**schema["properties"], holder: sized}}
        columns, base = named_columns(header, props, rows[:n]), "" if holder is None else pointer_child("", holder)
        width = len(header) if header else len(rows[0]) if len({len(row) for row in rows}) == 1 else -1
        records: list[list[str]] = [[] for _ in rows[:n]]  # each record's string fields offered texts
        for name, prop in props.items():
            column = []
            words = label_words(name)
            titled = bool(words) and words <= NAMING and len(headings) >= n and all(headings[:n])
            for i, row in enumerate(rows[:n]):
                cells = [headings[i]] if titled else row_cells(row, name, columns, len(header))
                at = pointer_child(pointer_child(base, str(i)), name)
                if isinstance(prop, dict) and (offers := row_offers(cells, name, prop)):
                    allowed[at] = offers
                    column += [at] if len(row) == width and offers == cells else []
                    records[i] += [at] if prop.get("type") == "string" else []
            if name not in columns and not titled and len(column) > 1 and len({len(allowed[p]) for p in column}) == 1:
                tied.append(column)
        distinct += [record for record in records if len(record) > 1]
    return schema, allowed, tied, distinct
