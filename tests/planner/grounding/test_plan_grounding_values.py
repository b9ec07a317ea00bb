"""What a grounded step may type: runs of the goal's words (a bare number too, unless a unit or a
name qualifies it) and the texts the page shows whole (a line of text, a field's value)."""

from __future__ import annotations

from agentpair.planner.grounding.form_left import REFUSED, premature_click
from agentpair.planner.language import parse_goal
from agentpair.planner.language.vocabulary import value_runs
from agentpair.planner.grounding.field_values import shown_texts
from agentpair.planner.grounding.schema import grounded_plan_schema
from tests.grounding_helpers import act, plan, request, valid

FORM = """- generic [ref=e1]:
  - heading "Notice" [level=2] [ref=e2]
  - generic [ref=e3]: Bring a torch to the cellar at dusk.
  - textbox "Source" [ref=e4]: Lantern oil is on the shelf.
  - textbox "Guests" [ref=e5]
  - textbox "Answer" [ref=e6]
  - button "Send" [ref=e7]"""


def test_a_bare_number_is_a_value_unless_a_unit_or_a_name_runs_on_from_it() -> None:
    words = "Book a room for 4 guests, 3 kg of rice and 40 Elm Road".split()
    assert "4" in value_runs(words, words.index("4"))
    assert "3" not in value_runs(words, words.index("3"))  # "3 kg" is the value
    assert "40" not in value_runs(words, words.index("40"))  # "40 Elm Road" is the value
    assert "40 Elm Road" in value_runs(words, words.index("40"))


def test_the_texts_a_page_shows_whole_are_lines_of_text_and_field_values() -> None:
    page = request(snapshot=FORM).page
    assert shown_texts(page) == ["Bring a torch to the cellar at dusk.", "Lantern oil is on the shelf."]


def test_a_step_may_copy_what_the_page_shows_into_a_field_but_not_made_up_text() -> None:
    goal = "Copy the notice into the Answer field and press Send."
    schema = grounded_plan_schema(request(goal=goal, snapshot=FORM))
    assert valid(schema, plan(act("type", "type Bring a torch to the cellar at dusk. into the Answer field"),
                              act("click", "click the Send button")))
    assert valid(schema, plan(act("type", "type Lantern oil is on the shelf. into the Answer field")))
    assert not valid(schema, plan(act("type", "type Bring a lamp to the cellar into the Answer field")))


def test_a_number_the_goal_gives_for_a_count_may_be_typed_alone() -> None:
    goal = "Reserve a table for 6 guests and press Send."
    schema = grounded_plan_schema(request(goal=goal, snapshot=FORM))
    assert valid(schema, plan(act("type", "type 6 into the Guests field"), act("click", "click the Send button")))


SPINNER = """- generic [ref=e1]:
  - spinbutton "Pick a value:" [ref=e2]: "0"
  - button "Submit" [ref=e3]"""


def test_the_one_number_the_goal_gives_goes_into_the_one_number_field_before_any_button() -> None:
    goal = "Set -7 with the spinner and press Submit."
    before = request(goal=goal, snapshot=SPINNER)
    assert premature_click(before, "click the Submit button")
    schema = grounded_plan_schema(before)  # the loop refuses the early click; the schema offers the typing
    assert valid(schema, plan(act("type", "type -7 into the Pick a value: field"), act("click", "click the Submit button")))
    typed = request(goal=goal, snapshot=SPINNER.replace('"0"', '"-7"'),
                    history=['[1] act type: type -7 into the Pick a value: field {"ref": "e2"} -> ok'])
    assert premature_click(typed, "click the Submit button") is None
    two = request(goal="Set 3 and then 4 and press Submit.", snapshot=SPINNER)
    assert premature_click(two, "click the Submit button") is None  # which number is for it: the planner's call


TABLE = """- generic [ref=e1]:
  - table [ref=e2]:
    - rowgroup [ref=e3]:
      - row [ref=e4]:
        - cell "Colour" [ref=e5]
        - cell "Teal" [ref=e6]
      - row [ref=e7]:
        - cell "Size" [ref=e8]
        - cell "XL" [ref=e9]
  - textbox "Size:" [ref=e10]
  - button "Submit" [ref=e11]"""


def test_where_the_goal_gives_no_values_a_field_takes_the_table_row_of_its_label() -> None:
    goal = "Fill the form with the values the table gives for its labels, then submit."
    before = request(goal=goal, snapshot=TABLE)
    assert "row: Size | XL" in before.page
    assert premature_click(before, "click the Submit button") == REFUSED + "type XL into the Size: field"
    assert valid(grounded_plan_schema(before), plan(act("type", "type XL into the Size: field")))
    given = request(goal='Type "M" into the size field and submit.', snapshot=TABLE)
    assert "type XL" not in (premature_click(given, "click the Submit button") or "")  # the goal's own value rules


BOXES = """- generic [ref=e1]:
  - checkbox "Email me the club digest" [checked] [ref=e2]
  - checkbox "Share my profile" [ref=e3]
  - button "Join" [ref=e4]"""


def test_a_box_that_is_on_and_names_what_the_goal_says_no_to_is_turned_off_before_any_button() -> None:
    goal = "Join the club but do not sign me up for the digest."
    assert premature_click(request(goal=goal, snapshot=BOXES), "click the Join button") == (
        REFUSED + "uncheck the Email me the club digest box")
    off = request(goal=goal, snapshot=BOXES.replace(" [checked]", ""))
    assert premature_click(off, "click the Join button") is None
    assert premature_click(request(goal="Join the club.", snapshot=BOXES), "click the Join button") is None


def test_a_field_a_table_row_gives_a_value_for_takes_only_that_and_no_field_its_own_value() -> None:
    goal = "Fill the form with the values the table gives for its labels, then submit."
    schema = grounded_plan_schema(request(goal=goal, snapshot=TABLE))
    assert valid(schema, plan(act("type", "type XL into the Size: field")))
    assert not valid(schema, plan(act("type", "type Teal into the Size: field")))  # another row's value
    copy = grounded_plan_schema(request(goal="Copy the source into the answer.", snapshot=FORM))
    assert valid(copy, plan(act("type", "type Lantern oil is on the shelf. into the Answer field")))
    assert not valid(copy, plan(act("type", "type Lantern oil is on the shelf. into the Source field")))


def test_a_time_the_goal_gives_keeps_its_am_or_pm() -> None:
    assert parse_goal("Enter 9:37 PM as the time and press submit.").given_values(set()) == ["9:37 PM"]
    assert parse_goal("Book it for 05/20/2010 at 10:05am.").given_values(set()) == ["05/20/2010", "10:05am"]
    assert parse_goal("Meet at 12:30:15 p.m. sharp, in room 3-4.").given_values(set()) == ["12:30:15 p.m.", "3-4"]
