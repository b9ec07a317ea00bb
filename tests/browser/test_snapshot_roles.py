"""Reading roles back from a snapshot, and narrowing refs to the roles a tool acts on (no browser)."""

from __future__ import annotations

from agentpair.models import Step
from agentpair.agent.step_work import fill_requests, named_refs, page_values, verbatim_spans
from agentpair.tools.base import Observation, Tool, Toolbox
from agentpair.tools.browser_actions import CheckArgs, ClickArgs, GotoArgs, ReadArgs, SelectArgs, TypeArgs
from agentpair.tools.snapshot import link_urls, option_labels, page_texts, ref_roles, refs_fitting, told_apart

SNAPSHOT = """- main [ref=e1]:
  - link "Home" [ref=e2] [cursor=pointer]:
    - /url: index.html
  - 'textbox "Search: books" [ref=e3]'
  - iframe [ref=e4]:
    - textbox "Card number" [ref=f1e5]
  - button "Go" [ref=e6]
  - text: plain words"""
REFS = ["e1", "e2", "e3", "e4", "f1e5", "e6"]


def test_each_ref_has_the_role_of_its_line() -> None:
    assert ref_roles(SNAPSHOT) == {"e1": "main", "e2": "link", "e3": "textbox", "e4": "iframe",
                                   "f1e5": "textbox", "e6": "button"}


def test_refs_narrow_to_the_roles_given_or_stay_whole() -> None:
    assert refs_fitting(SNAPSHOT, REFS, ["textbox", "searchbox"]) == ["e3", "f1e5"]
    assert refs_fitting(SNAPSHOT, REFS, None) == REFS
    assert refs_fitting(SNAPSHOT, REFS, ["checkbox"]) == REFS  # none fits: the tool says what it needs
    assert refs_fitting(SNAPSHOT, ["e2", "e3"], ["textbox"]) == ["e3"]  # only refs the page offers


def test_a_code_steps_element_is_one_that_can_be_typed_into() -> None:
    async def run(args):  # never called
        raise AssertionError

    toolbox = Toolbox([Tool(name="type", description="type", args_model=TypeArgs, run=run)])
    step = Step(kind="code", instruction="fill the config", template="a = {{a}}", target="the Config box")
    observation = Observation(snapshot=SNAPSHOT, refs=REFS)
    code, element = fill_requests(step, "ctx", observation, toolbox)
    assert code.kind == "code" and element.allowed == {"/ref": ["e3", "f1e5"]}
    assert fill_requests(step, "ctx", observation, Toolbox())[1].allowed == {"/ref": REFS}  # no type tool


def test_an_optional_ref_may_be_left_empty_and_a_required_one_may_not() -> None:
    async def run(args):  # never called
        raise AssertionError

    toolbox = Toolbox([Tool(name="read", description="read", args_model=ReadArgs, run=run),
                       Tool(name="click", description="click", args_model=ClickArgs, run=run)])
    observation = Observation(snapshot=SNAPSHOT, refs=REFS)

    def allowed(tool: str) -> list[str]:
        step = Step(kind="act", instruction="x", tool=tool)
        return fill_requests(step, "ctx", observation, toolbox)[0].allowed["/ref"]
    assert allowed("read") == ["", *REFS]  # "" reads the whole page
    assert allowed("click") == REFS


def test_a_typed_value_is_the_value_the_instruction_names_or_a_secret_it_names() -> None:
    async def run(args):  # never called
        raise AssertionError

    toolbox = Toolbox([Tool(name="type", description="type", args_model=TypeArgs, run=run)])
    observation = Observation(snapshot=SNAPSHOT, refs=REFS)

    def texts(instruction: str) -> list[str]:
        step = Step(kind="act", instruction=instruction, tool="type")
        request, = fill_requests(step, "ctx", observation, toolbox, ["password", "api_key"])
        assert request.allowed["/ref"] == ["e3", "f1e5"]
        return request.allowed["/text"]
    assert texts('type "mira.okafor" into the Username field.') == ["mira.okafor"]  # quoted: whole, bare
    assert texts("type Mira Okafor into the Full name field") == ["Mira Okafor"]  # not "Mira Okafor into the"
    assert texts("type {{secret:password}} into the Password field") == ["{{secret:password}}"]
    assert texts("Enter the password") == ["the password", "{{secret:password}}"]
    assert "{{secret:api_key}}" in texts("Fill in the API key") and "{{secret:api_key}}" not in texts("Type x")
    assert set(texts("Set Title to silver harbour lights and press Enter")) == {
        "Title", "Title to silver harbour lights", "silver harbour lights", "Enter"}  # never "harbour lights",
    # nor run on into the next clause
    assert texts("In the Search notes input, type chess") == ["chess"]  # the verb opening a clause
    assert "profile" in texts("save profile")  # no value named the usual way: still the step's own words
    assert texts("Write Dinner in the park") == ["Dinner"]  # the wording resumed at "in the"
    assert texts("Write 'Dinner in the park'") == ["Dinner in the park"]  # unless quoted
    named = Observation(snapshot='- textbox "Coupon code" [ref=e1]\n- textbox "Job title" [ref=e2]', refs=["e1", "e2"])
    step = Step(kind="act", instruction="Write 4WS3RQ in Coupon code", tool="type")
    assert fill_requests(step, "ctx", named, toolbox)[0].allowed == {"/ref": ["e1"], "/text": ["4WS3RQ"]}
    grounded = Step(kind="act", instruction="type Mind the gap. Then smile into the Job title field", tool="type")
    assert fill_requests(grounded, "ctx", named, toolbox)[0].allowed["/text"] == ["Mind the gap. Then smile"]  # whole


def test_verbatim_spans_stop_at_a_dozen_words() -> None:
    words = [f"w{i}" for i in range(30)]
    spans = verbatim_spans(" ".join(words), "shown")
    assert " ".join(words[-12:]) in spans and " ".join(words[-13:]) not in spans
    assert verbatim_spans("", "named") == [] and verbatim_spans("the pin", "named", ["pin", "key"]) == ["{{secret:pin}}"]


def test_a_value_a_page_shows_ends_where_a_text_or_its_part_does() -> None:
    assert verbatim_spans("Crimson Walnut cushion", "shown") == ["Crimson Walnut cushion", "Walnut cushion", "cushion"]
    spans = verbatim_spans("By Ada Byron · 2024-03-08 · 15 min read", "shown")
    assert {"Ada Byron", "2024-03-08", "15 min read"} <= set(spans) and "Ada" not in spans
    assert not any("·" in s for s in spans)  # a shown value does not run past a separator
    title = verbatim_spans("Search: climbing - Keduru", "shown")
    assert {"climbing", "Keduru"} <= set(title) and "climbing - Keduru" not in title
    phone = verbatim_spans("Questions? Call 371-4646.", "shown")
    assert "371-4646" in phone and "371-4646." not in phone  # the sentence's full stop is not the value's


def test_an_option_to_pick_is_one_the_page_shows_when_the_instruction_names_one() -> None:
    async def run(args):  # never called
        raise AssertionError

    snapshot = """- combobox "Sort by" [ref=e1]:
  - option "Featured" [selected]
  - 'option "Price: low to high"'"""
    assert option_labels(snapshot) == ["Featured", "Price: low to high"]
    toolbox = Toolbox([Tool(name="select", description="select", args_model=SelectArgs, run=run)])

    def options(instruction: str) -> list[str]:
        step = Step(kind="act", instruction=instruction, tool="select")
        return fill_requests(step, "ctx", Observation(snapshot=snapshot, refs=["e1"]), toolbox)[0].allowed["/option"]
    assert options("select Price: low to high in the Sort by dropdown") == ["Price: low to high"]
    assert options("select Newest in the Sort type dropdown") == ["Newest"]  # not on the page: the named value
    # (and not "dropdown": the "type" of a label opens no clause)


def test_a_box_is_checked_or_unchecked_as_the_steps_verb_says() -> None:
    async def run(args):  # never called
        raise AssertionError

    toolbox = Toolbox([Tool(name="check", description="check", args_model=CheckArgs, run=run)])
    page = Observation(snapshot='- checkbox "Python workshop" [ref=e1]', refs=["e1"])

    def on(instruction: str) -> list[bool] | None:
        step = Step(kind="act", instruction=instruction, tool="check")
        return fill_requests(step, "ctx", page, toolbox)[0].allowed.get("/on")
    assert on("check the Python workshop box") == [True] and on("Tick Python workshop") == [True]
    assert on("uncheck the Python workshop box") == [False] and on("Switch Python workshop off") == [False]
    assert on("Turn on Python workshop") == [True] and on("Disable Python workshop") == [False]
    assert on("the Python workshop: yes") is None  # no verb that says: left to the executor


def test_a_url_to_open_is_in_the_instruction_or_a_link_on_the_page() -> None:
    async def run(args):  # never called
        raise AssertionError

    assert link_urls(SNAPSHOT) == ["index.html"]
    toolbox = Toolbox([Tool(name="goto", description="goto", args_model=GotoArgs, run=run)])
    step = Step(kind="act", instruction="Navigate to /search?page=2", tool="goto")
    request, = fill_requests(step, "ctx", Observation(snapshot=SNAPSHOT, refs=REFS), toolbox)
    assert {"/search?page=2", "index.html"} <= set(request.allowed["/url"])
    assert "/ref" not in request.allowed and "/search" not in request.allowed["/url"]


def test_an_extraction_reads_words_and_numbers_the_page_shows() -> None:
    page = Observation(url="http://shop.test/parcels/7", title="Parcel 7", snapshot="""- main [ref=e1]:
  - heading "Tern 40 Pro" [level=1] [ref=e2]
  - paragraph [ref=e3]: Price $1,299.50 · 16 GB · in stock
  - link "Reviews" [ref=e4]:
    - /url: /reviews/77""")
    schema = {"type": "object", "properties": {
        "label": {"type": "string", "maxLength": 20}, "price": {"type": "number"}, "ram": {"type": "integer"},
        "color": {"type": "string", "enum": ["red"]}, "ok": {"type": "boolean"}, "row_count": {"type": "integer"},
        "reviews": {"type": "integer", "description": "how many reviews"}}}
    allowed = page_values(page, schema)
    assert set(allowed) == {"/label", "/price", "/ram", "/row_count", "/reviews"}  # enums, booleans: the schema's
    assert {"", "Tern 40 Pro", "16 GB", "parcels", "Parcel 7"} <= set(allowed["/label"])
    assert all(len(v) <= 20 for v in allowed["/label"]) and "heading" not in allowed["/label"]
    assert not any("ref=" in v or "/reviews" in v for v in allowed["/label"])  # no syntax, no link targets
    assert allowed["/price"] == [40.0, 1299.5, 16.0, 7.0]  # the lines' numbers, the URL's path's, commas dropped
    assert allowed["/ram"] == [40, 16, 7]  # read off the page
    assert allowed["/row_count"][:3] == [40, 16, 7] and set(allowed["/row_count"]) == set(range(21)) | {40, 16, 7}
    assert set(allowed["/reviews"]) == set(allowed["/row_count"])  # a count: asked for by name or description


def test_a_number_field_named_with_a_unit_reads_numbers_shown_in_that_unit() -> None:
    page = Observation(url="http://shop.test/p/9", snapshot="""- main [ref=e1]:
  - paragraph [ref=e2]: $1,499 · 14.2" · 2.1 kg (4.6 lb) · 32 GB · 1 TB
  - cell "Tern 60: $2,199" [ref=e3]""")
    schema = {"type": "object", "properties": {
        "price_usd": {"type": "number"}, "ram_gb": {"type": "integer"}, "weight_kg": {"type": "number"},
        "screen_in": {"type": "number"}, "battery_h": {"type": "integer"}, "price": {"type": "number"}}}
    allowed = page_values(page, schema)
    assert allowed["/price_usd"] == [1499.0, 2199.0] and allowed["/ram_gb"] == [32]
    assert allowed["/weight_kg"] == [2.1] and allowed["/screen_in"] == [14.2]
    every = [1499.0, 14.2, 2.1, 4.6, 32.0, 1.0, 60.0, 2199.0, 9.0]
    assert allowed["/battery_h"] == [1499, 32, 1, 60, 2199, 9]  # no number in hours on the page: all of them
    assert allowed["/price"] == every  # no unit in the name


def test_the_pages_texts_are_names_and_values_not_syntax_links_or_placeholders() -> None:
    texts = page_texts(SNAPSHOT + """
  - textbox "Email" [ref=e7]: ada@x.org
    - /placeholder: you@example.com
  - 'button "Say \\"hi\\": now" [ref=e8]': 'It''s late'""")
    assert texts == ["Home", "Search: books", "Card number", "Go", "plain words", "Email", "ada@x.org",
                     'Say "hi": now', "It's late"]


SPEC_SHEET = """- main [ref=e1]:
  - heading "Tern 40 Pro" [level=1] [ref=e2]
  - paragraph [ref=e3]: $1,799 $1,999 - save $200
  - table "Specifications" [ref=e4]:
    - rowgroup [ref=e5]:
      - row [ref=e6]:
        - rowheader "Memory" [ref=e7]
        - cell "32 GB" [ref=e8]
      - row [ref=e9]:
        - rowheader "Battery" [ref=e10]
        - cell "70 Wh, up to 18 h" [ref=e11]
  - table [ref=e12]:
    - rowgroup [ref=e13]:
      - row [ref=e14]:
        - columnheader "Model" [ref=e15]
        - columnheader "Price" [ref=e16]
        - columnheader "Memory" [ref=e17]
      - row [ref=e18]:
        - cell [ref=e19]:
          - link "Tern 60 Pro" [ref=e20]:
            - /url: /nimbus-16-pro
        - cell "$2,199" [ref=e21]
        - cell "64 GB" [ref=e22]
  - list [ref=e23]:
    - listitem [ref=e24]:
      - link "Sleeve for Tern 40" [ref=e25]
      - paragraph [ref=e26]: $39 from Ada Byron
    - listitem [ref=e27]:
      - link "Dock for Tern 40" [ref=e28]
      - paragraph [ref=e29]: $89 from Lin Feng"""


def test_an_extraction_is_offered_what_the_page_says_of_the_thing_it_names() -> None:
    page = Observation(url="http://shop.test/nimbus-14-pro", snapshot=SPEC_SHEET)
    schema = {"type": "object", "properties": {
        "memory_gb": {"type": "integer"}, "price_usd": {"type": "number"}, "battery_h": {"type": "integer"},
        "seller": {"type": "string"}, "price": {"type": "number"}}}
    own = page_values(page, schema, "Extract the memory gb, price usd, battery h of Tern 40 Pro")
    assert own["/memory_gb"] == [32]  # the row headed Memory, not the sibling's 64 in the Memory column
    assert own["/battery_h"] == [18]  # that row's number in hours
    assert own["/price_usd"] == [1799.0, 1999.0, 200.0, 39.0, 89.0]  # not the sibling's $2,199
    ram = page_values(page, {"type": "object", "properties": {"ram_gb": {"type": "integer"}}},
                      "Extract the ram gb of Tern 40 Pro")
    assert ram["/ram_gb"] == [32]  # no row or column says RAM: not the 64 of the sibling's row
    sibling = page_values(page, schema, "Return the memory gb, price usd of Tern 60 Pro")
    assert sibling["/memory_gb"] == [64] and sibling["/price_usd"] == [2199.0]  # its row, in the column
    assert sibling["/battery_h"] == [2199, 64]  # none in hours on its row: its row's numbers, not its name's 16
    item = page_values(page, schema, "Read the seller, price for Dock for Tern 40")
    assert item["/price"] == [89.0] and "Lin Feng" in item["/seller"]  # its result's block only
    assert not {"Ada Byron", "Dock", "Tern 40"} & set(item["/seller"])  # not another's, nor its own name's parts


RESULTS = """- main [ref=e1]:
  - link "Menu" [ref=e2]
  - link "Press" [ref=e3]
  - list [ref=e4]:
    - listitem [ref=e5]:
      - link "The Salt Road" [ref=e6]
      - text: Ines Moreau · Hardcover, 1969 · $120.00
      - button "Add to wishlist" [ref=e7]
    - listitem [ref=e8]:
      - link "The Salt Road" [ref=e9]
      - text: Ines Moreau · Paperback, 2000 · $12.99
      - button "Add to wishlist" [ref=e10]
    - listitem [ref=e11]:
      - 'link "Study Guide: The Salt Road" [ref=e12]'
      - text: BookNotes Editors · Paperback, 2000
  - link "Cart (2)" [ref=e13]"""


def test_same_named_elements_are_told_apart_by_what_their_item_alone_says() -> None:
    assert told_apart(RESULTS) == {"e6": "Hardcover, 1969", "e9": "Paperback, 2000",
                                   "e7": "Hardcover, 1969", "e10": "Paperback, 2000"}
    assert told_apart(SNAPSHOT) == {}


def test_a_step_is_offered_the_refs_of_the_element_it_names() -> None:
    refs = [f"e{i}" for i in range(1, 14)]
    assert named_refs(RESULTS, refs, "click the The Salt Road link") == ["e6", "e9"]
    assert named_refs(RESULTS, refs, "click the The Salt Road link (Paperback, 2000)") == ["e9"]
    assert named_refs(RESULTS, refs, "open the Study Guide: The Salt Road page") == ["e12"]
    assert named_refs(RESULTS, refs, "Press the Menu link") == ["e2"]  # not the link called Press
    assert named_refs(RESULTS, refs, "Press") == ["e3"]
    assert named_refs(RESULTS, refs, "click the Cart link") == ["e13"]  # as a step says it
    assert named_refs(RESULTS, refs, "go to the basket") == refs  # names none: all stay


def test_a_boolean_field_reads_the_box_or_switch_named_with_its_label() -> None:
    page = Observation(snapshot='- switch "Read receipts" [checked] [ref=e1]\n- checkbox "Compact view" [ref=e2]\n'
                                '- checkbox "In stock only" [checked] [ref=e3]', refs=["e1", "e2", "e3"])
    schema = {"type": "object", "properties": {
        "read_receipts": {"type": "boolean"}, "compact_view": {"type": "boolean"}, "in_stock": {"type": "boolean"}}}
    assert page_values(page, schema, "Is Read receipts turned on?") == {"/read_receipts": [True],
                                                                       "/compact_view": [False]}
    # a filter named with more words says nothing of a product's stock: left to the model


def test_a_count_of_rows_is_the_number_of_rows_a_table_has_below_its_header() -> None:
    table = """- table [ref=e1]:
  - row "Name Price" [ref=e2]:
    - columnheader "Name" [ref=e3]
    - columnheader "Price" [ref=e4]
  - row "Ada 12" [ref=e5]:
    - cell "Ada" [ref=e6]
    - cell "12" [ref=e7]
  - row "Bob 7" [ref=e8]:
    - cell "Bob" [ref=e9]
    - cell "7" [ref=e10]
- text: Showing 5 of 9"""
    schema = {"type": "object", "properties": {"row_count": {"type": "integer"}, "total": {"type": "integer"}}}
    allowed = page_values(Observation(snapshot=table, refs=[]), schema, "How many rows has the table?")
    assert allowed["/row_count"] == [2]
    assert {5, 9, 12, 7, 0, 20} <= set(allowed["/total"])  # another count: the page's numbers and 0-20


def test_the_first_result_is_what_a_lists_first_item_says_first() -> None:
    results = """- heading "5 results for pottery" [ref=e1]
- list [ref=e2]:
  - listitem [ref=e3]:
    - link "Coral Marble candle" [ref=e4]
    - paragraph [ref=e5]: $389.39 from Madu Jopofi
  - listitem [ref=e6]:
    - link "Ivory Lavender scarf" [ref=e7]"""
    schema = {"type": "object", "properties": {"first_result": {"type": "string"}, "seller": {"type": "string"}}}
    allowed = page_values(Observation(snapshot=results, refs=[]), schema, "Read the first result")
    assert allowed["/first_result"] == ["Coral Marble candle"]
    assert "5 results for pottery" in allowed["/seller"]  # other fields: what the page shows


def test_the_name_of_the_thing_the_instruction_names_is_its_name() -> None:
    page = Observation(snapshot='- heading "Tern 40 Pro" [level=1] [ref=e1]\n- paragraph [ref=e2]: $1,499.00',
                       refs=["e1", "e2"])
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "price_usd": {"type": "number"}}}
    assert page_values(page, schema, "extract the price of the Tern 40 Pro")["/name"] == ["Tern 40 Pro"]
    # naming nothing, the name is what the page is about: its main heading
    assert page_values(page, schema, "extract the name and price in US dollars")["/name"] == ["Tern 40 Pro"]
    plain = Observation(snapshot='- paragraph [ref=e1]: Tern 40 Pro costs $1,499.00', refs=["e1"])
    assert "" in page_values(plain, schema, "extract the name and price")["/name"]  # no heading: as before
    titled = {"type": "object", "properties": {"title": {"type": "string"}}}  # an article's title need not be it
    assert "" in page_values(page, titled, "extract the title")["/title"]


POSTS = """- generic [ref=e1]:
  - generic [ref=e2]:
    - generic [ref=e3]:
      - text: Ines @ines
      - generic [ref=e4]: 2h ago
    - generic [ref=e5]: Rain again.
    - generic [ref=e6]:
      - button "reply" [ref=e7]
      - button "like" [ref=e8]
  - generic [ref=e9]:
    - generic [ref=e10]:
      - text: Olu @olu
      - generic [ref=e11]: 5h ago
    - generic [ref=e12]: Sun at last.
    - generic [ref=e13]:
      - button "reply" [ref=e14]
      - button "like" [ref=e15]"""


def test_where_the_nearest_items_say_the_same_the_items_around_them_tell_apart() -> None:
    apart = told_apart(POSTS)  # each post's row of actions says only "reply like": its post tells
    assert apart["e7"] == "Ines @ines" and apart["e14"] == "Olu @olu"
    assert apart["e8"] == "Ines @ines" and apart["e15"] == "Olu @olu"


def test_a_name_said_inside_the_telling_brackets_names_no_element() -> None:
    inbox = """- generic [ref=e1]:
  - button "Odile" [ref=e2]:
    - button "trash" [ref=e3]
  - button "Bruno" [ref=e4]:
    - button "trash" [ref=e5]"""
    refs = ["e2", "e3", "e4", "e5"]
    assert named_refs(inbox, refs, "click the trash button (Bruno)") == ["e5"]  # not Bruno's row


def test_a_label_the_instruction_asks_for_is_not_taken_for_the_thing_it_names() -> None:
    profile = """- heading "Mira Okafor" [level=1] [ref=e1]
- term: Followers
- definition: "1934"
- term: City
- definition: Lagos"""
    page = Observation(url="http://club.test/u/mira", snapshot=profile)
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "followers": {"type": "integer"}}}
    allowed = page_values(page, schema, "What are the name, followers of this page?")
    assert allowed["/name"] == ["Mira Okafor"]  # the page's heading, not the label "Followers"
    assert 1934 in allowed["/followers"]
