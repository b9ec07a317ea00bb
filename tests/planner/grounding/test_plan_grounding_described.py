"""Values the goal describes in its own words: a value labelled by a word of a field's name (or one
sharing its first five letters), a text sent "into the 2nd textbox", elements named by their place,
and the fields of a described form that the goal names no value for."""

from __future__ import annotations

from agentpair.planner.grounding.form_left import form_left, premature_click
from agentpair.planner.language.vocabulary import labelled_values, named_by, value_runs
from agentpair.planner.grounding.schema import grounded_plan_schema, still_to_do
from tests.grounding_helpers import act, plan, request, valid

PLACES = """- generic [ref=e1]:
  - radio "1st radio" [ref=e2]
  - radio "2nd radio" [ref=e3]
  - radio "3rd radio" [ref=e4]
  - textbox "1st textbox" [ref=e5]
  - textbox "2nd textbox" [ref=e6]
  - button "Save" [ref=e7]"""
ALBUMS = """- generic [ref=e1]:
  - textbox "Style" [ref=e2]
  - textbox "Recording artist" [ref=e3]
  - textbox "Year" [ref=e4]
  - button "Find" [ref=e5]"""
ALBUMS_GOAL = "Look up jazz albums recorded by Okafor in year 2004."


def test_a_name_of_place_is_named_only_as_that_phrase() -> None:
    goal = 'Pick the 3rd radio button, then put "42" into the 1st textbox.'
    assert named_by(goal, "3rd radio") and named_by(goal, "1st textbox")
    assert not named_by(goal, "1st radio")  # "1st" and "radio" both in the goal, not together
    assert form_left(request(goal=goal, snapshot=PLACES))[0] == ("check", "check the 3rd radio box")


def test_a_text_sent_into_a_field_by_its_place_goes_there_and_nothing_else_goes_into_those() -> None:
    goal = 'Pick the 3rd radio button, then put "42" into the 1st textbox.'
    schema = grounded_plan_schema(request(goal=goal, snapshot=PLACES))
    assert valid(schema, plan(act("type", "type 42 into the 1st textbox field")))
    assert not valid(schema, plan(act("type", "type 42 into the 2nd textbox field")))
    assert not valid(schema, plan(act("type", "type 3rd radio into the 2nd textbox field")))
    assert premature_click(request(goal=goal, snapshot=PLACES), "click the Save button") is not None


def test_a_typed_text_is_unsent_until_a_click_or_enter_follows_it_not_a_tick_or_a_refused_click() -> None:
    goal = 'Pick the 3rd radio button, then put "42" into the 1st textbox.'
    done = PLACES.replace('textbox "1st textbox" [ref=e5]', 'textbox "1st textbox" [ref=e5]: 42').replace(
        'radio "3rd radio" [ref=e4]', 'radio "3rd radio" [checked] [ref=e4]')
    history = ['[1] act type: type 42 into the 1st textbox field {"ref": "e5", "text": "42"} -> ok',
               "[1] act click: click the Save button -> FAILED: the form does not yet hold what the goal gives",
               '[2] act check: check the 3rd radio box {"ref": "e4", "on": true} -> ok']
    assert "send what was typed" in still_to_do(request(goal=goal, snapshot=done, history=history))
    sent = history + ['[3] act click: click the Save button {"ref": "e7"} -> ok']
    assert "send what was typed" not in still_to_do(request(goal=goal, snapshot=done, history=sent))


def test_a_value_labelled_by_a_word_of_a_fields_name_or_its_stem_goes_there() -> None:
    assert labelled_values(ALBUMS_GOAL, "Recording artist") == ["Okafor"]  # "recorded by": its first five letters
    assert labelled_values(ALBUMS_GOAL, "Year") == ["2004"]  # no sentence's full stop
    assert labelled_values(ALBUMS_GOAL, "Style") == []
    stay = "Book 4 nights in Porto for 3 guests."
    assert labelled_values(stay, "Nights") == ["4"] and labelled_values(stay, "Guests") == ["3"]  # a number before
    assert labelled_values("Search Paris hotels.", "Search") == []  # a clause's verb labels no name
    assert labelled_values("Send this reply: Your order is late.", "Reply") == []  # a sentence, not a name


def test_the_fields_of_a_described_form_take_their_values_and_the_rest_a_short_run_holding_none() -> None:
    schema = grounded_plan_schema(request(goal=ALBUMS_GOAL, snapshot=ALBUMS))
    assert valid(schema, plan(act("type", "type Okafor into the Recording artist field"),
                              act("type", "type 2004 into the Year field"),
                              act("type", "type jazz into the Style field")))
    for wrong in ("type jazz into the Year field", "type Okafor in year 2004 into the Style field",
                  "type jazz albums recorded into the Style field", "type Look up jazz into the Style field"):
        assert not valid(schema, plan(act("type", wrong)))
    left = form_left(request(goal=ALBUMS_GOAL, snapshot=ALBUMS))
    assert ("type", "type Okafor into the Recording artist field") in left
    assert ("type", "type jazz into the Style field") in left and ("type", "type jazz albums into the Style field") in left
    assert premature_click(request(goal=ALBUMS_GOAL, snapshot=ALBUMS), "click the Find button") is not None


def test_a_short_value_does_not_take_the_full_stop_of_the_sentence_it_ends() -> None:
    words = "Ship it to Acme Inc. by year 1998.".split()
    assert "1998." not in value_runs(words, words.index("1998.")) and "1998" in value_runs(words, words.index("1998."))
    assert "Acme Inc." in value_runs(words, words.index("Acme"))  # an abbreviation's stop is its own
    assert "by year 1998." in value_runs(words, words.index("by"))  # three words or more: a sentence may keep it


CALENDAR = """- generic [ref=e1]:
  - textbox "Check-in" [ref=e2]
  - button "Book" [ref=e3]
  - generic [ref=e4]:
    - link "Prev" [ref=e5]
    - link "Next" [ref=e6]
    - generic [ref=e7]: March 2031
    - table [ref=e8]:
      - row [ref=e9]:
        - cell [ref=e10]:
          - link "1" [ref=e11]
        - cell [ref=e12]:
          - link "2" [ref=e13]
        - cell [ref=e14]:
          - link "14" [ref=e15]"""


def test_a_date_the_goal_gives_is_picked_on_the_calendar_the_page_shows() -> None:
    day = grounded_plan_schema(request(goal="Pick 03/14/2031 as the check-in date, then book.", snapshot=CALENDAR))
    assert valid(day, plan(act("click", "click the 14 link")))
    assert not valid(day, plan(act("click", "click the 1 link"))) and not valid(day, plan(act("click", "click the Book button")))
    later = grounded_plan_schema(request(goal="Pick 2031-05-02 as the check-in date.", snapshot=CALENDAR))
    assert valid(later, plan(act("click", "click the Next link"))) and not valid(later, plan(act("click", "click the 2 link")))
    earlier = grounded_plan_schema(request(goal="Pick 12/30/2030 as the check-in date.", snapshot=CALENDAR))
    assert valid(earlier, plan(act("click", "click the Prev link")))
    closed = grounded_plan_schema(request(goal="Pick 03/14/2031 as the check-in date.", snapshot=CALENDAR.split("  - generic [ref=e4]")[0]))
    assert valid(closed, plan(act("type", "type 03/14/2031 into the Check-in field")))


def test_the_e_mail_the_goal_gives_is_left_for_an_empty_mail_field() -> None:
    club = ('- textbox "Member name" [ref=e1]\n- textbox "Contact e-mail" [ref=e2]\n- checkbox "Rowing" [ref=e3]\n'
            '- button "Join" [ref=e4]')
    goal = "Sign Ines Varga (ines@oar.example) up for Rowing and join."
    assert ("type", "type ines@oar.example into the Contact e-mail field") in form_left(request(goal=goal, snapshot=club))
    typed = ['[1] act type: type ines@oar.example into the Contact e-mail field {"ref": "e2"} -> ok']
    shown = club.replace('"Contact e-mail" [ref=e2]', '"Contact e-mail" [ref=e2]: ines@oar.example')
    assert not [s for s in form_left(request(goal=goal, snapshot=shown, history=typed)) if "ines@" in s[1]]
    assert not [s for s in form_left(request(goal=goal.replace(" (ines@oar.example)", ""), snapshot=club)) if "@" in s[1]]
