"""Bulk extractions: an array of objects is sized to the rows the page shows, and each item's
fields are offered only what its own row says."""

from __future__ import annotations

from agentpair.agent.rows import MAX_ROWS, bulk_values, page_rows
from agentpair.agent.step_work import fill_requests
from agentpair.models import Step
from agentpair.tools.base import Observation, Toolbox
from agentpair.tools.snapshot import list_items
from agentpair.executor.local import WEIGHTS
from executor_engine.canvas import ChoiceSlot
from executor_engine.engine import Engine
from executor_engine.template import compile_schema

TABLE = """- heading "Orders" [level=1]
- table:
  - rowgroup:
    - row:
      - columnheader "Customer"
      - columnheader "Total"
      - columnheader "Qty"
    - row:
      - cell "Ada Lovelace"
      - cell "$1,204.50"
      - cell "3"
    - row:
      - cell "Alan Turing"
      - cell "$88.00"
      - cell "12"
    - row:
      - cell "Grace Hopper"
      - cell "$7.25"
      - cell "1"
- list:
  - listitem:
    - link "Home"
  - listitem:
    - link "Help"
  - listitem:
    - link "About"
  - listitem:
    - link "Jobs"
"""
CARDS = """- list:
  - listitem:
    - heading "Blue mug" [level=3]
    - paragraph: Shipped · 2.5 kg
    - button "View" [ref=e1]
  - listitem:
    - heading "Red lamp" [level=3]
    - paragraph: Pending · 4 kg
    - button "View" [ref=e2]
"""
ORDER = {"type": "object", "required": ["customer", "total_usd", "qty"],
         "properties": {"customer": {"type": "string"}, "total_usd": {"type": "number"}, "qty": {"type": "integer"}}}


def test_an_array_under_a_property_is_sized_to_the_table_and_offered_each_rows_own_values() -> None:
    schema = {"type": "object", "properties": {"orders": {"type": "array", "items": ORDER}}}
    sized, allowed, *_ = bulk_values(TABLE, schema)
    assert sized["properties"]["orders"]["minItems"] == sized["properties"]["orders"]["maxItems"] == 3
    assert allowed["/orders/1/customer"] == ["Alan Turing"]  # the row's cell in the column the header names
    assert allowed["/orders/0/total_usd"] == [1204.5]
    assert allowed["/orders/2/qty"] == [1]
    assert "/orders/3/customer" not in allowed


def test_a_field_no_header_names_chooses_among_the_cells_no_other_field_claims() -> None:
    item = {"type": "object", "properties": {"buyer": {"type": "string"}, "units": {"type": "integer"},
                                             "total_usd": {"type": "number"}}}
    _, allowed, tied, _ = bulk_values(TABLE, {"type": "array", "items": item})
    assert allowed["/1/buyer"] == ["Alan Turing", "12"]  # not the Total column's "$88.00": total_usd has it
    assert allowed["/1/units"] == [12]  # the numbers of the unclaimed cells
    assert allowed["/1/total_usd"] == [88.0]
    assert tied == [["/0/buyer", "/1/buyer", "/2/buyer"]]  # every record takes the buyer from one column


def test_a_header_sharing_a_word_with_a_field_names_it_where_its_cells_fit_the_field() -> None:
    item = {"type": "object", "properties": {"customer_name": {"type": "string"}, "total_amount": {"type": "number"},
                                             "qty": {"type": "integer"}}}
    _, allowed, tied, _ = bulk_values(TABLE, {"type": "array", "items": item})
    assert allowed["/1/customer_name"] == ["Alan Turing"]  # "Customer" shares a word and shows names
    assert allowed["/1/qty"] == [12]
    assert allowed["/1/total_amount"] == [88.0]
    assert tied == []
    mixed = {"type": "object", "properties": {"customer_count": {"type": "integer"}, "total_usd": {"type": "number"}}}
    _, allowed, *_ = bulk_values(TABLE, {"type": "array", "items": mixed})
    assert allowed["/1/customer_count"] == [12]  # no number in the Customer column: the unclaimed cells'


def test_a_top_level_array_reads_a_list_of_cards_where_no_table_names_its_fields() -> None:
    item = {"type": "object", "properties": {"item": {"type": "string"}, "weight_kg": {"type": "number"}}}
    sized, allowed, *_ = bulk_values(CARDS, {"type": "array", "items": item})
    assert sized["minItems"] == sized["maxItems"] == 2
    assert allowed["/1/item"] == ["Red lamp", "Pending", "4 kg"]  # the card's parts
    assert allowed["/1/weight_kg"] == [4.0]


def test_a_lists_items_of_as_many_parts_tie_a_field_to_one_part() -> None:
    item = {"type": "object", "properties": {"item": {"type": "string"}, "state": {"type": "string"}}}
    _, allowed, tied, _ = bulk_values(CARDS, {"type": "array", "items": item})
    assert tied == [["/0/item", "/1/item"], ["/0/state", "/1/state"]]


def test_a_field_asking_what_a_thing_is_called_takes_each_cards_heading() -> None:
    item = {"type": "object", "properties": {"product_name": {"type": "string"}, "state": {"type": "string"}}}
    _, allowed, tied, _ = bulk_values(CARDS, {"type": "array", "items": item})
    assert allowed["/0/product_name"] == ["Blue mug"] and allowed["/1/product_name"] == ["Red lamp"]
    assert tied == [["/0/state", "/1/state"]]
    ragged = CARDS.replace("Pending · 4 kg", "4 kg")
    assert bulk_values(ragged, {"type": "array", "items": item})[2] == []  # parts no longer line up


def test_the_table_whose_header_names_the_fields_wins_over_a_longer_list() -> None:
    rows, header, headings = page_rows(TABLE, ["customer", "total_usd"])
    assert header == ["Customer", "Total", "Qty"] and len(rows) == 3 and headings == []
    rows, header, headings = page_rows(TABLE, ["city"])  # no header names it: the longest source, the nav list
    assert header == [] and rows == [["Home"], ["Help"], ["About"], ["Jobs"]] and headings == ["", "", "", ""]


def test_the_schemas_own_bounds_and_the_row_limit_hold() -> None:
    sized, *_ = bulk_values(TABLE, {"type": "array", "maxItems": 2, "items": ORDER})
    assert sized["maxItems"] == 2
    many = "- table:\n" + "".join(f'  - row:\n    - cell "n{i}"\n    - cell "{i}"\n' for i in range(MAX_ROWS + 5))
    sized, allowed, *_ = bulk_values(many, {"type": "array", "items": ORDER})
    assert sized["maxItems"] == MAX_ROWS and f"/{MAX_ROWS - 1}/customer" in allowed and f"/{MAX_ROWS}/customer" not in allowed


def test_no_array_of_objects_or_no_rows_leaves_the_schema_alone() -> None:
    flat = {"type": "object", "properties": {"name": {"type": "string"}}}
    assert bulk_values(TABLE, flat) == (flat, {}, [], [])
    array = {"type": "array", "items": ORDER}
    assert bulk_values('- heading "Nothing here" [level=1]\n', array) == (array, {}, [], [])


def test_list_items_split_an_items_text_into_its_parts_not_its_buttons() -> None:
    assert list_items(CARDS) == [[["Blue mug", "Shipped", "2.5 kg"], ["Red lamp", "Pending", "4 kg"]]]


def test_a_records_string_fields_read_off_its_row_are_kept_apart() -> None:
    item = {"type": "object", "properties": {"item": {"type": "string"}, "state": {"type": "string"},
                                             "weight_kg": {"type": "number"}}}
    _, _, _, distinct = bulk_values(CARDS, {"type": "array", "items": item})
    assert distinct == [["/0/item", "/0/state"], ["/1/item", "/1/state"]]  # a number is no text of the row
    _, _, _, distinct = bulk_values(TABLE, {"type": "array", "items": ORDER})
    assert distinct == []  # one string field: nothing to keep apart


def test_a_number_field_takes_no_number_from_a_date_unless_it_asks_for_one() -> None:
    dated = CARDS.replace("Shipped · 2.5 kg", "Placed 16 Jul · 3 items · 2025-07-04")
    item = {"type": "object", "properties": {"count": {"type": "integer"}, "year": {"type": "integer"}}}
    _, allowed, *_ = bulk_values(dated, {"type": "array", "items": item})
    assert allowed["/0/count"] == [3]
    assert allowed["/0/year"] == [16, 3, 2025]


def test_an_extract_step_asks_for_one_fill_with_a_choice_per_records_field() -> None:
    obs = Observation(url="http://shop.test/orders", title="Orders", snapshot=TABLE, text="")
    step = Step(kind="extract", instruction="List every order", schema={"type": "array", "items": ORDER})
    [request] = fill_requests(step, "ctx", obs, Toolbox([]))
    assert request.schema_["maxItems"] == 3 and len(request.allowed) == 9

    vocab = Engine.load(WEIGHTS / "executor", device="cpu").vocab  # the shipped executor's tokenizer
    compiled = compile_schema(vocab, request.schema_, request.allowed)
    choices = {id(s) for s, _ in compiled.canvas.owner.values() if isinstance(s, ChoiceSlot)}
    assert len(choices) == 9
