"""Clicks on lists and rows of actions: a list's item the goal names, a click the goal quotes, the
actions of posts told apart by all their item says, and an item's action never taken twice; and
fields: the one field takes the one quoted text, a field the page filled keeps its value."""

from __future__ import annotations

from agentpair.planner.grounding.form_left import form_left
from agentpair.planner.grounding.schema import grounded_plan_schema
from tests.grounding_helpers import DONE, act, plan, request, valid

INBOX = """- generic [ref=e1]:
  - button "search" [ref=e2]
  - generic [ref=e3]:
    - button "Ingrid" [ref=e4]:
      - generic [ref=e5]: Ingrid
      - generic [ref=e6]: Pond notes
    - button "Tomas" [ref=e7]:
      - generic [ref=e8]: Tomas
      - generic [ref=e9]: Kiln schedule
    - button "Ulla" [ref=e10]:
      - generic [ref=e11]: Ulla
      - generic [ref=e12]: Harbour photos"""
POSTS = """- generic [ref=e1]:
  - generic [ref=e2]:
    - generic [ref=e3]: Kim @orla
    - generic [ref=e4]: Frost on the moor.
    - generic [ref=e5]:
      - button "boost" [ref=e6]
      - button "save" [ref=e7]
  - generic [ref=e8]:
    - generic [ref=e9]: Kim @orla
    - generic [ref=e10]: Gulls at noon.
    - generic [ref=e11]:
      - button "boost" [ref=e12]
      - button "save" [ref=e13]
  - generic [ref=e14]:
    - generic [ref=e15]: Lee @brann
    - generic [ref=e16]: Tide tables.
    - generic [ref=e17]:
      - button "boost" [ref=e18]
      - button "save" [ref=e19]
  - button "Done" [ref=e20]"""
POSTS_GOAL = 'Press the "Boost" button on every post by @orla, then click Done.'


def test_of_a_lists_items_only_the_one_the_goal_names_and_of_two_named_the_one_after_from() -> None:
    schema = grounded_plan_schema(request(goal="Open the message from Tomas and archive it.", snapshot=INBOX))
    assert valid(schema, plan(act("click", "click the Tomas button")))
    assert not valid(schema, plan(act("click", "click the Ulla button")))
    assert valid(schema, plan(act("click", "click the search button")))  # not an item of the list
    both = grounded_plan_schema(request(goal="Pass to Ulla the message from Tomas.", snapshot=INBOX))
    assert valid(both, plan(act("click", "click the Tomas button")))
    assert not valid(both, plan(act("click", "click the Ulla button")))


def test_a_quoted_click_on_the_page_allows_only_what_the_goal_names_and_no_finish_before_it() -> None:
    schema = grounded_plan_schema(request(goal=POSTS_GOAL, snapshot=POSTS))
    assert valid(schema, plan(act("click", "click the boost button (Frost on the moor.)")))
    assert valid(schema, plan(act("click", "click the boost button (Gulls at noon.)")))  # the item says @orla
    assert not valid(schema, plan(act("click", "click the boost button (Tide tables.)")))  # @brann's
    assert not valid(schema, plan(act("click", "click the save button (Gulls at noon.)")))  # not what it quotes
    assert not valid(schema, DONE)


def test_an_items_action_the_run_took_is_not_taken_again() -> None:
    history = ['[1] act click: click the boost button (Frost on the moor.) {"ref": "e6"} -> ok']
    schema = grounded_plan_schema(request(goal=POSTS_GOAL, snapshot=POSTS, history=history))
    assert not valid(schema, plan(act("click", "click the boost button (Frost on the moor.)")))  # it would undo it
    assert valid(schema, plan(act("click", "click the boost button (Gulls at noon.)")))


def test_the_one_field_takes_the_one_quoted_text_and_a_field_the_page_filled_keeps_its_value() -> None:
    reply = '- textbox "To" [ref=e1]: Ingrid\n- textbox "Message" [ref=e2]\n- button "Send" [ref=e3]'
    goal = 'Answer Ingrid with "See you at the pond."'
    schema = grounded_plan_schema(request(goal=goal, snapshot=reply))
    assert valid(schema, plan(act("type", "type See you at the pond. into the Message field")))
    assert not valid(schema, plan(act("type", "type Answer Ingrid into the Message field")))
    assert not valid(schema, plan(act("type", "type See you at the pond. into the To field")))  # the page filled it
    single = '- textbox "Message" [ref=e2]\n- button "Send" [ref=e3]'
    schema = grounded_plan_schema(request(goal=goal, snapshot=single))
    assert not valid(schema, plan(act("type", "type Ingrid into the Message field")))  # only the quoted text


def test_a_field_named_by_a_small_word_is_labelled_by_it() -> None:
    forward = '- textbox "to:" [ref=e1]\n- textbox "Body" [ref=e2]: Pond notes\n- button "send" [ref=e3]'
    schema = grounded_plan_schema(request(goal="Forward the mail from Tomas to Ulla.", snapshot=forward))
    assert valid(schema, plan(act("type", "type Ulla into the to: field")))
    assert not valid(schema, plan(act("type", "type Tomas into the to: field")))
    assert not valid(schema, DONE)
    assert ("type", "type Ulla into the to: field") in form_left(request(goal="Forward the mail from Tomas to Ulla.",
                                                                        snapshot=forward))


def test_where_the_goal_asks_for_the_greatest_only_the_greatest_number_is_offered() -> None:
    cards = '- button "7" [ref=e1]\n- button "12" [ref=e2]\n- button "-3" [ref=e3]\n- button "Submit" [ref=e4]'
    most = grounded_plan_schema(request(goal="Pick the card with the highest value, then press Submit.", snapshot=cards))
    assert valid(most, plan(act("click", "click the 12 button"))) and valid(most, plan(act("click", "click the Submit button")))
    assert not valid(most, plan(act("click", "click the 7 button")))
    least = grounded_plan_schema(request(goal="Pick the card with the lowest value.", snapshot=cards))
    assert valid(least, plan(act("click", "click the -3 button"))) and not valid(least, plan(act("click", "click the 12 button")))


def test_a_field_the_goal_says_to_focus_into_is_clicked() -> None:
    fields = '- textbox "1st textbox" [ref=e1]\n- textbox "2nd textbox" [ref=e2]'
    schema = grounded_plan_schema(request(goal="Focus into the 2nd input textbox.", snapshot=fields))
    assert valid(schema, plan(act("click", "click the 2nd textbox field")))
    assert not valid(schema, plan(act("click", "click the 1st textbox field")))
    assert not valid(schema, plan(act("type", "type 2nd into the 1st textbox field")))
    history = ['[1] act click: click the 2nd textbox field {"ref": "e2"} -> ok']
    assert valid(grounded_plan_schema(request(goal="Focus into the 2nd input textbox.", snapshot=fields, history=history)),
                 DONE)


CONTACT = """- generic [ref=e1]:
  - heading "Oskar" [level=2] [ref=e2]
  - generic [ref=e3]:
    - text: "Phone:"
    - button "555-0100" [ref=e4]
  - generic [ref=e5]:
    - text: "Address:"
    - button "9 Mill Lane" [ref=e6]
  - link "1" [ref=e7]
  - link ">" [ref=e8]"""
CONTACT_GOAL = "Find Petra in the address book and click on her phone."


def test_a_name_the_goal_says_to_find_is_sought_page_by_page_then_its_labelled_thing_is_clicked() -> None:
    schema = grounded_plan_schema(request(goal=CONTACT_GOAL, snapshot=CONTACT))
    assert valid(schema, plan(act("click", "click the > link")))
    assert not valid(schema, plan(act("click", "click the 555-0100 button")))  # Oskar's, not Petra's
    assert not valid(schema, DONE)
    turned = ['[1] act click: click the > link {"ref": "e8"} -> ok']
    again = grounded_plan_schema(request(goal=CONTACT_GOAL, snapshot=CONTACT, history=turned))
    assert valid(again, plan(act("click", "click the > link")))  # the next page, and the next
    found = grounded_plan_schema(request(goal=CONTACT_GOAL, snapshot=CONTACT.replace("Oskar", "Petra")))
    assert valid(found, plan(act("click", "click the 555-0100 button")))
    assert not valid(found, plan(act("click", "click the 9 Mill Lane button")))  # her address, not her phone
