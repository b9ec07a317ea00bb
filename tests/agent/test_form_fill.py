"""A whole form from one instruction: a key per text field the page shows, each offered every
value the instruction quotes (only its own where the instruction says its label right before it),
and the ref each key is typed into."""

from __future__ import annotations

from agentpair.agent.form_fill import form_fill, form_request_parts, quoted_values
from agentpair.tools.base import Observation

FORM = """- heading "Registration" [level=1] [ref=e1]
- textbox "First name" [ref=e2]
- textbox "Postal code" [ref=e3]
- combobox "Plan" [ref=e4]
- link "Help" [ref=e5] [cursor=pointer]
- textbox "Postal code" [ref=e6]
- button "Submit" [ref=e7]"""


def test_quoted_values_are_each_quoted_text_once_in_order() -> None:
    text = 'zip "69001", name \u201cAda\u201d, city "Lyon", again "69001"'
    assert quoted_values(text) == ["69001", "Ada", "Lyon"]
    assert quoted_values("no quotes here") == []


def test_every_field_is_offered_every_quoted_value_and_a_repeated_label_gets_its_own_key() -> None:
    schema, allowed = form_request_parts(["First name", "Postal code", "Postal code"], 'surname "Ada", zip "1"')
    assert list(schema["properties"]) == ["first_name", "postal_code", "postal_code_2"]
    assert schema["required"] == list(schema["properties"])
    assert allowed == {"/first_name": ["Ada", "1"], "/postal_code": ["Ada", "1"], "/postal_code_2": ["Ada", "1"]}
    assert form_request_parts(["City"], "nothing quoted")[1] == {}  # no offer: nothing to choose from


def test_a_field_named_by_its_label_right_before_one_value_is_offered_that_value_only() -> None:
    labels = ["First name", "Email", "Phone", "Emergency phone"]
    said = 'Fill in: first name "Ada"; e-mail "a@b.org", phone "555-1234", emergency phone "555-9999". city: "Lyon"'
    _, allowed = form_request_parts(labels, said)
    assert allowed["/first_name"] == ["Ada"] and allowed["/phone"] == ["555-1234"]
    assert allowed["/emergency_phone"] == ["555-9999"]  # its whole label, not the last word
    assert len(allowed["/email"]) == 5  # "e-mail" is another word for it: the executor decides
    _, twice = form_request_parts(labels, 'phone "1", phone "2"')
    assert twice["/phone"] == ["1", "2"]  # named before two values: not one of them by rule


def test_the_fill_covers_the_pages_text_fields_only_and_maps_each_key_to_its_ref() -> None:
    obs = Observation(url="http://x.test/r", title="R", snapshot=FORM, text="",
                      refs=["e1", "e2", "e3", "e4", "e5", "e6", "e7"])
    request, refs = form_fill('Fill in: first name "Ada"; zip "75001"', "context", obs)
    assert request.kind == "extract" and request.context == "context"
    assert refs == {"first_name": "e2", "postal_code": "e3", "postal_code_2": "e6"}
    assert request.allowed["/first_name"] == ["Ada"] and request.allowed["/postal_code_2"] == ["Ada", "75001"]
    assert request.distinct == [["/first_name", "/postal_code", "/postal_code_2"]]  # no two fields the same value
    one_field = Observation(url="http://x.test/r", title="R", snapshot=FORM, text="", refs=["e2"])
    assert form_fill('first name "Ada"', "context", one_field)[0].distinct == []  # nothing to keep apart
