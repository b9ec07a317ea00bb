"""Clicks the grounded schema offers while what the goal says to click is elsewhere: the page's
tabs and links, each once, and no finish until it is clicked."""

from __future__ import annotations

from agentpair.planner.grounding.schema import grounded_plan_schema
from tests.grounding_helpers import DONE, act, plan, request, valid

TABS = """- generic [ref=e1]:
  - tablist [ref=e2]:
    - tab [ref=e3] [expanded]:
      - link "Spring" [ref=e4]
    - tab [ref=e5]:
      - link "Summer" [ref=e6]
    - tab [ref=e7]:
      - link "Autumn" [ref=e8]
  - generic [ref=e9]:
    - text: Rain and
    - button "thaw," [ref=e10]
    - button "bloom" [ref=e11]"""
GOAL = 'Look through the tabs and click on the word "harvest".'


def test_while_the_quoted_click_is_elsewhere_only_tabs_and_links_not_yet_clicked_are_offered() -> None:
    schema = grounded_plan_schema(request(goal=GOAL, snapshot=TABS))
    assert valid(schema, plan(act("click", "click the Autumn link")))
    assert not valid(schema, plan(act("click", "click the bloom button")))  # the page's other words
    assert not valid(schema, DONE)  # what it says to click was never clicked
    history = ['[1] act click: click the Autumn link {"ref": "e8"} -> ok']
    schema = grounded_plan_schema(request(goal=GOAL, snapshot=TABS, history=history))
    assert not valid(schema, plan(act("click", "click the Autumn link")))
    assert valid(schema, plan(act("click", "click the Summer link")))


def test_once_shown_the_quoted_word_is_the_next_step_whatever_punctuation_follows_it() -> None:
    shown = TABS.replace('button "bloom" [ref=e11]', 'button "harvest." [ref=e11]')
    schema = grounded_plan_schema(request(goal=GOAL, snapshot=shown))
    assert valid(schema, plan(act("click", "click the harvest. button")))
    assert not valid(schema, plan(act("click", "click the Autumn link")))
    done = ['[1] act click: click the harvest. button {"ref": "e11"} -> ok']
    assert valid(grounded_plan_schema(request(goal=GOAL, snapshot=shown, history=done)), DONE)


INBOX = """- generic [ref=e1]:
  - generic [ref=e2]:
    - button "Odile" [ref=e3]
    - text: Odile Tea at four?
    - button "star" [ref=e4]
  - generic [ref=e5]:
    - button "Bruno" [ref=e6]
    - text: Bruno The lease
    - button "star" [ref=e7]"""


def test_of_same_named_buttons_only_those_whose_item_the_goal_says_are_offered() -> None:
    schema = grounded_plan_schema(request(goal="Star the message from Bruno.", snapshot=INBOX))
    assert valid(schema, plan(act("click", "click the star button (Bruno)")))
    assert not valid(schema, plan(act("click", "click the star button (Odile)")))
    assert not valid(schema, plan(act("click", "click the star button")))
    either = grounded_plan_schema(request(goal="Star one of the messages.", snapshot=INBOX))
    assert valid(either, plan(act("click", "click the star button (Odile)")))  # the goal says neither


MAIL = """- generic [ref=e1]:
  - button "Reply" [ref=e2]
  - button "Forward" [ref=e3]
  - button "Print" [ref=e4]"""


def test_no_finish_while_a_button_named_by_the_verb_a_clause_opens_with_is_unclicked() -> None:
    schema = grounded_plan_schema(request(goal="Open the note from Bruno and forward it to Ida.", snapshot=MAIL))
    assert valid(schema, plan(act("click", "click the Forward button")))
    assert not valid(schema, DONE)
    history = ['[1] act click: click the Forward button {"ref": "e3"} -> ok']
    assert valid(grounded_plan_schema(request(goal="Open the note from Bruno and forward it to Ida.", snapshot=MAIL,
                                              history=history)), DONE)
    printed = ['[1] act click: click the Print button {"ref": "e4"} -> ok']
    loose = grounded_plan_schema(request(goal="Print the note; I will reply to him later.", snapshot=MAIL,
                                         history=printed))
    assert valid(loose, DONE)  # "reply" opens no clause there


POSTS = """- generic [ref=e1]:
  - generic [ref=e2]:
    - text: Ines @ines
    - button "like" [ref=e3]
    - button "more" [ref=e4]
  - generic [ref=e5]:
    - text: Olu @olu
    - button "like" [ref=e6]
    - button "more" [ref=e7]"""


def test_while_the_quoted_click_is_elsewhere_what_shows_more_is_offered_for_the_item_the_goal_says() -> None:
    schema = grounded_plan_schema(request(goal='For @olu, click on the "Mute" button.', snapshot=POSTS))
    assert valid(schema, plan(act("click", "click the more button (Olu @olu)")))
    assert not valid(schema, plan(act("click", "click the like button (Olu @olu)")))
    assert not valid(schema, plan(act("click", "click the more button (Ines @ines)")))


def test_a_name_the_goal_says_only_inside_a_longer_name_is_not_clicked() -> None:
    cards = """- link "Tern 40" [ref=e1]
- link "Tern 40 Pro" [ref=e2]
- link "Tern 50 Pro" [ref=e3]"""
    schema = grounded_plan_schema(request(goal="Open the Tern 40 Pro page and report its price.", snapshot=cards))
    assert valid(schema, plan(act("click", "click the Tern 40 Pro link")))
    assert not valid(schema, plan(act("click", "click the Tern 40 link")))
    both = grounded_plan_schema(request(goal="Open the Tern 40 page, then the Tern 40 Pro page.", snapshot=cards))
    assert valid(both, plan(act("click", "click the Tern 40 link")))  # said on its own as well


def test_a_link_to_the_page_shown_is_not_offered() -> None:
    header = """- link "Larkspur Tea" [ref=e1]:
  - /url: index.html
- link "Home" [ref=e2]:
  - /url: /
- link "Blends" [ref=e3]:
  - /url: blends.html
- link "Top" [ref=e4]:
  - /url: "#top\""""
    goal = "Open the Blends page of Larkspur Tea."
    home = grounded_plan_schema(request(goal=goal, snapshot=header, url="http://127.0.0.1:9/index.html"))
    assert valid(home, plan(act("click", "click the Blends link")))
    assert not valid(home, plan(act("click", "click the Larkspur Tea link")))  # reloads the page shown
    assert not valid(home, plan(act("click", "click the Home link")))
    assert valid(home, plan(act("click", "click the Top link")))  # a part of the page: it may open a tab
    elsewhere = grounded_plan_schema(request(goal=goal, snapshot=header, url="http://127.0.0.1:9/blends.html"))
    assert valid(elsewhere, plan(act("click", "click the Larkspur Tea link")))


def test_a_button_named_as_a_link_to_the_page_shown_is_offered() -> None:
    form = """- link "Log in" [ref=e1]:
  - /url: login.html
- textbox "Member number" [ref=e2]
- button "Log in" [ref=e3]"""
    goal = "Log in with member number 4471."
    page = grounded_plan_schema(request(goal=goal, snapshot=form, url="http://127.0.0.1:9/login.html"))
    assert valid(page, plan(act("click", "click the Log in button")))  # sends the form
    assert not valid(page, plan(act("click", "click the Log in link")))  # reloads the page shown
