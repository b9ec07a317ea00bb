"""Bulk pages: every record of a table or a list of cards, read into an array of objects; the
records the examples target are the page's, typed as their schema says, and encode for training."""

from __future__ import annotations

import asyncio
import random

import jsonschema

from agentpair.executor.local import WEIGHTS
from agentpair.training.datagen.build import render_all
from agentpair.training.datagen.tasks import BULK_DRAWS, page_examples
from agentpair.training.datagen.pages_bulk import bulk_example, bulk_page, target_records
from agentpair.training.datagen.vocab import VOCABS
from executor_engine.engine import Engine
from executor_engine.training.data import encode_record


def test_a_bulk_example_targets_every_record_as_its_schema_types_it() -> None:
    rng = random.Random(5)
    for _ in range(20):
        page = bulk_page(rng, VOCABS["train"], "Shopsite")
        ex = bulk_example(rng, page)
        jsonschema.validate(ex["target"], ex["schema"])
        _, records = target_records(ex["target"])
        assert 10 <= len(records) == len(page.records) <= 16
        assert 2 <= len(records[0]) - 1 <= 3  # the name and two or three other columns
        for record, shown in zip(records, page.records):
            assert set(record.values()) <= set(shown.values())  # each value is one the page shows


def test_rendered_bulk_pages_give_examples_with_every_records_value_offered_that_encode(tmp_path) -> None:
    """Through Chromium, as build.py makes them: the page's rows size the array, each field's
    target is among its row's offers, and the record encodes with a choice per record's field."""
    rng = random.Random(7)
    pages = [bulk_page(rng, VOCABS["train"], "Shopsite") for _ in range(2)]
    vocab = Engine.load(WEIGHTS / "executor", device="cpu").vocab
    for page, (obs, refs) in zip(pages, asyncio.run(render_all(pages, tmp_path / "pages.jsonl"))):
        bulk = [ex for ex in page_examples(rng, page, obs, refs, VOCABS["train"]) if ex["kind"] == "extract"]
        assert len(bulk) == BULK_DRAWS
        for ex in bulk:
            at, rows = target_records(ex["target"])
            assert all(v in ex["allowed"][f"{at}/{i}/{k}"] for i, row in enumerate(rows) for k, v in row.items())
            encoded = encode_record(vocab, {**ex, "context": "c"})
            assert len(set(encoded.slot_of)) == sum(len(row) for row in rows)
