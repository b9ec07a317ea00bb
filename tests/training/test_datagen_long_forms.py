"""Long forms: 20-26 labelled text fields filled from one instruction that quotes every value
after a word for its field; each example's target is the page's values, every one offered."""

from __future__ import annotations

import asyncio
import random

import jsonschema

from agentpair.agent.form_fill import quoted_values
from agentpair.executor.local import WEIGHTS
from agentpair.training.datagen.build import render_all
from agentpair.training.datagen.pages_long_forms import FIELDS, long_form_example, long_form_page
from agentpair.training.datagen.tasks import page_examples
from agentpair.training.datagen.vocab import VOCABS
from executor_engine.engine import Engine
from executor_engine.training.data import encode_record


def test_a_long_form_example_quotes_every_fields_value_once_and_targets_them_all() -> None:
    rng = random.Random(3)
    for _ in range(20):
        page = long_form_page(rng, VOCABS["train"], "Shopsite")
        values = page.facts["fields"]
        assert 20 <= len(values) <= 26 and len(set(values.values())) == len(values)
        ex = long_form_example(rng, page)
        jsonschema.validate(ex["target"], ex["schema"])
        assert sorted(quoted_values(ex["instruction"])) == sorted(values.values())
        assert list(ex["target"].values()) == list(values.values())  # keys in the form's order


def test_an_instruction_names_a_field_by_its_label_or_one_of_its_words() -> None:
    rng = random.Random(4)
    page = long_form_page(rng, VOCABS["train"], "Shopsite")
    text = long_form_example(rng, page)["instruction"]
    for label, kind in page.facts["kinds"].items():
        words = [label.lower(), *FIELDS[kind].said]
        assert any(f'{w} "{page.facts["fields"][label]}"' in text for w in words)


def test_rendered_long_forms_give_examples_whose_values_are_all_offered_and_encode(tmp_path) -> None:
    rng = random.Random(5)
    pages = [long_form_page(rng, VOCABS["train"], "Shopsite")]
    vocab = Engine.load(WEIGHTS / "executor", device="cpu").vocab
    [(obs, refs)] = asyncio.run(render_all(pages, tmp_path / "pages.jsonl"))
    examples = page_examples(rng, pages[0], obs, refs, VOCABS["train"])
    assert examples and all(ex["family"] == "long_form" for ex in examples)
    for ex in examples:
        assert all(v in ex["allowed"]["/" + k] for k, v in ex["target"].items())
        encoded = encode_record(vocab, {**ex, "context": "c"})
        assert len(set(encoded.slot_of)) == len(ex["target"])  # a choice per field
