"""Names for what a page leaves unnamed (agentpair.tools.unnamed): on snapshot text, and on a real page in
Chromium, where clickable rows and words become named buttons and the click or the typing lands
on the right element."""

from __future__ import annotations

import pytest

from agentpair.tools.browser import Browser
from agentpair.tools.snapshot import INTERACTIVE
from agentpair.tools.unnamed import name_unnamed


def test_an_unnamed_field_takes_the_short_text_before_it_else_its_place_among_all_of_its_role() -> None:
    snapshot = """- generic [ref=e1]:
  - generic [ref=e2]:
    - generic [ref=e3]: Arrival time
    - textbox [ref=e4]
  - textbox [ref=e5]
  - textbox [ref=e6]
  - button "Go" [ref=e7]"""
    named = name_unnamed(snapshot, INTERACTIVE)
    assert '- textbox "Arrival time" [ref=e4]' in named
    assert '- textbox "2nd textbox" [ref=e5]' in named  # the sibling before it has children: no label
    assert '- textbox "3rd textbox" [ref=e6]' in named  # counted with the named one before it
    assert '- button "Go" [ref=e7]' in named
    table = """- table [ref=e1]:
  - row [ref=e2]:
    - rowheader "Director" [ref=e3]
    - cell [ref=e4]:
      - textbox [ref=e5]
  - row [ref=e6]:
    - cell [ref=e7]:
      - textbox [ref=e8]"""
    named = name_unnamed(table, INTERACTIVE)
    assert '- textbox "Director" [ref=e5]' in named and '- textbox "2nd textbox" [ref=e8]' in named


def test_a_text_without_a_letter_is_no_label() -> None:
    snapshot = """- generic [ref=e1]:
  - slider [ref=e2]
  - generic [ref=e3]: "-1"
  - checkbox [ref=e4]
  - checkbox [ref=e5]
  - checkbox [ref=e6]"""
    named = name_unnamed(snapshot, INTERACTIVE)
    assert '- checkbox "1st checkbox" [ref=e4]' in named  # not "-1", the slider's value beside it
    said = name_unnamed('- generic [ref=e1]:\n  - generic [ref=e2]: Type your name below.\n  - textbox [ref=e3]', INTERACTIVE)
    assert '- textbox "1st textbox" [ref=e3]' in said  # a sentence is no label
    assert '- checkbox "3rd checkbox" [ref=e6]' in named


def test_a_control_holding_a_named_control_or_quoted_is_left_as_it_is() -> None:
    snapshot = """- tablist [ref=e1]:
  - tab [ref=e2]:
    - 'link "Tab #1" [ref=e3]':
      - /url: "#tabs-1"
  - listbox [ref=e4]:
    - option "Mon" [ref=e5]"""
    named = name_unnamed(snapshot, INTERACTIVE).splitlines()
    assert named[1] == "  - tab [ref=e2]:"  # its link is what a step clicks
    assert named[4] == '  - listbox "1st listbox" [ref=e4]:'  # options are what it is set to


PAGE = """<!doctype html><title>Unnamed</title>
<div id="inbox">
  <div class="row" style="cursor:pointer" onclick="document.getElementById('out').textContent = 'opened Mira'">
    <div>Mira</div><div>Lunch on Tuesday?</div></div>
  <div class="row" style="cursor:pointer" onclick="document.getElementById('out').textContent = 'opened Tomas'">
    <div><span>Tomas</span> <span>Invoice 7</span></div><div>Due Friday</div></div>
</div>
<div><span>Arrival time</span><input id="arrival"></div>
<input id="other">
<p>Pick <span style="cursor:pointer" onclick="document.getElementById('out').textContent = 'word'">maple</span> now.</p>
<button style="cursor:pointer">Real button</button>
<p>Phone: <a style="cursor:pointer" onclick="document.getElementById('out').textContent = 'dialled'">555-0100</a></p>
<div><span id="send-now" style="cursor:pointer; display:inline-block; width:12px; height:12px;
  background-image:linear-gradient(red, blue)"></span></div>
<p id="out"></p>"""


@pytest.mark.asyncio
async def test_on_a_real_page_the_named_elements_can_be_acted_on_by_their_refs(tmp_path) -> None:
    (tmp_path / "index.html").write_text(PAGE)
    async with Browser() as browser:
        await browser.start_task(start_url=(tmp_path / "index.html").as_uri(), allow_file_urls=True)
        observation = await browser.observe()
        lines = {line.strip() for line in observation.snapshot.splitlines()}
        tomas = next(line for line in lines if line.startswith('- button "Tomas Invoice 7"'))  # its first line
        assert not any(line.startswith('- button "Invoice 7"') for line in lines)  # a part deep inside the row
        assert any(line.startswith('- button "maple"') for line in lines)  # a clickable word in a text
        assert any(line.startswith('- button "Real button"') for line in lines)
        assert any(line.startswith('- button "555-0100"') for line in lines)  # an <a> with no href is no link: a button
        assert any(line.startswith('- button "send now"') for line in lines)  # an icon: by its id
        arrival = next(line for line in lines if line.startswith('- textbox "Arrival time"'))
        assert any(line.startswith('- textbox "2nd textbox"') for line in lines)  # after "Arrival time"
        tools = browser.toolbox()
        ref = lambda line: line.split("[ref=")[1].split("]")[0]
        assert (await tools.get("click")({"ref": ref(tomas)})).ok
        assert (await tools.get("type")({"ref": ref(arrival), "text": "10:30"})).ok
        assert await browser.page.inner_text("#out") == "opened Tomas"
        assert await browser.page.input_value("#arrival") == "10:30"


ICON = "data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' width='12' height='12'/>"
MENU = """<!doctype html><title>Posts</title>
<style>
.acts span:hover, .acts ul:hover { cursor: pointer; }
.star, .more { content: url("%s"); }
.hide { display: none; }
</style>
<div class="acts"><span class="star" onclick="out.textContent = 'starred'"></span>
  <span><span class="more" onclick="this.nextElementSibling.classList.toggle('hide')"></span>
    <ul class="hide"><li onclick="out.textContent = 'copied'">Copy link</li><li onclick="out.textContent = 'muted'">Mute</li></ul>
  </span></div>
<ul role="menu"><li role="menuitem" style="cursor:pointer"><span class="caret" style="display:inline-block; width:8px;
  height:8px; background-image:linear-gradient(red, blue)"></span>Elsa</li></ul>
<p id="out"></p>""" % ICON


@pytest.mark.asyncio
async def test_what_only_its_hover_style_shows_clickable_is_named_and_a_list_of_actions_is_each_action(tmp_path) -> None:
    (tmp_path / "menu.html").write_text(MENU)
    async with Browser() as browser:
        await browser.start_task(start_url=(tmp_path / "menu.html").as_uri(), allow_file_urls=True)
        ref = lambda snapshot, name: snapshot.split(f'button "{name}" [ref=')[1].split("]")[0]
        snapshot = (await browser.observe()).snapshot
        assert 'button "star"' in snapshot and 'button "Copy link"' not in snapshot  # the menu is shut
        assert 'menuitem "Elsa"' in snapshot and 'button "caret"' not in snapshot  # its icon is the item's
        assert (await browser.toolbox().get("click")({"ref": ref(snapshot, "more")})).ok
        snapshot = (await browser.observe()).snapshot
        assert 'button "Copy link"' in snapshot and 'button "Mute"' in snapshot  # each item, not the list
        assert (await browser.toolbox().get("click")({"ref": ref(snapshot, "Mute")})).ok
        assert await browser.page.inner_text("#out") == "muted"


def test_ordinals_read_as_people_say_them() -> None:
    from agentpair.tools.unnamed import ordinal

    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]


def test_an_unnamed_field_takes_the_short_text_after_it_where_the_two_are_all_their_parent_holds() -> None:
    snapshot = """- generic [ref=e1]:
  - generic [ref=e2]:
    - textbox [ref=e3]
    - generic [ref=e4]: Nickname
  - generic [ref=e5]:
    - textbox [ref=e6]
    - generic [ref=e7]: Shown to others
    - generic [ref=e8]: Up to 20 letters
  - button "Go" [ref=e9]"""
    named = name_unnamed(snapshot, INTERACTIVE)
    assert '- textbox "Nickname" [ref=e3]' in named  # a label under its field
    assert '- textbox "2nd textbox" [ref=e6]' in named  # two texts after it: neither is plainly its label
