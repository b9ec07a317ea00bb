"""The executor data generator: determinism, held-out vocabulary disjointness, valid records."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from agentpair.training.datagen.build import make_pages
from agentpair.training.datagen.vocab import VOCABS
from executor_engine.canvas import Vocab
from executor_engine.training.data import encode_record, record_texts, train_tokenizer
from tests.datagen_helpers import offline_records

DATA = Path(__file__).resolve().parents[2] / "data" / "executor"


def test_pages_are_deterministic_by_seed():
    a, b = make_pages("train", 5, seed=3), make_pages("train", 5, seed=3)
    assert [p.html for p in a] == [p.html for p in b]
    assert [p.html for p in make_pages("train", 5, seed=4)] != [p.html for p in a]
    assert offline_records("train", 3, seed=3) == offline_records("train", 3, seed=3)


def test_split_pools_are_disjoint():
    assert not VOCABS["train"].strings() & VOCABS["heldout"].strings()


def _leaks(train_texts: list[str]) -> set[str]:
    text = "\n".join(train_texts)
    return {w for w in VOCABS["heldout"].strings()
            if w in text and re.search(rf"\b{re.escape(w)}\b", text)}


def test_no_heldout_string_occurs_in_training_records():
    train = offline_records("train", 40)
    assert not _leaks([json.dumps(r, ensure_ascii=False) for r in train])


@pytest.mark.skipif(not (DATA / "train.jsonl").is_file(), reason="dataset not generated")
def test_generated_training_split_has_no_heldout_string():
    texts = list(dict.fromkeys(r["context"] for r in map(json.loads, (DATA / "train.jsonl").open())))
    lines = (DATA / "train.jsonl").read_text().splitlines()
    assert not _leaks(texts + [json.dumps({k: v for k, v in json.loads(l).items() if k != "context"})
                               for l in lines[::7]])


def test_records_are_valid_and_fit_their_canvases():
    records = offline_records("heldout", 20)
    kinds = {r["kind"] for r in records}
    assert kinds == {"tool_args", "extract", "code"}
    tok = train_tokenizer(record_texts(records), 600)
    vocab = Vocab(tok, 640, tok.token_to_id("<|pad|>"), tok.token_to_id("<|mask|>"))
    for r in records:
        if r.get("schema") is not None:
            jsonschema.validate(r["target"], r["schema"])
        if "ref" in r["target"]:
            assert r["target"]["ref"] in r["allowed"]["/ref"]
        e = encode_record(vocab, r)
        assert e.slots and max(e.slots) < len(e.canvas)


def test_tool_records_offer_the_refs_a_run_offers():
    """As at run time (step_work.allowed_refs): a tool's refs narrowed to its roles and to the
    element the instruction names, "" first where the ref is optional, so `read` learns to take
    the whole page."""
    tools = [r for r in offline_records("train", 40) if r["kind"] == "tool_args"]
    reads = [r for r in tools if r["tool"] == "read"]
    assert {r["target"]["ref"] == "" for r in reads} == {True, False}
    assert all(r["allowed"]["/ref"][0] == "" for r in reads)
    # clicks and typing are offered the refs of the element the instruction names (named_refs)
    named = [r for r in tools if r["tool"] in ("click", "type")]
    assert named and all(r["target"]["ref"] in r["allowed"]["/ref"] for r in named)
    assert sum(len(r["allowed"]["/ref"]) == 1 for r in named) > 0.8 * len(named)
    # typed text, picked options and opened URLs come from the instruction's words (or a secret,
    # or a link on the page), as at run time
    verbatim = [(r, k) for r in tools for k in ("text", "option", "url") if k in r["target"]]
    assert verbatim and all(r["target"][k] in r["allowed"]["/" + k] for r, k in verbatim)


def test_extracted_values_are_offered_from_the_page():
    """As at run time (step_work.page_values): every string and number an extraction's target
    holds is among the values the page offers, "" (absent) included."""
    extracts = [r for r in offline_records("train", 40) if r["kind"] == "extract"]
    offered = [(r, k) for r in extracts for k in r["target"] if "/" + k in r["allowed"]]
    assert any(r["target"][k] == "" for r, k in offered) and any(
        isinstance(r["target"][k], float) for r, k in offered)
    assert all(r["target"][k] in r["allowed"]["/" + k] for r, k in offered)


def test_the_families_split_holds_only_page_families_training_never_draws():
    trained = {p.family for p in make_pages("train", 200)}
    unseen = make_pages("families", 30)
    assert {"purchases", "events", "recipe", "forum"} <= trained  # the list and detail families
    assert {p.family for p in unseen} and not {p.family for p in unseen} & trained
    assert not _leaks([json.dumps(r, ensure_ascii=False) for r in offline_records("train", 40)])
    assert offline_records("families", 6)  # examples of every kind are made from them as from any page


def test_every_value_a_list_or_unseen_page_is_read_for_is_shown_on_it():
    pages = [p for p in make_pages("train", 80) + make_pages("families", 20)
             if p.family in ("purchases", "events", "recipe", "forum", "inbox", "profile", "booking")]
    for page in pages:
        text = re.sub(r"<[^>]+>", " ", page.html)
        for value in [*page.facts.values(), *(v for r in page.records for v in r.values())]:
            if not isinstance(value, bool):
                assert str(value) in text or f"{value:.2f}" in text, (page.family, value)
