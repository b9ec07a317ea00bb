"""The grounded plan schema: steps name only the page's elements and options and type only values
the task holds, in the planner's wording; llama.cpp's converter compiles it; a real server obeys it."""

from __future__ import annotations

import json

import pytest

from agentpair.training.datagen.plans import browser_tools
from agentpair.planner.grounding.field_values import typed_values
from agentpair.planner.grounding.schema import grounded_plan_schema
from agentpair.planner.request import PlanRequest, plan_schema
from agentpair.planner.page_view import page_names
from tests.grounding_helpers import DONE, GOAL, PICKED, SEARCHED, SNAPSHOT, act, plan, request, valid


def test_page_names_sort_elements_by_what_a_step_does_with_them() -> None:
    names = page_names(SNAPSHOT)
    assert names.fields == ["Search (all shops)", "Username", "Comment"]
    assert names.dropdowns == {"Delivery": ["Standard (3-5 days)", "Express: 1 day"]}
    assert names.boxes == ["Accept terms", "L"]
    assert names.clickable["Add Woven cable, 2 m to cart"] == ["button"]
    assert names.clickable["Home"] == ["link", "button"]
    assert "Username" not in names.clickable and "Delivery" not in names.clickable


def test_typed_values_are_whole_runs_of_the_goal_memory_and_placeholders() -> None:
    values = typed_values(request(memory=[{"order": "A-77"}]))
    for whole in ("fima.nirita", "maple planter", "Your parcel is on its way.", "Your parcel is on its way",
                  "{{secret:password}}", "A-77", "Express: 1 day", "ada@x.org"):
        assert whole in values
    assert "fima" not in values and "nirita" not in values and "ple plan" not in values
    assert not any('"' in v for v in values)


def test_the_planners_wording_of_page_elements_passes() -> None:
    schema = grounded_plan_schema(request())
    assert valid(schema, plan(
        act("type", "type fima.nirita into the Username field"),
        act("type", "type maple planter into the Search (all shops) box and press Enter"),
        act("type", "type Your parcel is on its way. into the Comment field"),
    ))
    assert valid(schema, plan(
        act("select", "select Express: 1 day in the Delivery dropdown"),
        act("check", "check the Accept terms box"), act("check", "check the L box"),
        act("click", "click the Add Woven cable, 2 m to cart button"),
    ))
    assert valid(schema, plan(act("go_back", "go back to the previous page"), act("scroll", "scroll down")))
    assert valid(schema, plan(act("click", "click the Home link"), act("click", "click the Home button")))
    # as people say names: without a leading number or a trailing count
    assert valid(schema, plan(act("click", "click the Refund for order 2291 link"), act("click", "click the Cart link"),
                              act("click", "click the #7305 Refund for order 2291 link")))
    schema = grounded_plan_schema(request(snapshot=PICKED, history=SEARCHED))  # the quoted text typed: it may finish
    assert valid(schema, plan({"kind": "code", "instruction": "fill", "template": "x = {{v:4}}",
                               "target": "the Comment box"}, {"kind": "finish", "instruction": "done",
                                                              "answer": "ok"}))


@pytest.mark.parametrize("instruction,tool", [
    ("type fima into the Username field", "type"),  # a value cut short
    ("type fima.nirita into the Usernme field", "type"),  # a misspelt field
    ("type fima.nirita into the Save for later field", "type"),  # not a field
    ("select Express in the Delivery dropdown", "select"),  # not one of its options
    ("click the Add Woven cable, 1 m to cart button", "click"),  # not on the page
    ("click the Refund for order link", "click"),  # a name cut short
    ("click the Save for later button", "type"),  # the instruction says one tool, the step another
    ("type maple planter into theUsername box", "press"),  # an ungrounded tool as a way round
])
def test_a_step_naming_what_the_page_or_task_lacks_fails(instruction: str, tool: str) -> None:
    assert not valid(grounded_plan_schema(request()), plan(act(tool, instruction)))


def test_a_code_step_types_into_a_field_of_the_page_and_needs_one() -> None:
    code = {"kind": "code", "instruction": "fill", "template": "x = {{v:4}}", "target": "the Notes box"}
    assert not valid(grounded_plan_schema(request()), plan(code))
    no_fields = '- button "Save job" [ref=e1]'
    schema = grounded_plan_schema(request(snapshot=no_fields))
    assert not valid(schema, plan(dict(code, target="the Comment box")))
    assert valid(schema, plan(act("click", "click the Save job button")))


def test_a_code_step_types_into_the_box_the_goal_names_when_it_names_one() -> None:
    form = '- textbox "Job spec" [ref=e1]\n- textbox "Secrets list" [ref=e2]'
    code = {"kind": "code", "instruction": "fill", "template": "x = {{v:4}}"}
    named = grounded_plan_schema(request("Fill in the template. Put it into the Job spec box.", form))
    assert valid(named, plan(dict(code, target="the Job spec box")))
    assert not valid(named, plan(dict(code, target="the Secrets list box")))
    unnamed = grounded_plan_schema(request("Fill in the template and create the job.", form))
    assert valid(unnamed, plan(dict(code, target="the Secrets list box")))


def test_a_box_a_code_step_of_the_run_wrote_is_not_offered_again() -> None:
    form = '- textbox "Job spec" [ref=e1]: x = 4\n- button "Create job" [ref=e2]'
    code = {"kind": "code", "instruction": "fill", "template": "x = {{v:4}}", "target": "the Job spec box"}
    goal = "Fill in the template. Put it into the Job spec box and create the job."
    assert valid(grounded_plan_schema(request(goal, form)), plan(code))
    wrote = request(goal, form, history=['[1] code: fill in the template {"ref": "e1", "text": "x = 4"} -> ok'])
    wrote.steps[0].target = "the Job spec box"
    schema = grounded_plan_schema(wrote)
    assert not valid(schema, plan(code))
    assert valid(schema, plan(act("click", "click the Create job button")))


def test_a_request_that_knows_no_names_gets_the_plain_schema() -> None:
    bare = PlanRequest(goal=GOAL, page='button "Go"', tools=browser_tools())
    assert grounded_plan_schema(bare) == plan_schema([t.name for t in bare.tools])


def test_llama_cpps_converter_compiles_the_grounded_schema_and_its_grammar_reads_it() -> None:
    from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

    grammar = json_schema_to_gbnf(json.dumps(grounded_plan_schema(request())))
    LlamaGrammar.from_string(grammar, verbose=False)
    assert "{{secret:passwor" in grammar and "nirit" in grammar and "Usernme" not in grammar
    fields = SNAPSHOT + '\n  - textbox "Password" [ref=e20]\n  - textbox "E-mail" [ref=e21]'  # typing in groups
    LlamaGrammar.from_string(json_schema_to_gbnf(json.dumps(grounded_plan_schema(request(snapshot=fields)))),
                             verbose=False)


def test_a_name_with_a_double_quote_is_said_without_it() -> None:
    """llama-cpp-python's server dies on a grammar holding a quoted enum value: none is sent."""
    schema = grounded_plan_schema(request())
    assert valid(schema, plan(act("click", "click the Say hi button")))

    def listed(node: object) -> list[str]:
        if isinstance(node, dict):
            own = [*node.get("enum", []), *([node["const"]] if "const" in node else [])]
            return [v for v in own if isinstance(v, str)] + [v for child in node.values() for v in listed(child)]
        return [v for child in node for v in listed(child)] if isinstance(node, list) else []
    assert "click the Say hi button" in listed(schema)
    assert not [v for v in listed(schema) if '"' in v or "\\" in v]


def test_a_task_with_an_answer_schema_extracts_its_unread_fields_then_answers_with_them() -> None:
    answer = {"type": "object", "required": ["name", "price_usd", "ram_gb"], "properties": {
        "name": {"type": "string"}, "price_usd": {"type": "number"}, "ram_gb": {"type": "integer"}}}

    def schema_after(*memory: dict[str, object]) -> dict[str, object]:
        return grounded_plan_schema(request(goal="Report the name, price and RAM of the Tern 40 Pro.",
                                            output_schema=answer, memory=list(memory)))

    def finish(**said: object) -> dict[str, object]:
        return plan({"kind": "finish", "instruction": "report", "answer": said})

    def extract(schema: dict[str, object]) -> dict[str, object]:
        return plan({"kind": "extract", "instruction": "read them", "schema": schema})

    fresh = schema_after()  # nothing read yet: an extraction asks for every field, no answer yet
    assert valid(fresh, extract(answer))
    assert not valid(fresh, extract({"type": "object", "properties": {"price": {"type": "number"}}}))
    assert not valid(fresh, finish(name="Tern 40 Pro", price_usd=1499.0, ram_gb=32))
    partly = schema_after({"price_usd": 1499.0, "ram_gb": 32})  # the name is still unread
    assert valid(partly, extract({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}))
    assert not valid(partly, extract(answer)) and not valid(partly, finish(name="Tern 40 Pro", price_usd=1499.0,
                                                                          ram_gb=32))
    read = schema_after({"price_usd": 1499.0, "ram_gb": 32}, {"name": "Tern 40 Pro"}, {"name": ""})
    assert valid(read, finish(name="Tern 40 Pro", price_usd=1499.0, ram_gb=32))  # "" read later: not kept
    assert not valid(read, extract(answer))  # nothing left to read
    assert not valid(read, finish(name="Signed in", price_usd=1499.0, ram_gb=32))  # made up
    assert not valid(read, finish(name="Tern 40 Pro", price_usd=32, ram_gb=32))  # another field's value
    free = grounded_plan_schema(request(snapshot=PICKED, memory=[{"price_usd": 3.5}], history=SEARCHED))  # no answer schema: extractions are free
    assert valid(free, extract({"type": "object", "properties": {"a": {"type": "string"}}}))
    assert valid(free, plan({"kind": "finish", "instruction": "report", "answer": "price 3.5"}))


def test_a_click_says_which_of_same_named_elements_it_means() -> None:
    results = """- list [ref=e1]:
  - listitem [ref=e2]:
    - link "The Salt Road" [ref=e3]
    - text: Le Guin · Hardcover, 1969
  - listitem [ref=e4]:
    - link "The Salt Road" [ref=e5]
    - text: Le Guin · Paperback, 2000
- link "Help" [ref=e6]
- link "Help" [ref=e7]"""
    schema = grounded_plan_schema(request(snapshot=results))
    assert valid(schema, plan(act("click", "click the The Salt Road link (Hardcover, 1969)")))
    assert valid(schema, plan(act("click", "click the The Salt Road link (Paperback, 2000)")))
    assert not valid(schema, plan(act("click", "click the The Salt Road link")))
    assert valid(schema, plan(act("click", "click the Help link")))  # alike in every way: either will do


def test_no_finish_while_the_goal_asks_to_open_a_link_here_that_no_step_clicked() -> None:
    account = """- link "Statements" [ref=e1]
- link "Messages" [ref=e2]
- link "Sign out" [ref=e3]"""
    goal = "Sign in to Pola as toli.lolalo with {{secret:password}} and go to Messages."
    signed_in = ['[1] act click: click the Log in button {"ref": "e14"} -> ok']
    early = grounded_plan_schema(request(goal=goal, snapshot=account, history=signed_in))
    assert not valid(early, DONE)
    assert valid(early, plan(act("click", "click the Messages link")))
    opened = grounded_plan_schema(request(goal=goal, snapshot=account, history=[
        *signed_in, '[2] act click: click the Messages link {"ref": "f1e2"} -> ok']))
    assert valid(opened, DONE)
    # a name the goal mentions but does not ask to open ("a Messages digest") keeps finish open
    mentioned = grounded_plan_schema(request(goal="Turn off the Messages digest.", snapshot=account,
                                             history=signed_in))
    assert valid(mentioned, DONE)


def test_a_box_is_offered_the_verb_that_turns_it() -> None:
    boxes = """- checkbox "I accept the house rules" [ref=e1]
- checkbox "Send me the newsletter" [checked] [ref=e2]"""
    schema = grounded_plan_schema(request(snapshot=boxes))
    assert valid(schema, plan(act("check", "check the I accept the house rules box"),
                              act("check", "uncheck the Send me the newsletter box")))
    assert not valid(schema, plan(act("check", "uncheck the I accept the house rules box")))  # off already
    assert not valid(schema, plan(act("check", "check the Send me the newsletter box")))  # on already


def test_a_step_that_changed_nothing_on_this_page_is_not_offered_again() -> None:
    repeat_search = "type maple planter into the Search (all shops) box and press Enter"
    schema = grounded_plan_schema(request(unchanged=["click the Save for later button", repeat_search]))
    assert not valid(schema, plan(act("click", "click the Save for later button")))
    assert not valid(schema, plan(act("type", repeat_search)))
    assert not valid(schema, plan(act("type", "type maple planter into the Comment field")))
    assert valid(schema, plan(act("click", "click the Add Woven cable, 2 m to cart button"),
                              act("type", "type fima.nirita into the Username field")))


def test_no_finish_while_a_text_the_goal_gives_to_enter_was_never_typed() -> None:
    ticket = """- textbox "Reply" [ref=e1]
- button "Send reply" [ref=e2]"""
    goal = "Open ticket #7305 and send the customer this reply: Your parcel is on its way."
    assert not valid(grounded_plan_schema(request(goal=goal, snapshot=ticket)), DONE)
    typed = ['[2] act type: type Your parcel is on its way into the Reply field {"ref": "e1"} -> ok']
    assert not valid(grounded_plan_schema(request(goal=goal, snapshot=ticket, history=typed)), DONE)  # not sent
    sent = [*typed, '[3] act click: click the Send reply button {"ref": "e2"} -> ok']
    assert valid(grounded_plan_schema(request(goal=goal, snapshot=ticket, history=sent)), DONE)
    quoted = 'Post the comment "Ships abroad?" on the wallet page.'
    assert not valid(grounded_plan_schema(request(goal=quoted, snapshot=ticket)), DONE)
    sent = grounded_plan_schema(request(goal=goal, snapshot='- heading "Reply sent" [ref=e1]'))
    assert valid(sent, DONE)  # no field left on the page: nothing more to type here


def test_secrets_and_email_addresses_go_into_the_fields_named_for_them() -> None:
    form = """- textbox "Member ID" [ref=e1]
- textbox "Password" [ref=e2]
- textbox "Your email" [ref=e3]
- textbox "Customer name" [ref=e4]"""
    goal = "Sign Keni Larura up as toli.lolalo with the email keni@larura.test and password {{secret:password}}."
    schema = grounded_plan_schema(request(goal=goal, snapshot=form))
    for right in ("type {{secret:password}} into the Password field", "type toli.lolalo into the Member ID field",
                  "type keni@larura.test into the Your email field", "type Keni Larura into the Customer name field"):
        assert valid(schema, plan(act("type", right))), right
    for wrong in ("type {{secret:password}} into the Member ID field", "type toli.lolalo into the Password field",
                  "type keni@larura.test into the Customer name field", "type Keni Larura into the Your email field"):
        assert not valid(schema, plan(act("type", wrong))), wrong
    plain = grounded_plan_schema(request(goal=goal, snapshot='- textbox "Notes" [ref=e1]'))  # nothing named for them
    assert valid(plain, plan(act("type", "type keni@larura.test into the Notes field")))
    assert not valid(plain, plan(act("type", "type {{secret:password}} into the Notes field")))  # a secret never


def test_a_dropdown_offers_the_options_the_goal_names_and_none_names_none() -> None:
    shop = """- combobox "Delivery" [ref=e1]:
  - option "Standard (5-7 days)" [selected]
  - option "Express (2 days)"
  - option "Priority (1 day)"
- combobox "Country" [ref=e2]:
  - option "France" [selected]
  - option "Spain\""""
    schema = grounded_plan_schema(request(goal="Buy the mug with express shipping.", snapshot=shop))
    assert valid(schema, plan(act("select", "select Express (2 days) in the Delivery dropdown")))
    assert not valid(schema, plan(act("select", "select Priority (1 day) in the Delivery dropdown")))
    assert not valid(schema, plan(act("select", "select Spain in the Country dropdown")))  # named none: left alone
    timeouts = """- combobox "Idle timeout" [ref=e1]:
  - option "5 minutes"
  - option "15 minutes"
  - option "60 minutes" [selected]"""
    schema = grounded_plan_schema(request(goal="Set the idle timeout to 15 minutes.", snapshot=timeouts))
    assert valid(schema, plan(act("select", "select 15 minutes in the Idle timeout dropdown")))  # said whole
    assert not valid(schema, plan(act("select", "select 5 minutes in the Idle timeout dropdown")))


def test_a_go_to_names_only_an_address_the_goal_gives() -> None:
    """A small planner wrote "go to the finish" and "go to the Section #1 page": pages named so."""
    schema = grounded_plan_schema(request())
    assert not valid(schema, plan(act("goto", "go to the finish")))
    assert not valid(schema, plan(act("goto", "go to http://elsewhere.test/")))
    given = grounded_plan_schema(request(goal="Open https://shop.test/cart, then check out as Ada. See also /help."))
    assert valid(given, plan(act("goto", "go to https://shop.test/cart")))
    assert valid(given, plan(act("goto", "go to /help")))
    assert not valid(given, plan(act("goto", "go to https://shop.test/cart/x")))
    assert not valid(given, plan(act("goto", "go to the cart page")))
