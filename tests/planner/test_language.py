"""The project's English in one place: a goal parsed once into typed values, a step's words read into
a record (the grounded wording's grammar), the values a step's words name."""

from __future__ import annotations

from agentpair.planner.language import parse_goal
from agentpair.planner.language.steps import read_step
from agentpair.planner.language.values import hole_values, said_numbers, switched


def test_a_goal_is_parsed_once_into_typed_values() -> None:
    goal = parse_goal('On Pebblemart, buy the 3 kg bag (not the 1 kg bag) by 12/02/2016, mail ada@x.org and '
                      'open https://shop.test/cart, then click the "Checkout" button.')
    assert goal is parse_goal(goal.text)  # once per goal text
    assert goal.quoted == ("Checkout",) and goal.quoted_clicks == ("Checkout",)
    assert goal.date == (2016, 12, 2) and goal.emails == ("ada@x.org",)
    assert goal.addresses == ("https://shop.test/cart",)
    assert frozenset({"1", "kg", "bag"}) in goal.ruled_out
    assert goal.closing_verb == "click" and not goal.asks
    assert "3 kg bag" in goal.runs and "Pebblemart" not in goal.task_words


def test_the_goals_questions_about_a_pages_names() -> None:
    goal = parse_goal("Sign up as Mo Salah, 40 Elm Road, Leeds, postcode LS2 7EW, and find the largest number.")
    assert goal.labelled_whole("Postcode") == "LS2 7EW" and "LS2 7EW" in goal.labelled("Postcode")
    assert goal.listed_before("Postcode", 3) == ["Leeds", "40 Elm Road", "Mo Salah"]
    assert goal.extreme == "max" and goal.names("Postcode") and not goal.names("Phone")
    assert parse_goal('Click "Retweet" on 2 posts by @leo').each == ("Retweet", "2")
    assert parse_goal("Find Petra Lind in the book.").to_find == ("Petra Lind",)
    assert parse_goal("What is the total of order 3107?").asks


def test_a_steps_words_are_read_into_a_record() -> None:
    typed = read_step("type We did it. into the Reply box and press Enter")
    assert (typed.verb, typed.name, typed.role, typed.value, typed.submit) == ("type", "Reply", "box", "We did it.", True)
    told = read_step("click the Like button (Clark @dis)")
    assert (told.verb, told.name, told.role, told.item) == ("click", "Like", "button", "Clark @dis")
    assert told.bare == "click the Like button" and told.side_effect and told.clicks("Like")
    assert read_step("select Express in the Delivery dropdown").value == "Express"
    assert read_step("uncheck the Digest box").verb == "uncheck"
    assert read_step("click the Prices link").leaves and read_step("go back to the previous page").leaves
    assert read_step("click the Cancel button").dismisses and read_step("click the Show more button").discloses
    assert read_step("scroll down").verb == "scroll"


def test_the_values_a_steps_words_name() -> None:
    assert said_numbers("add 1,200 units at 3.5 each") == ["1200", "3.5"]
    assert switched("untick the newsletter") is False and switched("check the box") is True
    assert switched("open the page") is None
    assert hole_values(["port", "name"], "name ledger-api, HTTP port 8080") == {
        "/port": ["8080", "HTTP"], "/name": ["ledger-api"]}
