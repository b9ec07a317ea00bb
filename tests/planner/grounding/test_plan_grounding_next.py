"""The grounded plan schema's reading of the goal and the run so far: what may come next (no finish
or submit before the goal's fields and clicks are done, side effects only when asked, and the
next step alone where the goal and the page make it plain)."""

from __future__ import annotations

from agentpair.training.datagen.plans import browser_tools
from agentpair.planner.grounding.form_left import premature_click
from agentpair.planner.grounding.schema import grounded_plan_schema
from agentpair.planner.request import PlanRequest
from agentpair.planner.page_view import compact_page, page_names
from tests.grounding_helpers import DONE, SNAPSHOT, act, plan, ran, request, valid


def test_a_setting_the_goal_sets_that_the_form_hides_is_shown_before_anything_else() -> None:
    security = """- combobox "Two-factor authentication" [ref=e1]:
  - option "Optional"
  - option "Required" [selected]
- button "Show advanced options" [ref=e2]
- button "Save security settings" [ref=e3]
- link "Profile" [ref=e4]"""
    goal = "Set the idle timeout to 15 minutes and save it. Do not change any other setting."
    schema = grounded_plan_schema(request(goal=goal, snapshot=security))
    assert valid(schema, plan(act("click", "click the Show advanced options button")))
    assert not valid(schema, plan(act("click", "click the Save security settings button")))
    assert not valid(schema, plan(act("select", "select Optional in the Two-factor authentication dropdown")))
    assert not valid(schema, DONE)
    shown = security + """
- combobox "Idle timeout" [ref=e5]:
  - option "15 minutes"
  - option "60 minutes" [selected]"""
    schema = grounded_plan_schema(request(goal=goal, snapshot=shown))
    assert valid(schema, plan(act("select", "select 15 minutes in the Idle timeout dropdown"),
                              act("click", "click the Save security settings button")))
    setup = "Set up two-factor authentication to protect the account: make it Required and save."
    assert valid(grounded_plan_schema(request(goal=setup, snapshot=security)),
                 plan(act("click", "click the Save security settings button")))  # "set up" sets nothing hidden


def test_no_finish_while_a_box_the_goal_names_to_fill_is_unfilled() -> None:
    jobs = """- link "All cron jobs" [ref=e1]
- button "Set up a cron job" [ref=e2]"""
    goal = "Make a cron job named sync. Put the completed template in the Setup box."
    assert not valid(grounded_plan_schema(request(goal=goal, snapshot=jobs)), DONE)
    filled = ['[3] code: fill in the cron job template: name sync {"ref": "f2e4", "text": "name: sync"} -> ok']
    assert valid(grounded_plan_schema(request(goal=goal, snapshot=jobs, history=filled)), DONE)


def test_a_button_with_a_side_effect_is_offered_only_when_the_goal_asks_for_it() -> None:
    product = """- button "Add to cart" [ref=e1]
- button "Save for later" [ref=e2]
- button "Notify me" [ref=e3]
- link "Reviews" [ref=e4]
- button "Save" [ref=e5]"""
    read = grounded_plan_schema(request(goal="What are the price and warranty of the Teal mug?", snapshot=product))
    for side_effect in ("Add to cart", "Notify me"):
        assert not valid(read, plan(act("click", f"click the {side_effect} button")))
    assert valid(read, plan(act("click", "click the Reviews link")))
    assert valid(read, plan(act("click", "click the Save button")))  # "save" also submits forms
    assert not valid(read, plan(act("click", "click the Save for later button")))  # but this one bookmarks
    buy = grounded_plan_schema(request(goal="I want the Teal mug, shipped to Lisbon.", snapshot=product))
    assert valid(buy, plan(act("click", "click the Add to cart button")))
    assert not valid(buy, plan(act("click", "click the Notify me button")))


def test_no_click_on_what_the_goal_rules_out() -> None:
    shop = """- button "Add Woven Lightning cable, 1 m to cart" [ref=e1]
- button "Add Woven Lightning cable, 2 m to cart" [ref=e2]
- button "Add USB-C charger, 65 W to cart" [ref=e3]"""
    goal = "Buy one woven USB-C cable, 2 m (not the 1 m cable or the charger): add it to the cart."
    schema = grounded_plan_schema(request(goal=goal, snapshot=shop))
    assert valid(schema, plan(act("click", "click the Add Woven Lightning cable, 2 m to cart button")))
    for wrong in ("1 m", "USB-C charger, 65 W"):
        name = f"Add Woven Lightning cable, {wrong} to cart" if wrong == "1 m" else f"Add {wrong} to cart"
        assert not valid(schema, plan(act("click", f"click the {name} button"))), wrong


def test_a_box_the_run_set_is_not_flipped_back() -> None:
    boxes = """- checkbox "Python workshop" [checked] [ref=e1]
- checkbox "Send me the newsletter" [ref=e2]"""
    history = ['[2] act check: check the Python workshop box {"ref": "e1", "on": true} -> ok',
               '[2] act check: uncheck the Send me the newsletter box {"ref": "e2", "on": false} -> ok']
    schema = grounded_plan_schema(request(snapshot=boxes, history=history))
    assert not valid(schema, plan(act("check", "uncheck the Python workshop box")))
    assert not valid(schema, plan(act("check", "check the Send me the newsletter box")))
    fresh = grounded_plan_schema(request(snapshot=boxes))  # set by the page, not the run: either way
    assert valid(fresh, plan(act("check", "uncheck the Python workshop box"),
                             act("check", "check the Send me the newsletter box")))


def test_a_field_a_text_was_submitted_into_takes_no_more() -> None:
    searched = ['[1] act type: type maple planter into the Search (all shops) box and press Enter '
                '{"ref": "e3", "text": "maple planter", "submit": true} -> ok']
    schema = grounded_plan_schema(request(history=searched))
    assert not valid(schema, plan(act("type", "type maple planter into the Search (all shops) box and press Enter")))
    assert not valid(schema, plan(act("type", "type maple into the Search (all shops) box and press Enter")))
    assert valid(schema, plan(act("type", "type fima.nirita into the Username field")))
    misspelt = [searched[0].replace('"text": "maple planter"', '"text": "mapel planter"')]  # a repair: again
    again = grounded_plan_schema(request(history=misspelt))
    assert valid(again, plan(act("type", "type maple planter into the Search (all shops) box and press Enter")))


def test_a_tool_without_grounded_wording_that_did_nothing_here_is_not_offered_again() -> None:
    schema = grounded_plan_schema(request(unchanged=["read the reply"]))
    assert not valid(schema, plan(act("read", "read the ticket")))
    assert valid(schema, plan(act("scroll", "scroll down")))


def test_the_rules_read_the_steps_as_the_loop_records_them() -> None:
    """The tests above write runs in the planner's notation (grounding_helpers.ran reads it back);
    here the records come from the loop's own StepRecords, through the line the planner reads."""
    from agentpair.models import Step, StepRecord
    from agentpair.planner.request import done_step, history_line

    def line(tool: str, instruction: str, args: dict[str, object]) -> str:
        done = done_step(StepRecord(iteration=1, step=Step(kind="act", tool=tool, instruction=instruction), tool_args=args))
        assert ran(history_line(done)) == done
        return history_line(done)
    history = [line("type", "type maple planter into the Search (all shops) box and press Enter",
                    {"ref": "e3", "text": "maple planter", "submit": True}),
               line("check", "check the Accept terms box", {"ref": "e7", "on": True}),
               line("click", "click the Home link", {"ref": "e2"})]
    ticked = SNAPSHOT.replace('checkbox "Accept terms" [ref=e7]', 'checkbox "Accept terms" [checked] [ref=e7]')
    assert valid(grounded_plan_schema(request(snapshot=ticked)), plan(act("check", "uncheck the Accept terms box")))
    schema = grounded_plan_schema(request(snapshot=ticked, history=history))
    assert not valid(schema, plan(act("type", "type maple into the Search (all shops) box and press Enter")))
    assert not valid(schema, plan(act("check", "uncheck the Accept terms box")))
    assert not valid(grounded_plan_schema(request(goal="Open the Cart and go to Home.", history=[])),
                     DONE)
    assert valid(grounded_plan_schema(request(goal="Open the Cart and go to Home.", history=[
        *history, line("click", "click the Cart link", {"ref": "e13"})])),
        DONE)


REGISTER = """- textbox "Full name" [ref=e1]
- combobox "Meals" [ref=e2]:
  - option "No preference" [selected]
  - option "Vegetarian"
- radio "M" [ref=e3]
- radio "L" [ref=e4]
- checkbox "Send me the newsletter" [checked] [ref=e5]
- checkbox "I accept the house rules" [ref=e6]
- button "Submit registration" [ref=e7]
- link "Schedule" [ref=e8]"""
REGISTER_GOAL = ("Register Tomas Berg: T-shirt size L, vegetarian meals. Accept the house rules, do not "
                 "subscribe to the newsletter, and submit the registration.")


def test_no_submit_nor_finish_before_the_form_holds_what_the_goal_gives() -> None:
    submit = "click the Submit registration button"
    ask = request(goal=REGISTER_GOAL, snapshot=REGISTER)
    assert not valid(grounded_plan_schema(ask), DONE)
    assert premature_click(ask, submit) == ("the form does not yet hold what the goal gives: check the L box; "
                                            "check the I accept the house rules box; "
                                            "uncheck the Send me the newsletter box; "
                                            "select Vegetarian in the Meals dropdown")
    assert premature_click(ask, "click the Schedule link") is None  # this may be the wrong page
    assert valid(grounded_plan_schema(ask), plan(act("check", "check the L box"), act("click", submit)))  # the loop waits
    filled = (REGISTER.replace('"No preference" [selected]', '"No preference"').replace('"Vegetarian"', '"Vegetarian" [selected]')
              .replace('radio "L" [ref=e4]', 'radio "L" [checked] [ref=e4]')
              .replace('rules" [ref=e6]', 'rules" [checked] [ref=e6]')
              .replace('newsletter" [checked] [ref=e5]', 'newsletter" [ref=e5]'))
    assert premature_click(request(goal=REGISTER_GOAL, snapshot=filled), submit) is None
    no_meal = filled.replace('"Vegetarian" [selected]', '"Vegetarian"').replace('"No preference"', '"No preference" [selected]')
    assert premature_click(request(goal=REGISTER_GOAL, snapshot=no_meal), submit)
    unchecked = ['[2] act check: uncheck the I accept the house rules box {"ref": "e6"} -> ok']
    alone = filled.replace('rules" [checked] [ref=e6]', 'rules" [ref=e6]')
    assert premature_click(request(goal=REGISTER_GOAL, snapshot=alone, history=unchecked), submit) is None


def test_a_text_the_goal_aims_at_a_field_goes_there_before_any_button() -> None:
    ticket = """- textbox "Identity check" [ref=e1]
- button "Verify" [ref=e2]
- textbox "Your reply" [ref=e3]
- button "Send reply" [ref=e4]
- link "Tickets" [ref=e5]"""
    goal = "Sign in with password {{secret:password}}, open ticket #7305 and send the customer this reply: Your parcel is on its way."
    schema = grounded_plan_schema(request(goal=goal, snapshot=ticket))
    assert valid(schema, plan(act("type", "type Your parcel is on its way into the Your reply field")))
    assert valid(schema, plan(act("type", "type Your parcel is on its way. into the Your reply field")))
    assert not valid(schema, plan(act("type", "type Your parcel is on its way into the Identity check field")))
    assert premature_click(request(goal=goal, snapshot=ticket), "click the Send reply button")
    typed = ['[4] act type: type Your parcel is on its way into the Your reply field {"ref": "e3"} -> ok']
    after = request(goal=goal, snapshot=ticket, history=typed)
    assert premature_click(after, "click the Send reply button") is None
    assert not valid(grounded_plan_schema(after), plan(act("click", "click the Verify button")))  # no check asked for
    login = '- textbox "Username" [ref=e1]\n- textbox "Password" [ref=e2]\n- button "Sign in" [ref=e3]'
    assert premature_click(request(goal=goal, snapshot=login), "click the Sign in button") is None


def test_no_finish_before_the_button_the_goal_says_as_two_words() -> None:
    cart = '- button "Proceed to checkout" [ref=e1]\n- button "Continue shopping" [ref=e2]'
    goal = "At Kettlebay, buy one cable: add it to the cart, then check out as Mira Okafor."
    assert not valid(grounded_plan_schema(request(goal=goal, snapshot=cart)), DONE)
    clicked = ['[3] act click: click the Proceed to checkout button {"ref": "e1"} -> ok']
    assert valid(grounded_plan_schema(request(goal=goal, snapshot=cart, history=clicked)), DONE)
    added = ['[2] act click: click the Add to cart button {"ref": "e9"} -> ok']
    assert valid(grounded_plan_schema(request(goal="Buy one cable.", snapshot=cart, history=added)), DONE)


def test_a_number_the_goal_names_picks_among_numbered_links() -> None:
    tickets = """- link "#4817 Refund for order 5501" [ref=e1]
- link "#7305 Refund for order 2291" [ref=e2]
- link "Knowledge base" [ref=e3]"""
    schema = grounded_plan_schema(request(goal="Open ticket #7305 (refund for order 2291) and reply.", snapshot=tickets))
    assert valid(schema, plan(act("click", "click the Refund for order 2291 link")))
    assert valid(schema, plan(act("click", "click the Knowledge base link")))  # says no number
    assert not valid(schema, plan(act("click", "click the Refund for order 5501 link")))
    anyone = grounded_plan_schema(request(goal="Open the oldest refund ticket.", snapshot=tickets))
    assert valid(anyone, plan(act("click", "click the Refund for order 5501 link")))  # the goal names no number


def test_a_side_effect_is_clicked_once_and_check_out_is_the_next_step() -> None:
    shop = '- button "Add to cart" [ref=e1]\n- link "View cart" [ref=e2]'
    goal = "At Kettlebay, buy one cable: add it to the cart, then check out as Mira Okafor."
    added = ['[1] act click: click the Add to cart button {"ref": "e1"} -> ok']
    assert valid(grounded_plan_schema(request(goal=goal, snapshot=shop)), plan(act("click", "click the Add to cart button")))
    assert not valid(grounded_plan_schema(request(goal=goal, snapshot=shop, history=added)),
                     plan(act("click", "click the Add to cart button")))
    cart = '- button "Proceed to checkout" [ref=e1]\n- button "Continue shopping" [ref=e2]'
    at_cart = grounded_plan_schema(request(goal=goal, snapshot=cart, history=added))
    assert valid(at_cart, plan(act("click", "click the Proceed to checkout button")))
    assert not valid(at_cart, plan(act("click", "click the Continue shopping button")))


def test_a_code_the_goal_gives_after_a_fields_name_goes_there_only() -> None:
    form = '- textbox "City" [ref=e1]\n- textbox "Postcode" [ref=e2]'
    goal = "Check out as Mira Okafor, Leith, postcode EH6 7LT."
    schema = grounded_plan_schema(request(goal=goal, snapshot=form))
    assert valid(schema, plan(act("type", "type EH6 7LT into the Postcode field")))
    assert not valid(schema, plan(act("type", "type Leith into the Postcode field")))
    assert not valid(schema, plan(act("type", "type EH6 7LT into the City field")))
    assert valid(schema, plan(act("type", "type Leith into the City field")))
    address = ('- textbox "Full name" [ref=e1]\n- textbox "Street address" [ref=e2]\n- textbox "City" [ref=e3]\n'
               '- textbox "Postcode" [ref=e4]')
    goal = "Buy the cable, 2 m, then check out as Mira Okafor, 4 Harbour Row, Leith, postcode EH6 7LT."
    schema = grounded_plan_schema(request(goal=goal, snapshot=address))  # the list before it, field by field
    for value, field in (("Mira Okafor", "Full name"), ("4 Harbour Row", "Street address"), ("Leith", "City")):
        assert valid(schema, plan(act("type", f"type {value} into the {field} field")))
    for value, field in (("2 m", "Street address"), ("4 Harbour Row", "City"), ("Leith", "Full name")):
        assert not valid(schema, plan(act("type", f"type {value} into the {field} field")))
    gift = grounded_plan_schema(request(goal=goal, snapshot=address + '\n- textbox "Gift message (optional)" [ref=e5]'))
    assert not valid(gift, plan(act("type", "type 2 m into the Gift message (optional) field")))  # given nothing
    named = ['[1] act type: type Mira Okafor into the Full name field {"ref": "e1", "text": "Mira Okafor"} -> ok']
    typed = address.replace('"Full name" [ref=e1]', '"Full name" [ref=e1]: Mira Okafor') + '\n- button "Place order" [ref=e6]'
    assert premature_click(request(goal=goal, snapshot=typed, history=named),
                           "click the Place order button") == ("the form does not yet hold what the goal gives: "
                                                               "type 4 Harbour Row into the Street address field; "
                                                               "type Leith into the City field; "
                                                               "type EH6 7LT into the Postcode field")
    # a dialog the run dismissed emptied the name again: the typing did not keep
    reset = address + '\n- button "Place order" [ref=e6]'
    dismissed = [*named, '[2] act click: click the Close button {"ref": "e9"} -> ok']
    assert "type Mira Okafor into the Full name field" in premature_click(request(goal=goal, snapshot=reset, history=dismissed),
                                                                          "click the Place order button")
    assert "Mira Okafor" not in premature_click(request(goal=goal, snapshot=reset, history=named), "click the Place order button")


def test_a_field_keeps_the_text_the_run_typed_into_it() -> None:
    form = '- textbox "Full name" [ref=e1]\n- button "Submit" [ref=e2]'
    typed = ['[2] act type: type Tomas Berg into the Full name field {"ref": "e1", "text": "Tomas Berg"} -> ok']
    schema = grounded_plan_schema(request(goal="Register Tomas Berg for the Student ticket.", snapshot=form, history=typed))
    assert not valid(schema, plan(act("type", "type Student into the Full name field")))
    assert valid(schema, plan(act("type", "type Tomas Berg into the Full name field")))  # a misspelt fill, mended


def test_no_other_radio_than_the_one_the_goal_names() -> None:
    schema = grounded_plan_schema(request(goal=REGISTER_GOAL, snapshot=REGISTER))
    assert valid(schema, plan(act("check", "check the L box")))
    assert not valid(schema, plan(act("check", "check the M box")))
    unnamed = grounded_plan_schema(request(goal=REGISTER_GOAL.replace("size L", "size"), snapshot=REGISTER))
    assert valid(unnamed, plan(act("check", "check the M box")))  # the goal names none: any
    workshops = REGISTER + '\n- checkbox "Python workshop" [ref=e9]\n- checkbox "Rust workshop" [ref=e10]'
    for goal, rust in ((REGISTER_GOAL.replace("Berg:", "Berg, the Python workshop only:"), False),
                       (REGISTER_GOAL.replace("Berg:", "Berg, the Python workshop:"), True)):
        schema = grounded_plan_schema(request(goal=goal, snapshot=workshops))
        assert valid(schema, plan(act("check", "check the Python workshop box")))
        assert valid(schema, plan(act("check", "check the Rust workshop box"))) == rust  # "only" leaves it alone


def test_once_signed_in_a_link_the_goal_asks_to_open_here_is_the_next_step() -> None:
    home = '- link "Messages" [ref=e1]\n- link "Help" [ref=e2]'
    goal = "Sign in as toli.lolalo with password {{secret:password}} and go to Messages."
    before = grounded_plan_schema(request(goal=goal, snapshot=home))
    assert valid(before, plan(act("click", "click the Help link")))  # not signed in yet: any link
    signed = ['[1] act type: type {{secret:password}} into the Password field {"ref": "e2"} -> ok',
              '[1] act click: click the Sign in button {"ref": "e3"} -> ok']
    after = grounded_plan_schema(request(goal=goal, snapshot=home, history=signed))
    assert valid(after, plan(act("click", "click the Messages link")))
    assert not valid(after, plan(act("click", "click the Help link")))


def test_on_a_page_with_nothing_to_fill_the_links_the_goal_names_are_the_ones_offered() -> None:
    menu = ('- link "Stratus console" [ref=e1]\n- link "Settings" [ref=e2]\n- link "Profile" [ref=e3]\n'
            '- link "Security" [ref=e4]\n- button "Sign out" [ref=e5]')
    goal = "In the Stratus admin console, set the idle timeout to 15 minutes (it is a security setting) and save it."

    def schema(snapshot: str = menu, goal: str = goal, history: tuple[str, ...] = ()) -> dict[str, object]:
        return grounded_plan_schema(PlanRequest(goal=goal, page=compact_page(snapshot), names=page_names(snapshot),
                                                tools=browser_tools(), history=list(history),
                                                steps=[ran(line) for line in history]))

    assert valid(schema(), plan(act("click", "click the Security link")))
    assert valid(schema(), plan(act("click", "click the Sign out button")))  # buttons stay: a menu may hide the way
    assert not valid(schema(), plan(act("click", "click the Profile link")))
    assert not valid(schema(), plan(act("click", "click the Stratus console link")))  # only says where the task is
    opened = ('[1] act click: click the Security link {"ref": "e4"} -> ok',)
    assert valid(schema(history=opened), plan(act("click", "click the Profile link")))  # each named one clicked: any
    with_field = menu + '\n- textbox "Search" [ref=e6]'
    assert valid(schema(with_field), plan(act("click", "click the Profile link")))  # a page to fill: any
    # a capitalised name may be another thing's ("the Security day"): the planner picks the link
    assert valid(schema(goal="Book a seat at the Security day."), plan(act("click", "click the Profile link")))
    reply = "Open your account and send this reply: the security fix is out now."  # words to type name nothing
    assert valid(schema(goal=reply), plan(act("click", "click the Profile link")))


def test_once_added_to_the_cart_the_way_to_the_cart_is_the_next_step() -> None:
    shop = ('- button "Add Woven cable, 2 m to cart" [ref=e1]: Add to cart\n- button "Save for later" [ref=e2]\n'
            '- button "Add USB-C charger to cart" [ref=e3]: Add to cart\n- link "Help" [ref=e4]\n- link "View cart" [ref=e5]')
    goal = "At Kettlebay, buy one woven cable, 2 m: add it to the cart, then check out as Mira Okafor."
    before = grounded_plan_schema(request(goal=goal, snapshot=shop))
    assert valid(before, plan(act("click", "click the Add Woven cable, 2 m to cart button")))
    assert not valid(before, plan(act("click", "click the Save for later button")))  # a bookmark, not asked for
    added = ['[1] act click: click the Add Woven cable, 2 m to cart button {"ref": "e1"} -> ok']
    after = grounded_plan_schema(request(goal=goal, snapshot=shop, history=added))
    assert valid(after, plan(act("click", "click the View cart link")))
    for other in ("click the Help link", "click the Add USB-C charger to cart button"):
        assert not valid(after, plan(act("click", other)))
    assert not valid(after, plan({"kind": "extract", "instruction": "read the cart", "schema": {"type": "object"}}))
    cart = '- button "Proceed to checkout" [ref=e1]\n- link "Cart (1)" [ref=e2]'
    at_cart = grounded_plan_schema(request(goal=goal, snapshot=cart, history=added))
    assert valid(at_cart, plan(act("click", "click the Proceed to checkout button")))
    assert not valid(at_cart, plan(act("click", "click the Cart link")))
    assert not valid(at_cart, plan({"kind": "extract", "instruction": "read the cart", "schema": {"type": "object"}}))


def test_the_link_the_goal_says_a_page_is_under_is_the_way_there() -> None:
    home = '- link "Catalog" [ref=e1]\n- link "About" [ref=e2]\n- button "All sections" [ref=e3]'

    def schema(goal: str) -> dict[str, object]:
        return grounded_plan_schema(PlanRequest(goal=goal, page=compact_page(home), names=page_names(home),
                                                tools=browser_tools()))

    for goal in ("On Firi, go to Security under Catalog.", "Open Catalog > Security on Firi."):
        assert valid(schema(goal), plan(act("click", "click the Catalog link")))
        assert not valid(schema(goal), plan(act("click", "click the About link")))
        assert valid(schema(goal), plan(act("click", "click the All sections button")))  # a menu may hold it
    assert valid(schema("On Firi, open the Catalog page."), plan(act("click", "click the About link")))  # not where


def test_on_the_page_of_the_thing_the_goal_asks_about_the_step_is_to_read_it() -> None:
    product = ('- link "Boutique" [ref=e1]\n- heading "Ivory Maple scarf" [level=1] [ref=e2]\n'
               '- text: $288.93\n- button "Add to cart" [ref=e3]')
    goal = "What are the price, warranty and battery of the Ivory Maple scarf on Zovi?"

    def schema(goal: str, memory: list[object] = []) -> dict[str, object]:  # noqa: B006 (read only)
        return grounded_plan_schema(PlanRequest(goal=goal, page=compact_page(product), names=page_names(product),
                                                tools=browser_tools(), memory=memory))

    read = {"kind": "extract", "instruction": "extract the price", "schema": {"type": "object"}}
    assert valid(schema(goal), plan(read))
    assert not valid(schema(goal), plan(act("click", "click the Boutique link")))
    assert valid(schema(goal, [{"price": 288.93}]), DONE)  # read: the answer may follow
    assert valid(schema("Buy the Ivory Maple scarf on Zovi."), plan(act("click", "click the Add to cart button")))


def test_a_task_that_asks_for_no_answer_is_not_finished_before_the_run_acts() -> None:
    page = """- generic [ref=e1]:
  - textbox "Departure Date" [ref=e2]
  - button "Search" [ref=e3]"""
    goal = "Enter 11/02/2031 as the departure date and search."
    fresh = grounded_plan_schema(request(goal, page))
    assert not valid(fresh, DONE)
    assert valid(fresh, plan(act("type", "type 11/02/2031 into the Departure Date field")))
    acted = request(goal, page, history=["[1] act type: type 11/02/2031 into the Departure Date field "
                                         "{\"ref\": \"e2\", \"text\": \"11/02/2031\"} -> ok",
                                         "[2] act click: click the Search button {\"ref\": \"e3\"} -> ok"])
    assert valid(grounded_plan_schema(acted), DONE)
    failed = request(goal, page, history=["[1] act click: click the Search button {\"ref\": \"e3\"} -> FAILED: x"])
    assert not valid(grounded_plan_schema(failed), DONE)  # a step that failed did nothing
    asking = request("What is the earliest departure date shown?", page)
    assert valid(grounded_plan_schema(asking), plan({"kind": "finish", "instruction": "t", "answer": "x"}))


def test_a_value_the_goal_gives_goes_into_an_empty_field_before_any_button() -> None:
    page = """- generic [ref=e1]:
  - textbox "Guest" [ref=e2]
  - textbox "Arrival" [ref=e3]
  - button "Reserve" [ref=e4]"""
    goal = 'Book "Ilse Brandt" in on 03/04/2027, then press Reserve.'
    submit = "click the Reserve button"
    refused = premature_click(request(goal, page), submit)
    assert refused and "type Ilse Brandt into the Guest field" in refused and "type 03/04/2027 into the Arrival field" in refused
    typed = ['[1] act type: type Ilse Brandt into the Guest field {"ref": "e2", "text": "Ilse Brandt"} -> ok']
    half = page.replace('"Guest" [ref=e2]', '"Guest" [ref=e2]: Ilse Brandt')
    still = premature_click(request(goal, half, history=typed), submit)
    assert still and "type 03/04/2027 into the Arrival field" in still and "Ilse" not in still
    both = [*typed, '[2] act type: type 03/04/2027 into the Arrival field {"ref": "e3", "text": "03/04/2027"} -> ok']
    full = half.replace('"Arrival" [ref=e3]', '"Arrival" [ref=e3]: 03/04/2027')
    assert premature_click(request(goal, full, history=both), submit) is None
    locked = ['[1] act type: type Ilse Brandt into the Guest field {"ref": "e2", "text": "Ilse Brandt"} -> FAILED: '
              "the 'Guest' field is read-only or disabled", '[2] act type: type 03/04/2027 into the Arrival field '
              '{"ref": "e3", "text": "03/04/2027"} -> FAILED: read-only']
    assert premature_click(request(goal, page, history=locked), submit) is None  # set some other way, if at all
    # a quoted name of something to click, or a value the page shows already, is nothing to type
    assert premature_click(request('Press "Reserve" for the 03/04/2027 stay.', page + "\n- text: Stay 03/04/2027"),
                           submit) is None


def test_no_finish_before_the_button_the_goal_says_to_press() -> None:
    page = '- textbox "Arrival" [ref=e1]: 21:37\n- button "Submit" [ref=e2]'
    history = ['[1] act type: type 9:37 PM into the Arrival field and press Enter {"ref": "e1"} -> ok']
    for goal in ("Enter 9:37 PM as the arrival and press submit.", "Put 9:37 PM in, then hit Submit."):
        assert not valid(grounded_plan_schema(request(goal, page, history=history)), DONE)
    pressed = [*history, '[2] act click: click the Submit button {"ref": "e2"} -> ok']
    assert valid(grounded_plan_schema(request("Enter 9:37 PM and press submit.", page, history=pressed)), DONE)


def test_a_trash_or_star_icon_only_when_the_goal_asks_to_delete_or_mark() -> None:
    inbox = '- button "Mira" [ref=e1]\n- button "trash" [ref=e2]\n- button "star" [ref=e3]'
    reading = grounded_plan_schema(request("Open the message from Mira.", inbox))
    assert valid(reading, plan(act("click", "click the Mira button")))
    assert not valid(reading, plan(act("click", "click the trash button")))
    assert not valid(reading, plan(act("click", "click the star button")))
    assert valid(grounded_plan_schema(request("Delete the message from Mira.", inbox)),
                 plan(act("click", "click the trash button")))
    assert valid(grounded_plan_schema(request("Mark Mira's message as important.", inbox)),
                 plan(act("click", "click the star button")))


def test_no_finish_while_a_quoted_text_to_enter_was_typed_nowhere_even_on_a_page_without_fields() -> None:
    inbox = '- button "Mira" [ref=e1]'
    goal = 'Answer Mira with the text "See you at noon."'
    opened = ['[1] act click: click the Mira button {"ref": "e1"} -> ok']
    assert not valid(grounded_plan_schema(request(goal, inbox, history=opened)), DONE)
    sent = [*opened, '[2] act type: type See you at noon. into the Reply field {"ref": "e4"} -> ok',
            '[3] act click: click the Send button {"ref": "e5"} -> ok']
    assert valid(grounded_plan_schema(request(goal, inbox, history=sent)), DONE)


def test_a_clickable_the_goal_quotes_by_name_is_the_next_step_where_the_page_shows_it() -> None:
    text = '- button "maple" [ref=e1]\n- button "birch" [ref=e2]\n- link "Tab #2" [ref=e3]'
    schema = grounded_plan_schema(request('Find and click the word "birch" in the tabs.', text))
    assert valid(schema, plan(act("click", "click the birch button")))
    assert not valid(schema, plan(act("click", "click the maple button")))
    elsewhere = grounded_plan_schema(request('Find and click the word "cedar" in the tabs.', text))
    assert valid(elsewhere, plan(act("click", "click the Tab #2 link")))  # not here: the planner looks on


def test_a_read_between_typing_and_finishing_sends_nothing() -> None:
    page = '- textbox "Message" [ref=e1]: See you\n- button "send message" [ref=e2]'
    typed = ['[1] act type: type See you into the Message field {"ref": "e1", "text": "See you"} -> ok']
    read = [*typed, '[2] act read: read the message {"ref": "e1"} -> ok']
    goal = "Write See you in the message."
    assert not valid(grounded_plan_schema(request(goal, page, history=typed)), DONE)
    assert not valid(grounded_plan_schema(request(goal, page, history=read)), DONE)
    sent = [*read, '[3] act click: click the send message button {"ref": "e2"} -> ok']
    assert valid(grounded_plan_schema(request(goal, page, history=sent)), DONE)


def test_the_plainly_next_click_is_the_name_the_goal_opens_not_a_longer_one() -> None:
    links = '- link "Recipes" [ref=e1]\n- link "Recipes archive" [ref=e2]\n- link "About" [ref=e3]'
    schema = grounded_plan_schema(request(goal='Click the link "Recipes".', snapshot=links))
    assert valid(schema, plan(act("click", "click the Recipes link")))
    assert not valid(schema, plan(act("click", "click the Recipes archive link")))


def test_a_button_that_creates_is_offered_only_when_the_goal_asks_to_create_or_register() -> None:
    form = '- textbox "Member ID" [ref=e1]: mira7\n- button "Log in" [ref=e2]\n- button "Create profile" [ref=e3]'
    signing_in = grounded_plan_schema(request(goal="Log in as mira7 and open your orders.", snapshot=form))
    assert valid(signing_in, plan(act("click", "click the Log in button")))
    assert not valid(signing_in, plan(act("click", "click the Create profile button")))
    joining = grounded_plan_schema(request(goal="Create a profile for mira7.", snapshot=form))
    assert valid(joining, plan(act("click", "click the Create profile button")))


def test_a_field_typed_into_while_disabled_is_offered_again_once_enabled_not_one_that_failed_otherwise() -> None:
    page = """- generic [ref=e1]:
  - textbox "Guest" [ref=e2]
  - textbox "Arrival" [ref=e3]
  - button "Reserve" [ref=e4]"""
    goal, submit = 'Book "Ilse Brandt" in on 03/04/2027, then press Reserve.', "click the Reserve button"
    failed = ['[1] act type: type Ilse Brandt into the Guest field {"ref": "e2", "text": "Ilse Brandt"} -> FAILED: '
              "the 'Guest' field is disabled: it cannot be typed into (another control sets it)"]
    locked = request(goal, page, history=failed)
    locked.steps[0].disabled = True  # the tool said so (ToolResult.disabled): the page has enabled it since
    assert "type Ilse Brandt into the Guest field" in (premature_click(locked, submit) or "")
    other = request(goal, page, history=failed)  # failed some other way: the planner's to repair
    assert "Ilse Brandt into the Guest" not in (premature_click(other, submit) or "")
