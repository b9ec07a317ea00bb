"""Steps the loop takes without asking the planner (forced_steps): the only step the schema allows,
a refused button click once the form holds what it lacked, a form the goal fills whole, and the
answer once every field is read."""

from __future__ import annotations

from agentpair.planner.grounding.form_left import UNSENT, premature_click
from agentpair.planner.language import parse_goal
from agentpair.models import Step
from agentpair.planner.grounding.forced import forced_steps
from agentpair.planner.grounding.schema import grounded_plan_schema
from tests.grounding_helpers import act, plan, request, valid

FORM = """- heading "Boat hire" [level=1] [ref=e1]
- textbox "Skipper" [ref=e2]
- combobox "Boat" [ref=e3]:
  - option "Dinghy" [selected]
  - option "Canoe"
- button "Hire now" [ref=e4]
- link "Prices" [ref=e5]"""
GOAL = "Hire the Canoe for skipper Ofelia Brandt and hire it now."
HIRE = "click the Hire now button"


def test_a_refused_click_is_taken_again_once_the_form_holds_what_it_lacked() -> None:
    empty = request(goal=GOAL, snapshot=FORM)
    refusal = premature_click(empty, HIRE)
    assert refusal  # the goal's skipper and boat are not in the form yet
    refused = [f"[1] act click: {HIRE} -> FAILED: {refusal}"]
    assert forced_steps(request(goal=GOAL, snapshot=FORM, history=refused)) == [  # all the form lacks, at once
        Step(kind="act", tool="select", instruction="select Canoe in the Boat dropdown"),
        Step(kind="act", tool="type", instruction="type Ofelia Brandt into the Skipper field")]
    filled = FORM.replace('textbox "Skipper" [ref=e2]', 'textbox "Skipper" [ref=e2]: Ofelia Brandt').replace(
        '"Dinghy" [selected]', '"Dinghy"').replace('"Canoe"', '"Canoe" [selected]')
    typed = refused + ['[2] act type: type Ofelia Brandt into the Skipper field {"ref": "e2", "text": "Ofelia Brandt"} -> ok',
                       '[2] act select: select Canoe in the Boat dropdown {"ref": "e3", "option": "Canoe"} -> ok']
    assert forced_steps(request(goal=GOAL, snapshot=filled, history=typed)) == [Step(kind="act", tool="click", instruction=HIRE)]
    # a click that ran since (the run moved on) leaves the choice to the planner again
    moved = typed + ['[3] act click: click the Prices link {"ref": "e5"} -> ok']
    assert forced_steps(request(goal=GOAL, snapshot=filled, history=moved)) == []
    # so does a text typed with Enter (it may have sent the form)
    sent = typed[:1] + [typed[1].replace('"text": "Ofelia Brandt"}', '"text": "Ofelia Brandt", "submit": true}')] + typed[2:]
    assert forced_steps(request(goal=GOAL, snapshot=filled, history=sent)) == []


SHEET = """- heading "Tern 40 kayak" [level=1] [ref=e1]
- paragraph [ref=e2]: Price $640, weight 19 kg
- button "Add to basket" [ref=e3]
- link "Tern 50 kayak" [ref=e4]"""
ASK = "Open the Tern 40 kayak page and report its price in dollars and weight in kg."
ANSWER = {"type": "object", "required": ["price_usd", "weight_kg"],
          "properties": {"price_usd": {"type": "number"}, "weight_kg": {"type": "integer"}}}


def test_once_every_field_is_read_the_run_answers_with_what_was_read() -> None:
    read = ['[2] extract: extract the price and weight of the Tern 40 kayak -> ok']
    both = request(goal=ASK, snapshot=SHEET, output_schema=ANSWER, history=read,
                   memory=[{"price_usd": 640.0, "weight_kg": 19}])
    assert forced_steps(both) == [Step(kind="finish", instruction="the goal is done",
                                       answer={"price_usd": 640.0, "weight_kg": 19})]
    half = request(goal=ASK, snapshot=SHEET, output_schema=ANSWER, history=read, memory=[{"price_usd": 640.0}])
    assert all(step.kind != "finish" for step in forced_steps(half))  # the weight is still unread


def test_records_read_in_bulk_are_the_answer_as_read() -> None:
    rows = [{"name": "Tern 40 kayak", "price_usd": 640.0}, {"name": "Tern 50 kayak", "price_usd": 720.0}]
    schema = {"type": "object", "required": ["kayaks"], "properties": {"kayaks": {"type": "array", "items": {
        "type": "object", "properties": {"name": {"type": "string"}, "price_usd": {"type": "number"}}}}}}
    read = ['[2] extract: extract every kayak with its name and price -> ok']
    done = request(goal="List every kayak with its name and price.", snapshot=SHEET, output_schema=schema, history=read,
                   memory=[{"kayaks": rows}])
    assert forced_steps(done) == [Step(kind="finish", instruction="the goal is done", answer={"kayaks": rows})]


def test_where_the_schema_allows_one_step_the_loop_takes_it_and_otherwise_asks() -> None:
    typed = FORM.replace('textbox "Skipper" [ref=e2]', 'textbox "Skipper" [ref=e2]: Ofelia Brandt')
    refused = [f"[1] act click: {HIRE} -> FAILED: {premature_click(request(goal=GOAL, snapshot=typed), HIRE)}"]
    assert forced_steps(request(goal=GOAL, snapshot=typed, history=refused)) == [Step(
        kind="act", tool="select", instruction="select Canoe in the Boat dropdown")]  # all the form lacks
    # nothing refused: the planner chooses, unless what the form lacks fills it whole (the next test)
    assert forced_steps(request(goal=GOAL, snapshot=typed.replace('- button', '- textbox "Crew" [ref=e6]\n- button'))) == []


RECEIPT = """- heading "Your canoe is booked" [level=1] [ref=e1]
- link "Prices" [ref=e2]"""
SUBMIT = "Fill in the hire form for skipper Ofelia Brandt, then submit it. Do not add insurance."


def test_the_run_ends_once_the_button_of_the_goals_closing_clause_changed_the_page() -> None:
    clicked = ['[1] act type: type Ofelia Brandt into the Skipper field {"ref": "e2", "text": "Ofelia Brandt"} -> ok',
               '[1] act click: click the Submit hire form button {"ref": "e5"} -> ok']
    assert [s.kind for s in forced_steps(request(goal=SUBMIT, snapshot=RECEIPT, history=clicked))] == ["finish"]
    # the click left the page as it was (a form that refused it): the planner decides
    assert forced_steps(request(goal=SUBMIT, snapshot=RECEIPT, history=clicked,
                               unchanged=["click the Submit hire form button"])) == []
    # a button that is not the closing clause's ("Save draft" while the goal ends "submit it")
    draft = [*clicked[:1], '[1] act click: click the Save draft button {"ref": "e6"} -> ok']
    assert forced_steps(request(goal=SUBMIT, snapshot=RECEIPT, history=draft)) == []
    # a goal that asks for an answer ends with the planner's (or the extraction's) answer, not here
    asks = "Submit the hire form and tell me the booking number."
    assert forced_steps(request(goal=asks, snapshot=RECEIPT, history=clicked)) == []
    # a button named like the closing clause that opened the form, nothing filled in yet
    opened_form = ['[1] act click: click the Submit a hire button {"ref": "e3"} -> ok']
    template = '- heading "Submit a hire" [level=1] [ref=e1]\n- textbox "Hire config" [ref=e2]\n- button "Submit" [ref=e3]'
    assert all(s.kind != "finish" for s in forced_steps(request(goal=SUBMIT, snapshot=template, history=opened_form)))


def test_the_closing_clause_is_the_last_one_that_does_something() -> None:
    assert parse_goal("Sign in as kim, open the ticket and send this reply: Done and dusted.").closing_verb == "send"
    assert parse_goal("Set the timeout to 15 minutes and save it. Do not change any other setting.").closing_verb == "save"
    assert parse_goal('Type "a and b" into the box, then press Enter.').closing_verb == "press"


def test_where_the_form_hides_the_setting_the_goal_sets_show_more_is_taken() -> None:
    security = """- combobox "Two-factor login" [ref=e1]:
  - option "Optional"
  - option "Required" [selected]
- button "Show advanced options" [ref=e2]
- button "Save" [ref=e3]"""
    goal = "Set the idle timeout to 15 minutes and save it."
    assert forced_steps(request(goal=goal, snapshot=security)) == [
        Step(kind="act", tool="click", instruction="click the Show advanced options button")]
    shown = security + '\n- combobox "Idle timeout" [ref=e4]:\n  - option "15 minutes"\n  - option "60 minutes" [selected]'
    assert forced_steps(request(goal=goal, snapshot=shown)) != [
        Step(kind="act", tool="click", instruction="click the Show advanced options button")]  # shown: the form's turn


def test_a_link_away_from_a_form_typed_into_and_not_sent_is_refused_and_not_offered() -> None:
    page = FORM.replace('textbox "Skipper" [ref=e2]', 'textbox "Skipper" [ref=e2]: Ofelia Brandt')
    typed = ['[1] act type: type Ofelia Brandt into the Skipper field {"ref": "e2", "text": "Ofelia Brandt"} -> ok']
    unsent = request(goal=GOAL, snapshot=page, history=typed)
    assert premature_click(unsent, "click the Prices link") == UNSENT
    schema = grounded_plan_schema(unsent)
    assert not valid(schema, plan(act("click", "click the Prices link")))
    sent = typed + ['[2] act click: click the Hire now button {"ref": "e4"} -> ok']
    assert premature_click(request(goal=GOAL, snapshot=page, history=sent), "click the Prices link") is None
    entered = [typed[0].replace('"Ofelia Brandt"}', '"Ofelia Brandt", "submit": true}')]  # sent with Enter
    assert valid(grounded_plan_schema(request(goal=GOAL, snapshot=page, history=entered)),
                 plan(act("click", "click the Prices link")))
    assert not valid(schema, plan(act("go_back", "go back to the previous page")))
    assert premature_click(unsent, "go to the Prices page") == UNSENT
    read = typed + ['[2] act read: read the Skipper field {"ref": "e2"} -> ok']  # reading sends nothing
    assert premature_click(request(goal=GOAL, snapshot=page, history=read), "click the Prices link") == UNSENT


def test_a_forms_button_that_does_not_send_it_is_not_offered_while_typing_is_unsent() -> None:
    page = FORM.replace('textbox "Skipper" [ref=e2]', 'textbox "Skipper" [ref=e2]: Ofelia Brandt') + '\n- button "Back to boats" [ref=e6]'
    typed = ['[1] act type: type Ofelia Brandt into the Skipper field {"ref": "e2", "text": "Ofelia Brandt"} -> ok']
    unsent = grounded_plan_schema(request(goal=GOAL, snapshot=page, history=typed, non_submit=["e6"]))
    assert not valid(unsent, plan(act("click", "click the Back to boats button")))
    assert valid(unsent, plan(act("click", HIRE)))
    untold = grounded_plan_schema(request(goal=GOAL, snapshot=page, history=typed))  # the browser did not mark it
    assert valid(untold, plan(act("click", "click the Back to boats button")))
    before = grounded_plan_schema(request(goal=GOAL, snapshot=page, non_submit=["e6"]))  # nothing typed yet
    assert valid(before, plan(act("click", "click the Back to boats button")))
    named = grounded_plan_schema(request(goal=GOAL + " Then go back to boats.", snapshot=page, history=typed, non_submit=["e6"]))
    assert valid(named, plan(act("click", "click the Back to boats button")))


CREW = """- heading "Crew sign-up" [level=1] [ref=e1]
- textbox "Full name" [ref=e2]
- textbox "E-mail" [ref=e3]
- combobox "Boat" [ref=e4]:
  - option "Dinghy" [selected]
  - option "Canoe"
- checkbox "I can swim" [ref=e5]
- button "Sign up" [ref=e6]"""
CREW_GOAL = 'Sign up for the Canoe: full name "Ofelia Brandt", e-mail ofelia@tern.example; tick I can swim.'


def test_a_form_the_goal_fills_whole_one_way_is_filled_without_the_planner() -> None:
    assert forced_steps(request(goal=CREW_GOAL, snapshot=CREW)) == [
        Step(kind="act", tool="check", instruction="check the I can swim box"),
        Step(kind="act", tool="select", instruction="select Canoe in the Boat dropdown"),
        Step(kind="act", tool="type", instruction="type ofelia@tern.example into the E-mail field"),
        Step(kind="act", tool="type", instruction="type Ofelia Brandt into the Full name field")]
    # where the goal's words could go into a field more than one way, the planner chooses
    loose = "Sign up for the Canoe with name Ofelia Brandt and e-mail ofelia@tern.example, and say I can swim."
    assert forced_steps(request(goal=loose, snapshot=CREW)) == []
    refused = [f"[1] act click: click the Sign up button -> FAILED: {premature_click(request(goal=loose, snapshot=CREW), 'click the Sign up button')}"]
    assert forced_steps(request(goal=loose, snapshot=CREW, history=refused)) == []  # after a refusal too
    # an empty field the goal gives nothing for: the planner decides what the form needs
    phone = CREW.replace('- checkbox', '- textbox "Phone" [ref=e7]\n- checkbox')
    assert forced_steps(request(goal=CREW_GOAL, snapshot=phone)) == []
    # unless the page says it is optional
    optional = CREW.replace('- checkbox', '- textbox "Phone (optional)" [ref=e7]\n- checkbox')
    assert len(forced_steps(request(goal=CREW_GOAL, snapshot=optional))) == 4
    # a step of it that failed before is the planner's to repair, not to be taken again
    failed = ['[1] act check: check the I can swim box -> FAILED: the box did not turn']
    assert forced_steps(request(goal=CREW_GOAL, snapshot=CREW, history=failed)) == []


HIRE_FORM = """- heading "Hire a canoe" [level=1] [ref=e1]
- textbox "Skipper" [ref=e2]: Ofelia Brandt
- checkbox "Add insurance" [ref=e3]
- button "Submit hire form" [ref=e4]
- button "Save draft" [ref=e5]"""
TYPED_SKIPPER = '[1] act type: type Ofelia Brandt into the Skipper field {"ref": "e2", "text": "Ofelia Brandt"} -> ok'


def test_once_the_run_filled_a_form_that_lacks_nothing_the_closing_clauses_button_is_clicked() -> None:
    assert forced_steps(request(goal=SUBMIT, snapshot=HIRE_FORM, history=[TYPED_SKIPPER])) == [
        Step(kind="act", tool="click", instruction="click the Submit hire form button")]
    # the run's last step was no filling in (it came to the page by a link): the planner looks first
    arrived = ['[1] act click: click the Hire link {"ref": "e9"} -> ok']
    assert forced_steps(request(goal=SUBMIT, snapshot=HIRE_FORM, history=arrived)) == []
    # an empty field the goal gives nothing for, or two buttons the verb names: the planner decides
    phone = HIRE_FORM.replace('- checkbox', '- textbox "Phone" [ref=e6]\n- checkbox')
    assert forced_steps(request(goal=SUBMIT, snapshot=phone, history=[TYPED_SKIPPER])) == []
    twice = HIRE_FORM + '\n- button "Submit and pay" [ref=e7]'
    assert forced_steps(request(goal=SUBMIT, snapshot=twice, history=[TYPED_SKIPPER])) == []
    # a goal whose closing clause is another verb ("... then open Prices"): no such click
    assert forced_steps(request(goal="Fill in the hire form for skipper Ofelia Brandt, then open Prices.",
                                snapshot=HIRE_FORM, history=[TYPED_SKIPPER])) == []


DASHBOARD = """- link "Acme" [ref=e1]
- link "Dashboard" [ref=e5]
- heading "Dashboard" [level=1] [ref=e2]
- paragraph [ref=e3]: Welcome back, Fima. You have 2 open invoices."""
OPEN_GOAL = "Sign in as fima.nirita with {{secret:password}}, then open your account dashboard."
SIGNED_IN = ['[1] act type: type fima.nirita into the Username field {"ref": "e2"} -> ok',
             '[1] act click: click the Sign in button {"ref": "e4"} -> ok']


def test_the_run_ends_once_a_click_opened_the_page_the_goals_closing_clause_opens() -> None:
    done = Step(kind="finish", instruction="the goal is done", answer="the goal is done")
    assert forced_steps(request(goal=OPEN_GOAL, snapshot=DASHBOARD, history=SIGNED_IN)) == [done]
    # a heading the clause does not say, or a click that left the page as it was: the planner looks
    welcome = DASHBOARD.replace('heading "Dashboard"', 'heading "Your invoices"')
    assert forced_steps(request(goal=OPEN_GOAL, snapshot=welcome, history=SIGNED_IN)) == []
    assert forced_steps(request(goal=OPEN_GOAL, snapshot=DASHBOARD, history=SIGNED_IN,
                                unchanged=["click the Sign in button"])) == []
    # a goal that asks a question is answered by the planner (or an extraction), not ended here
    asks = OPEN_GOAL.replace("dashboard.", "dashboard and tell me how many invoices are open.")
    assert forced_steps(request(goal=asks, snapshot=DASHBOARD, history=SIGNED_IN)) == []
    # a page headed by the site's name (its first link) says nothing of where the run is
    home = DASHBOARD.replace('heading "Dashboard"', 'heading "Acme"')
    assert forced_steps(request(goal=OPEN_GOAL.replace("your account dashboard", "my account at Acme"), snapshot=home,
                                history=SIGNED_IN)) == []
    # an initial's stop ends no clause: the closing clause is still the one that opens the page
    book = 'Search for "left hand" and open the page of The Left Hand of Darkness by Ursula K. Le Guin.'
    page = ('- link "Riverside Books" [ref=e1]\n- heading "The Left Hand of Darkness" [level=1] [ref=e2]\n'
            '- paragraph [ref=e3]: by Ursula K. Le Guin')
    clicked = ['[1] act type: type left hand into the Search field and press Enter {"ref": "e3"} -> ok',
               '[2] act click: click the The Left Hand of Darkness link {"ref": "e7"} -> ok']
    assert forced_steps(request(goal=book, snapshot=page, history=clicked)) == [done]


SHOP = """- link "Tern" [ref=e1]
- heading "Kayaks" [level=1] [ref=e2]
- searchbox "Search" [ref=e3]
- link "Tern 40" [ref=e4]
- link "Tern 40 kayak" [ref=e5]
- link "Tern 50 kayak" [ref=e6]"""


def test_a_goal_that_opens_with_a_links_name_has_that_click_as_its_first_step() -> None:
    opening = request(goal="On the Tern site, open the Tern 40 kayak page and report its price.", snapshot=SHOP)
    assert forced_steps(opening) == [Step(kind="act", tool="click", instruction="click the Tern 40 kayak link")]  # the longest
    later = request(goal="On the Tern site, open the Tern 40 kayak page and report its price.", snapshot=SHOP,
                    history=['[1] act click: click the Kayaks link -> ok'])
    assert forced_steps(later) == []  # the first step only: the planner chose another way
    for goal in ("Report the price of the Tern 40 kayak.",  # no verb that opens a page
                 "Search for kayaks, then open the Tern 40 kayak page.",  # not what the goal opens with
                 "Open the Tern 60 kayak page."):  # no link of that name
        assert forced_steps(request(goal=goal, snapshot=SHOP)) == [], goal


def test_where_the_schema_fixes_the_only_extraction_the_loop_reads_the_answer_without_the_planner() -> None:
    ask = request(goal=ASK, snapshot=SHEET, output_schema=ANSWER, history=['[1] act click: click the Tern 40 kayak link -> ok'])
    assert forced_steps(ask) == [Step(kind="extract", instruction="extract the price_usd and weight_kg of Tern 40 kayak",
                                      schema=ANSWER)]
    # the goal asks no answer of a schema: what to read is the planner's to say
    assert forced_steps(request(goal="Open the Tern 40 kayak page and tell me its price.", snapshot=SHEET,
                                history=['[1] act click: click the Tern 40 kayak link -> ok'])) == []


POSTS = """- text: Ofelia @tern
- button "more" [ref=e1]
- button "Mute @tern" [ref=e2]
- button "Block @tern" [ref=e3]
- text: Kim @kestrel
- button "more" [ref=e4]"""
WORDS = """- checkbox "canoe" [ref=e1]
- checkbox "kayak" [ref=e2]
- button "Submit" [ref=e3]"""


def test_the_one_click_on_what_the_goal_quotes_is_taken_where_nothing_is_to_fill_first() -> None:
    mute = 'For the user @tern, click on the "Mute" button.'
    assert forced_steps(request(goal=mute, snapshot=POSTS)) == [
        Step(kind="act", tool="click", instruction="click the Mute @tern button")]
    done = ['[1] act click: click the Mute @tern button {"ref": "e2"} -> ok']
    assert forced_steps(request(goal=mute, snapshot=POSTS, history=done)) == []  # clicked once: the planner's turn
    # boxes to check first: the quoted button comes after them
    assert forced_steps(request(goal='Tick canoe, then click "Submit".', snapshot=WORDS))[0].tool == "check"


DIALOG = """- textbox "Username" [disabled] [ref=e1]
- button "Sign in" [disabled] [ref=e2]
- paragraph [ref=e3]: Your session is going to time out soon. Leave?
- button "OK" [ref=e4]
- button "Cancel" [ref=e5]"""


def test_a_dialog_that_disabled_the_form_is_dismissed() -> None:
    goal = 'Enter the username "fima" and press Sign in.'
    assert forced_steps(request(goal=goal, snapshot=DIALOG)) == [Step(kind="act", tool="click", instruction="click the Cancel button")]
    # not where the form is enabled (its Cancel is the form's own), nor a button the goal names
    assert forced_steps(request(goal=goal, snapshot=DIALOG.replace(" [disabled]", ""))) != [
        Step(kind="act", tool="click", instruction="click the Cancel button")]
    assert forced_steps(request(goal="Press Cancel to leave.", snapshot=DIALOG)) == []


CREW_LIST = """- listbox "Crew" [ref=e1]:
  - option "Ada" [ref=e2]
  - option "Bo" [ref=e3]
  - option "Cy" [ref=e4]
- button "Submit" [ref=e5]"""


def test_each_option_the_goal_names_of_a_list_box_is_chosen() -> None:
    goal = "Select Cy, Ada from the list and click Submit."
    assert forced_steps(request(goal=goal, snapshot=CREW_LIST)) == [
        Step(kind="act", tool="select", instruction="select Ada in the Crew dropdown"),
        Step(kind="act", tool="select", instruction="select Cy in the Crew dropdown")]
    one = CREW_LIST.replace('"Ada" [ref=e2]', '"Ada" [selected] [ref=e2]')
    history = ['[1] act select: select Ada in the Crew dropdown {"ref": "e1", "option": "Ada"} -> ok']
    assert premature_click(request(goal=goal, snapshot=one, history=history), "click the Submit button").endswith(
        "select Cy in the Crew dropdown")  # not sent with one of the two


FEED = """- generic [ref=e0]:
  - generic [ref=e1]:
    - generic [ref=e2]: Kim @tern
    - generic [ref=e3]: Boats at dawn.
    - button "like" [ref=e4]
  - generic [ref=e5]:
    - generic [ref=e6]: Bo @kestrel
    - generic [ref=e7]: Nets at noon.
    - button "like" [ref=e8]
  - generic [ref=e9]:
    - generic [ref=e10]: Kim @tern
    - generic [ref=e11]: Oars at dusk, when the boats come home to the harbour.
    - button "like" [ref=e12]
- button "Submit" [ref=e13]"""


def test_a_button_to_click_on_all_or_n_items_is_clicked_on_each_then_the_closing_one() -> None:
    every = 'Click the "Like" button on all posts by @tern and then click Submit.'
    assert [s.instruction for s in forced_steps(request(goal=every, snapshot=FEED))] == [
        "click the like button (Boats at dawn.)", "click the like button (Oars at dusk, when the boats come home)"]
    # not Bo's; a long post told apart by its first words
    one = 'Click the "Like" button on 1 post by @tern and then click Submit.'
    assert len(forced_steps(request(goal=one, snapshot=FEED))) == 1
    liked = ['[1] act click: click the like button (Boats at dawn.) {"ref": "e4"} -> ok']
    assert forced_steps(request(goal=one, snapshot=FEED, history=liked)) == [
        Step(kind="act", tool="click", instruction="click the Submit button")]  # as many as it says, then the last click
