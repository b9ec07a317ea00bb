"""Every browser action against a real Chromium and a local site."""

from __future__ import annotations

import pytest

from agentpair.models import Step
from agentpair.agent.step_work import fill_requests
from agentpair.tools.base import Observation
from agentpair.tools.browser import Browser
from agentpair.tools.snapshot import find_ref, ref_roles

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def call(browser: Browser, name: str, **args):
    return await browser.toolbox().get(name)(args)


async def ref(browser: Browser, role: str, name: str) -> str:
    return find_ref((await browser.observe()).snapshot, role, name)


async def test_tools_have_simple_schemas(home: Browser) -> None:
    tools = {t.name: t for t in home.tools()}
    assert set(tools) == {"goto", "click", "type", "select", "check", "press", "scroll", "go_back", "wait_for", "read"}
    for tool in tools.values():
        for prop in tool.args_schema().get("properties", {}).values():
            assert prop.get("type") in {"string", "boolean", "integer"}, (tool.name, prop)


async def test_observe_refs_are_actionable(home: Browser, site) -> None:
    obs = await home.observe()
    assert obs.url == site.url + "/" and obs.title == "Test Home"
    assert "Test site" in obs.text and obs.refs
    link = find_ref(obs.snapshot, "link", "Second page")
    assert link in obs.refs
    result = await call(home, "click", ref=link)
    assert result.ok and result.changed_page and result.elapsed_ms > 0
    assert (await home.observe()).title == "Second"


async def test_goto_relative_and_go_back(home: Browser, site) -> None:
    assert (await call(home, "goto", url="/page2.html")).ok
    assert home.page.url == site.url + "/page2.html"
    back = await call(home, "go_back")
    assert back.ok and back.changed_page and home.page.url == site.url + "/"


async def test_go_back_without_history_is_an_error(browser: Browser, site) -> None:
    await browser.start_task(start_url=site.url + "/page2.html")
    result = await call(browser, "go_back")
    assert not result.ok and "no previous page" in result.error


async def test_type_with_submit_select_check_radio(home: Browser) -> None:
    assert (await call(home, "select", ref=await ref(home, "combobox", "Plan"), option="pro plan")).ok
    assert (await call(home, "check", ref=await ref(home, "checkbox", "Newsletter"), on=True)).ok
    assert (await call(home, "check", ref=await ref(home, "radio", "Large"))).ok
    typed = await call(home, "type", ref=await ref(home, "textbox", "Full name"), text="Mira Okafor", submit=True)
    assert typed.ok and "Mira Okafor" in typed.output
    page = home.page
    assert await page.input_value("#plan") == "pro"
    assert await page.is_checked("#news") and await page.is_checked("input[value=l]")
    assert await page.text_content("#out") == "Submitted Mira Okafor"
    assert (await call(home, "check", ref=await ref(home, "checkbox", "Newsletter"), on=False)).ok
    assert not await page.is_checked("#news")


async def test_select_in_a_list_that_takes_several_adds_to_those_chosen(home: Browser) -> None:
    await home.page.evaluate("""() => document.body.insertAdjacentHTML('beforeend', '<label>Crew <select id="crew" multiple>'
        + '<option>Ada</option><option>Bo</option><option>Cy</option></select></label>')""")
    for name in ("Cy", "Ada"):
        assert (await call(home, "select", ref=await ref(home, "listbox", "Crew"), option=name)).ok
    assert await home.page.eval_on_selector("#crew", "e => Array.from(e.selectedOptions, o => o.value)") == ["Ada", "Cy"]
    assert (await call(home, "select", ref=await ref(home, "combobox", "Plan"), option="Free")).ok  # one takes one
    assert await home.page.input_value("#plan") == "free"


async def test_the_executor_is_offered_only_elements_a_tool_can_act_on(home: Browser) -> None:
    obs = await home.observe()
    roles = ref_roles(obs.snapshot)
    assert roles[find_ref(obs.snapshot, "textbox", "Full name")] == "textbox"

    def offered(tool: str, observation: Observation = obs) -> list[str]:
        step = Step(kind="act", tool=tool, instruction=f"{tool} something")
        return fill_requests(step, "", observation, home.toolbox())[0].allowed["/ref"]
    for tool, fits in (("type", {"textbox", "searchbox", "combobox", "spinbutton"}),
                       ("select", {"combobox", "listbox"}), ("check", {"checkbox", "radio"})):
        assert offered(tool) and {roles[r] for r in offered(tool)} <= fits
    assert offered("click") == obs.refs
    assert (await call(home, "type", ref=offered("type")[0], text="x")).ok
    links_only = Observation(snapshot='- link "Home" [ref=e1]', refs=["e1"])
    assert offered("type", links_only) == ["e1"]  # nothing fits: every ref, and the tool says why


async def test_select_unknown_option_lists_choices(home: Browser) -> None:
    result = await call(home, "select", ref=await ref(home, "combobox", "Plan"), option="Enterprise")
    assert not result.ok and "'Free'" in result.error and "'Pro plan'" in result.error


async def test_press_and_textarea(home: Browser) -> None:
    notes = await ref(home, "textbox", "Notes")
    assert (await call(home, "type", ref=notes, text="line one\nline two")).ok
    assert (await call(home, "press", key="Tab")).ok
    assert await home.page.input_value("#notes") == "line one\nline two"
    bad = await call(home, "press", key="NoSuchKey")
    assert not bad.ok and "NoSuchKey" in bad.error


async def test_scroll(home: Browser) -> None:
    assert (await call(home, "scroll", direction="bottom")).ok
    assert await home.page.evaluate("window.scrollY") > 1000
    assert (await call(home, "scroll", direction="top")).ok
    assert await home.page.evaluate("window.scrollY") == 0
    assert (await call(home, "scroll", direction="down")).ok
    assert not (await call(home, "scroll", direction="sideways")).ok


async def test_wait_for_text_and_ref(home: Browser) -> None:
    missing = await call(home, "wait_for", text="Revealed text", timeout_ms=200)
    assert not missing.ok and "did not appear" in missing.error
    assert (await call(home, "click", ref=await ref(home, "button", "Reveal later"))).ok
    assert (await call(home, "wait_for", text="Revealed text")).ok
    assert (await call(home, "wait_for", ref=await ref(home, "heading", "Test site"))).ok
    assert not (await call(home, "wait_for")).ok


async def test_read_element_and_page(home: Browser) -> None:
    heading = await call(home, "read", ref=await ref(home, "heading", "Test site"))
    assert heading.ok and heading.output == "Test site" and not heading.changed_page
    name = await ref(home, "textbox", "Full name")
    await call(home, "type", ref=name, text="Grace")
    assert (await call(home, "read", ref=name)).output == "Grace"
    page = await call(home, "read")
    assert "Footer text" in page.output


async def test_bad_and_stale_refs_fail_fast(home: Browser) -> None:
    stale = await ref(home, "button", "Save profile")
    await call(home, "goto", url="/page2.html")
    result = await call(home, "click", ref=stale)
    assert not result.ok and "observe again" in result.error and result.elapsed_ms < 1500
    assert not (await call(home, "click", ref="not a ref!")).ok
    assert not (await call(home, "click", nope="e1")).ok


async def test_snapshot_budget_keeps_interactive_elements(site) -> None:
    async with Browser(snapshot_chars=700) as small:
        await small.start_task(start_url=site.url + "/")
        obs = await small.observe()
        assert len(obs.snapshot) <= 700
        assert find_ref(obs.snapshot, "textbox", "Full name") in obs.refs
        assert "omitted" in obs.snapshot
        assert (await small.toolbox().get("click")({"ref": find_ref(obs.snapshot, "link", "Second page")})).ok


async def test_caller_page_is_wrapped_and_left_open(browser: Browser, site, outside) -> None:
    from playwright.async_api import async_playwright

    from agentpair.tools.browser import LAUNCH_ARGS, find_chromium

    async with async_playwright() as pw:
        path = find_chromium(None, pw.chromium.executable_path)
        chromium = await pw.chromium.launch(executable_path=path, args=LAUNCH_ARGS)
        page = await chromium.new_page()
        async with Browser(page=page) as wrapped:
            assert (await wrapped.start_task(start_url=site.url + "/")).ok
            link = find_ref((await wrapped.observe()).snapshot, "link", "Partner site")
            blocked = await wrapped.toolbox().get("click")({"ref": link})
            assert not blocked.ok and "not an allowed origin" in blocked.error
            assert wrapped.page is page
        assert not page.is_closed() and page.url == site.url + "/"
        await chromium.close()
    assert "/steal" not in outside.hits


async def test_typing_into_a_read_only_field_fails_at_once_says_why_and_opens_its_picker(tmp_path) -> None:
    import time

    (tmp_path / "picker.html").write_text(
        '<label>Date <input id="d" readonly value="" onclick="document.getElementById(\'cal\').hidden = false">'
        '</label><div id="cal" hidden><a href="#">2</a></div>')
    async with Browser() as small:
        await small.start_task(start_url=(tmp_path / "picker.html").as_uri(), allow_file_urls=True)
        ref = next(line for line in (await small.observe()).snapshot.splitlines() if "textbox" in line)
        started = time.perf_counter()
        result = await small.toolbox().get("type")({"ref": ref.split("[ref=")[1].split("]")[0], "text": "12/06/2016"})
        assert not result.ok and "read-only" in result.error
        assert time.perf_counter() - started < 2.0  # not the 5 s action timeout
        assert 'link "2"' in (await small.observe()).snapshot  # clicked: the picker that sets it is open
        assert not result.disabled


async def test_typing_into_a_disabled_field_fails_saying_so_as_a_field_of_its_result(tmp_path) -> None:
    (tmp_path / "locked.html").write_text('<label>Total <input id="t" disabled value=""></label>')
    async with Browser() as small:
        await small.start_task(start_url=(tmp_path / "locked.html").as_uri(), allow_file_urls=True)
        ref = next(line for line in (await small.observe()).snapshot.splitlines() if "textbox" in line)
        result = await small.toolbox().get("type")({"ref": ref.split("[ref=")[1].split("]")[0], "text": "12"})
        assert not result.ok and result.disabled and "disabled" in (result.error or "")


async def test_a_date_or_time_typed_as_people_write_it_lands_in_a_date_or_time_field(tmp_path) -> None:
    from agentpair.tools.field_formats import field_value

    assert field_value("time", "9:37 PM") == "21:37" and field_value("date", "05/20/2010") == "2010-05-20"
    assert field_value("text", "9:37 PM") == "9:37 PM" and field_value("date", "next week") == "next week"
    (tmp_path / "when.html").write_text('<label>Day <input id="d" type="date"></label>'
                                        '<label>At <input id="t" type="time"></label>')
    async with Browser() as small:
        await small.start_task(start_url=(tmp_path / "when.html").as_uri(), allow_file_urls=True)
        refs = [line.split("[ref=")[1].split("]")[0] for line in (await small.observe()).snapshot.splitlines()
                if "[ref=" in line and ("Day" in line or "At" in line)]
        typing = small.toolbox().get("type")
        assert (await typing({"ref": refs[0], "text": "05/20/2010"})).ok
        assert (await typing({"ref": refs[1], "text": "9:37 PM"})).ok
        assert await small.page.input_value("#d") == "2010-05-20" and await small.page.input_value("#t") == "21:37"


async def test_a_fields_value_copied_into_another_is_typed_exactly_as_the_field_holds_it(tmp_path) -> None:
    (tmp_path / "copy.html").write_text('<textarea id="src">Two lines,\n  and a trailing space </textarea>'
                                        '<textarea id="dst" aria-label="Answer"></textarea><button>Send</button>')
    async with Browser() as small:
        await small.start_task(start_url=(tmp_path / "copy.html").as_uri(), allow_file_urls=True)
        obs = await small.observe()
        source = next(line for line in obs.snapshot.splitlines() if "Two lines" in line)
        assert "trailing space" in source and not source.endswith(" ")  # the snapshot trims it
        assert list(obs.field_values.values()) == ["Two lines,\n  and a trailing space "]
        step = Step(kind="act", tool="type", instruction="type Two lines, and a trailing space into the Answer field")
        [request] = fill_requests(step, "", obs, small.toolbox())
        assert request.allowed["/text"] == ["Two lines,\n  and a trailing space "]
        answer = find_ref(obs.snapshot, "textbox", "Answer")
        assert (await call(small, "type", ref=answer, text=request.allowed["/text"][0])).ok
        assert await small.page.input_value("#dst") == "Two lines,\n  and a trailing space "


async def test_the_buttons_of_a_form_that_do_not_send_it_are_reported(tmp_path) -> None:
    (tmp_path / "form.html").write_text(
        '<form><label>Name <input></label><button type="submit">Order</button><button type="button">Back</button>'
        '<button type="reset">Clear</button></form>'
        '<form><label>Note <input></label><button type="button">Check</button></form>'  # sent by no button
        '<button type="button">Help</button>')
    async with Browser() as small:
        await small.start_task(start_url=(tmp_path / "form.html").as_uri(), allow_file_urls=True)
        obs = await small.observe()
        names = {line.split('"')[1]: line.split("[ref=")[1].split("]")[0] for line in obs.snapshot.splitlines()
                 if "button" in line}
        assert sorted(obs.non_submit_buttons) == sorted([names["Back"], names["Clear"]])


async def test_a_runs_context_holds_its_page_and_nothing_chromium_builds_for_itself(home: Browser, site) -> None:
    """Chromium 156 builds its omnibox popups (WebUI pages, ~0.5 s of a core) in every new context,
    headless too, unless the launch turns them off: a run's context holds only the run's page."""
    cdp = await home._browser.new_browser_cdp_session()
    try:
        targets = (await cdp.send("Target.getTargets"))["targetInfos"]
    finally:
        await cdp.detach()
    context = next(t["browserContextId"] for t in targets if t["url"] == site.url + "/")
    assert [t["url"] for t in targets if t.get("browserContextId") == context] == [site.url + "/"]
