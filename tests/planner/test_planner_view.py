"""The planner's compact page view: one line per element, values and states kept, refs, URLs,
repeated labels and empty alerts dropped, and a cap that keeps elements before text."""

from __future__ import annotations

from agentpair.models import Task
from agentpair.planner.request import PlanRequest, ToolInfo, plan_request, render_user_message
from agentpair.planner.page_view import compact_page
from agentpair.tools.base import Observation

SNAPSHOT = """- generic [active] [ref=e1]:
  - navigation [ref=e2]:
    - link "Home" [ref=e3] [cursor=pointer]:
      - /url: /a
    - 'link "Price: low" [ref=e4] [cursor=pointer]':
      - /url: /b
  - 'heading "Checkout: step 2" [level=1] [ref=e5]'
  - alert [ref=e6]: Wrong username or password.
  - paragraph [ref=e7]: "Price: $5.00 \\"quoted\\" text"
  - generic [ref=e8]:
    - text: Username
    - textbox "Username" [ref=e9]: ada.lovelace
  - textbox "Password" [ref=e10]: "{{secret:password}}"
  - combobox "Delivery" [ref=e12]:
    - option "Standard"
    - 'option "Express: fast" [selected]'
  - generic [ref=e13]:
    - checkbox "Accept terms" [checked] [ref=e14]
    - text: Accept terms
  - listitem [ref=e21]:
    - strong [ref=e22]: Bold
    - text: item
  - table [ref=e27]:
    - rowgroup [ref=e28]:
      - row [ref=e32]:
        - cell "Weight" [ref=e33]
        - cell "1.38 kg" [ref=e34]
        - cell [ref=e35]:
          - link "Edit" [ref=e36] [cursor=pointer]:
            - /url: /edit
  - status [ref=e39]:
    - text: Saved
  - alert [ref=e40]
  - button "Place order" [ref=e37]
  - img "Logo" [ref=e38]"""

EXPECTED = """link "Home"
link "Price: low"
heading "Checkout: step 2"
alert: Wrong username or password.
Price: $5.00 "quoted" text
textbox "Username": ada.lovelace
textbox "Password": {{secret:password}}
combobox "Delivery" = Express: fast; options: Standard, Express: fast
checkbox "Accept terms" [checked]
Bold item
row: Weight | 1.38 kg
link "Edit"
status: Saved
button "Place order\""""


def test_a_snapshot_becomes_one_short_line_per_element() -> None:
    assert compact_page(SNAPSHOT) == EXPECTED


def test_the_cap_drops_text_before_elements_and_says_how_much() -> None:
    lines = [f'  - paragraph [ref=p{i}]: filler sentence number {i} that says little' for i in range(30)]
    buttons = [f'  - button "Action {i}" [ref=b{i}]' for i in range(10)]
    view = compact_page("- main [ref=e1]:\n" + "\n".join(lines + buttons), limit=300)
    assert len(view) <= 300
    assert all(f'button "Action {i}"' in view for i in range(10))
    assert view.endswith("more lines") and "filler sentence number 29" not in view


def test_plan_request_shows_the_compact_page_and_a_short_tool_list() -> None:
    task = Task(goal="Sign in as ada", secrets={"password": "Sesame-42"})
    observation = Observation(url="http://x.test/login", title="Sign in", snapshot=SNAPSHOT)
    tools = [ToolInfo(name="click", description="Click the element with this ref."),
             ToolInfo(name="type", description="Replace a field's text.")]
    request = plan_request(task, observation, [], [], tools)
    assert request.page == EXPECTED
    message = render_user_message(request)
    assert "Tools: click, type\n" in message and "Replace a field" not in message
    assert message.endswith("Page: Sign in (http://x.test/login)\n" + EXPECTED)
    single = render_user_message(PlanRequest(goal="g", tools=tools, single_model=True))
    assert "type: Replace a field's text." in single
    described = render_user_message(request, describe_tools=True)  # a capable endpoint's planner
    assert "Tools:\n- click: Click the element with this ref.\n- type: Replace a field's text.\n" in described


def test_a_disabled_element_is_no_name_a_step_may_use() -> None:
    from agentpair.planner.page_view import page_names

    names = page_names("""- textbox "Username" [disabled] [ref=e1]
- button "OK" [disabled] [ref=e2]
- dialog "Timing out" [ref=e3]:
  - button "Cancel" [ref=e4]""")
    assert names.fields == [] and list(names.clickable) == ["Cancel"]
